// The ranks of an MPI-parallel analysis, as the matching and the replay talk to each other:
// each rank holds a share of the trace's locations and exchanges, in bulk, what the other
// ranks' locations need. Implemented over MPI by the analyzer (analyzer/parallel/) and by
// threads of one process for tests (trace/thread_exchange.h); the trace library itself
// knows nothing of MPI.
#pragma once

#include "trace/bytes.h"

#include <optional>
#include <string>
#include <vector>

namespace topolens::trace {

class Exchange {
  public:
    virtual ~Exchange() = default;
    virtual unsigned rank() const = 0;
    virtual unsigned size() const = 0;
    // Collective: every rank gives one buffer per rank (`out[r]` goes to rank r) and gets
    // the buffers the others gave it, by source rank (its own included).
    virtual std::vector<Bytes> all_to_all(std::vector<Bytes> out) = 0;
    // Collective: every rank's buffer, by rank.
    virtual std::vector<Bytes> all_gather(Bytes mine) = 0;

    // Collective: the error of the lowest rank that has one, on every rank, so that all
    // stop with the same line (and none waits in a collective for one that stopped).
    std::optional<std::string> first_error(const std::optional<std::string>& mine);
};

} // namespace topolens::trace
