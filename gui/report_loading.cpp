#include "gui/report_loading.h"

#include "analyzer/report/cube4.h"
#include "patterns/analyze_file.h"
#include "patterns/trace_report.h"

#include <iostream>
#include <streambuf>

namespace topolens::gui {

namespace {

// An ostream buffer handing every complete line to a callback: the engine writes progress
// to an ostream, the GUI shows it in a progress dialog.
class LineBuffer : public std::streambuf {
  public:
    explicit LineBuffer(const std::function<void(const std::string&)>& sink) : sink_(sink) {}

  protected:
    int overflow(int ch) override {
        if (ch == traits_type::eof()) return ch;
        if (ch == '\n') {
            if (sink_) sink_(line_);
            line_.clear();
        } else {
            line_.push_back(static_cast<char>(ch));
        }
        return ch;
    }

  private:
    const std::function<void(const std::string&)>& sink_;
    std::string line_;
};

} // namespace

report::Report load_report_or_trace(const std::string& path,
                                    const std::function<void(const std::string&)>& progress) {
    if (!patterns::is_trace_path(path)) return report::read_cube4(path);
    LineBuffer buffer(progress);
    std::ostream progress_stream(&buffer);
    // Whether the trace is analyzed first, and why: on stderr, as the command line says it,
    // and in the progress dialog.
    const std::function<void(const std::string&)> note = [&](const std::string& line) {
        std::cerr << line << "\n";
        if (progress) progress(line);
    };
    LineBuffer note_buffer(note);
    std::ostream notes(&note_buffer);
    analysis::AnalysisOptions options;
    options.progress = &progress_stream;
    return patterns::open_report(path, notes, options);
}

} // namespace topolens::gui
