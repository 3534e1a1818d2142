// Opening what the user names: a CUBE4 report is read; an OTF2 trace (archive directory or
// .otf2 anchor) stands for its report, which is written first (analyzing the trace with every
// pattern, as `topolens analyze` does) when it is missing or older than the trace
// (patterns/trace_report.h).
#pragma once

#include "analyzer/report/report.h"

#include <functional>
#include <string>

namespace topolens::gui {

// Throws std::exception (report::ReportError, trace errors, ...) with a message naming the
// file and the problem. `progress` receives the analysis' progress lines (may be empty).
report::Report load_report_or_trace(const std::string& path,
                                    const std::function<void(const std::string&)>& progress = {});

} // namespace topolens::gui
