#include "trace/shared_collectives.h"

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <string>

namespace topolens::trace::detail {

namespace {

// How many collectives a process reached on a communicator.
struct CommCount {
    Ref comm;
    uint32_t collectives;
};

// The ends a rank sends another (or every other) travel in batches, one per communicator:
// the communicator, the number of ends, the ends (WireEnd), the number of collectives of
// these the sending rank's processes made, and these (MakerRecord without the communicator:
// instance, id, root and operation; 13 bytes).
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
constexpr size_t kWireMakerBytes = 3 * sizeof(uint32_t) + sizeof(CollectiveOp);
constexpr size_t kBatchHeaderBytes = 2 * sizeof(uint32_t); // communicator, ends

// Where a rank's ends of one communicator go: the other ranks that reach its
// collectives, those that reach most first, and per instance the rank reaches how many of
// these reach it (a prefix). Worked out once per communicator, so that routing an end costs
// one step per rank it goes to, or one step if it goes to every other rank.
struct Route {
    std::vector<uint32_t> ranks;    // most first
    std::vector<uint32_t> reaching; // per instance
};

} // namespace

SharedCollectives::SharedCollectives(const Trace& trace, Matching& matching, CommRanks& ranks,
                                     const std::vector<uint32_t>& first_of_process,
                                     LocationShare share)
    : trace_(trace), m_(matching), ranks_(ranks), first_of_process_(first_of_process),
      share_(share) {}

SharedCollectives::~SharedCollectives() = default;

// A member's end of a collective, as this rank assembles the collective (also of a
// location another rank read). What is the same for every member (operation, root) and
// the collective's id come with the end of the process that made it (MakerRecord).
struct SharedCollectives::SharedEnd {
    EventRef member;
    Ref comm;
    uint32_t instance; // the process's how-manieth on the communicator
    // Its call path a node of its rank's tree (merge_own_call_trees). The region is not
    // sent: set for this rank's ends, kNone for the others' until complete_shared sets
    // every call's region from its call path in the trace's tree.
    CallSummary call;
};

// Of a collective, from the process that made it (first reached it).
struct SharedCollectives::MakerRecord {
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
SharedCollectives::Found SharedCollectives::assemble(Exchange& exchange,
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
    // Per communicator: how many collectives the processes before reached there (the
    // serial matching's MatcherImpl::instances_of_comm_ sizes, trace/matching.cpp).
    std::vector<uint32_t> reached_before(ncomm, 0);
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
            uint64_t new_ones = on_self;
            for (const auto [comm, n] : used) {
                if (comm >= ncomm) throw std::logic_error("trace::Matcher: bad communicator");
                if (n > reached_before[comm]) new_ones += n - reached_before[comm];
            }
            // (Every rank counts every process: all throw alike.)
            if (next_id + new_ones >= kNone) throw_more_than_numbered(trace_, "collectives");
            if (r == me) {
                if (own_at == own_ends_.size())
                    throw std::logic_error("trace::Matcher: more processes counted than added");
                number_made(own_ends_[own_at++], reached_before, next_id);
            }
            next_id += new_ones;
            for (const auto [comm, n] : used) {
                reached_before[comm] = std::max(reached_before[comm], n);
                auto& ranks = reach[comm];
                if (!ranks.empty() && ranks.back().first == r)
                    ranks.back().second = std::max(ranks.back().second, n);
                else
                    ranks.push_back({r, n});
            }
        }
        if (!in.done())
            throw std::logic_error("trace::Matcher: rank " + std::to_string(r) +
                                   "'s collective counts go on past its processes'");
    }
    if (own_at != own_ends_.size())
        throw std::logic_error("trace::Matcher: fewer processes counted than added");
    return reach;
}

// Each member's end to the other ranks that reach its collective: gathered by all if
// every other rank does (the world's collectives: one buffer, not a copy per rank).
// Where an end goes depends on its collective only, so each collective's ends from one
// rank come in one buffer, in process order (within its communicator's batch). Returns
// every end of the collectives this rank takes part in, by rank, then communicator, then
// process, and what the makers tell of each collective. Buffers are sized exactly and each
// let go once read.
SharedCollectives::Received SharedCollectives::exchange_collective_ends(Exchange& exchange,
                                                                        const Reach& reach) {
    const unsigned me = exchange.rank();
    const unsigned others = exchange.size() - 1;
    const unsigned kEveryRank = exchange.size(); // the destination "every other rank"
    // This rank's ends that travel, by communicator, each communicator's in process order.
    std::vector<const OwnEnd*> travelling;
    for (const std::vector<OwnEnd>& process : own_ends_)
        for (const OwnEnd& x : process)
            if (travels(x)) travelling.push_back(&x);
    // (A batch's count of ends is 32 bits.)
    if (travelling.size() >= kNone) throw_more_than_numbered(trace_, "collective ends on one rank");
    std::stable_sort(travelling.begin(), travelling.end(),
                     [](const OwnEnd* a, const OwnEnd* b) { return a->end->comm < b->end->comm; });
    // Per communicator of these, in order: its ends travelling[from, to) and their route.
    struct Run {
        size_t from, to;
        Route route;
    };
    std::vector<Run> runs;
    for (size_t from = 0; from < travelling.size();) {
        const Ref comm = travelling[from]->end->comm;
        size_t to = from;
        while (to < travelling.size() && travelling[to]->end->comm == comm) ++to;
        std::vector<std::pair<uint32_t, uint32_t>> by_most; // (most, rank), other ranks
        uint32_t here = 0;
        for (const auto& [r, most] : reach[comm])
            if (r == me)
                here = most;
            else
                by_most.push_back({most, r});
        std::sort(by_most.begin(), by_most.end(), std::greater<>());
        Route route;
        for (const auto& [most, r] : by_most) route.ranks.push_back(r);
        route.reaching.resize(here);
        size_t reaching = 0;
        for (uint32_t instance = here; instance-- > 0;) {
            while (reaching < by_most.size() && by_most[reaching].first > instance) ++reaching;
            route.reaching[instance] = static_cast<uint32_t>(reaching);
        }
        runs.push_back({from, to, std::move(route)});
        from = to;
    }
    auto for_each_destination = [&](const Route& route, const OwnEnd& x, auto&& to) {
        if (x.instance >= route.reaching.size())
            throw std::logic_error("trace::Matcher: an end beyond its process's counts");
        const uint32_t n = route.reaching[x.instance];
        if (n == others && others > 1) return to(kEveryRank);
        for (uint32_t k = 0; k < n; ++k) to(route.ranks[k]);
    };
    // Per destination, one communicator at a time: its ends and its collectives made here.
    struct Batch {
        std::vector<const OwnEnd*> ends;
        uint32_t makers = 0;
    };
    std::vector<Batch> batches(exchange.size() + 1);
    std::vector<unsigned> filled; // the destinations of the communicator's batches
    auto for_each_batch = [&](auto&& send) {
        for (const Run& run : runs) {
            for (size_t k = run.from; k < run.to; ++k)
                for_each_destination(run.route, *travelling[k], [&](unsigned d) {
                    if (batches[d].ends.empty()) filled.push_back(d);
                    batches[d].ends.push_back(travelling[k]);
                    batches[d].makers += travelling[k]->id != kNone;
                });
            for (const unsigned d : filled) {
                send(d, travelling[run.from]->end->comm, batches[d]);
                batches[d] = {};
            }
            filled.clear();
        }
    };
    std::vector<Bytes> out(exchange.size() + 1); // by rank; last: to all
    std::vector<size_t> sizes(out.size(), 0);
    for_each_batch([&](unsigned d, Ref, const Batch& batch) {
        sizes[d] += kBatchHeaderBytes + batch.ends.size() * sizeof(WireEnd) + sizeof(uint32_t) +
                    batch.makers * kWireMakerBytes;
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
        w.put(batch.makers);
        for (const OwnEnd* x : batch.ends)
            if (x->id != kNone) {
                w.put(x->instance);
                w.put(x->id);
                w.put(collective_root(trace_, x->location, *x->end));
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
            for (const OwnEnd* x : travelling) {
                received.ends.push_back(shared_end(*x));
                if (x->id != kNone)
                    received.makers.push_back({x->end->comm, x->instance, x->id,
                                               collective_root(trace_, x->location, *x->end),
                                               x->end->op});
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
                    MakerRecord maker{comm, 0, 0, 0, CollectiveOp::Other};
                    maker.instance = from.get<uint32_t>();
                    maker.id = from.get<uint32_t>();
                    maker.root = from.get<uint32_t>();
                    maker.op = from.get<CollectiveOp>();
                    received.makers.push_back(maker);
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
    // (Places in `ends` are 32 bits; so are the groups below, which are fewer: each group
    // has an end of this rank's.)
    if (ends.size() >= kNone) throw_more_than_numbered(trace_, "collective ends on one rank");
    const auto ncomm = static_cast<uint32_t>(trace_.defs.communicators.size());
    const auto nloc = static_cast<uint32_t>(trace_.defs.locations.size());
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
        if (comm >= ncomm || instance >= first_group[comm + 1] - first_group[comm])
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
    std::vector<MakerRecord> makers(groups, {kNone, kNone, kNone, kNone, CollectiveOp::Other});
    for (const MakerRecord& x : received.makers) makers[group_of(x.comm, x.instance)] = x;
    // Each collective assembled from its members' ends in the serial order.
    struct Kept {
        uint32_t id;
        CollectiveMatch match;
        std::vector<CallSummary> calls;
    };
    std::vector<Kept> kept;
    for (uint32_t g = 0; g < groups; ++g) {
        if (group_start[g] == group_start[g + 1]) continue;
        const SharedEnd& maker = ends[order[group_start[g]]]; // the first to reach it
        if (makers[g].id == kNone)
            throw std::logic_error("trace::Matcher: a collective came without its id");
        CollectiveMatch c{makers[g].op, maker.comm, makers[g].root, {}};
        c.members.resize(trace_.defs.communicators[maker.comm].members.size());
        std::vector<CallSummary> calls(c.members.size());
        bool here = false;
        for (uint32_t at = group_start[g]; at < group_start[g + 1]; ++at) {
            const SharedEnd& e = ends[order[at]];
            const uint32_t rank =
                e.member.location < nloc ? ranks_.rank_of(e.comm, e.member.location) : kNone;
            if (rank == kNone)
                throw std::logic_error("trace::Matcher: an end of collective " +
                                       std::to_string(makers[g].id) + " from a non-member");
            // Each member's place is taken once, see MatcherImpl::collective.
            if (c.members[rank].location != kNone)
                throw std::logic_error("trace::Matcher: a member's place in collective " +
                                       std::to_string(makers[g].id) + " taken twice");
            c.members[rank] = e.member;
            calls[rank] = e.call;
            here = here || is_local(e.member.location);
        }
        const uint64_t missing = missing_members(c);
        if (is_local(maker.member.location) && missing > 0)
            found.incomplete.push_back({makers[g].id, c.comm, missing});
        if (here) kept.push_back({makers[g].id, std::move(c), std::move(calls)});
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
                warn_outside_communicator(warnings, trace_, x.location, e.event);
                continue;
            }
            if (is_self(e.comm)) {
                const SharedEnd s = shared_end(x);
                kept.push_back({x.id,
                                {e.op, e.comm, collective_root(trace_, x.location, e), {s.member}},
                                {s.call}});
                m_.collectives_of[x.location].push_back({e.event, x.id});
                continue;
            }
            const MakerRecord& c = makers[group_of(e.comm, x.instance)];
            if (e.op != c.op || collective_root(trace_, x.location, e) != c.root)
                warn_collective_mismatch(warnings, trace_, x.location, e.event, x.instance);
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
    own_processes_.push_back(first);
    std::vector<OwnEnd>& ends = own_ends_.emplace_back();
    std::vector<CommCount> used; // communicators but MPI_COMM_SELF
    uint32_t on_self = 0;
    CollectiveSequence sequence(trace_.defs.communicators.size());
    for (const auto& [location, end] : process) {
        OwnEnd x{location, end};
        x.instance = sequence.take(ranks_, location, *end).instance;
        if (x.instance != kNone) {
            if (is_self(end->comm))
                ++on_self;
            else if (x.instance == 0)
                used.push_back({end->comm, 0});
        }
        ends.push_back(x);
    }
    for (CommCount& c : used) c.collectives = sequence.reached(c.comm);
    ByteWriter counts(counts_);
    counts.put(on_self);
    counts.put_all(used);
}

// The ids of the collectives a process makes: `first` on, in the order it makes them (a
// collective is new unless a process before reached its instance).
void SharedCollectives::number_made(std::vector<OwnEnd>& ends,
                                    const std::vector<uint32_t>& reached_before,
                                    uint64_t first) const {
    for (OwnEnd& x : ends) {
        if (x.instance == kNone) continue;
        const Ref comm = x.end->comm;
        if (is_self(comm) || x.instance >= reached_before[comm])
            x.id = static_cast<uint32_t>(first++);
    }
}

// What an end tells the others, its call path a node of this rank's tree (the call paths
// of this rank's locations lead there until complete_shared leads them on).
SharedCollectives::SharedEnd SharedCollectives::shared_end(const OwnEnd& x) const {
    const CollectiveEnd& e = *x.end;
    return {{x.location, e.event},
            e.comm,
            x.instance,
            collective_call(trace_, m_, {x.location, e.event})};
}

} // namespace topolens::trace::detail
