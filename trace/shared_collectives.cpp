#include "trace/shared_collectives.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace topolens::trace::detail {

namespace {

// How many collectives a process reached on a communicator.
struct CommCount {
    Ref comm;
    uint32_t collectives;
};

// The ends a rank sends another travel in batches, one per communicator: the communicator,
// the number of ends, the ends (WireEnd), the number of collectives of these the sending
// rank's processes made, and these (their instance, id, root and operation; 13 bytes).
// A member's end as it travels: no padding, nothing the batch or the maker's end tells.
struct WireEnd {
    uint32_t location;
    uint32_t event;
    uint32_t instance;
    uint32_t callpath; // a node of the sending rank's tree, or kNone
    Time enter;
    Time leave;
};
static_assert(sizeof(WireEnd) == 32, "a collective end travels in 32 bytes");
constexpr size_t kWireMadeBytes = 3 * sizeof(uint32_t) + sizeof(CollectiveOp);
constexpr size_t kBatchHeaderBytes = 2 * sizeof(uint32_t); // communicator, ends

} // namespace

SharedCollectives::SharedCollectives(const Trace& trace, Matching& matching, CommRanks& ranks,
                                     const std::vector<uint32_t>& first_of_process,
                                     LocationShare share)
    : trace_(trace), m_(matching), ranks_(ranks), first_of_process_(first_of_process),
      share_(share), sequence_(trace.defs.communicators.size()) {}

SharedCollectives::~SharedCollectives() = default;

// A member's end of a collective, as this rank assembles the collective (also of a
// location another rank read). What is the same for every member (operation, root) and
// the collective's id come with the end of the process that made it (Made).
struct SharedCollectives::SharedEnd {
    EventRef member;
    Ref comm;
    uint32_t instance; // the process's how-manieth on the communicator
    // Its call path a node of its rank's tree (merge_own_call_trees); the region is not sent,
    // it is the call path's (set where the call path joins the trace's tree).
    CallSummary call;
};

// Of a collective, from the process that made it (first reached it).
struct SharedCollectives::Made {
    Ref comm;
    uint32_t instance;
    uint32_t id;   // the whole trace's
    uint32_t root; // world rank, or kNone
    CollectiveOp op;
};

// One of this rank's collective ends, as the matching takes it (see MatcherImpl::collective,
// trace/matching.cpp).
struct SharedCollectives::OwnEnd {
    uint32_t location;
    const CollectiveEnd* end;
    uint32_t instance = kNone; // kNone: not a member (or no such communicator)
    uint32_t id = kNone;       // set if this end's process made the collective
    uint32_t at = kNone;       // its place among the ends share() assembles
};

bool SharedCollectives::is_self(Ref comm) const {
    return trace_.defs.communicators[comm].is_self;
}
// An end other members' ranks need (not MPI_COMM_SELF's, nor one off its communicator).
bool SharedCollectives::travels(const OwnEnd& x) const {
    return x.instance != kNone && !is_self(x.end->comm);
}

// Collectives, each rank holding those its locations take part in, under the serial ids.
// The serial matching numbers them as it meets them, process by process (in location
// order): a process's k-th collective on a communicator is new if no earlier process
// reached k collectives there (MPI_COMM_SELF: always new). So a process's new ones, and
// where its numbers start, follow from how many collectives every earlier process made
// on each of its communicators: only these counts are gathered by every rank. Each end
// then goes to the ranks of the other members that reach that collective, the end of the
// process that made it carrying its id, operation and root (the same for every member
// that agrees: the others' are not sent, a member's own rank checks it against them);
// a rank that holds no member of a communicator hears nothing of its collectives. The
// warnings of a process's collectives are found by its rank, which holds every member's
// end of them, in the serial order.
SharedCollectives::Found SharedCollectives::share(Exchange& exchange,
                                                  const std::vector<Bytes>& shares_and_counts) {
    const Reach reach = number_collectives(exchange.rank(), shares_and_counts);
    Received received = exchange_collective_ends(exchange, reach);
    Found found;
    assemble_collectives(exchange.rank(), reach, received, found);
    own_processes_.clear();
    own_ends_.clear();
    return found;
}

// Every process's counts, in location order: the ids this rank's processes make, and
// per communicator which ranks reach how many of its collectives.
SharedCollectives::Reach
SharedCollectives::number_collectives(unsigned me, const std::vector<Bytes>& shares_and_counts) {
    const auto ncomm = static_cast<uint32_t>(trace_.defs.communicators.size());
    std::vector<uint32_t> made(ncomm, 0); // per communicator, as instances_of_comm_
    Reach reach(ncomm);
    uint64_t next_id = 0;
    size_t own_at = 0;
    for (uint32_t r = 0; r < shares_and_counts.size(); ++r) {
        ByteReader in(shares_and_counts[r], "collective counts");
        in.get<LocationShare>(); // (learn_shares read it)
        if (r != me)
            m_.collective_bytes_received += shares_and_counts[r].size() - sizeof(LocationShare);
        for (uint32_t loc = m_.shares[r].first; loc < m_.shares[r].last; ++loc) {
            if (first_of_process_[loc] != loc) continue;
            const auto on_self = in.get<uint32_t>();
            const auto used = in.get_all<CommCount>();
            if (r == me) number_made(own_ends_[own_at++], made, next_id);
            next_id += on_self;
            for (const auto [comm, n] : used) {
                if (comm >= ncomm) throw std::logic_error("trace::Matcher: bad communicator");
                if (n > made[comm]) {
                    next_id += n - made[comm];
                    made[comm] = n;
                }
                auto& ranks = reach[comm];
                if (!ranks.empty() && ranks.back().first == r)
                    ranks.back().second = std::max(ranks.back().second, n);
                else
                    ranks.push_back({r, n});
            }
        }
    }
    return reach;
}

// Each member's end to the other ranks that reach its collective: gathered by all if
// every other rank does (the world's collectives: one buffer, not a copy per rank).
// Where an end goes depends on its collective only, so each collective's ends from one
// rank come in one buffer, in process order (within its communicator's batch). Returns
// every end of the collectives this rank takes part in, by rank, then communicator, then
// process (each own end knows its place), and what the makers tell of each collective.
// Buffers are sized exactly and each let go once read.
SharedCollectives::Received SharedCollectives::exchange_collective_ends(Exchange& exchange,
                                                                        const Reach& reach) {
    const unsigned me = exchange.rank();
    const unsigned others = exchange.size() - 1;
    const unsigned to_all = exchange.size(); // the destination "every other rank"
    // This rank's ends that travel, by communicator, each communicator's in process order.
    std::vector<OwnEnd*> travelling;
    for (std::vector<OwnEnd>& process : own_ends_)
        for (OwnEnd& x : process)
            if (travels(x)) travelling.push_back(&x);
    std::stable_sort(travelling.begin(), travelling.end(),
                     [](const OwnEnd* a, const OwnEnd* b) { return a->end->comm < b->end->comm; });
    auto for_each_destination = [&](const OwnEnd& x, auto&& to) {
        uint32_t n = 0;
        for (const auto& [r, most] : reach[x.end->comm]) n += r != me && most > x.instance;
        if (n == others && others > 1) return to(to_all);
        for (const auto& [r, most] : reach[x.end->comm])
            if (r != me && most > x.instance) to(r);
    };
    // Per destination, one communicator at a time: its ends and its collectives made here.
    struct Batch {
        std::vector<const OwnEnd*> ends;
        uint32_t made = 0;
    };
    std::vector<Batch> batches(exchange.size() + 1);
    auto for_each_batch = [&](auto&& send) {
        for (size_t from = 0; from < travelling.size();) {
            const Ref comm = travelling[from]->end->comm;
            size_t to = from;
            for (; to < travelling.size() && travelling[to]->end->comm == comm; ++to)
                for_each_destination(*travelling[to], [&](unsigned d) {
                    batches[d].ends.push_back(travelling[to]);
                    batches[d].made += travelling[to]->id != kNone;
                });
            for (unsigned d = 0; d < batches.size(); ++d)
                if (!batches[d].ends.empty()) {
                    send(d, comm, batches[d]);
                    batches[d] = {};
                }
            from = to;
        }
    };
    std::vector<Bytes> out(exchange.size() + 1); // by rank; last: to all
    std::vector<size_t> sizes(out.size(), 0);
    for_each_batch([&](unsigned d, Ref, const Batch& batch) {
        sizes[d] += kBatchHeaderBytes + batch.ends.size() * sizeof(WireEnd) + sizeof(uint32_t) +
                    batch.made * kWireMadeBytes;
    });
    for (unsigned d = 0; d < out.size(); ++d) out[d].reserve(sizes[d]);
    for_each_batch([&](unsigned d, Ref comm, const Batch& batch) {
        ByteWriter w(out[d]);
        w.put<uint32_t>(comm);
        w.put(static_cast<uint32_t>(batch.ends.size()));
        for (const OwnEnd* x : batch.ends) {
            const SharedEnd e = shared_end(*x);
            w.put(WireEnd{e.member.location, e.member.event, e.instance, e.call.callpath,
                          e.call.enter, e.call.leave});
        }
        w.put(batch.made);
        for (const OwnEnd* x : batch.ends)
            if (x->id != kNone) {
                w.put(x->instance);
                w.put(x->id);
                w.put(root_of(*x));
                w.put(x->end->op);
            }
    });
    Bytes everyone = std::move(out.back());
    out.pop_back();
    std::vector<Bytes> in = exchange.all_to_all(std::move(out));
    std::vector<Bytes> gathered = exchange.all_gather(std::move(everyone));
    Received received;
    size_t ends = travelling.size();
    for (uint32_t r = 0; r < in.size(); ++r)
        if (r != me) ends += (in[r].size() + gathered[r].size()) / sizeof(WireEnd); // (at most)
    received.ends.reserve(ends);
    for (uint32_t r = 0; r < in.size(); ++r) {
        if (r == me) {
            for (OwnEnd* x : travelling) {
                x->at = static_cast<uint32_t>(received.ends.size());
                received.ends.push_back(shared_end(*x));
                if (x->id != kNone)
                    received.made.push_back(
                        {x->end->comm, x->instance, x->id, root_of(*x), x->end->op});
            }
            continue;
        }
        for (Bytes* bytes : {&in[r], &gathered[r]}) {
            m_.collective_bytes_received += bytes->size();
            ByteReader from(*bytes, "collective ends");
            while (!from.done()) {
                const auto comm = from.get<uint32_t>();
                for (auto n = from.get<uint32_t>(); n > 0; --n) {
                    const auto w = from.get<WireEnd>();
                    received.ends.push_back({{w.location, w.event},
                                             comm,
                                             w.instance,
                                             {w.enter, w.leave, kNone, w.callpath}});
                    ++m_.collective_ends_received;
                }
                for (auto n = from.get<uint32_t>(); n > 0; --n) {
                    Made made{comm, 0, 0, 0, CollectiveOp::Other};
                    made.instance = from.get<uint32_t>();
                    made.id = from.get<uint32_t>();
                    made.root = from.get<uint32_t>();
                    made.op = from.get<CollectiveOp>();
                    received.made.push_back(made);
                }
            }
            Bytes().swap(*bytes);
        }
    }
    return received;
}

// The collectives this rank takes part in, from every member's end, as the serial matching
// finds them (MatcherImpl::collective), with this rank's processes' warnings and lists.
void SharedCollectives::assemble_collectives(unsigned me, const Reach& reach,
                                             const Received& received, Found& found) {
    const std::vector<SharedEnd>& ends = received.ends;
    const auto ncomm = static_cast<uint32_t>(trace_.defs.communicators.size());
    // Grouped by collective, by counting: the collectives on each communicator this rank
    // reaches, numbered in order; each collective's ends stay in process order.
    std::vector<uint32_t> first_group(ncomm + 1, 0);
    for (uint32_t comm = 0; comm < ncomm; ++comm) {
        uint32_t most_here = 0;
        for (const auto& [r, most] : reach[comm])
            if (r == me) most_here = most;
        first_group[comm + 1] = first_group[comm] + most_here;
    }
    const uint32_t groups = first_group[ncomm];
    auto group_of = [&](Ref comm, uint32_t instance) {
        if (comm >= ncomm || first_group[comm] + instance >= first_group[comm + 1])
            throw std::logic_error("trace::Matcher: the end of a collective not taken part in");
        return first_group[comm] + instance;
    };
    std::vector<uint32_t> group_start(groups + 1, 0);
    for (const SharedEnd& e : ends) ++group_start[group_of(e.comm, e.instance) + 1];
    for (uint32_t g = 0; g < groups; ++g) group_start[g + 1] += group_start[g];
    std::vector<uint32_t> order(ends.size());
    {
        std::vector<uint32_t> next(group_start.begin(), group_start.end() - 1);
        for (uint32_t k = 0; k < ends.size(); ++k)
            order[next[group_of(ends[k].comm, ends[k].instance)]++] = k;
    }
    std::vector<Made> made(groups, {kNone, kNone, kNone, kNone, CollectiveOp::Other});
    for (const Made& x : received.made) made[group_of(x.comm, x.instance)] = x;
    // Each collective assembled from its members' ends in the serial order.
    std::vector<uint32_t> reached_by(ends.size(), kNone); // by place in `ends`: the location
                                                          // whose end took this one's place
    struct Kept {
        uint32_t id;
        CollectiveMatch match;
        std::vector<CallSummary> calls;
    };
    std::vector<Kept> kept;
    for (uint32_t g = 0; g < groups; ++g) {
        if (group_start[g] == group_start[g + 1]) continue;
        const SharedEnd& maker = ends[order[group_start[g]]]; // the first to reach it
        if (made[g].id == kNone)
            throw std::logic_error("trace::Matcher: a collective came without its id");
        CollectiveMatch c{made[g].op, maker.comm, made[g].root, {}};
        c.members.resize(trace_.defs.communicators[maker.comm].members.size());
        std::vector<CallSummary> calls(c.members.size());
        bool here = false;
        for (uint32_t at = group_start[g]; at < group_start[g + 1]; ++at) {
            const uint32_t k = order[at];
            const SharedEnd& e = ends[k];
            const uint32_t rank = ranks_.rank_of(e.comm, e.member.location);
            if (c.members[rank].location != kNone) {
                reached_by[k] = c.members[rank].location;
                continue;
            }
            c.members[rank] = e.member;
            calls[rank] = e.call;
            here = here || is_local(e.member.location);
        }
        const auto missing = static_cast<uint64_t>(
            std::count_if(c.members.begin(), c.members.end(),
                          [](const EventRef& m) { return m.location == kNone; }));
        if (is_local(maker.member.location) && missing > 0)
            found.incomplete.push_back({made[g].id, c.comm, missing});
        if (here) kept.push_back({made[g].id, std::move(c), std::move(calls)});
    }
    // This rank's processes' warnings and lists, in the serial order; MPI_COMM_SELF's
    // collectives are each their location's own.
    for (size_t p = 0; p < own_processes_.size(); ++p) {
        LocationWarnings& warnings =
            found.warnings.emplace_back(own_processes_[p], LocationWarnings{}).second;
        for (const OwnEnd& x : own_ends_[p]) {
            const CollectiveEnd& e = *x.end;
            if (e.comm >= ncomm) continue; // the reader rejects these
            if (x.instance == kNone) {
                warnings.add("collective outside communicator",
                             where(trace_, x.location, e.event) +
                                 ": collective on a communicator it is not in");
                continue;
            }
            if (is_self(e.comm)) {
                const SharedEnd s = shared_end(x);
                kept.push_back({x.id, {e.op, e.comm, root_of(x), {s.member}}, {s.call}});
                m_.collectives_of[x.location].push_back({e.event, x.id});
                continue;
            }
            const Made& c = made[group_of(e.comm, x.instance)];
            if (e.op != c.op || root_of(x) != c.root)
                warnings.add("collective mismatch",
                             where(trace_, x.location, e.event) + ": collective " +
                                 std::to_string(x.instance) +
                                 " on this communicator differs from the other members' "
                                 "(operation or root)");
            if (reached_by[x.at] != kNone) {
                warnings.add("collective reached twice",
                             where(trace_, x.location, e.event) + ": collective " +
                                 std::to_string(x.instance) +
                                 " on this communicator was already reached by location " +
                                 std::to_string(reached_by[x.at]) +
                                 " of the same process; this one is ignored");
                continue;
            }
            m_.collectives_of[x.location].push_back({e.event, c.id});
        }
    }
    // Kept in the whole trace's order, numbered here in that order.
    std::sort(kept.begin(), kept.end(), [](const Kept& a, const Kept& b) { return a.id < b.id; });
    m_.collectives.reserve(kept.size());
    m_.member_calls.reserve(kept.size());
    m_.global_collective_ids.reserve(kept.size());
    for (Kept& c : kept) {
        m_.global_collective_ids.push_back(c.id);
        m_.collectives.push_back(std::move(c.match));
        m_.member_calls.push_back(std::move(c.calls));
    }
    for (uint32_t loc = share_.first; loc < share_.last; ++loc)
        for (auto& [event, id] : m_.collectives_of[loc]) id = local_collective_id(m_, id);
}

// Each end with its instance on its communicator (own_ends_), and the process's counts.
void SharedCollectives::add_process(uint32_t first, const std::vector<ProcessEnd>& process) {
    const auto ncomm = static_cast<uint32_t>(trace_.defs.communicators.size());
    own_processes_.push_back(first);
    std::vector<OwnEnd>& ends = own_ends_.emplace_back();
    std::vector<CommCount> used; // communicators but MPI_COMM_SELF
    uint32_t on_self = 0;
    std::fill(sequence_.begin(), sequence_.end(), 0);
    for (const auto& [location, end] : process) {
        OwnEnd x{location, end};
        if (end->comm < ncomm && ranks_.rank_of(end->comm, location) != kNone) {
            x.instance = sequence_[end->comm]++;
            if (is_self(end->comm))
                ++on_self;
            else if (x.instance == 0)
                used.push_back({end->comm, 0});
        }
        ends.push_back(x);
    }
    for (CommCount& c : used) c.collectives = sequence_[c.comm];
    ByteWriter counts(counts_);
    counts.put(on_self);
    counts.put_all(used);
}

// The ids of the collectives a process makes: `first` on, in the order it makes them.
void SharedCollectives::number_made(std::vector<OwnEnd>& ends, const std::vector<uint32_t>& made,
                                    uint64_t first) const {
    for (OwnEnd& x : ends) {
        if (x.instance == kNone) continue;
        const Ref comm = x.end->comm;
        if (is_self(comm) || x.instance >= made[comm]) {
            if (first >= kNone)
                throw TraceError(trace_.path + ": more than " + std::to_string(kNone - 1) +
                                 " collectives: more than the analysis can number");
            x.id = static_cast<uint32_t>(first++);
        }
    }
}

SharedCollectives::SharedEnd SharedCollectives::shared_end(const OwnEnd& x) const {
    const CollectiveEnd& e = *x.end;
    CallSummary call = local_collective_call(x.location, e.event);
    if (call.callpath != kNone) call.callpath = m_.callpath_nodes[x.location][call.callpath];
    return {{x.location, e.event}, e.comm, x.instance, call};
}

uint32_t SharedCollectives::root_of(const OwnEnd& x) const {
    const CollectiveEnd& e = *x.end;
    return e.root == kNone ? kNone : world_rank(trace_, e.comm, e.root, x.location);
}

// A collective member's part, its call path still the location's own number.
CallSummary SharedCollectives::local_collective_call(uint32_t loc, uint32_t event) const {
    const auto& events = trace_.locations[loc].events;
    const LocationFrames& f = m_.frames[loc];
    const uint32_t enter = f[event].frame;
    CallSummary call;
    if (enter == kNone) return call;
    const uint32_t leave = f[enter].frame;
    call.region = events[enter].region();
    call.callpath = f[enter].callpath;
    call.enter = events[enter].time;
    call.leave = leave == kNone ? events.back().time : events[leave].time;
    collective_records(events, enter, event, call);
    return call;
}

} // namespace topolens::trace::detail
