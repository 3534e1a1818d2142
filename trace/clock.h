// Clock-offset correction: a location's local timestamps to the global clock (rank 0's).
#pragma once

#include "trace/model.h"

#include <optional>
#include <vector>

namespace topolens::trace {

// global = local + offset(local), where offset is interpolated linearly between the
// measured ClockOffsets and held constant before the first and after the last one.
// Without offsets the correction is the identity.
class ClockCorrection {
  public:
    ClockCorrection() = default;
    explicit ClockCorrection(std::vector<ClockOffset> offsets);

    // Interpolated offset in ticks, rounded to the nearest tick (halves away from zero).
    int64_t offset_at(uint64_t local) const;
    // The corrected time, or nothing when it would fall outside the unsigned tick range.
    std::optional<Time> to_global(uint64_t local) const;
    bool empty() const { return offsets_.empty(); }

  private:
    std::vector<ClockOffset> offsets_; // ascending by time
};

} // namespace topolens::trace
