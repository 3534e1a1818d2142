// Completing the trace of a run that died before MPI_Finalize, offline and without MPI:
// the per-rank records (death_record.h) are unified like at MPI_Finalize
// (write_global_definitions), the anchor, global and local definitions are written beside
// the event files the ranks left, and `cut.txt` says which ranks ended how.
#pragma once

#include <string>
#include <vector>

namespace topolens::measure {

struct Completion {
    std::string summary;               // e.g. "rank 1: signal SIGSEGV; ranks 0,2,3: signal SIGTERM"
    std::vector<std::string> warnings; // from the unification
};

// True when `directory` holds per-rank records and no anchor.
bool needs_completion(const std::string& directory);

// Throws std::runtime_error naming the directory and the problem.
Completion complete_trace(const std::string& directory);

// The cause written for a rank that left only the record of a running process.
inline constexpr const char* kSilentCause =
    "killed without a word (e.g. SIGKILL): events up to its last buffer flush";

} // namespace topolens::measure
