#include "trace/tuned.h"

#include <algorithm>
#include <set>

namespace topolens::trace {

TunedReconstruction::TunedReconstruction(const Definitions& defs) {
    // Operation names come from operation regions, from the three parameters and, failing
    // those, from codelet regions.
    std::set<std::string> names;
    for (const Region& r : defs.regions)
        if (auto op = parse_tuned_op_canonical_name(r.canonical_name)) names.emplace(*op);
    for (const Parameter& p : defs.parameters)
        if (auto parameter = parse_tuned_parameter_name(p.name)) names.emplace(parameter->op);
    const std::vector<std::string> known(names.begin(), names.end());
    std::vector<std::optional<CodeletCanonicalName>> codelets;
    for (const Region& r : defs.regions) {
        codelets.push_back(parse_codelet_canonical_name(r.canonical_name, known));
        if (codelets.back()) names.emplace(codelets.back()->op);
    }

    std::map<std::string, std::size_t, std::less<>> index_of;
    for (const std::string& name : names) {
        index_of.emplace(name, operations_.size());
        operations_.emplace_back().name = name;
    }
    for (std::size_t r = 0; r < defs.regions.size(); ++r) {
        const Ref ref = static_cast<Ref>(r);
        if (auto name = parse_tuned_op_canonical_name(defs.regions[r].canonical_name)) {
            const std::size_t i = index_of.find(*name)->second;
            if (operations_[i].region == kNone) operations_[i].region = ref;
            if (defs.regions[r].description.rfind(kTimerObjectDescription, 0) == 0)
                operations_[i].timer_object = true;
            op_of_region_.emplace(ref, i);
        } else if (const auto& c = codelets[r]) {
            const std::size_t i = index_of.find(c->op)->second;
            operations_[i].codelets.emplace(c->index, std::string(c->codelet));
            operations_[i].codelet_regions.emplace(c->index, ref);
            codelet_of_region_.emplace(ref, std::make_pair(i, c->index));
        }
    }
    for (std::size_t p = 0; p < defs.parameters.size(); ++p)
        if (auto parameter = parse_tuned_parameter_name(defs.parameters[p].name))
            parameter_role_[static_cast<Ref>(p)] = {index_of.find(parameter->op)->second,
                                                    parameter->role};
}

void TunedReconstruction::on_parameter(const Definitions& defs, const Event& e,
                                       LocationPart& part) const {
    auto it = parameter_role_.find(e.parameter());
    if (it == parameter_role_.end()) return;
    auto [op, role] = it->second;
    TunedLocation& tl = part.tuned[op];
    if (role == TunedParameterRole::Phase && e.kind == EventKind::ParameterString) {
        const std::string& text = e.string() < defs.strings.size() ? defs.strings[e.string()] : "";
        tl.phases.push_back({e.time, parse_tuning_phase(text), text});
    } else if (role == TunedParameterRole::Switch && e.kind == EventKind::ParameterInt) {
        tl.switches.push_back({e.time, e.value});
    } else if (role == TunedParameterRole::Decision && e.kind == EventKind::ParameterInt) {
        tl.decision = TunerDecision{e.time, e.value};
    }
}

namespace {

bool is_barrier(const Region& r) {
    return r.is_mpi() && (r.role == RegionRole::Barrier || r.name == "MPI_Barrier");
}

} // namespace

// Walks one location's region stack: an execution is an Enter/Leave of the operation's
// region; its codelet is a codelet region of the same operation entered directly inside; its
// phase the operation's last phase recorded on the location before the Leave. How the tuner
// timed it: behind a barrier when an MPI_Barrier is entered directly in the operation's
// region before the codelet's (the tuner's own barrier, as ADCL's: the timing starts at the
// end of the last such barrier, after what the tuner did before it, e.g. ADCL's choice of
// the next codelet), or when an MPI_Barrier was the last call left before its Enter. An
// execution timed from the tuner's barrier that ends in a barrier is timed to that barrier's
// end, as ADCL does (its bookkeeping after it is no part of the measurement).
TunedReconstruction::LocationPart TunedReconstruction::replay(const Trace& trace,
                                                              uint32_t location) const {
    struct OpenExecution {
        std::size_t op;
        std::size_t depth; // region-stack depth of the operation's Enter
        CodeletExecution execution;
        bool tuner_barrier = false;   // in a barrier of the tuner's, directly inside it
        bool timed_by_tuner = false;  // a barrier of the tuner's began the timing
        bool ends_in_barrier = false; // the last region left was a barrier, nothing entered since
        Time barrier_end = 0;         // when that barrier was left
    };
    const std::vector<Region>& regions = trace.defs.regions;
    const auto barrier = [&](Ref r) { return r < regions.size() && is_barrier(regions[r]); };
    LocationPart part;
    part.tuned.resize(operations_.size());
    part.executions.resize(operations_.size());
    part.unfinished.resize(operations_.size());
    std::vector<Ref> stack;
    std::vector<OpenExecution> open;
    bool after_barrier = false; // the last region left was a barrier, nothing entered since
    for (const Event& e : trace.locations[location].events) {
        if (e.kind == EventKind::ParameterInt || e.kind == EventKind::ParameterString) {
            on_parameter(trace.defs, e, part);
        } else if (e.kind == EventKind::Enter) {
            // The tuner's barrier: directly in the operation, before its codelet.
            if (barrier(e.region()) && !open.empty() && stack.size() == open.back().depth + 1 &&
                open.back().execution.codelet < 0)
                open.back().tuner_barrier = true;
            if (!open.empty() && open.back().depth + 1 == stack.size() &&
                open.back().execution.codelet < 0) {
                auto c = codelet_of_region_.find(e.region());
                if (c != codelet_of_region_.end() && c->second.first == open.back().op) {
                    open.back().execution.codelet = c->second.second;
                    open.back().execution.codelet_region = e.region();
                    open.back().execution.codelet_start = e.time;
                }
            }
            auto op = op_of_region_.find(e.region());
            if (op != op_of_region_.end()) {
                CodeletExecution x;
                x.location = location;
                x.start = x.measured_start = e.time;
                x.barrier_before = after_barrier;
                open.push_back({op->second, stack.size(), x});
            }
            if (!open.empty()) open.back().ends_in_barrier = false;
            stack.push_back(e.region());
            after_barrier = false;
        } else if (e.kind == EventKind::Leave && !stack.empty()) {
            after_barrier = barrier(stack.back());
            stack.pop_back();
            if (!open.empty() && open.back().tuner_barrier &&
                stack.size() == open.back().depth + 1) {
                open.back().execution.measured_start = e.time;
                open.back().execution.barrier_before = true;
                open.back().tuner_barrier = false;
                open.back().timed_by_tuner = true;
            }
            if (!open.empty() && after_barrier) {
                open.back().ends_in_barrier = true;
                open.back().barrier_end = e.time;
            }
            if (!open.empty() && open.back().depth == stack.size()) {
                CodeletExecution& x = open.back().execution;
                const std::vector<PhaseChange>& phases = part.tuned[open.back().op].phases;
                x.phase = phases.empty() ? TuningPhase::Search : phases.back().phase;
                x.end = x.measured_end = e.time;
                // The tuner's closing barrier (ADCL's) ends its timing too.
                if (open.back().timed_by_tuner && open.back().ends_in_barrier)
                    x.measured_end = open.back().barrier_end;
                part.executions[open.back().op].push_back(x);
                open.pop_back();
            }
        }
    }
    for (const OpenExecution& o : open) ++part.unfinished[o.op];
    return part;
}

std::vector<CodeletExecution> TunedReconstruction::executions(const Trace& trace,
                                                              uint32_t location) const {
    std::vector<CodeletExecution> all;
    for (auto& of_op : replay(trace, location).executions)
        all.insert(all.end(), of_op.begin(), of_op.end());
    return all;
}

std::vector<int64_t> TunedOperation::decided_indices() const {
    std::set<int64_t> indices;
    for (const TunedLocation& l : locations)
        if (l.decision) indices.insert(l.decision->index);
    return {indices.begin(), indices.end()};
}

std::size_t TunedOperation::decided_locations() const {
    return std::count_if(locations.begin(), locations.end(),
                         [](const TunedLocation& l) { return l.decision.has_value(); });
}

std::vector<TunedOperation> reconstruct_tuned_operations(const Trace& trace) {
    const TunedReconstruction reconstruction(trace.defs);
    std::vector<TunedOperation> ops = reconstruction.operations_;
    for (TunedOperation& op : ops) op.locations.resize(trace.defs.locations.size());
    for (std::size_t l = 0; l < trace.locations.size(); ++l) {
        TunedReconstruction::LocationPart part =
            reconstruction.replay(trace, static_cast<uint32_t>(l));
        for (std::size_t i = 0; i < ops.size(); ++i) {
            if (l < ops[i].locations.size()) ops[i].locations[l] = std::move(part.tuned[i]);
            ops[i].executions.insert(ops[i].executions.end(), part.executions[i].begin(),
                                     part.executions[i].end());
            ops[i].unfinished_executions += part.unfinished[i];
        }
    }
    return ops;
}

} // namespace topolens::trace
