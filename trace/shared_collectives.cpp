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

} // namespace

SharedCollectives::SharedCollectives(const Trace& trace, Matching& matching, CommRanks& ranks,
                                     const std::vector<uint32_t>& first_of_process,
                                     LocationShare share)
    : trace_(trace), m_(matching), ranks_(ranks), first_of_process_(first_of_process),
      share_(share), sequence_(trace.defs.communicators.size()) {}

SharedCollectives::~SharedCollectives() = default;

// A collective end another rank needs: that of a member of a collective one of its
// processes takes part in.
struct SharedCollectives::SharedEnd {
    EventRef member;
    Ref comm;
    uint32_t instance; // the process's how-manieth on the communicator
    uint32_t id;       // the whole trace's, if this member's process made it; else kNone
    uint32_t root;     // world rank, or kNone
    CollectiveOp op;
    CallSummary call; // its call path a node of its rank's tree (merge_own_call_trees)
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

// What assembling a collective found of one member's end, for its owner's warnings.
struct SharedCollectives::Verdict {
    bool mismatch = false;
    uint32_t reached_by = kNone; // the member's place was taken by this location already
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
// process that made it carrying its id; a rank that holds no member of a communicator
// hears nothing of its collectives. The warnings of a process's collectives are found by
// its rank, which holds every member's end of them, in the serial order.
SharedCollectives::Found SharedCollectives::share(Exchange& exchange,
                                                  const std::vector<Bytes>& shares_and_counts) {
    const Reach reach = number_collectives(exchange.rank(), shares_and_counts);
    std::vector<SharedEnd> ends = exchange_collective_ends(exchange, reach);
    Found found;
    assemble_collectives(exchange.rank(), reach, ends, found);
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
// rank come in one buffer, in process order. Returns every end of the collectives this
// rank takes part in, by rank, then process (each own end knows its place). Buffers are
// sized exactly and each let go once read.
std::vector<SharedCollectives::SharedEnd>
SharedCollectives::exchange_collective_ends(Exchange& exchange, const Reach& reach) {
    const unsigned me = exchange.rank();
    const unsigned others = exchange.size() - 1;
    auto for_each_destination = [&](const OwnEnd& x, auto&& to_rank, auto&& to_all) {
        uint32_t n = 0;
        for (const auto& [r, most] : reach[x.end->comm]) n += r != me && most > x.instance;
        if (n == others && others > 1) return to_all();
        for (const auto& [r, most] : reach[x.end->comm])
            if (r != me && most > x.instance) to_rank(r);
    };
    std::vector<size_t> sending(exchange.size() + 1, 0); // by rank; last: to all
    size_t own_shared = 0;
    for (const std::vector<OwnEnd>& process : own_ends_)
        for (const OwnEnd& x : process) {
            if (!travels(x)) continue;
            ++own_shared;
            for_each_destination(
                x, [&](uint32_t r) { ++sending[r]; }, [&] { ++sending.back(); });
        }
    std::vector<Bytes> out(exchange.size());
    Bytes to_all;
    for (uint32_t r = 0; r < out.size(); ++r) out[r].reserve(sending[r] * sizeof(SharedEnd));
    to_all.reserve(sending.back() * sizeof(SharedEnd));
    for (const std::vector<OwnEnd>& process : own_ends_)
        for (const OwnEnd& x : process) {
            if (!travels(x)) continue;
            const SharedEnd end = shared_end(x);
            for_each_destination(
                x, [&](uint32_t r) { ByteWriter(out[r]).put(end); },
                [&] { ByteWriter(to_all).put(end); });
        }
    std::vector<Bytes> in = exchange.all_to_all(std::move(out));
    std::vector<Bytes> gathered = exchange.all_gather(std::move(to_all));
    size_t received = 0;
    for (uint32_t r = 0; r < in.size(); ++r)
        if (r != me) received += (in[r].size() + gathered[r].size()) / sizeof(SharedEnd);
    std::vector<SharedEnd> ends;
    ends.reserve(own_shared + received);
    for (uint32_t r = 0; r < in.size(); ++r) {
        if (r == me) {
            for (std::vector<OwnEnd>& process : own_ends_)
                for (OwnEnd& x : process)
                    if (travels(x)) {
                        x.at = static_cast<uint32_t>(ends.size());
                        ends.push_back(shared_end(x));
                    }
            continue;
        }
        for (Bytes* bytes : {&in[r], &gathered[r]}) {
            m_.collective_bytes_received += bytes->size();
            ByteReader from(*bytes, "collective ends");
            while (!from.done()) {
                ends.push_back(from.get<SharedEnd>());
                ++m_.collective_ends_received;
            }
            Bytes().swap(*bytes);
        }
    }
    return ends;
}

// The collectives this rank takes part in, from every member's end, as the serial
// matching finds them (MatcherImpl::collective), with this rank's processes' warnings and lists.
void SharedCollectives::assemble_collectives(unsigned me, const Reach& reach,
                                             const std::vector<SharedEnd>& ends, Found& found) {
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
    auto group_of = [&](const SharedEnd& e) { return first_group[e.comm] + e.instance; };
    std::vector<uint32_t> group_start(groups + 1, 0);
    for (const SharedEnd& e : ends) {
        if (e.comm >= ncomm || group_of(e) >= first_group[e.comm + 1])
            throw std::logic_error("trace::Matcher: the end of a collective not taken part in");
        ++group_start[group_of(e) + 1];
    }
    for (uint32_t g = 0; g < groups; ++g) group_start[g + 1] += group_start[g];
    std::vector<uint32_t> order(ends.size());
    {
        std::vector<uint32_t> next(group_start.begin(), group_start.end() - 1);
        for (uint32_t k = 0; k < ends.size(); ++k) order[next[group_of(ends[k])]++] = k;
    }
    // Each collective assembled from its members' ends in the serial order.
    std::vector<Verdict> verdicts(ends.size()); // by place in `ends`
    std::vector<uint32_t> ids(ends.size(), kNone);
    struct Kept {
        uint32_t id;
        CollectiveMatch match;
        std::vector<CallSummary> calls;
    };
    std::vector<Kept> kept;
    for (uint32_t g = 0; g < groups; ++g) {
        if (group_start[g] == group_start[g + 1]) continue;
        const SharedEnd& maker = ends[order[group_start[g]]]; // the first to reach it
        if (maker.id == kNone)
            throw std::logic_error("trace::Matcher: a collective came without its id");
        CollectiveMatch c{maker.op, maker.comm, maker.root, {}};
        c.members.resize(trace_.defs.communicators[maker.comm].members.size());
        std::vector<CallSummary> calls(c.members.size());
        bool here = false;
        for (uint32_t at = group_start[g]; at < group_start[g + 1]; ++at) {
            const uint32_t k = order[at];
            const SharedEnd& e = ends[k];
            ids[k] = maker.id;
            verdicts[k].mismatch = e.op != c.op || e.root != c.root;
            const uint32_t rank = ranks_.rank_of(e.comm, e.member.location);
            if (c.members[rank].location != kNone) {
                verdicts[k].reached_by = c.members[rank].location;
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
            found.incomplete.push_back({maker.id, c.comm, missing});
        if (here) kept.push_back({maker.id, std::move(c), std::move(calls)});
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
                kept.push_back({x.id, {s.op, s.comm, s.root, {s.member}}, {s.call}});
                m_.collectives_of[x.location].push_back({e.event, x.id});
                continue;
            }
            const Verdict& verdict = verdicts[x.at];
            if (verdict.mismatch)
                warnings.add("collective mismatch",
                             where(trace_, x.location, e.event) + ": collective " +
                                 std::to_string(x.instance) +
                                 " on this communicator differs from the other members' "
                                 "(operation or root)");
            if (verdict.reached_by != kNone) {
                warnings.add("collective reached twice",
                             where(trace_, x.location, e.event) + ": collective " +
                                 std::to_string(x.instance) +
                                 " on this communicator was already reached by location " +
                                 std::to_string(verdict.reached_by) +
                                 " of the same process; this one is ignored");
                continue;
            }
            m_.collectives_of[x.location].push_back({e.event, ids[x.at]});
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
    return {{x.location, e.event},
            e.comm,
            x.instance,
            x.id,
            e.root == kNone ? kNone : world_rank(trace_, e.comm, e.root, x.location),
            e.op,
            call};
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
