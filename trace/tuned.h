// Autotuner activity reconstructed from a trace alone (encoding: trace/tuned_encoding.h,
// measure/TRACE_FORMAT.md "Tuned operations and codelets"): per tuned operation its
// codelets, and per location the codelet switches, phase changes, the decision and every
// execution with its phase. The one reconstruction: `topolens info`, the codelet metrics and
// the codelet audit all read executions and phases from here.
#pragma once

#include "trace/model.h"
#include "trace/tuned_encoding.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace topolens::trace {

struct CodeletSwitch {
    Time time = 0;
    int64_t index = -1;
};

struct PhaseChange {
    Time time = 0;
    TuningPhase phase = TuningPhase::Search;
    std::string name; // as recorded, for phases a third-party tuner invents
};

struct TunerDecision {
    Time time = 0;
    int64_t index = -1;
};

struct CodeletExecution {
    uint32_t location = 0;
    int64_t codelet = -1; // the codelet region nested directly in the operation; -1 if none
    // The operation's last phase recorded on the location before the execution ended, so a
    // phase recorded inside an execution applies to it (a tuner such as ADCL decides inside
    // the call whose execution then runs the winner).
    TuningPhase phase = TuningPhase::Search;
    Time start = 0;
    Time end = 0;
    // When the tuner's timing began: `start`, or the end of the last MPI_Barrier entered
    // directly in the operation's region before the codelet's (the tuner's own barrier: ADCL
    // times from after it).
    Time measured_start = 0;
    // When it ended: `end`, or, for an execution timed from the tuner's barrier, the end of an
    // MPI_Barrier that is the last thing it did (ADCL's closing barrier).
    Time measured_end = 0;
    // Timed behind a barrier: the execution begins with an MPI_Barrier, or an MPI_Barrier was
    // the location's last call before it began (nothing entered in between).
    bool barrier_before = false;
    Ref codelet_region = kNone; // that codelet's instance: its region and when it was
    Time codelet_start = 0;     // entered (kNone and 0 if none)
};

struct TunedLocation {
    std::vector<CodeletSwitch> switches;
    std::vector<PhaseChange> phases;
    std::optional<TunerDecision> decision; // the last one recorded; none = undecided
};

struct TunedOperation {
    std::string name;
    Ref region = kNone;        // the operation's region, if defined
    bool timer_object = false; // executions timed by a timer object (kTimerObjectDescription)
    std::map<int64_t, std::string> codelets;  // index -> name (from the codelet regions)
    std::map<int64_t, Ref> codelet_regions;   // index -> region
    std::vector<TunedLocation> locations;     // parallel to Definitions::locations
    std::vector<CodeletExecution> executions; // by location, then in order of start
    uint64_t unfinished_executions = 0;       // entered but never left (damaged trace)

    // Distinct decided codelet indices over all locations, ascending (empty = undecided).
    std::vector<int64_t> decided_indices() const;
    // Number of locations that recorded a decision.
    std::size_t decided_locations() const;
};

// All tuned operations of the trace, by name. Missing pieces (no switch, no phase, no
// decision) stay empty; nothing here is an error.
std::vector<TunedOperation> reconstruct_tuned_operations(const Trace& trace);

// The same reconstruction one location at a time, for a replay that visits locations in
// threads: what each region and parameter means is found once, from the definitions.
class TunedReconstruction {
  public:
    explicit TunedReconstruction(const Definitions& defs);

    // Every execution on `location`, as reconstruct_tuned_operations gives it: operation by
    // operation (by name), each in the order reconstruct_tuned_operations lists them.
    std::vector<CodeletExecution> executions(const Trace& trace, uint32_t location) const;

  private:
    // One location's part of every operation (parallel to operations_).
    struct LocationPart {
        std::vector<TunedLocation> tuned;
        std::vector<std::vector<CodeletExecution>> executions;
        std::vector<uint64_t> unfinished;
    };
    LocationPart replay(const Trace& trace, uint32_t location) const;
    void on_parameter(const Definitions& defs, const Event& e, LocationPart& part) const;

    std::vector<TunedOperation> operations_; // by name; definitions only (no locations)
    std::unordered_map<Ref, std::size_t> op_of_region_;
    std::unordered_map<Ref, std::pair<std::size_t, int64_t>> codelet_of_region_;
    std::unordered_map<Ref, std::pair<std::size_t, TunedParameterRole>> parameter_role_;

    friend std::vector<TunedOperation> reconstruct_tuned_operations(const Trace& trace);
};

} // namespace topolens::trace
