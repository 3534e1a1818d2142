// The OTF2 archive of one run: directory preparation, the bounded per-process event buffer
// (OTF2 memory callbacks over a fixed pool: a full pool makes OTF2 flush to disk and record
// a BufferFlush event), and the collective open/close sequence.
#pragma once

#include "clock_sync.h"
#include "definitions.h"

#include <mpi.h>
#include <otf2/otf2.h>

#include <string>
#include <vector>

namespace topolens::measure {

// Rank 0 only: chooses and prepares the archive directory. Returns the absolute path, or
// an empty string with the reason in `error`; `notes` collects messages worth showing.
std::string prepare_trace_directory(const std::string& requested, std::string& error,
                                    std::vector<std::string>& notes);

// What closing this process's event writer may still write.
struct PendingEvents {
    uint64_t bytes = 0;
    // The bytes pass OTF2 3.0's full write-behind buffer inside the close: a failed write
    // there leaves the dangling pointer of abandon_events() and the close then crashes.
    bool through_full_buffer = false;
};

// Free bytes for an unprivileged writer on the file system holding `directory` (UINT64_MAX
// if unknown).
uint64_t free_disk_bytes(const std::string& directory);

// OTF2 location id of thread `thread` of process `rank` (Score-P's numbering): thread 0,
// the one that called MPI_Init, has the rank itself.
inline uint64_t thread_location_id(int rank, uint32_t thread) {
    return static_cast<uint64_t>(thread) << 32 | static_cast<uint32_t>(rank);
}

// Called before OTF2 writes a full event buffer to disk (not at the final flush); null: none.
void set_before_flush_hook(void (*hook)());

class Archive {
  public:
    // Collective over `comm`. On failure returns false with the reason in `error`.
    // `threaded`: several threads will write events (each its own location).
    bool open(const std::string& directory, uint64_t buffer_bytes, MPI_Comm comm, int rank,
              bool threaded, std::string& error);
    OTF2_EvtWriter* events() const { return events_; }
    uint64_t flushes() const;
    // The writer of another thread's location (threaded archives), from that thread.
    OTF2_EvtWriter* thread_events(uint64_t location);
    // Closes a writer from thread_events() (not after abandon_events(): then it is left as
    // it is) and returns the number of events recorded in it.
    uint64_t close_thread_events(OTF2_EvtWriter* writer);
    static uint64_t recorded_events(OTF2_EvtWriter* writer);

    // After a failed write of the event writer. OTF2 3.0 must never touch that writer
    // again: its file layer frees its 4 MiB write-behind buffer when a write fails but keeps
    // the pointer, so the next flush or the close writes into freed memory (the SIGSEGV in
    // OTF2_File_Write of a full disk) or frees it twice. The writer is left as it is and the
    // archive is never closed on this process (OTF2_Archive_Close would close the writer).
    void abandon_events();
    bool events_abandoned() const { return abandoned_; }
    PendingEvents pending_events() const;
    // Events recorded so far (reads the writer's counter only).
    uint64_t recorded_events() const;

    // The calls below return the first OTF2 error of the step (OTF2_SUCCESS if everything
    // was written), from the return codes and from the errors OTF2 only reports.

    // Closes this process's event writer; `count` = the number of events it wrote.
    OTF2_ErrorCode close_events(uint64_t& count);
    uint64_t event_chunk_size() const;
    // For a dying process: closes its event writer (which writes its buffer to disk)
    // without closing the event files (which may be collective); returns the number of
    // events it wrote. Not after abandon_events(): then the events recorded.
    uint64_t close_event_writer();
    // Rank 0: the writer for global definitions (valid until close()).
    OTF2_GlobalDefWriter* global_definitions();
    // For each of the process's `threads` locations: the same mappings and clock offsets.
    OTF2_ErrorCode write_local_definitions(int rank, size_t threads, const IdMappings& mappings,
                                           const std::vector<ClockSample>& clock);
    // Writes the anchor (rank 0) and closes the files. Not after abandon_events().
    OTF2_ErrorCode close();

  private:
    static OTF2_ErrorCode write_mappings_and_clock(OTF2_DefWriter* writer,
                                                   const IdMappings& mappings,
                                                   const std::vector<ClockSample>& clock);
    OTF2_Archive* archive_ = nullptr;
    OTF2_EvtWriter* events_ = nullptr;
    bool abandoned_ = false;
};

} // namespace topolens::measure
