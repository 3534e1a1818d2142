// Clock offsets of every process against rank 0, measured by ping-pong at MPI_Init and
// MPI_Finalize and written as OTF2 ClockOffset definitions (global = local + offset).
#pragma once

#include "clock.h"

#include <mpi.h>

#include <cstdint>
#include <vector>

namespace topolens::measure {

struct ClockSample {
    Timestamp local_time = 0;
    int64_t offset = 0;
    double deviation = 0.0; // half the best round trip, in ticks
};

// Which processes of `comm` read the same clock as its rank 0: those on the same host
// (CLOCK_MONOTONIC is one clock per host). Collective; result indexed by rank in `comm`.
std::vector<bool> shares_reference_clock(MPI_Comm comm);

// Collective over `comm`; rank 0 of `comm` is the reference. Processes that share its clock
// get offset 0 without measuring: a ping-pong would only add its own noise.
ClockSample measure_clock_offset(MPI_Comm comm, const std::vector<bool>& same_clock);

} // namespace topolens::measure
