// Analyzing a trace file: read it, match its messages and replay it with every pattern
// (all_patterns()). The one entry the command line (`topolens analyze`, `topolens audit`) and
// the GUI share; the GUI reaches the engine and the trace reader through it alone.
#pragma once

#include "analyzer/engine/engine.h"

#include <string>

namespace topolens::patterns {

struct FileAnalysis {
    analysis::AnalysisResult result; // the report, warnings, events read
    std::string anchor;              // the trace's .otf2 anchor
    double read_seconds = 0;         // reading and matching
    std::string cut_short;           // trace::describe_cut: empty unless the run died
};

// True when `path` names a trace (archive directory or .otf2 anchor) rather than a report.
bool is_trace_path(const std::string& path);

// `options.threads` read, match and replay; `options.progress` receives the progress lines of
// all three. Throws std::exception (trace errors, analysis::GridError) naming the problem.
// `root_causes` false: without the root-cause analysis (all_patterns).
FileAnalysis analyze_file(const std::string& path, const analysis::AnalysisOptions& options = {},
                          bool root_causes = true);

} // namespace topolens::patterns
