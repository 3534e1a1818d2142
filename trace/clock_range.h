// Events outside the trace's ClockProperties range: an event file from another run (or a
// damaged one) passes every other check, and a 2 s run then spans half an hour.
#pragma once

#include "trace/model.h"

#include <optional>
#include <string>
#include <vector>

namespace topolens::trace {

// The warning for `location` when its first or last event lies outside
// [global_offset, global_offset + trace_length]; nothing when inside, or when the trace
// records no range (trace_length 0, as in-memory synthetic traces).
std::optional<std::string> clock_range_warning(const Trace& trace, uint32_t location);

// The warnings of every location, in location order.
std::vector<std::string> clock_range_warnings(const Trace& trace);

} // namespace topolens::trace
