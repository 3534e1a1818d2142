// Writes an in-memory Trace as an OTF2 archive (serial writer, one process for all locations).
#pragma once

#include "trace/model.h"

#include <string>

namespace topolens::trace {

struct WriteOptions {
    // Events use per-location local ids with OTF2 mapping tables in the local definitions,
    // as Score-P and libtopolens-measure write them; false writes global ids directly.
    bool local_ids = true;
    std::string archive_name = "traces"; // <dir>/<name>.otf2, <name>.def, <name>/
};

// Writes `trace` into directory `dir`, replacing an earlier OTF2 archive there (a directory
// that is not empty and holds no <name>.otf2 is refused). Event times are written as they
// are; each location's clock_offsets become its ClockOffset definitions, so the times a
// reader returns are these times corrected by those offsets. Layout: TRACE_FORMAT.md
// (system tree machine/host, one PROCESS location group per rank, COMM_LOCATIONS group
// before the COMM_GROUPs). Returns the anchor file path. Throws TraceError.
std::string write_otf2(const Trace& trace, const std::string& dir,
                       const WriteOptions& options = {});

} // namespace topolens::trace
