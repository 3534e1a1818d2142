// What a process that dies before MPI_Finalize leaves behind: its events flushed and its
// definitions in a per-rank record (death_record.h), without any MPI call. Hooks: the
// MPI_Abort wrapper, handlers of the fatal signals, and an exit hook for exit without
// MPI_Finalize. Best effort: a signal handler that allocates and writes files is not
// async-signal-safe, so a process that dies inside malloc or inside OTF2 may lose its record.
#pragma once

#include <string>

namespace topolens::measure {

// Once the archive is open and events are recorded: writes the first record, installs the
// signal handlers and the exit hook.
void arm_death_records();

// The events this process wrote, once MPI_Finalize closed its event writer.
void note_events_closed(uint64_t count);

// MPI_Finalize completed: restores the signal handlers and removes this process's record.
void disarm_death_records();

// MPI_Abort was called: records its Enter (it never returns), then the death.
void record_abort(int errorcode);

// The process is dying of `cause`: closes its event writer (which writes the buffer to
// disk) and writes its record. Once per process; later calls do nothing.
void record_death(const std::string& cause);

} // namespace topolens::measure
