// State shared by the recorder's parts (recorder.cpp, user_api.cpp). One per process.
// At MPI_THREAD_SERIALIZED and MPI_THREAD_MULTIPLE ("threaded") every thread that makes an
// MPI call records into its own OTF2 location (ThreadLocation); what all threads share is
// then guarded by RecorderState::mutex (shared_lock()). At lower levels nothing is locked.
#pragma once

#include "archive.h"
#include "clock_sync.h"
#include "communicators.h"
#include "config.h"
#include "definitions.h"
#include "mpi_functions.h"
#include "profile.h"
#include "requests.h"
#include "write_outcome.h"

#include <mpi.h>
#include <otf2/otf2.h>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace topolens::measure {

struct TunedOperation {
    std::string name;
    uint32_t region = 0;
    uint32_t codelet_parameter = 0;
    uint32_t phase_parameter = 0;
    uint32_t decision_parameter = 0;
    int current_codelet = -1;
    std::map<int, uint32_t> codelet_regions; // codelet index -> region
    bool executing = false;
    int executing_codelet = -1;
};

// One recording thread's location (threaded levels only). Thread 0 called MPI_Init.
struct ThreadLocation {
    uint32_t number = 0;
    OTF2_EvtWriter* events = nullptr;
    bool in_mpi = false;
    std::vector<uint32_t> user_region_stack; // open user regions, innermost last
    CallTree profile;                        // profile mode: this location's call paths
};

struct RecorderState {
    Config config;
    bool started = false;             // start_measurement ran (whether or not it succeeded)
    std::atomic<bool> active = false; // events are being recorded
    // A write failed (stop_recording): no thread's writer is used again. Read at threaded
    // levels, where other threads may be writing when one fails.
    std::atomic<bool> write_failed = false;
    bool in_mpi = false; // inside a recorded MPI call: nested calls are not recorded
    // A location per thread (MPI_THREAD_SERIALIZED or MULTIPLE); then in_mpi, events and
    // user_region_stack here are unused: each ThreadLocation has its own.
    bool threaded = false;
    std::mutex mutex;                                     // shared state, when threaded
    std::vector<std::unique_ptr<ThreadLocation>> threads; // by number
    std::set<uint32_t> free_threads; // locations of ended threads, for the next new ones
    int rank = 0;
    int size = 1;
    MPI_Comm tool_comm = MPI_COMM_NULL; // our own communication, apart from the program's
    std::string directory;
    Archive archive;
    OTF2_EvtWriter* events = nullptr;
    LocalDefinitions definitions;
    uint32_t mpi_regions[static_cast<size_t>(MpiFn::Count)] = {};
    // The program region (ProgramBegin/ProgramEnd) and the strings of its ProgramBegin.
    uint32_t program_region = 0;
    uint32_t program_name = 0;
    std::vector<uint32_t> program_arguments;
    Communicators communicators;
    Requests requests;
    std::vector<TopologyRecord> topologies;
    std::vector<ClockSample> clock;
    std::vector<bool> same_clock;            // per rank: reads rank 0's clock (same host)
    Timestamp first_time = 0;                // the program's start: the trace's first event
    Timestamp init_time = 0;                 // MPI_Init's enter (messages count from it)
    std::vector<uint32_t> user_region_stack; // open user regions, innermost last
    CallTree profile; // profile mode, single-threaded levels: the process's call paths
    std::vector<TunedOperation> tuned; // handle = index + 1
    std::set<std::string> warned;      // messages shown once
    RankOutcome outcome;               // this rank's first failed write, if any
    uint64_t otf2_error_mark = 0;      // OTF2 errors reported before recording began
};

RecorderState& state();

// The calling thread's location, made on its first call (threaded levels only).
ThreadLocation& thread_location();
// The calling thread's event writer and open user regions, at any level; no writer once a
// write failed.
OTF2_EvtWriter* event_writer();
std::vector<uint32_t>& user_region_stack();
// Holds RecorderState::mutex when threaded; nothing otherwise.
std::unique_lock<std::mutex> shared_lock();
// False, with one warning per `what`, on a thread other than the one that called MPI_Init
// at threaded levels: tuned operations, topologies and the ADCL adapter's records are
// process-wide state recorded on that thread only.
bool on_init_thread(const char* what);

// After a failed OTF2 write on this rank (`rc` its code): recording stops for good on every
// thread, the event writers are abandoned (Archive::abandon_events), one line names the
// error and how far the trace goes, and the program runs on.
[[gnu::cold]] void stop_recording(OTF2_ErrorCode rc);

// Writes one event as `write(writer)` with the calling thread's event writer while it is
// healthy, and stops recording if the write fails; never calls OTF2 after a failure. At
// single-threaded levels two branches are all the hot path pays.
template <class Write> inline void record(RecorderState& s, Write&& write) {
    OTF2_EvtWriter* writer = !s.threaded ? s.events : event_writer();
    if (!writer) [[unlikely]]
        return;
    const OTF2_ErrorCode rc = write(writer);
    if (rc != OTF2_SUCCESS) [[unlikely]]
        stop_recording(rc);
}
template <class Write> inline void record(Write&& write) {
    record(state(), std::forward<Write>(write));
}
// The same with a given thread's writer (at MPI_Finalize, or when a thread ends).
template <class Write>
inline void record_to(RecorderState& s, OTF2_EvtWriter* writer, Write&& write) {
    if (!writer || s.write_failed) return;
    const OTF2_ErrorCode rc = write(writer);
    if (rc != OTF2_SUCCESS) stop_recording(rc);
}

// Profile mode: the calling thread's call-path tree, at any level; nullptr when the run
// writes no profile.
inline CallTree* profile_tree(RecorderState& s) {
    if (!s.config.profile) return nullptr;
    return !s.threaded ? &s.profile : &thread_location().profile;
}

// Enter and leave of `region` at `time` on the calling thread's location: an event in the
// trace, a visit of a call path in the profile.
inline void record_enter(RecorderState& s, uint32_t region, Timestamp time) {
    record(s, [&](OTF2_EvtWriter* w) { return OTF2_EvtWriter_Enter(w, nullptr, time, region); });
    if (CallTree* tree = profile_tree(s)) tree->enter(region, time);
}
inline void record_leave(RecorderState& s, uint32_t region, Timestamp time) {
    record(s, [&](OTF2_EvtWriter* w) { return OTF2_EvtWriter_Leave(w, nullptr, time, region); });
    if (CallTree* tree = profile_tree(s)) tree->leave(time);
}
// The same on a given thread's location (at MPI_Finalize, or when a thread ends).
inline void record_leave_to(RecorderState& s, OTF2_EvtWriter* writer, CallTree& tree,
                            uint32_t region, Timestamp time) {
    record_to(s, writer,
              [&](OTF2_EvtWriter* w) { return OTF2_EvtWriter_Leave(w, nullptr, time, region); });
    if (s.config.profile) tree.leave(time);
}

// Profile mode, at MPI_Finalize (collective over the tool communicator): every location's
// call paths to rank 0, which writes them as DIRECTORY/profile.cubex (measure/
// profile_report.h). Says where, or why not, on rank 0.
void write_profile(RecorderState& s);
std::string profile_path(const RecorderState& s);

// This process's definitions so far into `c`, as MPI_Finalize sends them to rank 0 and a
// dying rank writes them to its record.
void copy_definitions(const RecorderState& s, ProcessContribution& c);

// Prints "topolens: <message>" on stderr once per distinct message on this process.
void warn_once(const std::string& message);

} // namespace topolens::measure
