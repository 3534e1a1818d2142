#include "patterns/trace_report.h"

#include "analyzer/report/cube4.h"
#include "patterns/analyze_file.h"
#include "trace/cut.h"
#include "trace/experiment_files.h"
#include "trace/reader.h"

#include <filesystem>
#include <ostream>
#include <stdexcept>

namespace topolens::patterns {

namespace {

namespace fs = std::filesystem;

bool holds_anchor(const fs::path& directory) {
    std::error_code ec;
    for (const fs::directory_entry& e : fs::directory_iterator(directory, ec))
        if (e.path().extension() == ".otf2" && e.is_regular_file(ec)) return true;
    return false;
}

// The newest modification time among the files of the archive whose anchor is `anchor`:
// the anchor, the global definitions, the per-location files and the cut-short marker.
fs::file_time_type newest_trace_file(const fs::path& anchor) {
    std::error_code ec;
    fs::file_time_type newest = fs::last_write_time(anchor, ec);
    const auto consider = [&](const fs::path& p) {
        std::error_code e;
        const fs::file_time_type t = fs::last_write_time(p, e);
        if (!e && t > newest) newest = t;
    };
    fs::path stem = anchor;
    stem.replace_extension();
    consider(fs::path(stem).concat(".def"));
    consider(anchor.parent_path() / trace::kCutMarkerName);
    for (auto it = fs::recursive_directory_iterator(stem, ec); !ec && it != fs::end(it);
         it.increment(ec))
        if (it->is_regular_file(ec)) consider(it->path());
    return newest;
}

constexpr std::size_t kWarningsShown = 10;

} // namespace

void note_warnings(const analysis::AnalysisResult& result, std::ostream& notes) {
    // Each line in one write: under mpirun a rank's stderr and stdout travel apart, and a
    // line written in pieces can be cut by the other's.
    for (std::size_t i = 0; i < result.warnings.size() && i < kWarningsShown; ++i)
        notes << ("topolens: warning: " + result.warnings[i] + "\n");
    if (result.warnings.size() > kWarningsShown)
        notes << ("topolens: " + std::to_string(result.warnings.size() - kWarningsShown) +
                  " more warnings not shown\n");
}

std::string default_report_path(const std::string& anchor) {
    return (fs::path(anchor).parent_path() / kReportName).string();
}

report::Report open_report(const std::string& path, std::ostream& notes,
                           const analysis::AnalysisOptions& options) {
    if (!is_trace_path(path)) return report::read_cube4(path);
    std::error_code ec;
    const bool directory = fs::is_directory(path, ec);
    const fs::path folder = directory ? fs::path(path) : fs::path(path).parent_path();
    const fs::path report_path = folder / kReportName;
    const bool has_report = fs::is_regular_file(report_path, ec);
    if (directory && !holds_anchor(folder)) {
        if (has_report) return report::read_cube4(report_path.string());
        // Profile mode's directory: its profile is the report.
        const fs::path profile = folder / trace::kProfileName;
        if (fs::is_regular_file(profile, ec)) return report::read_cube4(profile.string());
        throw std::runtime_error(path + ": neither a trace (no .otf2 anchor) nor a report (no " +
                                 kReportName + ", no " + trace::kProfileName +
                                 ") is in this directory");
    }
    const fs::path anchor = trace::find_anchor(path);
    if (has_report && fs::last_write_time(report_path, ec) >= newest_trace_file(anchor))
        return report::read_cube4(report_path.string());

    notes << "topolens: analyzing " << path << " first: "
          << (has_report ? report_path.string() + " is older than the trace"
                         : "it has no report yet (" + report_path.string() + ")")
          << "\n";
    FileAnalysis file = analyze_file(path, options);
    if (!file.cut_short.empty()) notes << "topolens: " << file.cut_short << "\n";
    note_warnings(file.result, notes);
    try {
        report::write_cube4(file.result.report, report_path.string());
        notes << "topolens: report written to " << report_path.string() << "\n";
    } catch (const std::exception& e) {
        notes << "topolens: the report could not be written, it is used unsaved: " << e.what()
              << "\n";
        return std::move(file.result.report);
    }
    // The report as saved: Cube's files hold each metric with its children, and taking
    // those apart again can round a value's last digit differently, so every later command
    // on the directory shows what this one shows.
    return report::read_cube4(report_path.string());
}

} // namespace topolens::patterns
