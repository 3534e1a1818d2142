// How an MPI-parallel analysis shares a trace's locations out to its ranks.
#pragma once

#include "trace/model.h"

#include <cstdint>
#include <vector>

namespace topolens::trace {

// One share per rank: contiguous, whole processes (the threads of a process share its
// messages and collectives, so one rank matches them), about as much `weight` (events, or
// bytes of event files) each. `process` and `weight` are per location; a process's locations
// are contiguous. Throws TraceError if there are more ranks than processes.
std::vector<LocationShare> share_locations(const std::vector<uint32_t>& process,
                                           const std::vector<uint64_t>& weight, unsigned ranks);

// The rank whose share holds `location`, of `shares` (every rank's, contiguous, in order).
uint32_t rank_holding(const std::vector<LocationShare>& shares, uint32_t location);

} // namespace topolens::trace
