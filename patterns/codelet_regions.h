// Whether a report's regions hold codelets of tuned operations (an autotuned run): the
// metric catalogue gives such reports the codelet metrics, and the codelet pattern adds to
// them.
#pragma once

#include "analyzer/report/report.h"

namespace topolens::patterns {

bool has_codelets(const report::Report& report);

} // namespace topolens::patterns
