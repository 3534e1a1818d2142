// topolens info TRACE: what a trace holds, for a person deciding what to analyse.
#include "analyzer/cli/commands.h"
#include "analyzer/cli/cut_short.h"
#include "analyzer/cli/options.h"
#include "analyzer/cli/text.h"

#include "trace/clock_range.h"
#include "trace/cut.h"
#include "trace/names.h"
#include "trace/reader.h"
#include "trace/summary.h"
#include "trace/tuned.h"

#include <algorithm>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

namespace topolens::cli {
namespace {

namespace tt = topolens::trace;

// "name        value" lines of the overview share one label width.
std::string field(const std::string& label, const std::string& value) {
    std::string line = label + ":";
    line.append(line.size() < 16 ? 16 - line.size() : 1, ' ');
    return line + value + "\n";
}

std::string plural(uint64_t n, const std::string& one, const std::string& many) {
    return grouped(n) + " " + (n == 1 ? one : many);
}

void print_overview(std::ostream& out, const tt::Trace& trace, const tt::TraceSummary& summary) {
    const tt::Definitions& d = trace.defs;
    out << field("trace", trace.path);
    if (!d.creator.empty()) out << field("creator", d.creator);
    out << field("time span", summary.events
                                  ? fixed(summary.span_seconds(), 6) + " s (" +
                                        plural(summary.last - summary.first, "tick", "ticks") + ")"
                                  : "no events");
    out << field("timer", grouped(d.timer_resolution) + " ticks/s");

    std::size_t with_offsets = 0;
    std::set<std::size_t> counts;
    for (const tt::Location& l : d.locations) {
        if (!l.clock_offsets.empty()) ++with_offsets;
        counts.insert(l.clock_offsets.size());
    }
    std::string clock = "none";
    if (with_offsets > 0) {
        clock = "on " + std::to_string(with_offsets) + " of " + std::to_string(d.locations.size()) +
                " locations";
        if (counts.size() == 1)
            clock += ", " + plural(*counts.begin(), "offset", "offsets") + " each";
        clock += " (timestamps corrected)";
    }
    out << field("clock offsets", clock);
    if (!trace.cut.empty())
        out << wrap("cut short:      " + tt::describe_cut(trace).substr(tt::kCutShortLead.size()),
                    100, 0, 16, "; ");
}

void print_ranks(std::ostream& out, const tt::Definitions& d) {
    std::map<std::string, std::vector<uint32_t>> by_host;
    std::set<uint32_t> ranks;
    for (const tt::Location& l : d.locations) {
        by_host[l.host.empty() ? "(unknown host)" : l.host].push_back(l.rank);
        ranks.insert(l.rank);
    }
    std::string line =
        plural(ranks.size(), "rank", "ranks") + " on " + plural(by_host.size(), "host", "hosts");
    if (d.locations.size() != ranks.size())
        line += " (" + plural(d.locations.size(), "location", "locations") + ")";
    out << field("ranks", line);
    Table t({"host", "ranks"});
    for (const auto& [host, rs] : by_host) t.row({host, rank_ranges(rs)});
    out << t.render();
    if (d.locations.size() == ranks.size()) return;
    // Threads: each process's locations, by name.
    std::map<uint32_t, std::string> names;
    for (const tt::Location& l : d.locations) {
        std::string& list = names[l.rank];
        list += (list.empty() ? "" : ", ") + l.name;
    }
    Table threads({"rank", "locations"});
    for (const auto& [rank, list] : names) threads.row({std::to_string(rank), list});
    out << threads.render();
}

// Regions are defined up front (the measurement library defines every MPI function it
// wraps); which of them the run entered tells more.
std::vector<std::string> entered_regions(const tt::Trace& trace) {
    std::vector<bool> entered(trace.defs.regions.size());
    for (const tt::LocationEvents& l : trace.locations)
        for (const tt::Event& e : l.events)
            if (e.kind == tt::EventKind::Enter && e.region() < entered.size())
                entered[e.region()] = true;
    std::vector<std::string> names;
    for (std::size_t r = 0; r < entered.size(); ++r)
        if (entered[r]) names.push_back(trace.defs.regions[r].name);
    return names;
}

void print_regions(std::ostream& out, const tt::Trace& trace) {
    const tt::Definitions& d = trace.defs;
    std::size_t mpi = 0;
    std::vector<std::string> user;
    for (const tt::Region& r : d.regions) {
        if (r.is_mpi())
            ++mpi;
        else if (r.paradigm == tt::Paradigm::User)
            user.push_back(r.name);
    }
    const std::size_t other = d.regions.size() - mpi - user.size();
    std::string line =
        grouped(d.regions.size()) + " (" + grouped(mpi) + " MPI, " + grouped(user.size()) + " user";
    if (other) line += ", " + grouped(other) + " other";
    out << "\n" << field("regions", line + ")");
    if (!user.empty()) out << wrap("user regions: " + join(user, ", "), 100, 2, 16);
    const std::vector<std::string> entered = entered_regions(trace);
    out << wrap("entered: " + grouped(entered.size()) +
                    (entered.empty() ? std::string() : " (" + join(entered, ", ") + ")"),
                100, 2, 16);
}

void print_communicators(std::ostream& out, const tt::Definitions& d) {
    out << "\n" << field("communicators", grouped(d.communicators.size()));
    if (d.communicators.empty()) return;
    Table t({"name", "size", "parent", ""}, {false, true, false, false});
    for (const tt::Communicator& c : d.communicators)
        t.row({c.name, c.is_self ? "1" : std::to_string(c.members.size()),
               c.parent < d.communicators.size() ? d.communicators[c.parent].name : "-",
               c.is_self ? "(self: each rank alone)" : ""});
    out << t.render();
}

void print_topologies(std::ostream& out, const tt::Definitions& d) {
    out << "\n" << field("topologies", grouped(d.topologies.size()) + " Cartesian");
    if (d.topologies.empty()) return;
    Table t({"name", "dims", "periodic", "communicator", "coordinates"});
    for (const tt::CartTopology& topo : d.topologies) {
        std::vector<std::string> dims, periods;
        uint64_t cells = 1;
        for (const tt::CartDimension& dim : topo.dims) {
            dims.push_back(std::to_string(dim.size));
            periods.push_back(dim.periodic ? "yes" : "no");
            cells *= dim.size;
        }
        std::size_t with = 0;
        for (const auto& c : topo.coords_by_rank) with += !c.empty();
        const std::size_t ranks = topo.coords_by_rank.size();
        std::string coords = with == ranks && ranks > 0
                                 ? "all " + std::to_string(ranks) + " ranks"
                                 : std::to_string(with) + " of " + std::to_string(ranks) + " ranks";
        if (cells != ranks) coords += " (grid has " + grouped(cells) + " cells)";
        const std::string comm = topo.communicator < d.communicators.size()
                                     ? d.communicators[topo.communicator].name
                                     : "-";
        t.row({topo.name, join(dims, "x"), join(periods, ","), comm, coords});
    }
    out << t.render();
}

std::string codelet_label(const tt::TunedOperation& op, int64_t index) {
    auto it = op.codelets.find(index);
    return std::to_string(index) + (it != op.codelets.end() ? " (" + it->second + ")" : "");
}

void print_tuned(std::ostream& out, const std::vector<tt::TunedOperation>& ops,
                 std::size_t locations) {
    out << "\n" << field("tuned ops", grouped(ops.size()));
    for (const tt::TunedOperation& op : ops) {
        out << "  " << op.name << "\n";
        std::vector<std::string> codelets;
        for (const auto& [index, name] : op.codelets)
            codelets.push_back(std::to_string(index) + ": " + name);
        Table t;
        t.row({"codelets", codelets.empty() ? "none recorded" : join(codelets, ", ")});

        // Phases in tuning order, then any a third-party tuner invented, in name order.
        std::set<std::pair<int, std::string>> phases;
        for (const tt::TunedLocation& l : op.locations)
            for (const tt::PhaseChange& p : l.phases) phases.insert({int(p.phase), p.name});
        std::vector<std::string> phase_names;
        for (const auto& p : phases) phase_names.push_back(p.second);
        t.row({"phases", phase_names.empty() ? "none recorded" : join(phase_names, ", ")});

        const std::vector<int64_t> decided = op.decided_indices();
        const std::size_t deciding = op.decided_locations();
        std::string decision;
        if (decided.empty()) {
            decision = "undecided";
        } else if (decided.size() == 1) {
            decision = codelet_label(op, decided.front());
            decision += deciding == locations ? " on all locations"
                                              : " on " + std::to_string(deciding) + " of " +
                                                    std::to_string(locations) + " locations";
        } else {
            std::vector<std::string> labels;
            for (int64_t i : decided) labels.push_back(codelet_label(op, i));
            decision = "inconsistent: " + join(labels, ", ");
        }
        t.row({"decision", decision});

        std::map<int, uint64_t> per_phase;
        for (const tt::CodeletExecution& x : op.executions) ++per_phase[int(x.phase)];
        std::vector<std::string> parts;
        for (const auto& [phase, n] : per_phase)
            parts.push_back(std::string(tt::tuning_phase_name(tt::TuningPhase(phase))) + " " +
                            grouped(n));
        std::string executions = grouped(op.executions.size());
        if (!parts.empty()) executions += " (" + join(parts, ", ") + ")";
        if (op.unfinished_executions)
            executions += ", " + grouped(op.unfinished_executions) + " unfinished";
        t.row({"executions", executions});
        out << t.render(4);
    }
}

void print_events(std::ostream& out, const tt::TraceSummary& s) {
    out << "\n" << field("events", grouped(s.events));
    if (s.events == 0) return;
    Table t({"kind", "total", "min/location", "max/location"}, {false, true, true, true});
    for (std::size_t k = 0; k < tt::kEventKindCount; ++k) {
        if (s.totals[k] == 0) continue;
        t.row({std::string(tt::event_kind_name(tt::EventKind(k))), grouped(s.totals[k]),
               grouped(s.min_per_location[k]), grouped(s.max_per_location[k])});
    }
    out << t.render();
}

} // namespace

void info_usage(std::ostream& out) {
    out << "usage: topolens info TRACE\n\n"
           "Summarizes an OTF2 trace (the archive directory or its .otf2 anchor file):\n"
           "ranks and hosts, regions, communicators, Cartesian topologies, tuned operations\n"
           "with their codelets, phases and decision, event counts and the time span.\n";
}

int info_main(const std::vector<std::string>& args) {
    std::vector<std::string> traces;
    if (const auto exit = OptionParser()
                              .help()
                              .positional([&](const std::string& a) { traces.push_back(a); })
                              .run(args, "", info_usage, [&] {
                                  if (traces.size() != 1)
                                      throw UsageError{traces.empty()
                                                           ? "info needs a trace"
                                                           : "info takes exactly one trace"};
                              }))
        return *exit;
    try {
        complete_if_cut_short(traces[0]);
        const tt::Trace trace = tt::read_trace(traces[0]);
        const tt::TraceSummary summary = tt::summarize(trace);
        std::ostringstream out;
        print_overview(out, trace, summary);
        print_ranks(out, trace.defs);
        print_regions(out, trace);
        print_communicators(out, trace.defs);
        print_topologies(out, trace.defs);
        print_tuned(out, tt::reconstruct_tuned_operations(trace), trace.defs.locations.size());
        print_events(out, summary);
        std::cout << out.str();
        // The time span above includes them: said after it, on stderr like other warnings.
        for (const std::string& w : tt::clock_range_warnings(trace))
            std::cerr << "topolens: warning: " << w << "\n";
        return kExitOk;
    } catch (const std::exception& e) {
        print_error(e.what());
        return kExitFailure;
    }
}

} // namespace topolens::cli
