#include "trace/summary.h"

#include <algorithm>

namespace topolens::trace {

double TraceSummary::span_seconds() const {
    if (events == 0) return 0.0;
    return static_cast<double>(last - first) / static_cast<double>(timer_resolution);
}

TraceSummary summarize(const Trace& trace) {
    TraceSummary s;
    s.timer_resolution = trace.defs.timer_resolution ? trace.defs.timer_resolution : 1;
    s.locations.resize(trace.locations.size());
    for (std::size_t l = 0; l < trace.locations.size(); ++l) {
        LocationSummary& ls = s.locations[l];
        // Times are usually ascending, but nothing guarantees it for foreign traces.
        for (const Event& e : trace.locations[l].events) {
            ++ls.counts[static_cast<std::size_t>(e.kind)];
            if (ls.events++ == 0) ls.first = ls.last = e.time;
            ls.first = std::min(ls.first, e.time);
            ls.last = std::max(ls.last, e.time);
        }
        if (ls.events > 0) {
            if (s.events == 0) s.first = ls.first, s.last = ls.last;
            s.first = std::min(s.first, ls.first);
            s.last = std::max(s.last, ls.last);
        }
        s.events += ls.events;
        for (std::size_t k = 0; k < kEventKindCount; ++k) {
            s.totals[k] += ls.counts[k];
            s.min_per_location[k] =
                l == 0 ? ls.counts[k] : std::min(s.min_per_location[k], ls.counts[k]);
            s.max_per_location[k] = std::max(s.max_per_location[k], ls.counts[k]);
        }
    }
    return s;
}

} // namespace topolens::trace
