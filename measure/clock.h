// The measurement clock: nanoseconds of CLOCK_MONOTONIC, shared by all processes of a host.
#pragma once

#include <cstdint>
#include <ctime>

namespace topolens::measure {

using Timestamp = uint64_t;

inline constexpr uint64_t kTicksPerSecond = 1000000000ULL;

inline Timestamp now() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<Timestamp>(ts.tv_sec) * kTicksPerSecond + static_cast<Timestamp>(ts.tv_nsec);
}

} // namespace topolens::measure
