#include "trace/clock_range.h"

#include <limits>

namespace topolens::trace {

std::optional<std::string> clock_range_warning(const Trace& trace, uint32_t location) {
    const Definitions& d = trace.defs;
    const std::vector<Event>& events = trace.locations[location].events;
    if (events.empty() || d.trace_length == 0) return std::nullopt;
    const Time begin = d.global_offset;
    const Time end = d.trace_length > std::numeric_limits<Time>::max() - begin
                         ? std::numeric_limits<Time>::max()
                         : begin + d.trace_length;
    const Time first = events.front().time, last = events.back().time;
    if (first >= begin && last <= end) return std::nullopt;
    return "location " + std::to_string(location) + " (rank " +
           std::to_string(d.locations[location].rank) + "): events from tick " +
           std::to_string(first) + " to " + std::to_string(last) +
           " lie outside the trace's time range (ClockProperties: ticks " + std::to_string(begin) +
           " to " + std::to_string(end) +
           "); the event file may come from another run; its events are taken as recorded";
}

std::vector<std::string> clock_range_warnings(const Trace& trace) {
    std::vector<std::string> warnings;
    for (uint32_t loc = 0; loc < trace.locations.size(); ++loc)
        if (auto w = clock_range_warning(trace, loc)) warnings.push_back(std::move(*w));
    return warnings;
}

} // namespace topolens::trace
