// `topolens synth --pattern delay`: the generator's schedule against its closed forms, the
// existing wait-state metrics of the analysis against the generator's, exactly, and the
// root-cause expectations (issue 23) checked for consistency among themselves and against
// the analysis' delay costs, wait propagation, critical path and wait edges.
#include "synth_expect.h"

#include "analyzer/engine/engine.h"
#include "analyzer/report/root_causes.h"
#include "patterns/metric_names.h"
#include "patterns/registry.h"
#include "trace/synthetic.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

using namespace topolens;
using namespace topolens::synth_expect;
using trace::SynthOptions;
using trace::SynthPattern;

namespace {

SynthOptions delay(std::vector<uint32_t> grid, uint64_t iterations, uint64_t work, uint64_t d,
                   uint64_t latency) {
    SynthOptions o;
    o.pattern = SynthPattern::Delay;
    o.grid = std::move(grid);
    o.iterations = iterations;
    o.work_ticks = work;
    o.delay_ticks = d;
    o.latency_ticks = latency;
    return o;
}

// The default grid 4x4, a 3x3 halo block (3x4), the smallest (3x2), a wide one, and D < L
// (the centre's Waitall then lasts L - D).
const SynthOptions kCases[] = {
    delay({4, 4}, 3, 1000, 400, 100), delay({3, 4}, 2, 1000, 400, 30),
    delay({3, 2}, 1, 500, 70, 10),    delay({6, 3}, 2, 800, 250, 40),
    delay({5, 2}, 2, 600, 20, 50),
};

double sum(const trace::SynthCallpathTicks& m) {
    double s = 0;
    for (const auto& [path, ticks] : m) s += ticks;
    return s;
}

double metric_sum(const trace::SynthRootCauses& rc, const char* metric) {
    double s = 0;
    for (const trace::SynthCallpathTicks& loc : rc.metrics.at(metric)) s += sum(loc);
    return s;
}

} // namespace

// The schedule's closed forms (the file comment of trace/synthetic_delay.cpp).
TEST(SynthDelay, ScheduleClosedForms) {
    for (const SynthOptions& o : kCases) {
        const trace::Synthetic s = trace::synthesize(o);
        const trace::SynthExpected& x = s.expected;
        SCOPED_TRACE("topolens synth " + trace::synth_arguments(s.options));
        const uint64_t K = o.iterations, W = o.work_ticks, D = o.delay_ticks, L = o.latency_ticks;
        const uint32_t P = o.grid[0], Q = o.grid[1], n = P * Q;
        const trace::SynthDelayLayout g = trace::synth_delay_layout(o.grid);
        ASSERT_EQ(g.halo_ranks, P * (Q - 1));
        EXPECT_EQ(g.centre, P / 2 + P * ((Q - 1) / 2));
        EXPECT_EQ(x.slow_rank, g.centre);
        const uint32_t R = n - 1; // the chain's last rank
        EXPECT_EQ(g.chain(P - 1), R);

        // Late Sender: D on each of the centre's neighbours, D + (k-1)L on chain rank k.
        uint64_t ls = 0;
        for (uint32_t p = 0; p < n; ++p) {
            uint64_t expected = 0;
            if (p < g.halo_ranks) {
                for (uint32_t q : g.halo_neighbours[g.centre])
                    if (q == p) expected = K * D;
            } else if (p > g.chain(0)) {
                expected = K * (D + (p - g.chain(1)) * L);
            }
            EXPECT_EQ(x.late_sender.by_location[p], expected) << "rank " << p;
            ls += expected;
        }
        EXPECT_EQ(x.late_sender.total, ls);
        // Barrier: R enters last at W+D+(P-1)L after each iteration's start.
        const uint64_t E = W + D + (P - 1) * L;
        for (uint32_t p = 0; p < n; ++p) {
            uint64_t enter = W + L; // a halo rank away from the centre
            if (p == g.centre) enter = W + std::max(D, L);
            if (p < g.halo_ranks && x.late_sender.by_location[p] > 0) enter = W + D + L;
            if (p >= g.halo_ranks) enter = W + D + (p - g.chain(0)) * L;
            EXPECT_EQ(x.wait_barrier.by_location[p], K * (E - enter)) << "rank " << p;
        }
        EXPECT_EQ(x.wait_barrier.by_location[R], 0u);
        // MPI_Init, K iterations of E + L, R enters MPI_Finalize 1 tick late.
        EXPECT_EQ(x.end, 2 * trace::kSynthInitTicks + K * (E + L) + 1);
        EXPECT_EQ(x.collectives, K);
        uint64_t halo_messages = 0;
        for (const auto& nb : g.halo_neighbours) halo_messages += nb.size();
        EXPECT_EQ(x.messages, K * (halo_messages + P - 1));
        EXPECT_EQ(x.wait_nxn.total + x.late_broadcast.total + x.early_reduce.total +
                      x.late_receiver.total + x.wrong_order_same.total +
                      x.wrong_order_different.total,
                  0u);
        // Every location's events as synth_event_counts says, each in time order.
        const std::vector<uint64_t> counted = trace::synth_event_counts(s.options);
        const trace::Trace& t = s.builder.trace();
        for (uint32_t p = 0; p < n; ++p) {
            const auto& ev = t.locations[p].events;
            EXPECT_EQ(ev.size(), counted[p]) << "rank " << p;
            EXPECT_EQ(ev.size(), x.events_by_location[p]) << "rank " << p;
            for (size_t i = 1; i < ev.size(); ++i) ASSERT_LE(ev[i - 1].time, ev[i].time);
            EXPECT_EQ(ev.back().time, x.end - (p == R ? 0 : 1)) << "rank " << p;
        }
    }
}

// The existing analysis finds exactly the generator's Late Sender and Wait at Barrier per
// location (and at the call paths the root causes name), and nothing else.
TEST(SynthDelay, AnalysisFindsTheGeneratorsWaits) {
    for (const SynthOptions& o : kCases) {
        const trace::Synthetic s = trace::synthesize(o);
        const trace::SynthExpected& x = s.expected;
        SCOPED_TRACE("topolens synth " + trace::synth_arguments(s.options));
        const analysis::AnalysisResult result =
            analysis::analyze(s.builder.trace(), patterns::all_patterns());
        const report::Report& r = result.report;
        expect_point_to_point(r, x);
        expect_metric(r, patterns::metric::kBarrierWait, x.wait_barrier, "Wait at Barrier");
        for (const char* zero : {patterns::metric::kWaitNxN, patterns::metric::kLateBroadcast,
                                 patterns::metric::kEarlyReduce}) {
            const auto m = r.find_metric(zero);
            ASSERT_TRUE(m.has_value()) << zero;
            EXPECT_EQ(r.total(*m), 0.0) << zero;
        }
        // The halo's waits are in MPI_Waitall, the chain's in MPI_Recv.
        const auto ls = r.find_metric(patterns::metric::kLateSender);
        const auto waitall = r.find_callpath("main/MPI_Waitall");
        const auto recv = r.find_callpath("main/MPI_Recv");
        const auto work = r.find_callpath("main/work");
        ASSERT_TRUE(ls && waitall && recv && work);
        const trace::SynthDelayLayout g = trace::synth_delay_layout(s.options.grid);
        for (uint32_t p = 0; p < s.options.ranks; ++p)
            EXPECT_NEAR(r.value(*ls, p < g.halo_ranks ? *waitall : *recv, static_cast<int>(p)),
                        static_cast<double>(x.late_sender.by_location[p]) * kTick, kExact)
                << "rank " << p;
    }
}

// The root-cause table adds up: delays explain the waits, the edges are the waits, the
// critical path is the run up to its last MPI_Finalize enter, activities are the time.
TEST(SynthDelay, RootCausesAddUp) {
    for (const SynthOptions& o : kCases) {
        const trace::Synthetic s = trace::synthesize(o);
        const trace::SynthExpected& x = s.expected;
        const trace::SynthRootCauses& rc = x.root_causes;
        SCOPED_TRACE("topolens synth " + trace::synth_arguments(s.options));
        const uint32_t n = s.options.ranks, R = n - 1;

        // Per wait kind: short + long delay = the waits - what nothing explains.
        EXPECT_EQ(rc.waits.at("latesender"), x.late_sender.total);
        EXPECT_EQ(rc.waits.at("barrier"), x.wait_barrier.total);
        EXPECT_NEAR(metric_sum(rc, "delay_latesender") +
                        metric_sum(rc, "delay_latesender_longterm"),
                    double(x.late_sender.total) - rc.unexplained.at("latesender"), 1e-6);
        EXPECT_NEAR(metric_sum(rc, "delay_barrier") + metric_sum(rc, "delay_barrier_longterm"),
                    double(x.wait_barrier.total) - rc.unexplained.at("barrier"), 1e-6);

        // Edges: one per waiting location and kind, its whole wait.
        std::map<std::string, std::vector<uint64_t>> by_kind;
        by_kind["latesender"].assign(n, 0);
        by_kind["barrier"].assign(n, 0);
        for (const trace::SynthEdge& e : rc.edges) {
            EXPECT_NE(e.waiting, e.causing);
            if (e.kind == "barrier") {
                EXPECT_EQ(e.causing, R); // the latest entrant
            }
            by_kind.at(e.kind)[e.waiting] += e.ticks;
        }
        EXPECT_EQ(by_kind["latesender"], x.late_sender.by_location);
        EXPECT_EQ(by_kind["barrier"], x.wait_barrier.by_location);

        // A wait is at most wholly propagating, or wholly indirect.
        for (const char* part : {"mpi_wait_propagating_ls", "mpi_wait_indirect_latesender"})
            for (uint32_t p = 0; p < n; ++p)
                EXPECT_LE(sum(rc.metrics.at(part)[p]), double(x.late_sender.by_location[p]))
                    << part << " on rank " << p;

        // The critical path: from 0 to R's MPI_Finalize enter, on the chain only.
        EXPECT_EQ(rc.critical_path_ticks, x.end - trace::kSynthInitTicks);
        EXPECT_DOUBLE_EQ(metric_sum(rc, "critical_path"), double(rc.critical_path_ticks));
        EXPECT_DOUBLE_EQ(sum(rc.critical_path_profile), double(rc.critical_path_ticks));
        const trace::SynthDelayLayout g = trace::synth_delay_layout(s.options.grid);
        for (uint32_t p = 0; p < g.halo_ranks; ++p)
            EXPECT_TRUE(rc.metrics.at("critical_path")[p].empty()) << "rank " << p;
        // Activities on and off the path are a location's time without its waits.
        for (uint32_t p = 0; p < n; ++p) {
            const double time = double(x.end - (p == R ? 0 : 1));
            const double waits =
                double(x.late_sender.by_location[p] + x.wait_barrier.by_location[p]);
            EXPECT_DOUBLE_EQ(sum(rc.metrics.at("critical_path_activities")[p]) +
                                 sum(rc.metrics.at("non_critical_path_activities")[p]),
                             time - waits)
                << "rank " << p;
        }
    }
}

// The values of the default case (4x4) by hand, as the plan has them (L for the
// MPI calls' non-waiting part "o").
TEST(SynthDelay, DefaultGridByHand) {
    const SynthOptions o = delay({4, 4}, 3, 1000, 400, 100);
    const trace::Synthetic s = trace::synthesize(o);
    const trace::SynthRootCauses& rc = s.expected.root_causes;
    const double K = 3, W = 1000, D = 400, L = 100;
    const auto at = [&](const char* metric, uint32_t loc, const char* path) {
        const auto& m = rc.metrics.at(metric)[loc];
        const auto it = m.find(path);
        return it == m.end() ? 0.0 : it->second;
    };
    // Centre (2,1) = rank 6 delays its 4 neighbours by D each.
    EXPECT_EQ(at("delay_latesender", 6, "main/work"), 4 * K * D);
    // Chain 12 -> 13 -> 14 -> 15.
    EXPECT_EQ(at("delay_latesender", 12, "main/work"), K * D);
    EXPECT_EQ(at("delay_latesender", 13, "main/MPI_Recv"), K * L);
    EXPECT_EQ(at("delay_latesender", 14, "main/MPI_Recv"), K * L);
    EXPECT_EQ(at("delay_latesender_longterm", 12, "main/work"), 2 * K * D);
    EXPECT_EQ(at("delay_latesender_longterm", 13, "main/MPI_Recv"), K * L);
    EXPECT_EQ(at("delay_latesender_longterm", 14, "main/MPI_Recv"), 0.0);
    EXPECT_EQ(at("mpi_wait_propagating_ls", 13, "main/MPI_Recv"), K * D);
    EXPECT_EQ(at("mpi_wait_propagating_ls", 14, "main/MPI_Recv"), K * (D + L));
    EXPECT_EQ(at("mpi_wait_propagating_ls", 15, "main/MPI_Recv"), 0.0);
    EXPECT_EQ(at("mpi_wait_indirect_latesender", 14, "main/MPI_Recv"), K * D);
    EXPECT_EQ(at("mpi_wait_indirect_latesender", 15, "main/MPI_Recv"), K * (D + L));
    // Barrier waits per iteration (R enters at W+D+3L): halo ranks away from the centre
    // D+2L (7 of them), its 4 neighbours 2L, the centre 3L, chain 3L, 2L, L, 0.
    const double A = 7 * (D + 2 * L) + 4 * (2 * L) + 3 * L + 3 * L; // halo ranks and rank 12
    const double S = A / (D + 3 * L) + (2 * L) / (D + 2 * L);       // all but rank 14
    EXPECT_DOUBLE_EQ(at("delay_barrier", 15, "main/MPI_Recv"), K * (L * A / (D + 3 * L) + L));
    EXPECT_DOUBLE_EQ(at("delay_barrier_longterm", 12, "main/work"), K * S * D);
    EXPECT_DOUBLE_EQ(at("delay_barrier_longterm", 13, "main/MPI_Recv"), K * S * L);
    EXPECT_DOUBLE_EQ(at("delay_barrier_longterm", 14, "main/MPI_Recv"), K * S * L);
    // Critical path: rank 12 {Init, work, barriers after the first}, 13 and 14 {MPI_Recv},
    // 15 {MPI_Recv, the last barrier, 1 tick in main}.
    EXPECT_EQ(at("critical_path", 12, "main/MPI_Init"), 1000.0);
    EXPECT_EQ(at("critical_path", 12, "main/work"), K * (W + D));
    EXPECT_EQ(at("critical_path", 12, "main/MPI_Barrier"), (K - 1) * L);
    EXPECT_EQ(at("critical_path", 13, "main/MPI_Recv"), K * L);
    EXPECT_EQ(at("critical_path", 15, "main/MPI_Recv"), K * L);
    EXPECT_EQ(at("critical_path", 15, "main/MPI_Barrier"), L);
    EXPECT_EQ(at("critical_path", 15, "main"), 1.0);
    EXPECT_EQ(rc.critical_path_ticks, uint64_t(1000 + K * (W + D + 4 * L) + 1));
    EXPECT_EQ(rc.critical_path_profile, (trace::SynthCallpathTicks{{"main", 1},
                                                                   {"main/MPI_Barrier", K * L},
                                                                   {"main/MPI_Init", 1000},
                                                                   {"main/MPI_Recv", 3 * K * L},
                                                                   {"main/work", K * (W + D)}}));
    // Activities: a halo rank's work is all on the path's profile, its MPI_Waitall is not,
    // MPI_Finalize never is.
    EXPECT_EQ(at("critical_path_activities", 0, "main/work"), K * W);
    EXPECT_EQ(at("non_critical_path_activities", 0, "main/MPI_Waitall"), K * L);
    EXPECT_EQ(at("non_critical_path_activities", 0, "main/MPI_Finalize"), 1000.0);
    ASSERT_EQ(rc.edges.size(), 4u + 3u + 15u); // 4 halo and 3 chain Late Senders, 15 barrier waits
    EXPECT_EQ(rc.edges[0], (trace::SynthEdge{0, 15, "barrier", uint64_t(K * (D + 2 * L))}));
}

TEST(SynthDelay, RejectsWhatItCannotModel) {
    for (const SynthOptions& o : {delay({2, 4}, 1, 100, 10, 5), delay({4, 1}, 1, 100, 10, 5),
                                  delay({12}, 1, 100, 10, 5), delay({3, 2, 2}, 1, 100, 10, 5),
                                  delay({4, 4}, 1, 100, 10, 0), delay({4, 4}, 1, 100, 0, 5)})
        EXPECT_THROW(trace::resolve_synth_options(o), std::invalid_argument)
            << trace::synth_arguments(o);
    SynthOptions slow = delay({4, 4}, 1, 100, 10, 5);
    slow.slow_rank = 3;
    EXPECT_THROW(trace::resolve_synth_options(slow), std::invalid_argument);
    SynthOptions by_ranks;
    by_ranks.pattern = SynthPattern::Delay;
    by_ranks.latency_ticks = 1;
    EXPECT_EQ(trace::resolve_synth_options(by_ranks).grid, (std::vector<uint32_t>{4, 4}));
}

// The analysis' delay costs (short and long term, every channel) equal the generator's at
// every call path and location.
TEST(SynthDelay, DelayCostsEqualTheAnalysis) {
    for (const SynthOptions& o : kCases) {
        const trace::Synthetic s = trace::synthesize(o);
        SCOPED_TRACE("topolens synth " + trace::synth_arguments(s.options));
        const analysis::AnalysisResult result =
            analysis::analyze(s.builder.trace(), patterns::all_patterns());
        expect_root_causes(result.report, s.expected, "delay_");
    }
}

// The report's wait edges are the generator's direct causes: per waiting process, causing
// process and kind, the time one waited for the other.
TEST(SynthDelay, WaitEdgesAreTheGeneratorsDirectCauses) {
    for (const SynthOptions& o : kCases) {
        const trace::Synthetic s = trace::synthesize(o);
        SCOPED_TRACE("topolens synth " + trace::synth_arguments(s.options));
        const analysis::AnalysisResult result =
            analysis::analyze(s.builder.trace(), patterns::all_patterns());
        using Key = std::tuple<int, int, std::string>;
        std::map<Key, double> got, expected;
        for (const report::WaitEdge& e : result.report.wait_edges)
            got[{e.waiting, e.causing, e.kind}] += e.seconds;
        for (const trace::SynthEdge& e : s.expected.root_causes.edges)
            expected[{static_cast<int>(e.waiting), static_cast<int>(e.causing), e.kind}] +=
                static_cast<double>(e.ticks) * synth_expect::kTick;
        ASSERT_EQ(got.size(), expected.size());
        for (const auto& [key, seconds] : expected) {
            ASSERT_TRUE(got.count(key))
                << std::get<2>(key) << " " << std::get<0>(key) << " <- " << std::get<1>(key);
            EXPECT_NEAR(got[key], seconds, 1e-15);
        }
    }
}

// summary's root causes on the 3x2 grid: the chain's first process (rank 3, at 0 1) costs
// the most (70 ticks short-term and 70 long-term Late Sender at main/work, 46.7 long-term
// barrier), made one process wait directly (rank 4, 70 ticks), and its waits reached every
// other process but itself (4, 5, then the barrier's 0, 1, 2), the farthest (rank 2 at 2 0)
// 3 hops away. Every wait is explained.
TEST(SynthDelay, RootCausesNameTheChainsFirstProcess) {
    SynthOptions o;
    o.pattern = trace::SynthPattern::Delay;
    o.grid = {3, 2};
    o.iterations = 1;
    o.work_ticks = 500;
    o.delay_ticks = 70;
    o.latency_ticks = 10;
    const trace::Synthetic s = trace::synthesize(o);
    const report::Report r = analysis::analyze(s.builder.trace(), patterns::all_patterns()).report;
    const report::RootCauses rc = report::root_causes(r);
    EXPECT_NEAR(rc.delay, rc.wait, 1e-15);
    EXPECT_NEAR(rc.wait, (70 + 70 + 70 + 80 + 10 + 20 + 10 + 20 + 10) * synth_expect::kTick, 1e-15);
    ASSERT_EQ(rc.causes.size(), 4u);
    const report::RootCause& first = rc.causes.front();
    EXPECT_EQ(first.location, 3);
    EXPECT_NEAR(first.delay, (70 + 70 + 140.0 / 3) * synth_expect::kTick, 1e-15);
    EXPECT_EQ(r.callpath_name(first.callpath), "program/main/work");
    EXPECT_EQ(first.waited_directly, 1);
    EXPECT_NEAR(first.direct_wait, 70 * synth_expect::kTick, 1e-15);
    EXPECT_EQ(first.reached, 5);
    ASSERT_TRUE(first.hops.has_value());
    EXPECT_EQ(*first.hops, 3);
    // Then rank 1 (the halo's centre, 140 ticks), then ranks 4 and 5 with 16.7 ticks each
    // (equal but for rounding, so in either order).
    EXPECT_EQ(rc.causes[1].location, 1);
    const std::set<int> last = {rc.causes[2].location, rc.causes[3].location};
    EXPECT_EQ(last, (std::set<int>{4, 5}));
    EXPECT_NEAR(rc.causes[2].delay, rc.causes[3].delay, 1e-18);
}

// The analysis' critical path (its profile, activities and imbalance impact) equals the
// generator's at every call path and location.
TEST(SynthDelay, CriticalPathEqualsTheAnalysis) {
    for (const SynthOptions& o : kCases) {
        const trace::Synthetic s = trace::synthesize(o);
        SCOPED_TRACE("topolens synth " + trace::synth_arguments(s.options));
        const analysis::AnalysisResult result =
            analysis::analyze(s.builder.trace(), patterns::all_patterns());
        expect_root_causes(result.report, s.expected, "critical_");
        expect_root_causes(result.report, s.expected, "non_critical_");
    }
}

// Wait propagation: each Late Sender's propagating and indirect parts equal the generator's
// at every call path and location.
TEST(SynthDelay, WaitPropagationEqualsTheAnalysis) {
    for (const SynthOptions& o : kCases) {
        const trace::Synthetic s = trace::synthesize(o);
        SCOPED_TRACE("topolens synth " + trace::synth_arguments(s.options));
        const analysis::AnalysisResult result =
            analysis::analyze(s.builder.trace(), patterns::all_patterns());
        expect_root_causes(result.report, s.expected, "mpi_wait_");
    }
}

// Every root-cause metric the generator lists (delay costs, wait propagation, critical path)
// equals the analysis' at every call path and location, and every metric it says is zero is.
TEST(SynthDelay, RootCausesEqualTheAnalysis) {
    for (const SynthOptions& o : kCases) {
        const trace::Synthetic s = trace::synthesize(o);
        SCOPED_TRACE("topolens synth " + trace::synth_arguments(s.options));
        const analysis::AnalysisResult result =
            analysis::analyze(s.builder.trace(), patterns::all_patterns());
        expect_root_causes(result.report, s.expected);
    }
}
