// State shared by the recorder's parts (recorder.cpp, user_api.cpp). One per process.
#pragma once

#include "archive.h"
#include "clock_sync.h"
#include "communicators.h"
#include "config.h"
#include "definitions.h"
#include "mpi_functions.h"
#include "requests.h"
#include "write_outcome.h"

#include <mpi.h>
#include <otf2/otf2.h>

#include <map>
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

struct RecorderState {
    Config config;
    bool started = false; // start_measurement ran (whether or not it succeeded)
    bool active = false;  // events are being recorded
    bool in_mpi = false;  // inside a recorded MPI call: nested calls are not recorded
    int rank = 0;
    int size = 1;
    MPI_Comm tool_comm = MPI_COMM_NULL; // our own communication, apart from the program's
    std::string directory;
    Archive archive;
    OTF2_EvtWriter* events = nullptr;
    LocalDefinitions definitions;
    uint32_t mpi_regions[static_cast<size_t>(MpiFn::Count)] = {};
    Communicators communicators;
    Requests requests;
    std::vector<TopologyRecord> topologies;
    std::vector<ClockSample> clock;
    std::vector<bool> same_clock; // per rank: reads rank 0's clock (same host)
    Timestamp first_time = 0;
    std::vector<uint32_t> user_region_stack; // open user regions, innermost last
    std::vector<TunedOperation> tuned;       // handle = index + 1
    std::set<std::string> warned;            // messages shown once
    RankOutcome outcome;                     // this rank's first failed write, if any
    uint64_t otf2_error_mark = 0;            // OTF2 errors reported before recording began
};

RecorderState& state();

// After a failed OTF2 write on this rank (`rc` its code): recording stops for good, the
// event writer is abandoned (Archive::abandon_events), one line names the error and how
// far the trace goes, and the program runs on.
[[gnu::cold]] void stop_recording(OTF2_ErrorCode rc);

// Writes one event as `write(writer)` while this rank's event writer is healthy, and stops
// recording if the write fails; never calls OTF2 after a failure. The two branches are all
// the hot path pays.
template <class Write> inline void record(RecorderState& s, Write&& write) {
    OTF2_EvtWriter* writer = s.events;
    if (!writer) [[unlikely]]
        return;
    const OTF2_ErrorCode rc = write(writer);
    if (rc != OTF2_SUCCESS) [[unlikely]]
        stop_recording(rc);
}
template <class Write> inline void record(Write&& write) {
    record(state(), std::forward<Write>(write));
}

// Prints "topolens: <message>" on stderr once per distinct message on this process.
void warn_once(const std::string& message);

} // namespace topolens::measure
