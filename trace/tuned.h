// Autotuner activity reconstructed from a trace alone (encoding: measure/TRACE_FORMAT.md,
// "Tuned operations and codelets"): per tuned operation its codelets, and per location the
// codelet switches, phase changes, the decision and every execution.
#pragma once

#include "trace/model.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace topolens::trace {

enum class TuningPhase : uint8_t { Search, Decision, Production, Unknown };

std::string_view tuning_phase_name(TuningPhase phase); // "search", ..., "unknown"
// "search" | "decision" | "production" -> phase; anything else -> Unknown.
TuningPhase parse_tuning_phase(std::string_view text);

// Names of the OTF2 items of operation `op` (regions' canonical names, parameters).
std::string tuned_op_canonical_name(std::string_view op); // topolens.tuned:OP
std::string codelet_canonical_name(std::string_view op, int64_t index,
                                   std::string_view codelet); // topolens.codelet:OP:i:C
std::string codelet_parameter_name(std::string_view op);      // topolens.codelet:OP
std::string phase_parameter_name(std::string_view op);        // topolens.phase:OP
std::string decision_parameter_name(std::string_view op);     // topolens.decision:OP

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
    TuningPhase phase = TuningPhase::Search; // last phase recorded before it began
    Time start = 0;
    Time end = 0;
};

struct TunedLocation {
    std::vector<CodeletSwitch> switches;
    std::vector<PhaseChange> phases;
    std::optional<TunerDecision> decision; // the last one recorded; none = undecided
};

struct TunedOperation {
    std::string name;
    Ref region = kNone;                       // the operation's region, if defined
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

} // namespace topolens::trace
