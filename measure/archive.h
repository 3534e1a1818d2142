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

// OTF2 location id of thread `thread` of process `rank` (Score-P's numbering): thread 0,
// the one that called MPI_Init, has the rank itself.
inline uint64_t thread_location_id(int rank, uint32_t thread) {
    return static_cast<uint64_t>(thread) << 32 | static_cast<uint32_t>(rank);
}

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
    // Closes a writer from thread_events() and returns the number of events it wrote.
    uint64_t close_thread_events(OTF2_EvtWriter* writer);

    // Closes this process's event writer and returns the number of events it wrote.
    uint64_t close_events();
    // Rank 0: the writer for global definitions (valid until close()).
    OTF2_GlobalDefWriter* global_definitions();
    // For each of the process's `threads` locations: the same mappings and clock offsets.
    void write_local_definitions(int rank, size_t threads, const IdMappings& mappings,
                                 const std::vector<ClockSample>& clock);
    // Collective.
    void close();

  private:
    static void write_mappings_and_clock(OTF2_DefWriter* writer, const IdMappings& mappings,
                                         const std::vector<ClockSample>& clock);
    OTF2_Archive* archive_ = nullptr;
    OTF2_EvtWriter* events_ = nullptr;
};

} // namespace topolens::measure
