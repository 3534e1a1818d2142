// The analysis on `topolens synth`'s halo, pairwise and ssor traces: every metric the
// generator predicts from its own timing model (Late Sender, LS Wrong Order from the same
// source / from different sources, Late Receiver, each "Wavefront from <corner>") equals the
// analysis' value at every location, exactly. Two-sided exchanges and one-partner
// exchanges are no wavefront whatever the grid (sides of 2, periodic axes); ssor's sweeps
// fill their own corners' metrics and its halo waits stay plain Late Sender.
#include "synth_expect.h"

#include "analyzer/engine/engine.h"
#include "patterns/metric_names.h"
#include "patterns/registry.h"
#include "trace/synthetic.h"

#include <gtest/gtest.h>

#include <set>

using namespace topolens;
using namespace topolens::synth_expect;
using trace::SynthOptions;
using trace::SynthPattern;
using trace::SynthVariant;

namespace {

SynthOptions options(SynthPattern pattern, std::vector<uint32_t> grid, SynthVariant variant,
                     uint64_t latency = 0, std::vector<bool> periodic = {},
                     uint32_t slow = trace::kNone, uint64_t blocks = 2) {
    SynthOptions o;
    o.pattern = pattern;
    o.grid = std::move(grid);
    o.variant = variant;
    o.latency_ticks = latency;
    o.periodic = std::move(periodic);
    o.slow_rank = slow;
    o.blocks = blocks;
    o.iterations = 3;
    o.work_ticks = 1000;
    o.delay_ticks = 400;
    return o;
}

// Analyzes the generator's trace and checks every metric of its expectations per location.
void expect_exact(const SynthOptions& o) {
    const trace::Synthetic s = trace::synthesize(o);
    const trace::SynthExpected& x = s.expected;
    SCOPED_TRACE("topolens synth " + trace::synth_arguments(s.options));
    const analysis::AnalysisResult result =
        analysis::analyze(s.builder.trace(), patterns::all_patterns());
    const report::Report& r = result.report;
    EXPECT_EQ(r.attributes.at("topolens.grid_source"), "recorded");

    expect_point_to_point(r, x);

    // Exactly the grid's corners have a metric, each with the generator's value.
    std::set<std::string> expected_corners, found_corners;
    for (const trace::SynthCorner& c : x.wavefront) {
        expected_corners.insert(unique_of(c.corner));
        const auto m = r.find_metric(unique_of(c.corner));
        ASSERT_TRUE(m.has_value()) << c.corner;
        EXPECT_EQ(r.metrics[*m].display_name, "Wavefront from " + c.corner);
        expect_metric(r, unique_of(c.corner).c_str(), c.late_sender, "Wavefront from " + c.corner);
    }
    for (const report::Metric& m : r.metrics)
        if (m.unique_name.rfind("mpi_wavefront_", 0) == 0) found_corners.insert(m.unique_name);
    EXPECT_EQ(found_corners, expected_corners);

    // No collective in these patterns: their wait states are 0.
    for (const char* zero : {patterns::metric::kWaitNxN, patterns::metric::kBarrierWait,
                             patterns::metric::kLateBroadcast, patterns::metric::kEarlyReduce}) {
        const auto m = r.find_metric(zero); // every report defines them
        ASSERT_TRUE(m.has_value()) << "no metric " << zero;
        EXPECT_EQ(r.total(*m), 0.0) << zero;
    }

    // ssor: the halo's Late Sender stays outside every corner (it is at main/halo).
    if (o.pattern == SynthPattern::Ssor) {
        const auto halo = r.find_callpath("main/halo");
        const auto ls = r.find_metric(patterns::metric::kLateSender);
        ASSERT_TRUE(halo.has_value());
        for (size_t loc = 0; loc < x.late_sender.by_location.size(); ++loc) {
            const uint64_t sweeps =
                x.sweeps[0].late_sender.by_location[loc] + x.sweeps[1].late_sender.by_location[loc];
            EXPECT_NEAR(r.inclusive(*ls, *halo, static_cast<int>(loc)),
                        static_cast<double>(x.late_sender.by_location[loc] - sweeps) * kTick,
                        kExact)
                << "halo Late Sender at location " << loc;
            for (const trace::SynthCorner& c : x.wavefront)
                EXPECT_EQ(
                    r.inclusive(*r.find_metric(unique_of(c.corner)), *halo, static_cast<int>(loc)),
                    0.0)
                    << c.corner << " in the halo at location " << loc;
        }
    }
}

const SynthVariant kVariants[] = {SynthVariant::Sendrecv, SynthVariant::Nonblocking};

} // namespace

TEST(SynthPatterns, Halo2D) {
    for (SynthVariant v : kVariants) {
        expect_exact(options(SynthPattern::Halo, {4, 3}, v));
        expect_exact(options(SynthPattern::Halo, {4, 3}, v, 150, {}, 0)); // slow corner
        expect_exact(options(SynthPattern::Halo, {2, 2}, v));
        expect_exact(options(SynthPattern::Halo, {2, 5}, v, 60));
        expect_exact(options(SynthPattern::Halo, {5, 2}, v, 0, {}, 2));
    }
}

TEST(SynthPatterns, Halo3D) {
    for (SynthVariant v : kVariants) {
        expect_exact(options(SynthPattern::Halo, {2, 2, 2}, v));
        expect_exact(options(SynthPattern::Halo, {3, 2, 2}, v, 80));
        expect_exact(options(SynthPattern::Halo, {3, 2, 2}, v, 0, {}, 11));
    }
}

TEST(SynthPatterns, HaloPeriodic) {
    for (SynthVariant v : kVariants) {
        expect_exact(options(SynthPattern::Halo, {4, 3}, v, 0, {true, true}));
        expect_exact(options(SynthPattern::Halo, {4, 3}, v, 40, {true, false}, 0));
        expect_exact(options(SynthPattern::Halo, {2, 2}, v, 0, {true, true}));
        expect_exact(options(SynthPattern::Halo, {2, 5}, v, 0, {false, true}, 9));
        expect_exact(options(SynthPattern::Halo, {2, 2, 2}, v, 20, {true, true, true}));
        expect_exact(options(SynthPattern::Halo, {3, 2, 2}, v, 0, {true, false, true}));
        expect_exact(options(SynthPattern::Halo, {6}, v, 0, {true}, 0)); // a ring
    }
}

TEST(SynthPatterns, Halo1D) {
    for (SynthVariant v : kVariants) {
        expect_exact(options(SynthPattern::Halo, {5}, v));
        expect_exact(options(SynthPattern::Halo, {2}, v, 30));
    }
}

TEST(SynthPatterns, Pairwise) {
    for (SynthVariant v : kVariants) {
        expect_exact(options(SynthPattern::Pairwise, {4, 3}, v));
        expect_exact(options(SynthPattern::Pairwise, {2, 2}, v, 50, {}, 0));
        expect_exact(options(SynthPattern::Pairwise, {2, 5}, v));
        expect_exact(options(SynthPattern::Pairwise, {3, 3}, v, 0, {}, 7)); // rank 8 alone
        expect_exact(options(SynthPattern::Pairwise, {2, 2, 2}, v));
        expect_exact(options(SynthPattern::Pairwise, {3, 2, 2}, v, 10));
        expect_exact(options(SynthPattern::Pairwise, {2, 2}, v, 0, {true, true}, 3));
        expect_exact(options(SynthPattern::Pairwise, {4, 3}, v, 0, {true, false}));
    }
}

TEST(SynthPatterns, Ssor2D) {
    for (SynthVariant v : kVariants) {
        expect_exact(options(SynthPattern::Ssor, {4, 3}, v));
        expect_exact(options(SynthPattern::Ssor, {4, 3}, v, 90, {}, 0, 3));
        expect_exact(options(SynthPattern::Ssor, {2, 2}, v, 0, {}, trace::kNone, 1));
        expect_exact(options(SynthPattern::Ssor, {2, 5}, v, 25));
        expect_exact(options(SynthPattern::Ssor, {4, 1}, v)); // a line on a 2D grid
    }
}

TEST(SynthPatterns, Ssor3D) {
    for (SynthVariant v : kVariants) {
        expect_exact(options(SynthPattern::Ssor, {2, 2, 2}, v));
        expect_exact(options(SynthPattern::Ssor, {3, 2, 2}, v, 40, {}, trace::kNone, 3));
        expect_exact(options(SynthPattern::Ssor, {2, 1, 3}, v, 0, {}, 5));
    }
}

TEST(SynthPatterns, Ssor1D) {
    for (SynthVariant v : kVariants) {
        expect_exact(options(SynthPattern::Ssor, {5}, v));
        expect_exact(options(SynthPattern::Ssor, {3}, v, 60, {}, 0, 2));
    }
}
