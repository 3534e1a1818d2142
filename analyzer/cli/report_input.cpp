#include "analyzer/cli/report_input.h"

#include "analyzer/cli/cut_short.h"
#include "patterns/analyze_file.h"
#include "patterns/trace_report.h"

#include <iostream>

namespace topolens::cli {

report::Report open_report_input(const std::string& path) {
    if (patterns::is_trace_path(path)) complete_if_cut_short(path);
    return patterns::open_report(path, std::cerr);
}

} // namespace topolens::cli
