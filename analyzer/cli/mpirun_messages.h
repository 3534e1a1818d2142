// What mpirun writes on stderr while it runs topolens's own ranks (`analyze --ranks N`): the
// ranks' lines (progress, warnings, the analysis's error) pass at once; Open MPI's own help
// messages, blocks framed by lines of dashes, are held back. When the analysis said its own
// error they only repeat that a rank exited non-zero, and are dropped; otherwise (mpirun could
// not start the ranks, a rank crashed) they are the only word on why, and are shown.
#pragma once

#include <iosfwd>
#include <string>
#include <string_view>

namespace topolens::cli {

class MpirunMessages {
  public:
    explicit MpirunMessages(std::ostream& out) : out_(out) {}

    // Stderr text as it arrives, in pieces of any size.
    void take(std::string_view text);
    // The end of the stream: a last line without a newline counts too.
    void finish();

    // A line "topolens: error: ..." came from the ranks.
    bool analysis_reported_error() const { return reported_error_; }
    bool holds_any() const { return !held_.empty(); }
    // Writes the held messages out, in the order they came.
    void release();

  private:
    void end_line();

    std::ostream& out_;
    std::string line_;        // the current line so far
    std::size_t written_ = 0; // how much of line_ is out already (a line seen to be no frame)
    bool in_block_ = false;   // between a help message's two frame lines
    std::string held_;
    bool reported_error_ = false;
};

} // namespace topolens::cli
