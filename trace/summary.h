// Event statistics of a trace: counts per kind per location, totals, time span.
#pragma once

#include "trace/model.h"
#include "trace/names.h"

#include <array>
#include <vector>

namespace topolens::trace {

using KindCounts = std::array<uint64_t, kEventKindCount>; // indexed by EventKind

struct LocationSummary {
    KindCounts counts{};
    uint64_t events = 0;
    Time first = 0, last = 0; // valid when events > 0
};

struct TraceSummary {
    std::vector<LocationSummary> locations; // parallel to Definitions::locations
    KindCounts totals{};
    KindCounts min_per_location{}; // over all locations (0 if some location has none)
    KindCounts max_per_location{};
    uint64_t events = 0;
    Time first = 0, last = 0; // earliest and latest event time; valid when events > 0
    uint64_t timer_resolution = 1;

    double span_seconds() const;
    uint64_t count(EventKind kind) const { return totals[static_cast<std::size_t>(kind)]; }
};

TraceSummary summarize(const Trace& trace);

} // namespace topolens::trace
