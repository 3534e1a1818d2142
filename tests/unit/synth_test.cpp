// The synthetic trace generator (trace/synthetic.h) and `topolens synth`: traces read back
// with exactly the events, topology and messages the options ask for, wait states that an
// independent evaluation of the definitions in docs/metrics.md finds in the read-back trace, the
// closed forms documented in `topolens help synth`, determinism, and rejected options.
#include "test_util.h"

#include "test_paths.h"
#include "trace/matching.h"
#include "trace/names.h"
#include "trace/reader.h"
#include "trace/synthetic.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <map>
#include <sstream>
#include <tuple>

namespace topolens::test {
namespace {

using namespace topolens::trace;

struct ReadBack {
    Synthetic synth;
    Trace trace;
};

ReadBack build(const SynthOptions& options, const ScratchDir& dir) {
    Synthetic s = synthesize(options);
    s.builder.write((dir / "trace").string());
    Trace t = read_trace((dir / "trace").string());
    return {std::move(s), std::move(t)};
}

// ---- an evaluation of the wait-state definitions, written for these tests only

struct Call {
    Time enter = 0, leave = 0;
};

struct Record {
    EventKind kind;
    uint32_t call; // index into the location's calls
    Time time;
    Event event;
};

struct Evaluated {
    std::vector<uint64_t> late_sender, late_receiver, wait_nxn, nxn_completion, wait_barrier,
        barrier_completion, late_broadcast, early_reduce;
    uint64_t messages = 0, collectives = 0, violations = 0;
    std::string nesting_error; // first problem with region nesting or time order
};

Evaluated evaluate(const Trace& t) {
    const std::size_t n = t.locations.size();
    Evaluated ev;
    for (auto* v : {&ev.late_sender, &ev.late_receiver, &ev.wait_nxn, &ev.nxn_completion,
                    &ev.wait_barrier, &ev.barrier_completion, &ev.late_broadcast, &ev.early_reduce})
        v->assign(n, 0);
    std::vector<std::vector<Call>> calls(n);
    std::vector<std::vector<Record>> records(n);
    for (std::size_t l = 0; l < n; ++l) {
        std::vector<std::pair<uint32_t, uint32_t>> stack; // (region, call)
        Time last = 0;
        for (const Event& e : t.locations[l].events) {
            if (e.time < last && ev.nesting_error.empty())
                ev.nesting_error = "time goes back on location " + std::to_string(l);
            last = e.time;
            if (e.kind == EventKind::Enter) {
                stack.emplace_back(e.region(), static_cast<uint32_t>(calls[l].size()));
                calls[l].push_back({e.time, 0});
            } else if (e.kind == EventKind::Leave) {
                if ((stack.empty() || stack.back().first != e.region()) && ev.nesting_error.empty())
                    ev.nesting_error = "unbalanced leave on location " + std::to_string(l);
                if (stack.empty()) continue;
                calls[l][stack.back().second].leave = e.time;
                stack.pop_back();
            } else if (!stack.empty()) {
                records[l].push_back({e.kind, stack.back().second, e.time, e});
            }
        }
        if (!stack.empty() && ev.nesting_error.empty())
            ev.nesting_error = "open regions at the end of location " + std::to_string(l);
    }
    auto world = [&](Ref comm, uint32_t rank) {
        const Communicator& c = t.defs.communicators[comm];
        return c.members.at(rank);
    };
    auto clamp = [](Time until, Time from, Time limit) -> uint64_t {
        return until <= from ? 0 : std::min(until - from, limit);
    };

    // Messages: non-overtaking per (comm, sender, receiver, tag).
    using Key = std::tuple<Ref, uint32_t, uint32_t, uint32_t>;
    std::map<Key, std::vector<std::pair<uint32_t, const Record*>>> sends, recvs;
    for (uint32_t l = 0; l < n; ++l)
        for (const Record& r : records[l]) {
            if (r.kind == EventKind::MpiSend)
                sends[{r.event.comm(), l, world(r.event.comm(), r.event.peer()), r.event.tag()}]
                    .emplace_back(l, &r);
            // (An MpiIrecv completes in a Waitall: matched here, its wait is only
            // evaluated by evaluate_scalasca.)
            if (r.kind == EventKind::MpiRecv || r.kind == EventKind::MpiIrecv)
                recvs[{r.event.comm(), world(r.event.comm(), r.event.peer()), l, r.event.tag()}]
                    .emplace_back(l, &r);
        }
    for (const auto& [key, list] : sends) {
        const auto& rl = recvs[key];
        EXPECT_EQ(list.size(), rl.size()) << "unmatched messages";
        for (std::size_t i = 0; i < std::min(list.size(), rl.size()); ++i) {
            const auto [sl, s] = list[i];
            const auto [rloc, r] = rl[i];
            const Call& sc = calls[sl][s->call];
            const Call& rc = calls[rloc][r->call];
            ev.late_sender[rloc] += clamp(sc.enter, rc.enter, rc.leave - rc.enter);
            ev.late_receiver[sl] += clamp(rc.enter, sc.enter, sc.leave - sc.enter);
            if (r->time < s->time) ++ev.violations;
            ++ev.messages;
        }
    }

    // Collectives: the k-th on a communicator is instance k on every member.
    struct Member {
        uint32_t location;
        Call call;
        uint32_t op, root;
    };
    std::map<std::pair<Ref, std::size_t>, std::vector<Member>> instances;
    for (uint32_t l = 0; l < n; ++l) {
        std::map<Ref, std::size_t> seen;
        for (const Record& r : records[l])
            if (r.kind == EventKind::MpiCollectiveEnd)
                instances[{r.event.comm(), seen[r.event.comm()]++}].push_back(
                    {l, calls[l][r.call], static_cast<uint32_t>(r.event.op()), r.event.root()});
    }
    for (const auto& [key, members] : instances) {
        ++ev.collectives;
        EXPECT_EQ(members.size(), t.defs.communicators[key.first].members.size());
        Time last_enter = 0, first_leave = ~Time(0);
        for (const Member& m : members) {
            last_enter = std::max(last_enter, m.call.enter);
            first_leave = std::min(first_leave, m.call.leave);
        }
        const auto op = static_cast<CollectiveOp>(members[0].op);
        for (const Member& m : members) {
            const Time dur = m.call.leave - m.call.enter;
            const uint64_t wait = clamp(last_enter, m.call.enter, dur);
            const uint64_t completion =
                m.call.leave > first_leave ? std::min(m.call.leave - first_leave, dur - wait) : 0;
            const uint32_t root = m.root == kNone ? kNone : world(key.first, m.root);
            if (op == CollectiveOp::Allreduce) {
                ev.wait_nxn[m.location] += wait;
                ev.nxn_completion[m.location] += completion;
            } else if (op == CollectiveOp::Barrier) {
                ev.wait_barrier[m.location] += wait;
                ev.barrier_completion[m.location] += completion;
            } else if (op == CollectiveOp::Bcast && m.location != root) {
                for (const Member& q : members)
                    if (q.location == root)
                        ev.late_broadcast[m.location] += clamp(q.call.enter, m.call.enter, dur);
            } else if (op == CollectiveOp::Reduce && m.location == root) {
                Time latest = 0;
                for (const Member& q : members)
                    if (q.location != root) latest = std::max(latest, q.call.enter);
                ev.early_reduce[m.location] += clamp(latest, m.call.enter, dur);
            }
        }
    }
    return ev;
}

uint64_t sum(const std::vector<uint64_t>& v) {
    uint64_t s = 0;
    for (uint64_t x : v) s += x;
    return s;
}

// Everything the read-back trace holds agrees with what the generator says it built.
void check_read_back(const SynthOptions& options) {
    const SynthOptions o = resolve_synth_options(options);
    SCOPED_TRACE(synth_arguments(o));
    ScratchDir dir;
    const ReadBack rb = build(o, dir);
    const Trace& t = rb.trace;
    const SynthExpected& x = rb.synth.expected;
    const uint32_t n = o.ranks;
    ASSERT_EQ(t.locations.size(), n);
    EXPECT_EQ(t.defs.timer_resolution, kSynthResolution);

    // Events per location and kind, from the options alone.
    const bool wf = o.pattern == SynthPattern::Wavefront || o.pattern == SynthPattern::Mixed;
    const bool ls = o.pattern == SynthPattern::LateSender || o.pattern == SynthPattern::Mixed;
    const bool coll = o.pattern == SynthPattern::Collectives || o.pattern == SynthPattern::Mixed;
    const std::size_t nd = o.grid.size();
    const uint64_t sweeps = nd == 3 ? 8 : 2 * nd;
    uint64_t edges = 0;
    for (std::size_t i = 0; i < nd; ++i) edges += uint64_t(o.ranks / o.grid[i]) * (o.grid[i] - 1);
    const uint64_t K = o.iterations, B = o.blocks;
    std::vector<bool> paired(n, false);
    for (const auto& [s, r] : x.pairs) paired[s] = paired[r] = true;
    EXPECT_EQ(x.pairs.size(), ls ? n / 2 : 0u);
    const std::vector<uint64_t> counted = synth_event_counts(o);
    uint64_t total = 0, sends = 0, coll_events = 0;
    for (uint32_t p = 0; p < n; ++p) {
        SCOPED_TRACE("rank " + std::to_string(p));
        uint64_t nb = 0;
        for (std::size_t i = 0, stride = 1; i < nd; stride *= o.grid[i], ++i) {
            const uint64_t c = (p / stride) % o.grid[i];
            nb += (c > 0) + (c + 1 < o.grid[i]);
        }
        const uint64_t enters = 3 + K * ((wf ? sweeps * (1 + B * (1 + nb)) + 1 : 0) +
                                         (ls ? 1 + paired[p] : 0) + (coll ? 8 : 0));
        // Each neighbour is upstream in half of the sweeps and downstream in the other half.
        const uint64_t p2p = K * ((wf ? B * nb * sweeps : 0) + (ls && paired[p] ? 1 : 0));
        const uint64_t colls = K * ((wf ? 1 : 0) + (coll ? 4 : 0));
        std::array<uint64_t, kEventKindCount> kinds{};
        for (const Event& e : t.locations[p].events) ++kinds[static_cast<std::size_t>(e.kind)];
        auto kind = [&](EventKind k) { return kinds[static_cast<std::size_t>(k)]; };
        EXPECT_EQ(kind(EventKind::Enter), enters);
        EXPECT_EQ(kind(EventKind::Leave), enters);
        EXPECT_EQ(kind(EventKind::MpiSend) + kind(EventKind::MpiRecv), p2p);
        EXPECT_EQ(kind(EventKind::MpiCollectiveBegin), colls);
        EXPECT_EQ(kind(EventKind::MpiCollectiveEnd), colls);
        const uint64_t events = t.locations[p].events.size();
        EXPECT_EQ(events,
                  2 * enters + kind(EventKind::MpiSend) + kind(EventKind::MpiRecv) + 2 * colls);
        EXPECT_EQ(events, x.events_by_location[p]);
        EXPECT_EQ(events, counted[p]);
        total += events;
        sends += kind(EventKind::MpiSend);
        coll_events += colls;

        // main { MPI_Init ... MPI_Finalize }, from 0 to the common end.
        const auto& ev = t.locations[p].events;
        ASSERT_GE(ev.size(), 6u);
        EXPECT_EQ(t.defs.regions[ev[0].region()].name, "main");
        EXPECT_EQ(t.defs.regions[ev[1].region()].name, "MPI_Init");
        EXPECT_EQ(t.defs.regions[ev[ev.size() - 2].region()].name, "MPI_Finalize");
        EXPECT_EQ(ev.back().kind, EventKind::Leave);
        EXPECT_EQ(t.defs.regions[ev.back().region()].name, "main");
        EXPECT_EQ(ev.front().time, 0u);
        EXPECT_EQ(ev.back().time, x.end);
    }
    EXPECT_EQ(total, x.events);
    const uint64_t messages = K * ((wf ? sweeps * B * edges : 0) + (ls ? n / 2 : 0));
    EXPECT_EQ(sends, messages);
    EXPECT_EQ(x.messages, messages);
    EXPECT_EQ(x.collectives, K * ((wf ? 1 : 0) + (coll ? 4 : 0)));
    EXPECT_EQ(coll_events, x.collectives * n);

    // The grid: a Cartesian topology on the communicator "grid", rank = x + P*y + P*Q*z.
    ASSERT_EQ(t.defs.topologies.size(), 1u);
    const CartTopology& topo = t.defs.topologies[0];
    EXPECT_EQ(topo.name, "grid");
    ASSERT_EQ(topo.dims.size(), nd);
    for (std::size_t i = 0; i < nd; ++i) {
        EXPECT_EQ(topo.dims[i].size, o.grid[i]);
        EXPECT_FALSE(topo.dims[i].periodic);
    }
    const Communicator& gc = t.defs.communicators.at(topo.communicator);
    EXPECT_EQ(gc.name, "grid");
    ASSERT_EQ(gc.members.size(), n);
    ASSERT_EQ(topo.coords_by_rank.size(), n);
    for (uint32_t r = 0; r < n; ++r) {
        EXPECT_EQ(gc.members[r], r);
        std::vector<uint32_t> c;
        for (std::size_t i = 0, stride = 1; i < nd; stride *= o.grid[i], ++i)
            c.push_back(static_cast<uint32_t>((r / stride) % o.grid[i]));
        EXPECT_EQ(topo.coords_by_rank[r], c) << "rank " << r;
    }

    // The trace library's matching agrees.
    const Matching m = match(t);
    EXPECT_EQ(m.messages.size(), messages);
    EXPECT_EQ(m.unmatched_sends, 0u);
    EXPECT_EQ(m.unmatched_receives, 0u);
    EXPECT_EQ(m.collectives.size(), x.collectives);
    EXPECT_EQ(m.incomplete_collectives, 0u);
    EXPECT_TRUE(m.warnings.empty()) << m.warnings.front();

    // Wait states by the definitions, location by location.
    const Evaluated ev = evaluate(t);
    EXPECT_EQ(ev.nesting_error, "");
    EXPECT_EQ(ev.messages, messages);
    EXPECT_EQ(ev.collectives, x.collectives);
    EXPECT_EQ(ev.late_sender, x.late_sender.by_location);
    EXPECT_EQ(ev.wait_nxn, x.wait_nxn.by_location);
    EXPECT_EQ(ev.wait_barrier, x.wait_barrier.by_location);
    EXPECT_EQ(ev.late_broadcast, x.late_broadcast.by_location);
    EXPECT_EQ(ev.early_reduce, x.early_reduce.by_location);
    EXPECT_EQ(sum(ev.late_receiver), 0u);
    EXPECT_EQ(sum(ev.nxn_completion), 0u);
    EXPECT_EQ(sum(ev.barrier_completion), 0u);
    EXPECT_EQ(ev.violations, 0u);
    EXPECT_EQ(sum(x.late_sender.by_location), x.late_sender.total);
    uint64_t by_sweeps = 0;
    for (const SynthSweep& s : x.sweeps) by_sweeps += s.late_sender.total;
    EXPECT_EQ(by_sweeps + (ls ? uint64_t(n / 2) * K * o.delay_ticks : 0), x.late_sender.total);
}

SynthOptions opts(SynthPattern pattern, std::vector<uint32_t> grid, uint64_t iterations,
                  uint64_t blocks, uint64_t work, uint64_t delay, uint64_t latency,
                  uint64_t seed = 1) {
    SynthOptions o;
    o.pattern = pattern;
    o.grid = std::move(grid);
    o.iterations = iterations;
    o.blocks = blocks;
    o.work_ticks = work;
    o.delay_ticks = delay;
    o.latency_ticks = latency;
    o.seed = seed;
    return o;
}

TEST(Synth, ReadBackLateSender) {
    check_read_back(opts(SynthPattern::LateSender, {5}, 3, 1, 100, 40, 7)); // odd rank out
    check_read_back(opts(SynthPattern::LateSender, {2, 2}, 2, 1, 100, 0, 0));
}

TEST(Synth, ReadBackCollectives) {
    check_read_back(opts(SynthPattern::Collectives, {3, 2}, 4, 1, 100, 40, 3));
    check_read_back(opts(SynthPattern::Collectives, {1}, 2, 1, 100, 40, 3)); // one rank
}

TEST(Synth, ReadBackWavefront) {
    check_read_back(opts(SynthPattern::Wavefront, {3, 5}, 2, 3, 100, 0, 7));
    check_read_back(opts(SynthPattern::Wavefront, {5}, 2, 2, 100, 0, 0));
    check_read_back(opts(SynthPattern::Wavefront, {2, 3, 2}, 2, 2, 100, 0, 5));
    check_read_back(opts(SynthPattern::Wavefront, {1, 1}, 1, 1, 100, 0, 5));
}

TEST(Synth, ReadBackMixed) {
    check_read_back(opts(SynthPattern::Mixed, {4, 3}, 3, 2, 100, 30, 2, 7));
    SynthOptions defaults; // --ranks 16 on 4x4, the defaults
    check_read_back(defaults);
}

// ---- the closed forms of `topolens help synth`

struct Wave {
    int64_t sweep[4] = {};
    int64_t nxn = 0, phase = 0;
};

// 2D P x Q, per iteration.
Wave wave_2d(int64_t P, int64_t Q, int64_t B, int64_t T, int64_t L) {
    const int64_t H = T + L, X = P - 1, Y = Q - 1, d = X + Y, N = P * Q;
    Wave w;
    w.sweep[0] = H * N * d / 2 - L * (N - 1);
    w.sweep[1] = H * N * d - L * (N - 1);
    w.sweep[2] = H * N * X - L * Q * X;
    w.sweep[3] = H * N * d - L * (N - 1);
    w.nxn = H * N * d / 2;
    w.phase = 4 * B * T + (2 * d + 2 * X + Y) * H + L;
    return w;
}

// Per rank (x, y): the w of each sweep.
std::array<int64_t, 4> w_2d(int64_t P, int64_t Q, int64_t x, int64_t y) {
    const int64_t X = P - 1, d = X + Q - 1;
    return {x + y, 2 * (d - x - y), 2 * x, 2 * (X - x + y)};
}

TEST(Synth, Wavefront2DClosedForms) {
    const std::vector<std::array<int64_t, 2>> grids = {{4, 4}, {3, 5}, {5, 3}, {1, 4},
                                                       {4, 1}, {2, 2}, {1, 1}, {8, 8}};
    for (const auto& [P, Q] : grids)
        for (const auto& [T, L] : std::vector<std::array<int64_t, 2>>{{1000, 0}, {700, 90}}) {
            const int64_t K = 3, B = 4;
            SCOPED_TRACE(std::to_string(P) + "x" + std::to_string(Q) + " T " + std::to_string(T) +
                         " L " + std::to_string(L));
            const Synthetic s = synthesize(
                opts(SynthPattern::Wavefront, {uint32_t(P), uint32_t(Q)}, K, B, T, 999, L));
            const SynthExpected& x = s.expected;
            const Wave w = wave_2d(P, Q, B, T, L);
            ASSERT_EQ(x.sweeps.size(), 4u);
            const char* names[4] = {"SW", "NE", "NW", "SE"};
            for (int i = 0; i < 4; ++i) {
                EXPECT_EQ(x.sweeps[i].origin, names[i]);
                EXPECT_EQ(x.sweeps[i].region, std::string("sweep_") + names[i]);
                EXPECT_EQ(int64_t(x.sweeps[i].late_sender.total), K * w.sweep[i]) << names[i];
            }
            EXPECT_EQ(int64_t(x.wait_nxn.total), K * w.nxn);
            EXPECT_EQ(int64_t(x.end), 2 * int64_t(kSynthInitTicks) + K * w.phase);
            for (int64_t y = 0; y < Q; ++y)
                for (int64_t xx = 0; xx < P; ++xx) {
                    const uint32_t r = uint32_t(xx + P * y);
                    const auto ws = w_2d(P, Q, xx, y);
                    for (int i = 0; i < 4; ++i) {
                        const int64_t per = ws[i] >= 1 ? ws[i] * (T + L) - L : 0;
                        EXPECT_EQ(int64_t(x.sweeps[i].late_sender.by_location[r]), K * per)
                            << names[i] << " at (" << xx << "," << y << ")";
                    }
                    EXPECT_EQ(int64_t(x.wait_nxn.by_location[r]), K * (Q - 1 + xx - y) * (T + L));
                }
            EXPECT_EQ(x.late_broadcast.total + x.early_reduce.total + x.wait_barrier.total, 0u);
        }
}

TEST(Synth, Wavefront1DClosedForms) {
    const int64_t P = 6, K = 2, B = 3, T = 500, L = 20, H = T + L, X = P - 1;
    const Synthetic s = synthesize(opts(SynthPattern::Wavefront, {uint32_t(P)}, K, B, T, 0, L));
    const SynthExpected& x = s.expected;
    ASSERT_EQ(x.sweeps.size(), 2u);
    EXPECT_EQ(x.sweeps[0].origin, "W");
    EXPECT_EQ(x.sweeps[1].origin, "E");
    for (int64_t p = 0; p < P; ++p) {
        EXPECT_EQ(int64_t(x.sweeps[0].late_sender.by_location[p]), p >= 1 ? K * (p * H - L) : 0);
        const int64_t w = 2 * (X - p);
        EXPECT_EQ(int64_t(x.sweeps[1].late_sender.by_location[p]), w >= 1 ? K * (w * H - L) : 0);
        EXPECT_EQ(int64_t(x.wait_nxn.by_location[p]), K * p * H);
    }
    EXPECT_EQ(int64_t(x.end), 2 * int64_t(kSynthInitTicks) + K * (2 * B * T + 2 * X * H + L));
}

TEST(Synth, Wavefront3DSweepOrder) {
    const Synthetic s = synthesize(opts(SynthPattern::Wavefront, {2, 2, 2}, 1, 1, 100, 0, 0));
    std::vector<std::string> origins;
    for (const SynthSweep& sw : s.expected.sweeps) origins.push_back(sw.origin);
    EXPECT_EQ(origins, (std::vector<std::string>{"SW-bottom", "NE-top", "NW-bottom", "SE-top",
                                                 "SW-top", "NE-bottom", "NW-top", "SE-bottom"}));
    // The first sweep starts together on all ranks: rank at hop distance k waits k*T.
    const auto& first = s.expected.sweeps[0].late_sender.by_location;
    for (uint32_t r = 0; r < 8; ++r)
        EXPECT_EQ(first[r], 100u * ((r & 1) + ((r >> 1) & 1) + ((r >> 2) & 1)));
}

TEST(Synth, LateSenderClosedForms) {
    for (uint32_t n : {2u, 7u, 16u}) {
        const uint64_t K = 5, D = 321;
        SynthOptions o = opts(SynthPattern::LateSender, {}, K, 1, 1000, D, 13);
        o.ranks = n;
        const Synthetic s = synthesize(o);
        const SynthExpected& x = s.expected;
        EXPECT_EQ(x.late_sender.total, (n / 2) * K * D);
        EXPECT_EQ(x.late_sender.instances, (n / 2) * K);
        std::vector<uint64_t> per(n, 0);
        std::vector<int> seen(n, 0);
        for (const auto& [snd, rcv] : x.pairs) {
            per[rcv] = K * D;
            ++seen[snd];
            ++seen[rcv];
        }
        EXPECT_EQ(x.late_sender.by_location, per);
        for (uint32_t r = 0; r < n; ++r) EXPECT_LE(seen[r], 1) << "rank in two pairs";
        EXPECT_EQ(x.end, 2 * kSynthInitTicks + K * (1000 + D + 13));
        EXPECT_EQ(x.wait_nxn.total + x.wait_barrier.total + x.late_broadcast.total +
                      x.early_reduce.total,
                  0u);
    }
}

TEST(Synth, CollectivesClosedForms) {
    for (uint32_t n : {2u, 5u, 12u}) {
        const uint64_t K = 7, D = 250, T = 1000, L = 9;
        SynthOptions o = opts(SynthPattern::Collectives, {}, K, 1, T, D, L);
        o.ranks = n;
        const SynthExpected x = synthesize(o).expected;
        EXPECT_EQ(x.wait_nxn.total, (n - 1) * K * D);
        EXPECT_EQ(x.wait_barrier.total, (n - 1) * K * D);
        EXPECT_EQ(x.late_broadcast.total, (n - 1) * K * D);
        EXPECT_EQ(x.early_reduce.total, K * D);
        EXPECT_EQ(x.wait_nxn.instances, (n - 1) * K); // D on each waiting rank
        EXPECT_EQ(x.early_reduce.instances, K);
        EXPECT_EQ(x.late_sender.total, 0u);
        EXPECT_EQ(x.end, 2 * kSynthInitTicks + K * 4 * (T + D + L));
    }
}

TEST(Synth, MixedIsTheSumOfItsParts) {
    const SynthOptions m = opts(SynthPattern::Mixed, {4, 2}, 3, 2, 800, 150, 11, 42);
    SynthOptions w = m, l = m, c = m;
    w.pattern = SynthPattern::Wavefront;
    l.pattern = SynthPattern::LateSender;
    c.pattern = SynthPattern::Collectives;
    const SynthExpected xm = synthesize(m).expected, xw = synthesize(w).expected,
                        xl = synthesize(l).expected, xc = synthesize(c).expected;
    EXPECT_EQ(xm.late_sender.total, xw.late_sender.total + xl.late_sender.total);
    EXPECT_EQ(xm.wait_nxn.total, xw.wait_nxn.total + xc.wait_nxn.total);
    EXPECT_EQ(xm.wait_barrier.total, xc.wait_barrier.total);
    EXPECT_EQ(xm.late_broadcast.total, xc.late_broadcast.total);
    EXPECT_EQ(xm.early_reduce.total, xc.early_reduce.total);
    EXPECT_EQ(xm.events, xw.events + xl.events + xc.events - 2 * 6 * 8);
    EXPECT_EQ(xm.end - 2 * kSynthInitTicks, (xw.end + xl.end + xc.end) - 6 * kSynthInitTicks);
}

// ---- halo, pairwise, ssor: Scalasca's definitions evaluated on the read-back trace

struct ScalascaValues {
    std::vector<uint64_t> late_sender, wo_same, wo_different, late_receiver;
};

// Late Sender, LS Wrong Order (by source) and Late Receiver as /work/notes' definitions
// (Scalasca 2.6) state them, from the records of the trace alone.
ScalascaValues evaluate_scalasca(const Trace& t) {
    const std::size_t n = t.locations.size();
    ScalascaValues v;
    for (auto* x : {&v.late_sender, &v.wo_same, &v.wo_different, &v.late_receiver}) x->assign(n, 0);
    struct CallOf {
        Time enter = 0, leave = 0;
        std::string name;
        uint32_t leave_event = 0;
    };
    struct Rec {
        uint32_t event, call;
        uint64_t request;
    };
    std::vector<std::vector<CallOf>> calls(n);
    std::vector<std::vector<uint32_t>> call_of_event(n);
    std::vector<std::map<uint64_t, uint32_t>> request_of(n); // event -> request id
    for (std::size_t l = 0; l < n; ++l) {
        const auto& le = t.locations[l];
        std::map<uint32_t, uint64_t> req;
        for (const RequestRef& r : le.requests) req[r.event] = r.request;
        std::vector<uint32_t> stack;
        call_of_event[l].assign(le.events.size(), kNone);
        for (uint32_t i = 0; i < le.events.size(); ++i) {
            const Event& e = le.events[i];
            if (e.kind == EventKind::Enter) {
                stack.push_back(static_cast<uint32_t>(calls[l].size()));
                calls[l].push_back({e.time, 0, t.defs.regions[e.region()].name, 0});
            } else if (e.kind == EventKind::Leave) {
                calls[l][stack.back()].leave = e.time;
                calls[l][stack.back()].leave_event = i;
                stack.pop_back();
            } else if (!stack.empty()) {
                call_of_event[l][i] = stack.back();
            }
            if (req.count(i)) request_of[l][i] = static_cast<uint32_t>(req[i]);
        }
    }
    auto world = [&](Ref comm, uint32_t rank) {
        return t.defs.communicators[comm].members.at(rank);
    };
    auto request = [&](std::size_t l, uint32_t event) { return request_of[l].at(event); };

    // Sends in record order per channel; each knows the call that sent and the call that
    // completed it (the Isend's MpiIsendComplete).
    struct SendInfo {
        uint32_t loc, event, send_call, completing_call;
    };
    using Key = std::tuple<Ref, uint32_t, uint32_t, uint32_t>;
    std::map<Key, std::deque<SendInfo>> sends;
    for (uint32_t l = 0; l < n; ++l) {
        const auto& ev = t.locations[l].events;
        std::map<uint64_t, uint32_t> completed; // request -> completing call
        for (uint32_t i = 0; i < ev.size(); ++i)
            if (ev[i].kind == EventKind::MpiIsendComplete)
                completed[request(l, i)] = call_of_event[l][i];
        for (uint32_t i = 0; i < ev.size(); ++i) {
            const Event& e = ev[i];
            if (e.kind != EventKind::MpiSend && e.kind != EventKind::MpiIsend) continue;
            const uint32_t call = call_of_event[l][i];
            sends[{e.comm(), l, world(e.comm(), e.peer()), e.tag()}].push_back(
                {l, i, call, e.kind == EventKind::MpiSend ? call : completed.at(request(l, i))});
        }
    }
    // Receives in record order: their message, the call that posted and the one completing.
    struct RecvInfo {
        uint32_t event, call;
        Time post;
        SendInfo send;
    };
    std::vector<std::vector<RecvInfo>> recvs(n);
    for (uint32_t l = 0; l < n; ++l) {
        const auto& ev = t.locations[l].events;
        std::map<uint64_t, uint32_t> posted; // request -> posting call
        for (uint32_t i = 0; i < ev.size(); ++i) {
            const Event& e = ev[i];
            if (e.kind == EventKind::MpiIrecvRequest) posted[request(l, i)] = call_of_event[l][i];
            if (e.kind != EventKind::MpiRecv && e.kind != EventKind::MpiIrecv) continue;
            auto& queue = sends[{e.comm(), world(e.comm(), e.peer()), l, e.tag()}];
            EXPECT_FALSE(queue.empty()) << "unmatched receive on " << l;
            if (queue.empty()) continue;
            const uint32_t call = call_of_event[l][i];
            const uint32_t post_call =
                e.kind == EventKind::MpiRecv ? call : posted.at(request(l, i));
            recvs[l].push_back({i, call, calls[l][post_call].enter, queue.front()});
            queue.pop_front();
        }
    }
    for (const auto& [key, queue] : sends) EXPECT_TRUE(queue.empty()) << "unmatched send";

    // Late Sender per receiving call (Waitall: its largest, the first of equal ones).
    struct Instance {
        uint64_t idle;
        Time sent;
        uint32_t source;
    };
    std::vector<std::map<uint32_t, Instance>> ls_of_call(n);
    for (uint32_t l = 0; l < n; ++l) {
        for (const RecvInfo& r : recvs[l]) {
            const CallOf& c = calls[l][r.call];
            const Time send_enter = calls[r.send.loc][r.send.send_call].enter;
            const Time until = std::min(send_enter, c.leave);
            const uint64_t idle = until > c.enter ? until - c.enter : 0;
            if (idle == 0) continue;
            auto [it, fresh] = ls_of_call[l].try_emplace(
                r.call,
                Instance{idle, t.locations[r.send.loc].events[r.send.event].time, r.send.loc});
            if (!fresh && idle > it->second.idle)
                it->second = {idle, t.locations[r.send.loc].events[r.send.event].time, r.send.loc};
        }
        for (const auto& [call, ls] : ls_of_call[l]) v.late_sender[l] += ls.idle;
    }

    // Wrong Order: replay each location's receive records and call leaves in event order.
    for (uint32_t l = 0; l < n; ++l) {
        std::deque<Instance> buffer;
        std::map<uint32_t, uint32_t> call_left_at; // leave event -> call
        for (const auto& [call, ls] : ls_of_call[l])
            call_left_at[calls[l][call].leave_event] = call;
        std::size_t next = 0;
        const auto& ev = t.locations[l].events;
        for (uint32_t i = 0; i < ev.size(); ++i) {
            if (next < recvs[l].size() && recvs[l][next].event == i) {
                const RecvInfo& r = recvs[l][next++];
                const Time s = t.locations[r.send.loc].events[r.send.event].time;
                for (auto it = buffer.begin(); it != buffer.end();) {
                    if (it->sent > s) {
                        (it->source == r.send.loc ? v.wo_same : v.wo_different)[l] += it->idle;
                        it = buffer.erase(it);
                    } else {
                        ++it;
                    }
                }
            }
            const auto left = call_left_at.find(i);
            if (left != call_left_at.end()) {
                if (buffer.size() == 100) buffer.pop_front();
                buffer.push_back(ls_of_call[l].at(left->second));
            }
        }
    }

    // Late Receiver: per completing send call (MPI_Send, MPI_Ssend, MPI_Wait, MPI_Waitany
    // per message; MPI_Waitall once, its largest, when it had no Late Sender receive).
    std::map<std::pair<uint32_t, uint32_t>, int64_t> waitall_most;
    for (uint32_t l = 0; l < n; ++l)
        for (const RecvInfo& r : recvs[l]) {
            const CallOf& c = calls[r.send.loc][r.send.completing_call];
            const int64_t idle = c.leave <= r.post ? 0 : int64_t(r.post) - int64_t(c.enter);
            if (c.name == "MPI_Send" || c.name == "MPI_Ssend" || c.name == "MPI_Wait" ||
                c.name == "MPI_Waitany") {
                if (idle > 0) v.late_receiver[r.send.loc] += uint64_t(idle);
            } else if (c.name == "MPI_Waitall" || c.name == "MPI_Waitsome") {
                int64_t& most = waitall_most[{r.send.loc, r.send.completing_call}];
                most = std::max(most, idle);
            }
        }
    for (const auto& [at, most] : waitall_most)
        if (most > 0 && !ls_of_call[at.first].count(at.second))
            v.late_receiver[at.first] += uint64_t(most);
    return v;
}

SynthOptions exchange(SynthPattern pattern, std::vector<uint32_t> grid, SynthVariant variant,
                      uint64_t latency = 0, std::vector<bool> periodic = {}, uint32_t slow = kNone,
                      uint64_t blocks = 2) {
    SynthOptions o = opts(pattern, std::move(grid), 3, blocks, 1000, 400, latency);
    o.variant = variant;
    o.periodic = std::move(periodic);
    o.slow_rank = slow;
    return o;
}

// The trace holds what the generator says, and Scalasca's definitions evaluated on it
// give its expectations location by location.
void check_exchange_read_back(const SynthOptions& options) {
    const SynthOptions o = resolve_synth_options(options);
    SCOPED_TRACE(synth_arguments(o));
    ScratchDir dir;
    const ReadBack rb = build(o, dir);
    const Trace& t = rb.trace;
    const SynthExpected& x = rb.synth.expected;
    ASSERT_EQ(t.locations.size(), o.ranks);
    const std::vector<uint64_t> counted = synth_event_counts(o);
    for (uint32_t p = 0; p < o.ranks; ++p) {
        EXPECT_EQ(t.locations[p].events.size(), x.events_by_location[p]) << "rank " << p;
        EXPECT_EQ(t.locations[p].events.size(), counted[p]) << "rank " << p;
        EXPECT_EQ(t.locations[p].events.back().time, x.end);
    }
    // The grid with its periodic axes.
    ASSERT_EQ(t.defs.topologies.size(), 1u);
    const CartTopology& topo = t.defs.topologies[0];
    ASSERT_EQ(topo.dims.size(), o.grid.size());
    for (std::size_t a = 0; a < o.grid.size(); ++a) {
        EXPECT_EQ(topo.dims[a].size, o.grid[a]);
        EXPECT_EQ(topo.dims[a].periodic, a < o.periodic.size() && o.periodic[a]) << "axis " << a;
    }
    const Matching m = match(t);
    EXPECT_EQ(m.messages.size(), x.messages);
    EXPECT_EQ(m.unmatched_sends + m.unmatched_receives, 0u);
    EXPECT_TRUE(m.warnings.empty()) << m.warnings.front();
    const Evaluated old = evaluate(t);
    EXPECT_EQ(old.nesting_error, "");

    const ScalascaValues v = evaluate_scalasca(t);
    EXPECT_EQ(v.late_sender, x.late_sender.by_location);
    EXPECT_EQ(v.wo_same, x.wrong_order_same.by_location);
    EXPECT_EQ(v.wo_different, x.wrong_order_different.by_location);
    EXPECT_EQ(v.late_receiver, x.late_receiver.by_location);
    EXPECT_EQ(sum(x.late_sender.by_location), x.late_sender.total);
    EXPECT_EQ(sum(x.wrong_order_different.by_location), x.wrong_order_different.total);

    // Corners: every one of the axes of size > 1; nothing counted twice.
    std::size_t axes = 0;
    for (uint32_t d : o.grid) axes += d > 1;
    EXPECT_EQ(x.wavefront.size(), axes == 0 ? 0u : std::size_t{1} << axes);
    // Wrong Order and the wave each take part of Late Sender; they may overlap (the wave
    // metrics are a tree of their own).
    for (uint32_t p = 0; p < o.ranks; ++p) {
        uint64_t waves = 0;
        for (const SynthCorner& c : x.wavefront) waves += c.late_sender.by_location[p];
        EXPECT_LE(waves, x.late_sender.by_location[p]) << "rank " << p;
        EXPECT_LE(x.wrong_order_same.by_location[p] + x.wrong_order_different.by_location[p],
                  x.late_sender.by_location[p])
            << "rank " << p;
    }
    if (o.pattern != SynthPattern::Ssor && o.pattern != SynthPattern::Sweep) {
        for (const SynthCorner& c : x.wavefront) EXPECT_EQ(c.late_sender.total, 0u) << c.corner;
    }
}

SynthOptions sweep(std::vector<uint32_t> grid, SynthReceive receive, SynthBetween between,
                   uint64_t latency = 0) {
    SynthOptions o = opts(SynthPattern::Sweep, std::move(grid), 2, 1, 1000, 400, latency);
    o.receive = receive;
    o.between = between;
    o.k_blocks = 3;
    o.angle_blocks = 2;
    o.send_ticks = 10;
    return o;
}

// sweep: the events, messages and Scalasca's values read back, for every receive order and
// step between iterations; each MPI_Send lasts S.
TEST(Synth, ReadBackSweep) {
    for (SynthReceive r : {SynthReceive::Waitall, SynthReceive::XY, SynthReceive::YX})
        for (SynthBetween b : {SynthBetween::None, SynthBetween::Halo, SynthBetween::Allreduce}) {
            check_exchange_read_back(sweep({3, 2}, r, b));
            check_exchange_read_back(sweep({2, 3, 2}, r, b, 20));
            check_exchange_read_back(sweep({4}, r, b));
            // Every MPI_Send lasts S, its message leaves at its enter.
            const Synthetic s = synthesize(sweep({3, 2}, r, b));
            const Trace& t = s.builder.trace();
            uint64_t sends = 0;
            for (const LocationEvents& le : t.locations)
                for (std::size_t i = 0; i + 2 < le.events.size(); ++i) {
                    const Event& e = le.events[i];
                    if (e.kind != EventKind::Enter || t.defs.regions[e.region()].name != "MPI_Send")
                        continue;
                    ++sends;
                    EXPECT_EQ(le.events[i + 1].kind, EventKind::MpiSend);
                    EXPECT_EQ(le.events[i + 1].time, e.time);
                    EXPECT_EQ(le.events[i + 2].time, e.time + 10);
                }
            EXPECT_EQ(sends, s.expected.messages - (b == SynthBetween::Halo ? 2 * 7 * 2 : 0));
        }
}

TEST(Synth, SweepOptions) {
    auto message = [](SynthOptions o) {
        try {
            resolve_synth_options(o);
        } catch (const std::invalid_argument& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    EXPECT_EQ(message(sweep({4, 1}, SynthReceive::XY, SynthBetween::None)),
              "--pattern sweep: axis y of the grid 4x1 has size 1 (use a grid of fewer "
              "dimensions)");
    EXPECT_EQ(message(sweep({2}, SynthReceive::XY, SynthBetween::None)),
              "--pattern sweep: a 1D grid needs 3 ranks or more (origin, relay, end)");
    EXPECT_EQ(message(sweep({2, 2}, SynthReceive::XY, SynthBetween::None)), "");
    // Octants: two per corner in Sweep3D's corner order; on 3D grids k up, then down.
    const std::vector<std::string> regions2d = {"octant1_SW", "octant2_SW", "octant3_NE",
                                                "octant4_NE", "octant5_NW", "octant6_NW",
                                                "octant7_SE", "octant8_SE"};
    const std::vector<std::string> regions3d = {
        "octant1_SW-bottom", "octant2_SW-top", "octant3_NE-bottom", "octant4_NE-top",
        "octant5_NW-bottom", "octant6_NW-top", "octant7_SE-bottom", "octant8_SE-top"};
    std::vector<std::string> found2d, found3d;
    for (const SynthSweep& sw :
         synthesize(sweep({2, 2}, SynthReceive::XY, SynthBetween::None)).expected.sweeps)
        found2d.push_back(sw.region);
    for (const SynthSweep& sw :
         synthesize(sweep({2, 2, 2}, SynthReceive::XY, SynthBetween::None)).expected.sweeps)
        found3d.push_back(sw.region);
    EXPECT_EQ(found2d, regions2d);
    EXPECT_EQ(found3d, regions3d);
}

TEST(Synth, ReadBackHalo) {
    for (SynthVariant v : {SynthVariant::Sendrecv, SynthVariant::Nonblocking}) {
        check_exchange_read_back(exchange(SynthPattern::Halo, {4, 3}, v));
        check_exchange_read_back(exchange(SynthPattern::Halo, {2, 2}, v, 30));
        check_exchange_read_back(exchange(SynthPattern::Halo, {2, 5}, v, 0, {true, false}));
        check_exchange_read_back(exchange(SynthPattern::Halo, {3, 2, 2}, v, 50));
        check_exchange_read_back(exchange(SynthPattern::Halo, {2, 2, 2}, v, 0, {true, true, true}));
        check_exchange_read_back(exchange(SynthPattern::Halo, {4, 3}, v, 20, {true, true}, 0));
        check_exchange_read_back(exchange(SynthPattern::Halo, {6}, v, 0, {true}, 5));
        check_exchange_read_back(exchange(SynthPattern::Halo, {1, 4, 1}, v));
        check_exchange_read_back(exchange(SynthPattern::Halo, {1}, v)); // nobody to talk to
    }
}

TEST(Synth, ReadBackPairwise) {
    for (SynthVariant v : {SynthVariant::Sendrecv, SynthVariant::Nonblocking}) {
        check_exchange_read_back(exchange(SynthPattern::Pairwise, {4, 3}, v));
        check_exchange_read_back(exchange(SynthPattern::Pairwise, {3, 3}, v, 10, {}, 8));
        check_exchange_read_back(
            exchange(SynthPattern::Pairwise, {2, 2, 2}, v, 0, {true, false, true}));
    }
}

TEST(Synth, ReadBackSsor) {
    for (SynthVariant v : {SynthVariant::Sendrecv, SynthVariant::Nonblocking}) {
        check_exchange_read_back(exchange(SynthPattern::Ssor, {4, 3}, v, 70));
        check_exchange_read_back(exchange(SynthPattern::Ssor, {2, 2}, v, 0, {}, kNone, 1));
        check_exchange_read_back(exchange(SynthPattern::Ssor, {3, 2, 2}, v, 0, {}, 0, 3));
        check_exchange_read_back(exchange(SynthPattern::Ssor, {5}, v, 9));
    }
}

TEST(Synth, PairwiseClosedForms) {
    const uint64_t K = 3, D = 400;
    for (SynthVariant v : {SynthVariant::Sendrecv, SynthVariant::Nonblocking})
        for (const auto& [grid, slow] : std::vector<std::pair<std::vector<uint32_t>, uint32_t>>{
                 {{4, 3}, kNone}, {{3, 3}, 8}, {{3, 3}, 3}, {{2, 2, 2}, 0}}) {
            const SynthExpected x =
                synthesize(exchange(SynthPattern::Pairwise, grid, v, 25, {}, slow)).expected;
            uint32_t n = 1;
            for (uint32_t d : grid) n *= d;
            const uint32_t s = slow == kNone ? 6 : slow; // 4x3: the centre (2, 1)
            EXPECT_EQ(x.slow_rank, s);
            std::vector<uint64_t> ls(n, 0);
            if ((s ^ 1u) < n) ls[s ^ 1u] = K * D;
            EXPECT_EQ(x.late_sender.by_location, ls);
            EXPECT_EQ(x.wrong_order_same.total + x.wrong_order_different.total, 0u);
            EXPECT_EQ(x.late_receiver.total, 0u);
            EXPECT_EQ(x.messages, K * (n / 2) * 2);
        }
}

std::vector<uint32_t> neighbours_of(uint32_t rank, const std::vector<uint32_t>& grid,
                                    const std::vector<bool>& periodic) {
    std::vector<uint32_t> c(grid.size());
    for (std::size_t i = 0, r = rank; i < grid.size(); r /= grid[i], ++i) c[i] = r % grid[i];
    std::vector<uint32_t> out;
    for (std::size_t a = 0; a < grid.size(); ++a)
        for (int side : {-1, +1}) {
            if (grid[a] < 2) continue;
            int64_t y = int64_t(c[a]) + side;
            if (y < 0 || y >= int64_t(grid[a])) {
                if (!(a < periodic.size() && periodic[a])) continue;
                y = (y + grid[a]) % grid[a];
            }
            std::vector<uint32_t> q = c;
            q[a] = uint32_t(y);
            uint32_t r = 0;
            for (std::size_t i = grid.size(); i-- > 0;) r = r * grid[i] + q[i];
            if (std::find(out.begin(), out.end(), r) == out.end()) out.push_back(r);
        }
    return out;
}

// Irecv/Isend/Waitall: every rank that exchanges with the slow one waits D in its
// Waitall (once, however many of its messages come from there), whatever L.
TEST(Synth, HaloNonblockingClosedForms) {
    const uint64_t K = 3, D = 400;
    for (const auto& [grid, periodic, slow] :
         std::vector<std::tuple<std::vector<uint32_t>, std::vector<bool>, uint32_t>>{
             {{4, 3}, {}, kNone},
             {{4, 3}, {}, 0},
             {{2, 2}, {true, true}, 1},
             {{2, 5}, {false, true}, 9},
             {{3, 2, 2}, {}, kNone},
             {{6}, {true}, 0}}) {
        for (uint64_t L : {0u, 35u}) {
            const SynthExpected x =
                synthesize(exchange(SynthPattern::Halo, grid, SynthVariant::Nonblocking, L,
                                    periodic, slow))
                    .expected;
            uint32_t n = 1;
            for (uint32_t d : grid) n *= d;
            std::vector<uint64_t> ls(n, 0);
            for (uint32_t q : neighbours_of(x.slow_rank, grid, periodic))
                if (q != x.slow_rank) ls[q] = K * D;
            EXPECT_EQ(x.late_sender.by_location, ls) << "slow " << x.slow_rank << " L " << L;
            EXPECT_EQ(x.wrong_order_same.total + x.wrong_order_different.total, 0u);
            EXPECT_EQ(x.late_receiver.total, 0u);
        }
    }
    // The default slow rank is at the grid's centre.
    EXPECT_EQ(resolve_synth_options(exchange(SynthPattern::Halo, {4, 3}, SynthVariant::Sendrecv))
                  .slow_rank,
              6u);
    EXPECT_EQ(resolve_synth_options(exchange(SynthPattern::Halo, {3, 2, 2}, SynthVariant::Sendrecv))
                  .slow_rank,
              1u + 3u + 6u);
}

// Sendrecv in 1D (L = 0): the ranks beside S wait D; S+1, which waited in the first
// direction, then receives S+2's older message: that wait is Wrong Order.
TEST(Synth, HaloSendrecv1DClosedForms) {
    const uint64_t K = 3, D = 400;
    for (uint32_t P : {2u, 3u, 6u})
        for (uint32_t s = 0; s < P; ++s) {
            const SynthExpected x =
                synthesize(exchange(SynthPattern::Halo, {P}, SynthVariant::Sendrecv, 0, {}, s))
                    .expected;
            std::vector<uint64_t> ls(P, 0), wo(P, 0);
            if (s > 0) ls[s - 1] = K * D;
            if (s + 1 < P) ls[s + 1] = K * D;
            if (s + 2 < P) wo[s + 1] = K * D;
            EXPECT_EQ(x.late_sender.by_location, ls) << P << " " << s;
            EXPECT_EQ(x.wrong_order_different.by_location, wo) << P << " " << s;
            EXPECT_EQ(x.wrong_order_same.total, 0u);
            EXPECT_EQ(x.late_receiver.total, 0u);
        }
}

// ssor: each sweep's fill lands in its own corner, h*H - L per iteration on a rank h hops
// from the sweep's origin; every other corner stays 0.
TEST(Synth, SsorClosedForms) {
    const uint64_t K = 3, T = 1000;
    struct Grid {
        std::vector<uint32_t> dims;
        std::string origin, opposite;
    };
    for (const Grid& g : std::vector<Grid>{{{4, 3}, "SW", "NE"},
                                           {{2, 2}, "SW", "NE"},
                                           {{2, 5}, "SW", "NE"},
                                           {{3, 2, 2}, "SW-bottom", "NE-top"},
                                           {{2, 2, 2}, "SW-bottom", "NE-top"},
                                           {{5}, "W", "E"},
                                           {{4, 1}, "W", "E"},
                                           {{2, 1, 3}, "W-bottom", "E-top"}})
        for (SynthVariant v : {SynthVariant::Sendrecv, SynthVariant::Nonblocking})
            for (uint64_t L : {0u, 70u}) {
                const uint64_t H = T + L;
                const SynthExpected x =
                    synthesize(exchange(SynthPattern::Ssor, g.dims, v, L, {}, kNone, 3)).expected;
                SCOPED_TRACE(g.origin + " L " + std::to_string(L));
                ASSERT_EQ(x.sweeps.size(), 2u);
                EXPECT_EQ(x.sweeps[0].origin, g.origin);
                EXPECT_EQ(x.sweeps[1].origin, g.opposite);
                EXPECT_EQ(x.wavefront.front().corner, g.origin);
                EXPECT_EQ(x.wavefront.back().corner, g.opposite);
                uint32_t n = 1;
                for (uint32_t d : g.dims) n *= d;
                for (uint32_t p = 0; p < n; ++p) {
                    uint64_t h = 0, h_up = 0;
                    for (std::size_t i = 0, r = p; i < g.dims.size(); r /= g.dims[i], ++i) {
                        h += r % g.dims[i];
                        h_up += g.dims[i] - 1 - r % g.dims[i];
                    }
                    const uint64_t lower = h >= 1 ? K * (h * H - L) : 0;
                    const uint64_t upper = h_up >= 1 ? K * (h_up * H - L) : 0;
                    EXPECT_EQ(x.wavefront.front().late_sender.by_location[p], lower) << p;
                    EXPECT_EQ(x.wavefront.back().late_sender.by_location[p], upper) << p;
                    EXPECT_EQ(x.sweeps[0].late_sender.by_location[p], lower) << p;
                    EXPECT_EQ(x.sweeps[1].late_sender.by_location[p], upper) << p;
                    for (std::size_t c = 1; c + 1 < x.wavefront.size(); ++c)
                        EXPECT_EQ(x.wavefront[c].late_sender.by_location[p], 0u);
                }
                // The halo's waits are all the rest of Late Sender.
                SynthOptions halo = exchange(SynthPattern::Halo, g.dims, v, L, {}, kNone, 3);
                const SynthExpected xh = synthesize(halo).expected;
                EXPECT_EQ(x.late_sender.total, x.sweeps[0].late_sender.total +
                                                   x.sweeps[1].late_sender.total +
                                                   xh.late_sender.total);
                EXPECT_EQ(x.wrong_order_different.total, xh.wrong_order_different.total);
            }
}

TEST(Synth, ExchangeOptionsRejected) {
    const std::vector<std::pair<SynthOptions, std::string>> cases = {
        {exchange(SynthPattern::Ssor, {4, 3}, SynthVariant::Sendrecv, 0, {true}),
         "--periodic: the sweeps of --pattern ssor do not wrap around"},
        {exchange(SynthPattern::Wavefront, {4, 3}, SynthVariant::Sendrecv, 0, {false, true}),
         "--periodic applies to --pattern halo and pairwise"},
        {exchange(SynthPattern::Halo, {4, 3}, SynthVariant::Sendrecv, 0, {false, false, true}),
         "--periodic z: the grid 4x3 has no axis z"},
        {exchange(SynthPattern::Halo, {1, 4}, SynthVariant::Sendrecv, 0, {true}),
         "--periodic x: axis x of the grid 1x4 has size 1 (its process would exchange with "
         "itself)"},
        {exchange(SynthPattern::Pairwise, {4, 3}, SynthVariant::Sendrecv, 0, {}, 12),
         "--slow-rank 12: the grid 4x3 has ranks 0 to 11"},
        {exchange(SynthPattern::Mixed, {4, 3}, SynthVariant::Sendrecv, 0, {}, 1),
         "--slow-rank applies to --pattern halo, pairwise and ssor"},
    };
    for (const auto& [o, message] : cases) {
        try {
            resolve_synth_options(o);
            ADD_FAILURE() << "accepted: " << message;
        } catch (const std::invalid_argument& e) {
            EXPECT_EQ(std::string(e.what()), message);
        }
    }
    // All false is no periodic axis, for any pattern.
    EXPECT_NO_THROW(resolve_synth_options(
        exchange(SynthPattern::Wavefront, {4, 3}, SynthVariant::Sendrecv, 0, {false, false})));
}

// ---- determinism

bool same_events(const Trace& a, const Trace& b) {
    if (a.locations.size() != b.locations.size()) return false;
    for (std::size_t l = 0; l < a.locations.size(); ++l) {
        const auto& x = a.locations[l].events;
        const auto& y = b.locations[l].events;
        if (x.size() != y.size()) return false;
        for (std::size_t i = 0; i < x.size(); ++i)
            // region(), comm() and tag() read the three slots the kinds share.
            if (x[i].time != y[i].time || x[i].kind != y[i].kind ||
                x[i].region() != y[i].region() || x[i].comm() != y[i].comm() ||
                x[i].tag() != y[i].tag() || x[i].bytes != y[i].bytes)
                return false;
    }
    return true;
}

TEST(Synth, SameSeedSameTrace) {
    const SynthOptions o = opts(SynthPattern::Mixed, {3, 3}, 4, 2, 500, 70, 3, 1234);
    ScratchDir d1, d2;
    const ReadBack a = build(o, d1), b = build(o, d2);
    EXPECT_TRUE(same_events(a.synth.builder.trace(), b.synth.builder.trace()));
    EXPECT_TRUE(same_events(a.trace, b.trace));
    EXPECT_TRUE(same_events(a.synth.builder.trace(), a.trace)); // no clock offsets: same times
    for (uint32_t r = 0; r < 9; ++r)
        EXPECT_EQ(read_file(d1 / "trace" / "traces" / (std::to_string(r) + ".evt")),
                  read_file(d2 / "trace" / "traces" / (std::to_string(r) + ".evt")));
}

TEST(Synth, SeedMovesTheWaitsNotTheirSum) {
    SynthOptions o = opts(SynthPattern::Mixed, {4, 4}, 6, 1, 500, 70, 3, 1);
    const SynthExpected a = synthesize(o).expected;
    o.seed = 2;
    const SynthExpected b = synthesize(o).expected;
    EXPECT_NE(a.pairs, b.pairs);
    EXPECT_NE(a.late_broadcast.by_location, b.late_broadcast.by_location);
    EXPECT_EQ(a.late_sender.total, b.late_sender.total);
    EXPECT_EQ(a.wait_nxn.total, b.wait_nxn.total);
    EXPECT_EQ(a.late_broadcast.total, b.late_broadcast.total);
    EXPECT_EQ(a.early_reduce.total, b.early_reduce.total);
    EXPECT_EQ(a.events, b.events);
}

TEST(Synth, ResolvesGridAndRanks) {
    SynthOptions o;
    EXPECT_EQ(resolve_synth_options(o).grid, (std::vector<uint32_t>{4, 4}));
    o.ranks = 12;
    EXPECT_EQ(resolve_synth_options(o).grid, (std::vector<uint32_t>{4, 3}));
    o.ranks = 64;
    EXPECT_EQ(resolve_synth_options(o).grid, (std::vector<uint32_t>{8, 8}));
    o.ranks = 7;
    EXPECT_EQ(resolve_synth_options(o).grid, (std::vector<uint32_t>{7, 1}));
    o.ranks = 1;
    EXPECT_EQ(resolve_synth_options(o).grid, (std::vector<uint32_t>{1, 1}));
    o.ranks = 0;
    o.grid = {2, 3, 4};
    EXPECT_EQ(resolve_synth_options(o).ranks, 24u);
    o.ranks = 25;
    EXPECT_THROW(resolve_synth_options(o), std::invalid_argument);
}

// The example of the help text: >= 10^7 events.
TEST(Synth, ScaleExampleCount) {
    SynthOptions o;
    o.ranks = 64;
    o.iterations = 2000;
    uint64_t total = 0;
    for (uint64_t c : synth_event_counts(resolve_synth_options(o))) total += c;
    EXPECT_EQ(total, 18048384u);
}

// ---- the command

CommandResult topolens(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {topolens::test::topolens_bin()};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_command(argv);
}

std::string line_starting(const std::string& text, const std::string& start) {
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        if (line.rfind(start, 0) == 0) return line;
    return "";
}

TEST(SynthCommand, WritesTheTraceAndItsExpectations) {
    ScratchDir dir;
    const std::string out = (dir / "t").string();
    const CommandResult r = topolens({"synth", "-o", out, "--pattern", "late-sender", "--ranks",
                                      "6", "--iterations", "4", "--delay-ticks", "2500"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err, "");
    const Trace t = read_trace(out);
    uint64_t events = 0;
    for (const auto& l : t.locations) events += l.events.size();
    EXPECT_EQ(line_starting(r.out, "wrote "), "wrote " + std::to_string(events) +
                                                  " events, 6 ranks, pattern late-sender, 4 "
                                                  "iterations");
    EXPECT_EQ(line_starting(r.out, "trace: "), "trace: " + out + "/traces.otf2");
    EXPECT_EQ(line_starting(r.out, "reproduce: "),
              "reproduce: topolens synth -o " + out +
                  " --pattern late-sender --grid 3x2 --iterations 4 --blocks 2 --work-ticks "
                  "10000 --delay-ticks 2500 --latency-ticks 0 --seed 1");
    // 3 pairs x 4 iterations x 2500 ticks.
    EXPECT_EQ(line_starting(r.out, "  Late Sender"),
              "  Late Sender      mpi_latesender     30000  0.000030000         12");
    EXPECT_EQ(t.defs.creator, "topolens synth --pattern late-sender --grid 3x2 --iterations 4 "
                              "--blocks 2 --work-ticks 10000 --delay-ticks 2500 "
                              "--latency-ticks 0 --seed 1");
    // Writing again replaces the archive.
    EXPECT_EQ(topolens({"synth", "-o", out, "--ranks", "2", "--iterations", "1"}).exit_code, 0);
    EXPECT_EQ(read_trace(out).locations.size(), 2u);
}

TEST(SynthCommand, HelpDocumentsThePatterns) {
    const CommandResult r = topolens({"help", "synth"});
    EXPECT_EQ(r.exit_code, 0);
    for (const char* s : {"usage: topolens synth -o DIR",
                          "late-sender:", "collectives:", "wavefront:", "mixed:", "floor(N/2)*K*D",
                          "(N-1)*K*D", "H*P*Q*d/2 - L*(P*Q-1)"})
        EXPECT_NE(r.out.find(s), std::string::npos) << s;
    EXPECT_EQ(topolens({"synth", "--help"}).out, r.out);
    EXPECT_NE(topolens({"help"}).out.find("  synth   "), std::string::npos);
}

TEST(SynthCommand, BadOptionsAreUsageErrors) {
    ScratchDir dir;
    const std::string out = (dir / "t").string();
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{}, "synth needs an output directory (-o DIR)"},
        {{"--ranks", "4"}, "synth needs an output directory (-o DIR)"},
        {{"-o", out, "--ranks"}, "--ranks needs a value"},
        {{"-o", out, "--ranks", "0"}, "--ranks must be at least 1"},
        {{"-o", out, "--ranks", "-3"}, "--ranks: '-3' is not a non-negative whole number"},
        {{"-o", out, "--ranks", "4x"}, "--ranks: '4x' is not a non-negative whole number"},
        {{"-o", out, "--ranks", "70000"}, "--ranks: at most 65536"},
        {{"-o", out, "--grid", "3x0"}, "--grid must be at least 1"},
        {{"-o", out, "--grid", "3x"}, "--grid: '' is not a non-negative whole number"},
        {{"-o", out, "--grid", "2x2x2x2"}, "--grid has 1 to 3 dimensions, not 4"},
        {{"-o", out, "--grid", "2x2", "--ranks", "5"}, "--grid 2x2 has 4 ranks, --ranks says 5"},
        {{"-o", out, "--pattern", "wave"},
         "--pattern: unknown pattern 'wave' (wavefront, late-sender, collectives, mixed, halo, "
         "pairwise, ssor, sweep, delay)"},
        {{"-o", out, "--iterations", "0"}, "--iterations must be at least 1"},
        {{"-o", out, "--pattern", "delay", "--grid", "2x3"},
         "--pattern delay needs a 2D grid of at least 3x2 (a halo block above a chain of 3 or "
         "more ranks), not 2x3"},
        {{"-o", out, "--pattern", "delay", "--latency-ticks", "0"},
         "--pattern delay needs --latency-ticks of at least 1 (the part of each MPI call that is "
         "not waiting)"},
        {{"-o", out, "--blocks", "0"}, "--blocks must be at least 1"},
        {{"-o", out, "--work-ticks", "0"}, "--work-ticks must be at least 1"},
        {{"-o", out, "--delay-ticks", "1e3"},
         "--delay-ticks: '1e3' is not a non-negative whole number"},
        {{"-o", out, "--seed", "99999999999999999999999"},
         "--seed: '99999999999999999999999' is not a non-negative whole number"},
        {{"-o", out, "--frobnicate", "1"}, "unknown option '--frobnicate'"},
        {{"-o", out, "extra"}, "unexpected argument 'extra'"},
        {{"-o", out, "--iterations", "1000000000", "--work-ticks", "1000000000000"},
         "the trace would last more than 4e18 ticks: fewer --iterations or --blocks, or "
         "shorter times"},
    };
    for (const auto& [args, message] : cases) {
        std::vector<std::string> argv = {"synth"};
        argv.insert(argv.end(), args.begin(), args.end());
        const CommandResult r = topolens(argv);
        SCOPED_TRACE(message);
        EXPECT_EQ(r.exit_code, 2);
        EXPECT_EQ(r.out, "");
        EXPECT_EQ(line_starting(r.err, "topolens: error:"), "topolens: error: " + message);
        EXPECT_NE(r.err.find("usage: topolens synth -o DIR"), std::string::npos);
    }
    EXPECT_FALSE(std::filesystem::exists(out)); // nothing written
}

TEST(SynthCommand, HelpDocumentsTheExchangePatterns) {
    const CommandResult r = topolens({"help", "synth"});
    EXPECT_EQ(r.exit_code, 0);
    for (const char* s : {"[--variant sendrecv|nonblocking] [--periodic AXES] [--slow-rank R]",
                          "halo, pairwise, ssor,", "halo, pairwise, ssor: the exchange.",
                          "ssor: per iteration", "Wavefront from <origin corner> = K*(h*H - L)",
                          "LS, Wrong Order:", "Late Receiver: MPI_Send takes 0 ticks"})
        EXPECT_NE(r.out.find(s), std::string::npos) << s;
}

// delay: L = 100 unless given, the root causes and the waits' causes printed (the values:
// docs/testing.md's example, derived in trace/synthetic_delay.cpp).
TEST(SynthCommand, DelayPrintsTheRootCauses) {
    ScratchDir dir;
    const std::string out = (dir / "t").string();
    const CommandResult r = topolens({"synth", "-o", out, "--pattern", "delay", "--iterations", "1",
                                      "--work-ticks", "1000", "--delay-ticks", "400"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(line_starting(r.out, "reproduce: "),
              "reproduce: topolens synth -o " + out +
                  " --pattern delay --grid 4x4 --iterations 1 --blocks 2 --work-ticks 1000 "
                  "--delay-ticks 400 --latency-ticks 100 --seed 1");
    EXPECT_EQ(line_starting(r.out, "slow rank: "),
              "slow rank: 6 (the halo block's centre, 400 ticks longer); chain: ranks 12 to 15");
    for (const char* s : {"main/work 1600.000", "critical path: 2801 ticks",
                          "latesender: 3100 ticks of waits, 0.000 not explained by a delay",
                          "barrier: 5900 ticks of waits, 0.000 not explained by a delay"})
        EXPECT_NE(r.out.find(s), std::string::npos) << s;
    const Trace t = read_trace(out);
    EXPECT_EQ(t.locations.size(), 16u);
}

TEST(SynthCommand, HaloPrintsEveryExpectedMetric) {
    ScratchDir dir;
    const std::string out = (dir / "t").string();
    // 1D, S = 2 of 5, L = 0: S-1 and S+1 wait D; S+1's wait is Wrong Order (S+2's message
    // is older), 2 iterations.
    const CommandResult r =
        topolens({"synth", "-o", out, "--pattern", "halo", "--grid", "5", "--slow-rank", "2",
                  "--iterations", "2", "--delay-ticks", "3000"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(line_starting(r.out, "reproduce: "),
              "reproduce: topolens synth -o " + out +
                  " --pattern halo --grid 5 --iterations 2 --blocks 2 --work-ticks 10000 "
                  "--delay-ticks 3000 --latency-ticks 0 --seed 1 --variant sendrecv "
                  "--periodic none --slow-rank 2");
    EXPECT_EQ(line_starting(r.out, "slow rank: "),
              "slow rank: 2 (3000 ticks longer before each exchange), sendrecv");
    auto ticks = [&](const std::string& metric) {
        std::istringstream in(line_starting(r.out, metric));
        std::string word;
        std::vector<std::string> words;
        while (in >> word) words.push_back(word);
        return words.size() >= 4 ? words[words.size() - 3] : std::string("?");
    };
    EXPECT_EQ(ticks("  Late Sender "), "12000");
    EXPECT_EQ(ticks("    LS, Wrong Order, different sources"), "6000");
    EXPECT_EQ(ticks("    LS, Wrong Order, same source"), "0");
    EXPECT_EQ(ticks("    Wavefront from W "), "0");
    EXPECT_EQ(ticks("    Wavefront from E "), "0");
    EXPECT_EQ(ticks("  Late Receiver"), "0");
    const Trace t = read_trace(out);
    ASSERT_EQ(t.defs.topologies.size(), 1u);
    EXPECT_FALSE(t.defs.topologies[0].dims[0].periodic);

    // The same with the options of the reproduce line, periodic and nonblocking.
    const CommandResult p =
        topolens({"synth", "-o", out, "--pattern", "halo", "--grid", "4x3", "--periodic", "x",
                  "--variant", "nonblocking", "--iterations", "1", "--delay-ticks", "100"});
    ASSERT_EQ(p.exit_code, 0) << p.err;
    EXPECT_NE(p.out.find("--variant nonblocking --periodic x --slow-rank 6"), std::string::npos)
        << p.out;
    // Rank 6 = (2, 1) has 4 neighbours: 4 waits of 100.
    EXPECT_NE(line_starting(p.out, "  Late Sender ").find(" 400 "), std::string::npos) << p.out;
    const Trace tp = read_trace(out);
    EXPECT_TRUE(tp.defs.topologies[0].dims[0].periodic);
    EXPECT_FALSE(tp.defs.topologies[0].dims[1].periodic);
}

TEST(SynthCommand, SsorPrintsItsSweepsAndCorners) {
    ScratchDir dir;
    const std::string out = (dir / "t").string();
    const CommandResult r =
        topolens({"synth", "-o", out, "--pattern", "ssor", "--grid", "2x2", "--iterations", "1",
                  "--work-ticks", "100", "--delay-ticks", "0", "--blocks", "1"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    // h = 0, 1, 1, 2 hops: 0 + 100 + 100 + 200 per sweep.
    EXPECT_NE(line_starting(r.out, "    in lower_sweep").find(" 400 "), std::string::npos) << r.out;
    EXPECT_NE(line_starting(r.out, "    Wavefront from SW ").find(" 400 "), std::string::npos);
    EXPECT_NE(line_starting(r.out, "    Wavefront from NE ").find(" 400 "), std::string::npos);
    EXPECT_NE(line_starting(r.out, "    Wavefront from SE ").find(" 0 "), std::string::npos);
    EXPECT_NE(line_starting(r.out, "  Late Sender ").find(" 800 "), std::string::npos);
}

TEST(SynthCommand, HelpDocumentsTheSweep) {
    const CommandResult r = topolens({"help", "synth"});
    EXPECT_EQ(r.exit_code, 0);
    for (const char* s :
         {"[--receive waitall|xy|yx] [--between none|halo|allreduce]", "--k-blocks K",
          "--angle-blocks A", "--send-ticks S", "sweep: a discrete-ordinates transport sweep",
          "Order included, so the corners together hold all Late Sender"})
        EXPECT_NE(r.out.find(s), std::string::npos) << s;
}

TEST(SynthCommand, SweepPrintsItsOctantsAndCorners) {
    ScratchDir dir;
    const std::string out = (dir / "t").string();
    const CommandResult r =
        topolens({"synth", "-o", out, "--pattern", "sweep", "--grid", "2x2", "--iterations", "1",
                  "--work-ticks", "100", "--send-ticks", "10", "--k-blocks", "1", "--angle-blocks",
                  "1", "--receive", "xy"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("8 octants of 1 angle blocks x 1 k-blocks, receive xy, after each "
                         "iteration none"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("--k-blocks 1 --angle-blocks 1 --send-ticks 10 --receive xy "
                         "--between none"),
              std::string::npos);
    // SW from a common start: (1,0) waits T for its x face, (0,1) T+S for its y face, (1,1)
    // 2T+S for its x face (then takes the y face sent at 2T: Wrong Order, different sources).
    EXPECT_NE(line_starting(r.out, "    in octant1_SW").find(" 420 "), std::string::npos) << r.out;
    EXPECT_NE(line_starting(r.out, "    in octant2_SW").find(" 0 "), std::string::npos) << r.out;
    for (const char* corner : {"SW ", "NE ", "NW ", "SE "})
        EXPECT_NE(line_starting(r.out, std::string("    Wavefront from ") + corner), "") << corner;
    EXPECT_NE(line_starting(r.out, "    LS, Wrong Order, different sources"), "");
}

TEST(SynthCommand, BadSweepOptionsAreUsageErrors) {
    ScratchDir dir;
    const std::string out = (dir / "t").string();
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"--pattern", "halo", "--receive", "xy"}, "--receive applies to --pattern sweep"},
        {{"--k-blocks", "2"}, "--k-blocks applies to --pattern sweep"},
        {{"--pattern", "ssor", "--between", "halo"}, "--between applies to --pattern sweep"},
        {{"--pattern", "sweep", "--receive", "zx"},
         "--receive: unknown order 'zx' (waitall, xy, yx)"},
        {{"--pattern", "sweep", "--between", "barrier"},
         "--between: unknown step 'barrier' (none, halo, allreduce)"},
        {{"--pattern", "sweep", "--angle-blocks", "0"}, "--angle-blocks must be at least 1"},
        {{"--pattern", "sweep", "--grid", "4x1"},
         "--pattern sweep: axis y of the grid 4x1 has size 1 (use a grid of fewer dimensions)"},
    };
    for (const auto& [args, message] : cases) {
        std::vector<std::string> argv = {"synth", "-o", out};
        argv.insert(argv.end(), args.begin(), args.end());
        const CommandResult r = topolens(argv);
        SCOPED_TRACE(message);
        EXPECT_EQ(r.exit_code, 2);
        EXPECT_EQ(line_starting(r.err, "topolens: error:"), "topolens: error: " + message);
    }
}

TEST(SynthCommand, BadExchangeOptionsAreUsageErrors) {
    ScratchDir dir;
    const std::string out = (dir / "t").string();
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"--pattern", "halo", "--variant", "isend"},
         "--variant: unknown variant 'isend' (sendrecv, nonblocking)"},
        {{"--pattern", "halo", "--variant"}, "--variant needs a value"},
        {{"--pattern", "wavefront", "--variant", "nonblocking"},
         "--variant applies to --pattern halo, pairwise and ssor"},
        {{"--pattern", "halo", "--periodic", "xq"},
         "--periodic: 'q' is not an axis (any of x, y, z, e.g. xy, or none)"},
        {{"--pattern", "halo", "--periodic", "xx"}, "--periodic: axis x twice"},
        {{"--pattern", "halo", "--periodic", ""},
         "--periodic needs axes: any of x, y, z (e.g. xy) or none"},
        {{"--pattern", "ssor", "--periodic", "x"},
         "--periodic: the sweeps of --pattern ssor do not wrap around"},
        {{"--periodic", "y"}, "--periodic applies to --pattern halo and pairwise"},
        {{"--pattern", "halo", "--grid", "4x3", "--periodic", "xz"},
         "--periodic z: the grid 4x3 has no axis z"},
        {{"--pattern", "pairwise", "--grid", "4x1", "--periodic", "y"},
         "--periodic y: axis y of the grid 4x1 has size 1 (its process would exchange with "
         "itself)"},
        {{"--pattern", "halo", "--grid", "4x3", "--slow-rank", "12"},
         "--slow-rank 12: the grid 4x3 has ranks 0 to 11"},
        {{"--pattern", "halo", "--slow-rank", "-1"},
         "--slow-rank: '-1' is not a non-negative whole number"},
        {{"--pattern", "halo", "--slow-rank", "65536"}, "--slow-rank: at most 65535"},
        {{"--pattern", "collectives", "--slow-rank", "1"},
         "--slow-rank applies to --pattern halo, pairwise and ssor"},
    };
    for (const auto& [args, message] : cases) {
        std::vector<std::string> argv = {"synth", "-o", out};
        argv.insert(argv.end(), args.begin(), args.end());
        const CommandResult r = topolens(argv);
        SCOPED_TRACE(message);
        EXPECT_EQ(r.exit_code, 2);
        EXPECT_EQ(r.out, "");
        EXPECT_EQ(line_starting(r.err, "topolens: error:"), "topolens: error: " + message);
        EXPECT_NE(r.err.find("usage: topolens synth -o DIR"), std::string::npos);
    }
    EXPECT_FALSE(std::filesystem::exists(out)); // nothing written
}

TEST(SynthCommand, UnwritableDirectoryIsAFailure) {
    ScratchDir dir;
    write_file(dir / "file", "x");
    const CommandResult r = topolens(
        {"synth", "-o", (dir / "file" / "sub").string(), "--ranks", "2", "--iterations", "1"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.err.rfind("topolens: error: ", 0), 0u) << r.err;
}

} // namespace
} // namespace topolens::test
