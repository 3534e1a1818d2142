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

// Called before OTF2 writes a full event buffer to disk (not at the final flush); null: none.
void set_before_flush_hook(void (*hook)());

class Archive {
  public:
    // Collective over `comm`. On failure returns false with the reason in `error`.
    bool open(const std::string& directory, uint64_t buffer_bytes, MPI_Comm comm, int rank,
              std::string& error);
    OTF2_EvtWriter* events() const { return events_; }
    uint64_t flushes() const;
    uint64_t event_chunk_size() const;

    // Closes this process's event writer and returns the number of events it wrote.
    uint64_t close_events();
    // The same without closing the event files (which may be collective): for a dying
    // process. Closing the writer writes its buffer to disk.
    uint64_t close_event_writer();
    // Rank 0: the writer for global definitions (valid until close()).
    OTF2_GlobalDefWriter* global_definitions();
    void write_local_definitions(int rank, const IdMappings& mappings,
                                 const std::vector<ClockSample>& clock);
    // Collective.
    void close();

  private:
    OTF2_Archive* archive_ = nullptr;
    OTF2_EvtWriter* events_ = nullptr;
};

} // namespace topolens::measure
