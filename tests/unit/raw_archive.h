// Writes OTF2 archives directly through OTF2's writer: for traces the TraceBuilder would
// refuse (references to undefined definitions) and for layouts of other producers.
#pragma once

#include <otf2/otf2.h>

#include <filesystem>
#include <functional>
#include <map>

namespace topolens::test {

struct RawArchive {
    std::function<void(OTF2_GlobalDefWriter*)> global_definitions;
    std::map<uint64_t, std::function<void(OTF2_EvtWriter*)>> events;           // by location id
    std::function<void(uint64_t location, OTF2_DefWriter*)> local_definitions; // optional

    // Writes <dir>/traces.otf2 etc. (dir must not exist yet); throws on OTF2 errors.
    void write(const std::filesystem::path& dir) const;
};

// ClockProperties, strings 0 "" 1 "machine" 2 "node" 3 "host" 4 "MPI Rank" 5 "Master thread"
// 6 "MPI_COMM_WORLD", system tree (0 machine, 1 host), `ranks` PROCESS location groups and
// CPU_THREAD locations (id = rank, `events` each), COMM_LOCATIONS group 0, COMM_GROUP 1 of
// all ranks, communicator 0 = MPI_COMM_WORLD over group 1.
void write_minimal_definitions(OTF2_GlobalDefWriter* w, uint32_t ranks, uint64_t events);

} // namespace topolens::test
