#include "patterns/analyze_file.h"

#include "patterns/registry.h"
#include "trace/cut.h"
#include "trace/matching.h"
#include "trace/reader.h"

#include <chrono>
#include <filesystem>

namespace topolens::patterns {

bool is_trace_path(const std::string& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) return true;
    return std::filesystem::path(path).extension() == ".otf2";
}

FileAnalysis analyze_file(const std::string& path, const analysis::AnalysisOptions& options,
                          bool root_causes) {
    const auto start = std::chrono::steady_clock::now();
    const auto [trace, matching] = trace::read_and_match(path, options.threads, options.progress);
    FileAnalysis file;
    file.read_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    file.anchor = trace.path;
    file.cut_short = trace::describe_cut(trace);
    file.result = analysis::analyze(trace, matching, all_patterns(root_causes), options);
    return file;
}

} // namespace topolens::patterns
