// Wavefront from <corner> on synthetic pipelined wavefronts (topolens synth) whose
// per-sweep Late Sender times are known exactly, on 1D, 2D and 3D grids.
#include "analyzer/engine/engine.h"
#include "patterns/metric_names.h"
#include "patterns/registry.h"
#include "trace/builder.h"
#include "trace/synthetic.h"

#include <gtest/gtest.h>

#include <cctype>

using namespace topolens;

namespace {

std::string unique_of(const std::string& corner) {
    std::string name = "mpi_wavefront_";
    for (char c : corner) name += c == '-' ? '_' : static_cast<char>(std::tolower(c));
    return name;
}

struct Analyzed {
    trace::Synthetic synthetic;
    analysis::AnalysisResult result;
};

Analyzed analyze_wavefront(std::vector<uint32_t> grid, uint64_t blocks, uint64_t latency = 0) {
    trace::SynthOptions options;
    options.grid = std::move(grid);
    options.pattern = trace::SynthPattern::Wavefront;
    options.iterations = 3;
    options.blocks = blocks;
    options.latency_ticks = latency;
    Analyzed a{trace::synthesize(options), {}};
    a.result = analysis::analyze(a.synthetic.builder.trace(), patterns::all_patterns());
    return a;
}

// Every sweep's Late Sender lands in its own "Wavefront from" metric, per location, exactly.
void expect_sweeps_exact(const Analyzed& a) {
    const report::Report& r = a.result.report;
    ASSERT_FALSE(a.synthetic.expected.sweeps.empty());
    for (const trace::SynthSweep& sweep : a.synthetic.expected.sweeps) {
        const auto metric = r.find_metric(unique_of(sweep.origin));
        ASSERT_TRUE(metric.has_value()) << sweep.origin;
        EXPECT_EQ(r.metrics[*metric].display_name, "Wavefront from " + sweep.origin);
        for (size_t loc = 0; loc < sweep.late_sender.by_location.size(); ++loc)
            EXPECT_NEAR(r.total(*metric, static_cast<int>(loc)),
                        static_cast<double>(sweep.late_sender.by_location[loc]) * 1e-9, 1e-12)
                << sweep.origin << " at location " << loc;
    }
    // All of Late Sender is pipeline fill here: the Wavefront root, the sum of the corners,
    // equals it; and Late Sender keeps all of it (the wave is a tree of its own).
    const int ls = *r.find_metric(patterns::metric::kLateSender);
    const int wo = *r.find_metric(patterns::metric::kLateSenderWrongOrder);
    const int wave = *r.find_metric(patterns::metric::kWavefrontRoot);
    EXPECT_NEAR(r.total(ls), static_cast<double>(a.synthetic.expected.late_sender.total) * 1e-9,
                1e-9);
    EXPECT_NEAR(r.total(wo), 0.0, 1e-12);
    EXPECT_NEAR(r.total(wave), r.total(ls), 1e-9);
    EXPECT_EQ(r.metrics[wave].parent, -1);
    double exclusive = 0.0;
    for (int cp : r.callpaths_with_values(ls))
        for (double v : *r.row(ls, cp)) exclusive += v;
    EXPECT_NEAR(exclusive, r.total(ls) - r.total(wo), 1e-9); // no sub-metric took a part
}

} // namespace

TEST(Wavefront, TwoDimensionalGridEverySweepExactly) {
    const Analyzed a = analyze_wavefront({4, 4}, 2);
    EXPECT_EQ(a.result.report.attributes.at("topolens.grid_source"), "recorded");
    expect_sweeps_exact(a);
}

TEST(Wavefront, NonSquareGridWithLatency) {
    expect_sweeps_exact(analyze_wavefront({5, 3}, 3, 400));
}

TEST(Wavefront, OneDimensionalPipeline) {
    const Analyzed a = analyze_wavefront({6}, 2);
    ASSERT_TRUE(a.result.report.find_metric("mpi_wavefront_w").has_value());
    ASSERT_TRUE(a.result.report.find_metric("mpi_wavefront_e").has_value());
    expect_sweeps_exact(a);
}

TEST(Wavefront, ThreeDimensionalGridEightOctants) {
    const Analyzed a = analyze_wavefront({3, 2, 2}, 2);
    EXPECT_EQ(a.synthetic.expected.sweeps.size(), 8u);
    ASSERT_TRUE(a.result.report.find_metric("mpi_wavefront_sw_bottom").has_value());
    ASSERT_TRUE(a.result.report.find_metric("mpi_wavefront_ne_top").has_value());
    expect_sweeps_exact(a);
}

TEST(Wavefront, OriginWaitsNothingAndTheLastCornerMost) {
    const Analyzed a = analyze_wavefront({4, 4}, 1);
    const report::Report& r = a.result.report;
    const report::CartTopology& grid = *report::analysis_grid(r);
    auto location_at = [&](uint32_t x, uint32_t y) {
        for (size_t loc = 0; loc < grid.coords.size(); ++loc)
            if (grid.coords[loc] == std::vector<uint32_t>{x, y}) return static_cast<int>(loc);
        return -1;
    };
    struct Corner {
        const char* metric;
        uint32_t origin_x, origin_y, last_x, last_y;
    };
    for (const Corner& c :
         {Corner{"mpi_wavefront_sw", 0, 0, 3, 3}, Corner{"mpi_wavefront_ne", 3, 3, 0, 0},
          Corner{"mpi_wavefront_nw", 0, 3, 3, 0}, Corner{"mpi_wavefront_se", 3, 0, 0, 3}}) {
        const int m = *r.find_metric(c.metric);
        EXPECT_EQ(r.total(m, location_at(c.origin_x, c.origin_y)), 0.0) << c.metric;
        const double last = r.total(m, location_at(c.last_x, c.last_y));
        EXPECT_GT(last, 0.0) << c.metric;
        for (size_t loc = 0; loc < grid.coords.size(); ++loc)
            EXPECT_LE(r.total(m, static_cast<int>(loc)), last) << c.metric << " " << loc;
    }
}

TEST(Wavefront, NoGridNoWavefrontMetrics) {
    // Messages between 0-2, 1-3 and 0-3 fit no 1D, 2D or 3D grid, and none is recorded.
    trace::TraceBuilder b(4);
    for (uint32_t r = 0; r < 4; ++r) b.mpi_init(r, 0, 5);
    b.mpi_send(0, 10, 11, 2, b.world(), 0, 8);
    b.mpi_recv(2, 5, 20, 0, b.world(), 0, 8);
    b.mpi_send(1, 10, 11, 3, b.world(), 0, 8);
    b.mpi_recv(3, 5, 20, 1, b.world(), 0, 8);
    b.mpi_send(0, 30, 31, 3, b.world(), 1, 8);
    b.mpi_recv(3, 25, 40, 0, b.world(), 1, 8);
    for (uint32_t r = 0; r < 4; ++r) b.mpi_finalize(r, 100, 105);
    const auto r = analysis::analyze(b.trace(), patterns::all_patterns());
    EXPECT_EQ(r.report.attributes.at("topolens.grid_source"), "none");
    for (const report::Metric& m : r.report.metrics)
        EXPECT_NE(m.unique_name.rfind("mpi_wavefront", 0), 0u) << m.unique_name;
    EXPECT_GT(r.report.total(*r.report.find_metric(patterns::metric::kLateSender)), 0.0);
}

TEST(Wavefront, ATopologyCoveringSomeProcessesIsNoGrid) {
    // Ranks 0 and 1 declare a 2-process line; ranks 2 and 3 are not in it, and the messages
    // (0-2, 1-3, 0-3) fit no grid either.
    trace::TraceBuilder b(4);
    const auto line = b.cart_topology("line", b.world(), {2}, {false});
    b.cart_coords(line, 0, {0});
    b.cart_coords(line, 1, {1});
    for (uint32_t r = 0; r < 4; ++r) b.mpi_init(r, 0, 5);
    b.mpi_send(0, 10, 11, 2, b.world(), 0, 8);
    b.mpi_recv(2, 5, 20, 0, b.world(), 0, 8);
    b.mpi_send(1, 10, 11, 3, b.world(), 0, 8);
    b.mpi_recv(3, 5, 20, 1, b.world(), 0, 8);
    b.mpi_send(0, 30, 31, 3, b.world(), 1, 8);
    b.mpi_recv(3, 25, 40, 0, b.world(), 1, 8);
    for (uint32_t r = 0; r < 4; ++r) b.mpi_finalize(r, 100, 105);
    const auto r = analysis::analyze(b.trace(), patterns::all_patterns());
    EXPECT_EQ(r.report.attributes.at("topolens.grid_source"), "none");
    EXPECT_EQ(report::analysis_grid(r.report), nullptr);
    EXPECT_EQ(r.report.topologies.size(), 1u); // still in the report, as recorded
    for (const report::Metric& m : r.report.metrics)
        EXPECT_NE(m.unique_name.rfind("mpi_wavefront", 0), 0u) << m.unique_name;
}

TEST(Wavefront, PeriodicAxisTakesTheShorterWayRound) {
    // A periodic ring of 4: a wave travelling east passes 3 -> 0 across the wrap-around;
    // rank 0 waits 30 ticks for rank 3, and that wait is the start of the eastward wave
    // (Wavefront from W), not a westward one.
    trace::TraceBuilder b(4);
    const auto ring = b.cart_topology("ring", b.world(), {4}, {true});
    for (uint32_t r = 0; r < 4; ++r) b.cart_coords(ring, r, {r});
    for (uint32_t r = 0; r < 4; ++r) b.mpi_init(r, 0, 5);
    b.mpi_send(3, 40, 41, 0, b.world(), 0, 8);
    b.mpi_recv(0, 10, 45, 3, b.world(), 0, 8);
    b.mpi_send(0, 50, 51, 1, b.world(), 0, 8);
    b.mpi_recv(1, 20, 55, 0, b.world(), 0, 8);
    for (uint32_t r = 0; r < 4; ++r) b.mpi_finalize(r, 100, 105);
    const auto r = analysis::analyze(b.trace(), patterns::all_patterns());
    const int west = *r.report.find_metric("mpi_wavefront_w");
    const int east = *r.report.find_metric("mpi_wavefront_e");
    EXPECT_NEAR(r.report.total(west, 0), 30e-9, 1e-15);
    EXPECT_NEAR(r.report.total(west, 1), 30e-9, 1e-15);
    EXPECT_EQ(r.report.total(east), 0.0);
}
