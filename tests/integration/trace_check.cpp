// trace_check: compares a trace, as the topolens reader sees it, with what a sample program
// says it did (its --expect file). Used by the integration tests.
//
//   trace_check counts EXPECT TRACE [--min-flushes N]
//       every rank present; per rank the point-to-point messages sent and received and
//       the collective operations; enter/leave balanced; the Cartesian topology (dims,
//       periods, every rank's coordinates), or no topology for "topology none";
//       with --min-flushes, at least N BufferFlush events in the whole trace.
//   trace_check tuned EXPECT TRACE
//       the tuned-operation sequence per rank: phases, codelet switches, decision and
//       every execution with its codelet and phase.
//
// TRACE is an archive directory or its anchor file (traces.otf2). Exit status: 0 all
// checks pass, 1 a check failed, 2 bad usage or an unreadable trace / expect file.
#include "trace/model.h"
#include "trace/reader.h"
#include "trace/tuned.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace tt = topolens::trace;

namespace {

const char* const kUsage = "usage: trace_check counts EXPECT TRACE [--min-flushes N]\n"
                           "       trace_check tuned EXPECT TRACE\n";

// Collects failures instead of stopping at the first, so one run shows all of them.
struct Verdict {
    int failures = 0;
    int checks = 0;
    void check(bool ok, const std::string& what) {
        ++checks;
        if (!ok) {
            ++failures;
            std::cout << "FAIL: " << what << "\n";
        }
    }
};

struct RankExpect {
    int rank = -1;
    int topo_rank = -1;
    long sends = 0, recvs = 0, collectives = 0;
    std::vector<uint32_t> coords;
};

struct CountsExpect {
    std::string sample;
    int ranks = 0;
    std::string topology = "none";
    int ndims = 0;
    std::vector<uint32_t> dims;
    std::vector<int> periods;
    std::vector<RankExpect> per_rank;
};

[[noreturn]] void fatal(const std::string& message) {
    std::cerr << "trace_check: " << message << "\n";
    std::exit(2);
}

std::vector<std::string> read_lines(const std::string& path) {
    std::ifstream in(path);
    if (!in) fatal("cannot read " + path);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);)
        if (!line.empty() && line[0] != '#') lines.push_back(line);
    return lines;
}

CountsExpect parse_counts(const std::string& path) {
    CountsExpect e;
    for (const std::string& line : read_lines(path)) {
        std::istringstream s(line);
        std::string key;
        s >> key;
        if (key == "sample")
            s >> e.sample;
        else if (key == "ranks")
            s >> e.ranks;
        else if (key == "topology") {
            std::getline(s >> std::ws, e.topology);
        } else if (key == "ndims")
            s >> e.ndims;
        else if (key == "dims") {
            for (uint32_t v; s >> v;) e.dims.push_back(v);
        } else if (key == "periods") {
            for (int v; s >> v;) e.periods.push_back(v);
        } else if (key == "rank") {
            RankExpect r;
            s >> r.rank;
            for (std::string field; s >> field;) {
                if (field == "topo_rank")
                    s >> r.topo_rank;
                else if (field == "sends")
                    s >> r.sends;
                else if (field == "recvs")
                    s >> r.recvs;
                else if (field == "collectives")
                    s >> r.collectives;
                else if (field == "coords") {
                    for (uint32_t v; s >> v;) r.coords.push_back(v);
                } else
                    fatal(path + ": unknown field '" + field + "' in: " + line);
            }
            e.per_rank.push_back(r);
        } else
            fatal(path + ": unknown line: " + line);
        if (s.bad()) fatal(path + ": bad line: " + line);
    }
    if (e.ranks <= 0 || static_cast<int>(e.per_rank.size()) != e.ranks)
        fatal(path + ": needs 'ranks N' and N rank lines");
    if (e.topology != "none" && (e.ndims <= 0 || static_cast<int>(e.dims.size()) != e.ndims ||
                                 static_cast<int>(e.periods.size()) != e.ndims))
        fatal(path + ": a topology needs ndims, dims and periods of ndims entries");
    return e;
}

tt::Trace load(const std::string& path) {
    try {
        return tt::read_trace(path);
    } catch (const std::exception& e) {
        fatal(std::string("cannot read trace ") + path + ": " + e.what());
    }
}

// Location index of each world rank, -1 where the trace has none.
std::vector<int> locations_by_rank(const tt::Trace& trace, int ranks, Verdict& v) {
    std::vector<int> index(ranks, -1);
    for (size_t l = 0; l < trace.defs.locations.size(); ++l) {
        const uint32_t rank = trace.defs.locations[l].rank;
        if (rank >= static_cast<uint32_t>(ranks)) {
            v.check(false, "location " + std::to_string(l) + " has rank " + std::to_string(rank) +
                               ", beyond the " + std::to_string(ranks) + " ranks expected");
            continue;
        }
        v.check(index[rank] < 0, "rank " + std::to_string(rank) + " has two locations");
        index[rank] = static_cast<int>(l);
    }
    for (int r = 0; r < ranks; ++r)
        v.check(index[r] >= 0, "rank " + std::to_string(r) + " missing from the trace");
    return index;
}

bool is_communication_collective(uint32_t op) {
    // Communicator creation may be recorded as a collective too; the samples count only
    // operations that move data or synchronise (OTF2 ops Barrier..ReduceScatterBlock).
    return op <= static_cast<uint32_t>(tt::CollectiveOp::ReduceScatterBlock);
}

void check_topology(const tt::Trace& trace, const CountsExpect& e, Verdict& v) {
    const auto& topologies = trace.defs.topologies;
    if (e.topology == "none") {
        v.check(topologies.empty(), "expected no Cartesian topology, the trace has " +
                                        std::to_string(topologies.size()));
        return;
    }
    const tt::CartTopology* topo = nullptr;
    int named = 0;
    for (const auto& t : topologies)
        if (t.name == e.topology) {
            topo = &t;
            ++named;
        }
    if (!topo) {
        std::string names;
        for (const auto& t : topologies) names += " '" + t.name + "'";
        v.check(false, "no topology named '" + e.topology +
                           "'; the trace has:" + (names.empty() ? " none" : names));
        return;
    }
    v.check(named == 1,
            "topology '" + e.topology + "' defined " + std::to_string(named) + " times");
    v.check(static_cast<int>(topo->dims.size()) == e.ndims,
            "topology has " + std::to_string(topo->dims.size()) + " dimensions, expected " +
                std::to_string(e.ndims));
    for (size_t d = 0; d < topo->dims.size() && d < e.dims.size(); ++d) {
        v.check(topo->dims[d].size == e.dims[d], "dimension " + std::to_string(d) + " has size " +
                                                     std::to_string(topo->dims[d].size) +
                                                     ", expected " + std::to_string(e.dims[d]));
        v.check(topo->dims[d].periodic == (e.periods[d] != 0),
                "dimension " + std::to_string(d) +
                    " periodic=" + std::to_string(topo->dims[d].periodic) + ", expected " +
                    std::to_string(e.periods[d]));
    }
    const tt::Communicator* comm = nullptr;
    if (topo->communicator < trace.defs.communicators.size())
        comm = &trace.defs.communicators[topo->communicator];
    v.check(comm != nullptr, "topology's communicator is not defined");
    for (const RankExpect& r : e.per_rank) {
        const std::string who = "rank " + std::to_string(r.rank) + " (topology rank " +
                                std::to_string(r.topo_rank) + ")";
        if (r.topo_rank < 0 || static_cast<size_t>(r.topo_rank) >= topo->coords_by_rank.size()) {
            v.check(false, who + ": no coordinates in the trace");
            continue;
        }
        const auto& got = topo->coords_by_rank[r.topo_rank];
        std::string got_text, want_text;
        for (uint32_t c : got) got_text += " " + std::to_string(c);
        for (uint32_t c : r.coords) want_text += " " + std::to_string(c);
        v.check(got == r.coords, who + ": coordinates" + got_text + ", expected" + want_text);
        // The coordinates belong to this world rank only if the communicator maps the
        // topology rank to it.
        if (comm && !comm->members.empty()) {
            const bool maps = static_cast<size_t>(r.topo_rank) < comm->members.size() &&
                              comm->members[r.topo_rank] == static_cast<uint32_t>(r.rank);
            v.check(maps, who + ": the topology's communicator '" + comm->name +
                              "' does not map this topology rank to world rank " +
                              std::to_string(r.rank));
        }
    }
    size_t with_coords = 0;
    for (const auto& c : topo->coords_by_rank) with_coords += !c.empty();
    v.check(with_coords == e.per_rank.size(), std::to_string(with_coords) +
                                                  " ranks have coordinates, expected " +
                                                  std::to_string(e.per_rank.size()));
}

int run_counts(const std::string& expect_path, const std::string& trace_path, long min_flushes) {
    const CountsExpect e = parse_counts(expect_path);
    const tt::Trace trace = load(trace_path);
    Verdict v;
    v.check(static_cast<int>(trace.defs.locations.size()) == e.ranks,
            "trace has " + std::to_string(trace.defs.locations.size()) + " locations, expected " +
                std::to_string(e.ranks));
    const std::vector<int> loc = locations_by_rank(trace, e.ranks, v);
    long flushes = 0, total_sends = 0, total_recvs = 0;
    for (const RankExpect& r : e.per_rank) {
        if (r.rank < 0 || r.rank >= e.ranks) fatal("bad rank in expect file");
        if (loc[r.rank] < 0) continue;
        long sends = 0, recvs = 0, collectives = 0, enters = 0, leaves = 0;
        for (const tt::Event& ev : trace.locations[loc[r.rank]].events) {
            switch (ev.kind) {
            case tt::EventKind::MpiSend:
            case tt::EventKind::MpiIsend:
                ++sends;
                break;
            case tt::EventKind::MpiRecv:
            case tt::EventKind::MpiIrecv:
                ++recvs;
                break;
            case tt::EventKind::MpiCollectiveEnd:
                collectives += is_communication_collective(static_cast<uint32_t>(ev.op()));
                break;
            case tt::EventKind::Enter:
                ++enters;
                break;
            case tt::EventKind::Leave:
                ++leaves;
                break;
            case tt::EventKind::BufferFlush:
                ++flushes;
                break;
            default:
                break;
            }
        }
        total_sends += sends;
        total_recvs += recvs;
        const std::string who = "rank " + std::to_string(r.rank);
        v.check(sends == r.sends,
                who + ": " + std::to_string(sends) + " sends, expected " + std::to_string(r.sends));
        v.check(recvs == r.recvs, who + ": " + std::to_string(recvs) + " receives, expected " +
                                      std::to_string(r.recvs));
        v.check(collectives == r.collectives, who + ": " + std::to_string(collectives) +
                                                  " collectives, expected " +
                                                  std::to_string(r.collectives));
        v.check(enters == leaves && enters > 0, who + ": " + std::to_string(enters) +
                                                    " enters but " + std::to_string(leaves) +
                                                    " leaves");
    }
    check_topology(trace, e, v);
    if (min_flushes > 0)
        v.check(flushes >= min_flushes, std::to_string(flushes) +
                                            " BufferFlush events, expected at least " +
                                            std::to_string(min_flushes));
    std::cout << "trace_check counts: " << e.ranks << " ranks, " << total_sends << " sends, "
              << total_recvs << " receives, " << flushes << " buffer flushes, topology '"
              << e.topology << "': " << v.checks - v.failures << "/" << v.checks
              << " checks passed\n";
    return v.failures == 0 ? 0 : 1;
}

// ---------------------------------------------------------------- tuned operations

struct Execution {
    int64_t codelet = -1;
    std::string phase;
};

struct TunedRankExpect {
    std::vector<std::string> phases;
    std::vector<int64_t> switches;
    std::optional<int64_t> decision;
    std::vector<Execution> executions;
};

struct TunedExpect {
    int ranks = 0;
    std::string op;
    std::map<int64_t, std::string> codelets; // every codelet named in the sequence
    std::vector<TunedRankExpect> per_rank;
};

TunedExpect parse_tuned(const std::string& path) {
    TunedExpect e;
    auto codelet = [&](int64_t index, const std::string& name, const std::string& line) {
        auto [it, added] = e.codelets.emplace(index, name);
        if (!added && it->second != name) fatal(path + ": codelet renamed in: " + line);
    };
    for (const std::string& line : read_lines(path)) {
        std::istringstream s(line);
        std::string key;
        s >> key;
        if (key == "sample") continue;
        if (key == "ranks") {
            s >> e.ranks;
            e.per_rank.resize(e.ranks > 0 ? e.ranks : 0);
        } else if (key == "op")
            s >> e.op;
        else if (key == "rank") {
            int rank = -1;
            std::string what, name, phase;
            int64_t index = -1;
            s >> rank >> what;
            if (rank < 0 || rank >= e.ranks) fatal(path + ": rank out of range in: " + line);
            TunedRankExpect& r = e.per_rank[rank];
            if (what == "phase") {
                s >> phase;
                r.phases.push_back(phase);
            } else if (what == "switch") {
                s >> index >> name;
                r.switches.push_back(index);
                codelet(index, name, line);
            } else if (what == "decision") {
                s >> index >> name;
                r.decision = index;
                codelet(index, name, line);
            } else if (what == "exec") {
                s >> index >> name >> phase;
                r.executions.push_back({index, phase});
                codelet(index, name, line);
            } else
                fatal(path + ": unknown line: " + line);
        } else
            fatal(path + ": unknown line: " + line);
        if (s.fail()) fatal(path + ": bad line: " + line);
    }
    if (e.ranks <= 0 || e.op.empty()) fatal(path + ": needs 'ranks N' and 'op NAME'");
    return e;
}

template <typename T> std::string join(const std::vector<T>& items) {
    std::ostringstream out;
    for (size_t i = 0; i < items.size(); ++i) out << (i ? " " : "") << items[i];
    return "[" + out.str() + "]";
}

int run_tuned(const std::string& expect_path, const std::string& trace_path) {
    const TunedExpect e = parse_tuned(expect_path);
    const tt::Trace trace = load(trace_path);
    Verdict v;
    const std::vector<int> loc = locations_by_rank(trace, e.ranks, v);
    const std::vector<tt::TunedOperation> ops = tt::reconstruct_tuned_operations(trace);
    const tt::TunedOperation* op = nullptr;
    for (const auto& candidate : ops)
        if (candidate.name == e.op) op = &candidate;
    v.check(ops.size() == 1, std::to_string(ops.size()) + " tuned operations, expected 1");
    if (!op) {
        v.check(false, "no tuned operation named '" + e.op + "'");
        std::cout << "trace_check tuned: " << v.failures << " failures\n";
        return 1;
    }
    v.check(op->codelets == e.codelets, "codelets of '" + e.op + "' differ from the expected " +
                                            std::to_string(e.codelets.size()));
    for (const auto& [index, name] : op->codelets)
        std::cout << "codelet " << index << " " << name << "\n";
    v.check(op->unfinished_executions == 0,
            std::to_string(op->unfinished_executions) + " unfinished executions");
    v.check(op->locations.size() == trace.defs.locations.size(),
            "tuned-operation locations not parallel to the trace's");

    size_t executions_total = 0;
    for (int rank = 0; rank < e.ranks; ++rank) {
        if (loc[rank] < 0 || static_cast<size_t>(loc[rank]) >= op->locations.size()) continue;
        const uint32_t l = static_cast<uint32_t>(loc[rank]);
        const TunedRankExpect& want = e.per_rank[rank];
        const tt::TunedLocation& got = op->locations[l];
        const std::string who = "rank " + std::to_string(rank);

        std::vector<std::string> phases;
        for (const auto& p : got.phases) phases.push_back(p.name);
        v.check(phases == want.phases,
                who + ": phases " + join(phases) + ", expected " + join(want.phases));
        for (const auto& p : got.phases)
            v.check(p.name == tt::tuning_phase_name(p.phase),
                    who + ": phase '" + p.name + "' not classified as itself");

        std::vector<int64_t> switches;
        for (const auto& sw : got.switches) switches.push_back(sw.index);
        v.check(switches == want.switches,
                who + ": switches " + join(switches) + ", expected " + join(want.switches));

        v.check(got.decision.has_value() == want.decision.has_value() &&
                    (!want.decision || got.decision->index == *want.decision),
                who + ": decision " +
                    (got.decision ? std::to_string(got.decision->index) : std::string("none")) +
                    ", expected " +
                    (want.decision ? std::to_string(*want.decision) : std::string("none")));

        std::vector<const tt::CodeletExecution*> mine;
        for (const auto& x : op->executions)
            if (x.location == l) mine.push_back(&x);
        executions_total += mine.size();
        v.check(mine.size() == want.executions.size(), who + ": " + std::to_string(mine.size()) +
                                                           " executions, expected " +
                                                           std::to_string(want.executions.size()));
        for (size_t i = 0; i < mine.size() && i < want.executions.size(); ++i) {
            const tt::CodeletExecution& x = *mine[i];
            const std::string phase(tt::tuning_phase_name(x.phase));
            const std::string what = who + ", execution " + std::to_string(i) + ": ";
            v.check(x.codelet == want.executions[i].codelet && phase == want.executions[i].phase,
                    what + "codelet " + std::to_string(x.codelet) + " in " + phase +
                        ", expected codelet " + std::to_string(want.executions[i].codelet) +
                        " in " + want.executions[i].phase);
            v.check(x.start <= x.end, what + "ends before it starts");
            if (i > 0) v.check(mine[i - 1]->end <= x.start, what + "overlaps the previous one");
            // The time order must agree: the switch in force when it started is its codelet.
            int64_t in_force = -1;
            for (const auto& sw : got.switches)
                if (sw.time <= x.start) in_force = sw.index;
            v.check(in_force == x.codelet, what + "runs codelet " + std::to_string(x.codelet) +
                                               " but the last switch before it was to " +
                                               std::to_string(in_force));
        }
    }
    std::vector<int64_t> decided_want;
    for (const auto& r : e.per_rank)
        if (r.decision) decided_want.push_back(*r.decision);
    std::sort(decided_want.begin(), decided_want.end());
    decided_want.erase(std::unique(decided_want.begin(), decided_want.end()), decided_want.end());
    v.check(op->decided_indices() == decided_want,
            "decided codelets " + join(op->decided_indices()) + ", expected " + join(decided_want));
    std::cout << "trace_check tuned: op '" << op->name << "', " << op->codelets.size()
              << " codelets, " << executions_total << " executions on " << e.ranks
              << " ranks: " << v.checks - v.failures << "/" << v.checks << " checks passed\n";
    return v.failures == 0 ? 0 : 1;
}

} // namespace

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.size() < 3) {
        std::cerr << kUsage;
        return 2;
    }
    if (args[0] == "counts") {
        long min_flushes = 0;
        if (args.size() == 5 && args[3] == "--min-flushes")
            min_flushes = std::atol(args[4].c_str());
        else if (args.size() != 3) {
            std::cerr << kUsage;
            return 2;
        }
        return run_counts(args[1], args[2], min_flushes);
    }
    if (args[0] == "tuned" && args.size() == 3) return run_tuned(args[1], args[2]);
    std::cerr << kUsage;
    return 2;
}
