// Clock offsets of every process against rank 0, measured by ping-pong at MPI_Init and
// MPI_Finalize and written as OTF2 ClockOffset definitions (global = local + offset).
#pragma once

#include "clock.h"

#include <mpi.h>

#include <cstdint>

namespace topolens::measure {

struct ClockSample {
    Timestamp local_time = 0;
    int64_t offset = 0;
    double deviation = 0.0; // half the best round trip, in ticks
};

// Collective over `comm`; rank 0 of `comm` is the reference.
ClockSample measure_clock_offset(MPI_Comm comm);

} // namespace topolens::measure
