// The synthetic trace generator (trace/synthetic.h) and `topolens synth`: traces read back
// with exactly the events, topology and messages the options ask for, wait states that an
// independent evaluation of DESIGN.md's definitions finds in the read-back trace, the closed
// forms documented in `topolens help synth`, determinism, and rejected options.
#include "test_util.h"

#include "trace/matching.h"
#include "trace/names.h"
#include "trace/reader.h"
#include "trace/synthetic.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
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
    uint32_t a, b, c;
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
                stack.emplace_back(e.a, static_cast<uint32_t>(calls[l].size()));
                calls[l].push_back({e.time, 0});
            } else if (e.kind == EventKind::Leave) {
                if ((stack.empty() || stack.back().first != e.a) && ev.nesting_error.empty())
                    ev.nesting_error = "unbalanced leave on location " + std::to_string(l);
                if (stack.empty()) continue;
                calls[l][stack.back().second].leave = e.time;
                stack.pop_back();
            } else if (!stack.empty()) {
                records[l].push_back({e.kind, stack.back().second, e.time, e.a, e.b, e.c});
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
                sends[{r.b, l, world(r.b, r.a), r.c}].emplace_back(l, &r);
            if (r.kind == EventKind::MpiRecv)
                recvs[{r.b, world(r.b, r.a), l, r.c}].emplace_back(l, &r);
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
                instances[{r.b, seen[r.b]++}].push_back({l, calls[l][r.call], r.c, r.a});
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
        EXPECT_EQ(t.defs.regions[ev[0].a].name, "main");
        EXPECT_EQ(t.defs.regions[ev[1].a].name, "MPI_Init");
        EXPECT_EQ(t.defs.regions[ev[ev.size() - 2].a].name, "MPI_Finalize");
        EXPECT_EQ(ev.back().kind, EventKind::Leave);
        EXPECT_EQ(t.defs.regions[ev.back().a].name, "main");
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

// ---- determinism

bool same_events(const Trace& a, const Trace& b) {
    if (a.locations.size() != b.locations.size()) return false;
    for (std::size_t l = 0; l < a.locations.size(); ++l) {
        const auto& x = a.locations[l].events;
        const auto& y = b.locations[l].events;
        if (x.size() != y.size()) return false;
        for (std::size_t i = 0; i < x.size(); ++i)
            if (x[i].time != y[i].time || x[i].kind != y[i].kind || x[i].a != y[i].a ||
                x[i].b != y[i].b || x[i].c != y[i].c || x[i].bytes != y[i].bytes)
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
    std::vector<std::string> argv = {TOPOLENS_BIN};
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
         "--pattern: unknown pattern 'wave' (wavefront, late-sender, collectives, mixed)"},
        {{"-o", out, "--iterations", "0"}, "--iterations must be at least 1"},
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
