// Reads an OTF2 archive (ours or any MPI trace following Score-P's layout) into a Trace.
#pragma once

#include "trace/model.h"

#include <cstdint>
#include <functional>
#include <limits>
#include <string>

namespace topolens::trace {

// `path` is the archive directory or its .otf2 anchor file. Event times are corrected by
// each location's ClockOffset definitions (see ClockCorrection); OTF2's mapping tables
// translate local ids. Throws TraceError naming the file and the problem for anything
// missing, damaged or inconsistent (undefined region, communicator, rank, ...).
// Locations are read by `threads` threads (0: trace::worker_threads()).
Trace read_trace(const std::string& path, unsigned threads = 0);

// Work to do while reading: `definitions_read` once the definitions are in and the list of
// locations is sized (before any events), `location_read` in the reading thread as soon as
// a location's events are complete (clock-corrected), while they are still in the caches.
struct ReadHooks {
    // If set: whose events to read, chosen once the definitions are in (before
    // definitions_read); it replaces read_trace_into's `share`.
    std::function<LocationShare(const Trace&)> choose_share;
    std::function<void(const Trace&)> definitions_read;
    std::function<void(const Trace&, uint32_t location)> location_read;
};

// read_trace into `out` (which the hooks may hold on to), with hooks; only `share`'s
// locations' events (the program, Trace::defs.program, is the first of them that names one).
// A share beyond the trace's locations is a TraceError.
void read_trace_into(const std::string& path, Trace& out, unsigned threads, const ReadHooks& hooks,
                     LocationShare share = {});

// The anchor file of `path`: the file itself, or in a directory `traces.otf2`, else its only
// `*.otf2` file. Throws TraceError when there is none (or several).
std::string find_anchor(const std::string& path);

} // namespace topolens::trace
