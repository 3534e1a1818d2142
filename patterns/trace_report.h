// A trace's report: `topolens analyze` writes it beside the trace's anchor (report.cubex, as
// Scalasca puts scout.cubex into the experiment directory). Every reader of reports (summary,
// values, audit, the GUI) opens a trace directory through it: the report when it is there and
// up to date, else the trace is analyzed first and its report written.
#pragma once

#include "analyzer/engine/engine.h"
#include "analyzer/report/report.h"

#include <iosfwd>
#include <string>

namespace topolens::patterns {

inline constexpr const char* kReportName = "report.cubex";

// <directory of the anchor>/report.cubex.
std::string default_report_path(const std::string& anchor);

// "topolens: warning: ..." for the first ten of the analysis' warnings, then how many more.
void note_warnings(const analysis::AnalysisResult& result, std::ostream& notes);

// The report `path` stands for. A report file is read. A trace (archive directory or .otf2
// anchor) gives its default report when that is at least as new as every file of the trace;
// otherwise the trace is analyzed with `options`, the report written there (when it cannot
// be, the analysis is used all the same) and `notes` told why, with the analysis' warnings. A
// directory holding a report but no trace gives that report, one of profile mode (a profile,
// no trace) its profile. Throws std::runtime_error with one
// line naming the directory for a directory with neither, and what read_cube4 and analyze_file
// throw.
report::Report open_report(const std::string& path, std::ostream& notes,
                           const analysis::AnalysisOptions& options = {});

} // namespace topolens::patterns
