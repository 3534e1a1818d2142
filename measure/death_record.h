// The per-rank record a process leaves beside its events for the case the run dies before
// MPI_Finalize unifies the definitions: `rank-<r>.defs` in the archive directory. Written
// at MPI_Init, at every event-buffer flush (so that whatever reached the disk has its
// definitions, even after SIGKILL) and when the process dies. MPI-free: also read offline by
// the completion (complete.h).
#pragma once

#include "definitions.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace topolens::measure {

struct ClockOffsetRecord {
    uint64_t local_time = 0;
    int64_t offset = 0;
    double deviation = 0.0;
};

struct DeathRecord {
    uint32_t rank = 0;
    uint32_t size = 1;             // processes of the run
    bool died = false;             // false: written while running (at MPI_Init or a flush)
    std::string cause;             // "signal SIGSEGV", "MPI_Abort(errorcode 3) on rank 1", ...
    uint64_t death_time = 0;       // global clock, when `died`
    uint64_t event_chunk_size = 0; // of the .evt file: the anchor must name the same
    std::vector<ClockOffsetRecord> clock;
    ProcessContribution contribution; // event_count: events in the .evt file
};

std::string death_record_name(uint32_t rank); // "rank-<r>.defs"

std::vector<char> serialize(const DeathRecord& record);
// Throws std::runtime_error naming the problem for anything but a whole record.
DeathRecord deserialize_death_record(const std::vector<char>& bytes);

// Writes `directory`/rank-<r>.defs through a temporary file and rename, so that a reader
// never sees half a record. Plain POSIX calls: also used from a dying process. False on
// failure.
bool write_death_record(const std::string& directory, const DeathRecord& record);

} // namespace topolens::measure
