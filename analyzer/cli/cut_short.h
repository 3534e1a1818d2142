// Traces of runs that died before MPI_Finalize, on the command line: completing them with
// topolens-complete (measure/complete.h; a separate program, since the command line does
// not link the measurement code) and saying once that they were cut short.
#pragma once

#include <string>

namespace topolens::cli {

// When `path` is a directory with the per-rank records of a run that died and no anchor,
// completes it in place (saying so on stderr). Throws std::runtime_error when it cannot: a
// read-only directory (the message says how to complete it), no topolens-complete, or a
// failed completion.
void complete_if_cut_short(const std::string& path);

// True when `path` is a directory with per-rank records of a run that died and no anchor.
bool needs_completion(const std::string& path);

// Runs topolens-complete on `directory`; false (it said why on stderr) when it failed.
bool run_completion(const std::string& directory);

} // namespace topolens::cli
