// What summary, values and audit read: a CUBE4 report, or a trace directory (or anchor)
// standing for its report (patterns/trace_report.h), a cut-short one completed first.
#pragma once

#include "analyzer/report/report.h"

#include <string>

namespace topolens::cli {

// patterns::open_report with its notes on stderr. Throws std::exception naming the problem.
report::Report open_report_input(const std::string& path);

} // namespace topolens::cli
