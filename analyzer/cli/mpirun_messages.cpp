#include "analyzer/cli/mpirun_messages.h"

#include "analyzer/cli/commands.h"

#include <algorithm>
#include <ostream>

namespace topolens::cli {

namespace {

// Open MPI frames each help message with a line of 74 dashes; no line of the ranks is one.
constexpr std::size_t kFrameMinimum = 20;

bool only_dashes(std::string_view text) {
    return std::all_of(text.begin(), text.end(), [](char c) { return c == '-'; });
}

std::string_view without_newline(std::string_view line) {
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
    return line;
}

bool is_frame(std::string_view line) {
    line = without_newline(line);
    return line.size() >= kFrameMinimum && only_dashes(line);
}

} // namespace

void MpirunMessages::take(std::string_view text) {
    while (!text.empty()) {
        const std::size_t newline = text.find('\n');
        const std::size_t length = newline == std::string_view::npos ? text.size() : newline + 1;
        line_.append(text.substr(0, length));
        text.remove_prefix(length);
        if (newline != std::string_view::npos) {
            end_line();
        } else if (!in_block_ && !only_dashes(line_)) {
            // A line that is no frame and outside a message (a rank's, still coming): out now.
            out_ << std::string_view(line_).substr(written_) << std::flush;
            written_ = line_.size();
        }
    }
}

void MpirunMessages::finish() {
    if (!line_.empty()) end_line();
}

void MpirunMessages::end_line() {
    const bool frame = is_frame(line_);
    if (frame || in_block_) {
        held_ += line_;
        if (frame) in_block_ = !in_block_;
    } else {
        if (line_.starts_with(kErrorPrefix)) reported_error_ = true;
        out_ << std::string_view(line_).substr(written_) << std::flush;
    }
    line_.clear();
    written_ = 0;
}

void MpirunMessages::release() {
    out_ << held_ << std::flush;
    held_.clear();
}

} // namespace topolens::cli
