#include "trace/tuned.h"

#include <algorithm>
#include <charconv>
#include <set>
#include <unordered_map>

namespace topolens::trace {
namespace {

constexpr std::string_view kTunedPrefix = "topolens.tuned:";
constexpr std::string_view kCodeletPrefix = "topolens.codelet:";
constexpr std::string_view kPhasePrefix = "topolens.phase:";
constexpr std::string_view kDecisionPrefix = "topolens.decision:";

bool starts_with(std::string_view s, std::string_view prefix) {
    return s.substr(0, prefix.size()) == prefix;
}

// Parses "i:C" (the part of a codelet's canonical name after "topolens.codelet:OP:").
bool parse_index_and_name(std::string_view rest, int64_t& index, std::string& name) {
    const std::size_t colon = rest.find(':');
    if (colon == 0 || colon == std::string_view::npos) return false;
    auto [end, ec] = std::from_chars(rest.data(), rest.data() + colon, index);
    if (ec != std::errc() || end != rest.data() + colon || index < 0) return false;
    name = std::string(rest.substr(colon + 1));
    return true;
}

struct CodeletRegion {
    std::string op;
    int64_t index;
    std::string name;
};

// "topolens.codelet:OP:i:C": operation names may contain ':' themselves, so known operations
// are tried first (longest first); otherwise OP ends before the first ":<digits>:".
std::optional<CodeletRegion> parse_codelet_region(std::string_view canonical,
                                                  const std::vector<std::string>& known_ops) {
    if (!starts_with(canonical, kCodeletPrefix)) return std::nullopt;
    std::string_view body = canonical.substr(kCodeletPrefix.size());
    CodeletRegion c;
    for (const std::string& op : known_ops) {
        if (body.size() > op.size() && starts_with(body, op) && body[op.size()] == ':' &&
            parse_index_and_name(body.substr(op.size() + 1), c.index, c.name)) {
            c.op = op;
            return c;
        }
    }
    for (std::size_t colon = body.find(':'); colon != std::string_view::npos;
         colon = body.find(':', colon + 1)) {
        if (colon > 0 && parse_index_and_name(body.substr(colon + 1), c.index, c.name)) {
            c.op = std::string(body.substr(0, colon));
            return c;
        }
    }
    return std::nullopt;
}

enum class ParameterRole : uint8_t { Switch, Phase, Decision };

struct OpenExecution {
    std::size_t op;
    std::size_t depth; // region-stack depth of the operation's Enter
    CodeletExecution execution;
};

class Reconstruction {
  public:
    explicit Reconstruction(const Trace& trace) : trace_(trace), defs_(trace.defs) {}

    std::vector<TunedOperation> run() {
        find_operations();
        for (TunedOperation& op : ops_) op.locations.resize(defs_.locations.size());
        for (std::size_t l = 0; l < trace_.locations.size(); ++l) replay(static_cast<uint32_t>(l));
        // Codelet regions may have named operations found nowhere else: order again.
        std::sort(ops_.begin(), ops_.end(),
                  [](const TunedOperation& x, const TunedOperation& y) { return x.name < y.name; });
        return std::move(ops_);
    }

  private:
    std::size_t op_index(const std::string& name) {
        auto [it, added] = op_by_name_.emplace(name, ops_.size());
        if (added) {
            ops_.emplace_back();
            ops_.back().name = name;
        }
        return it->second;
    }

    void find_operations() {
        // Operation names come from operation regions and from the three parameters.
        std::set<std::string> names;
        for (const Region& r : defs_.regions)
            if (starts_with(r.canonical_name, kTunedPrefix))
                names.insert(r.canonical_name.substr(kTunedPrefix.size()));
        for (const Parameter& p : defs_.parameters)
            for (std::string_view prefix : {kCodeletPrefix, kPhasePrefix, kDecisionPrefix})
                if (starts_with(p.name, prefix)) names.insert(p.name.substr(prefix.size()));
        std::vector<std::string> known(names.begin(), names.end());
        std::sort(known.begin(), known.end(), [](const std::string& x, const std::string& y) {
            return x.size() != y.size() ? x.size() > y.size() : x < y;
        });
        for (const std::string& name : names) op_index(name); // ops_ sorted by name

        for (std::size_t r = 0; r < defs_.regions.size(); ++r) {
            const std::string& canonical = defs_.regions[r].canonical_name;
            if (starts_with(canonical, kTunedPrefix)) {
                TunedOperation& op = ops_[op_index(canonical.substr(kTunedPrefix.size()))];
                if (op.region == kNone) op.region = static_cast<Ref>(r);
                op_of_region_.emplace(static_cast<Ref>(r), op_by_name_[op.name]);
            } else if (auto c = parse_codelet_region(canonical, known)) {
                const std::size_t i = op_index(c->op);
                ops_[i].codelets.emplace(c->index, c->name);
                ops_[i].codelet_regions.emplace(c->index, static_cast<Ref>(r));
                codelet_of_region_.emplace(static_cast<Ref>(r), std::make_pair(i, c->index));
            }
        }
        for (std::size_t p = 0; p < defs_.parameters.size(); ++p) {
            const std::string& name = defs_.parameters[p].name;
            if (starts_with(name, kCodeletPrefix))
                parameter_role_[p] = {op_index(name.substr(kCodeletPrefix.size())),
                                      ParameterRole::Switch};
            else if (starts_with(name, kPhasePrefix))
                parameter_role_[p] = {op_index(name.substr(kPhasePrefix.size())),
                                      ParameterRole::Phase};
            else if (starts_with(name, kDecisionPrefix))
                parameter_role_[p] = {op_index(name.substr(kDecisionPrefix.size())),
                                      ParameterRole::Decision};
        }
    }

    void on_parameter(uint32_t location, const Event& e) {
        auto it = parameter_role_.find(e.a);
        if (it == parameter_role_.end()) return;
        auto [op, role] = it->second;
        TunedLocation& tl = ops_[op].locations[location];
        if (role == ParameterRole::Phase && e.kind == EventKind::ParameterString) {
            const std::string& text = e.b < defs_.strings.size() ? defs_.strings[e.b] : "";
            tl.phases.push_back({e.time, parse_tuning_phase(text), text});
        } else if (role == ParameterRole::Switch && e.kind == EventKind::ParameterInt) {
            tl.switches.push_back({e.time, e.value});
        } else if (role == ParameterRole::Decision && e.kind == EventKind::ParameterInt) {
            tl.decision = TunerDecision{e.time, e.value};
        }
    }

    // Walks one location's region stack: an execution is an Enter/Leave of the operation's
    // region; its codelet is a codelet region of the same operation entered directly inside.
    void replay(uint32_t location) {
        std::vector<Ref> stack;
        std::vector<OpenExecution> open;
        for (const Event& e : trace_.locations[location].events) {
            if (e.kind == EventKind::ParameterInt || e.kind == EventKind::ParameterString) {
                on_parameter(location, e);
            } else if (e.kind == EventKind::Enter) {
                if (!open.empty() && open.back().depth + 1 == stack.size() &&
                    open.back().execution.codelet < 0) {
                    auto c = codelet_of_region_.find(e.a);
                    if (c != codelet_of_region_.end() && c->second.first == open.back().op)
                        open.back().execution.codelet = c->second.second;
                }
                auto op = op_of_region_.find(e.a);
                if (op != op_of_region_.end()) {
                    const std::vector<PhaseChange>& phases =
                        ops_[op->second].locations[location].phases;
                    CodeletExecution x;
                    x.location = location;
                    x.start = e.time;
                    x.phase = phases.empty() ? TuningPhase::Search : phases.back().phase;
                    open.push_back({op->second, stack.size(), x});
                }
                stack.push_back(e.a);
            } else if (e.kind == EventKind::Leave && !stack.empty()) {
                stack.pop_back();
                if (!open.empty() && open.back().depth == stack.size()) {
                    open.back().execution.end = e.time;
                    ops_[open.back().op].executions.push_back(open.back().execution);
                    open.pop_back();
                }
            }
        }
        for (const OpenExecution& o : open) ++ops_[o.op].unfinished_executions;
    }

    const Trace& trace_;
    const Definitions& defs_;
    std::vector<TunedOperation> ops_;
    std::map<std::string, std::size_t> op_by_name_;
    std::unordered_map<Ref, std::size_t> op_of_region_;
    std::unordered_map<Ref, std::pair<std::size_t, int64_t>> codelet_of_region_;
    std::unordered_map<Ref, std::pair<std::size_t, ParameterRole>> parameter_role_;
};

} // namespace

std::string_view tuning_phase_name(TuningPhase phase) {
    switch (phase) {
    case TuningPhase::Search:
        return "search";
    case TuningPhase::Decision:
        return "decision";
    case TuningPhase::Production:
        return "production";
    case TuningPhase::Unknown:
        return "unknown";
    }
    return "unknown";
}

TuningPhase parse_tuning_phase(std::string_view text) {
    if (text == "search") return TuningPhase::Search;
    if (text == "decision") return TuningPhase::Decision;
    if (text == "production") return TuningPhase::Production;
    return TuningPhase::Unknown;
}

std::string tuned_op_canonical_name(std::string_view op) {
    return std::string(kTunedPrefix) + std::string(op);
}

std::string codelet_canonical_name(std::string_view op, int64_t index, std::string_view codelet) {
    return std::string(kCodeletPrefix) + std::string(op) + ":" + std::to_string(index) + ":" +
           std::string(codelet);
}

std::string codelet_parameter_name(std::string_view op) {
    return std::string(kCodeletPrefix) + std::string(op);
}

std::string phase_parameter_name(std::string_view op) {
    return std::string(kPhasePrefix) + std::string(op);
}

std::string decision_parameter_name(std::string_view op) {
    return std::string(kDecisionPrefix) + std::string(op);
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
    return Reconstruction(trace).run();
}

} // namespace topolens::trace
