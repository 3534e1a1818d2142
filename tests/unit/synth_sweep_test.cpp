// The analysis on `topolens synth --pattern sweep` traces (discrete-ordinates sweeps: two
// octants per corner, several blocks in flight, no barrier between octants): every metric
// the generator predicts (Late Sender, its Wrong Order split, Late Receiver, Wait at NxN,
// each "Wavefront from <corner>") equals the analysis' value at every location, exactly,
// for every receive order. And the wave's properties, on the expectations and on the
// analysis alike: with constant compute and no latency every Late Sender instance of the
// sweeps is a pipeline refill, so the corners together hold all of it, Wrong Order
// included; each direction's origin has 0 and the corner it reaches last the most.
#include "synth_expect.h"

#include "analyzer/engine/engine.h"
#include "patterns/metric_names.h"
#include "patterns/registry.h"
#include "trace/synthetic.h"

#include <gtest/gtest.h>

#include <set>

using namespace topolens;
using namespace topolens::synth_expect;
using trace::SynthBetween;
using trace::SynthOptions;
using trace::SynthPattern;
using trace::SynthReceive;

namespace {

SynthOptions sweep(std::vector<uint32_t> grid, SynthReceive receive, SynthBetween between,
                   uint64_t k_blocks = 3, uint64_t angle_blocks = 2, uint64_t iterations = 2) {
    SynthOptions o;
    o.pattern = SynthPattern::Sweep;
    o.grid = std::move(grid);
    o.receive = receive;
    o.between = between;
    o.k_blocks = k_blocks;
    o.angle_blocks = angle_blocks;
    o.iterations = iterations;
    o.work_ticks = 1000;
    o.send_ticks = 10;
    return o;
}

// Per location, in seconds: Late Sender, the part of it in the halo exchange, Wrong Order,
// and each corner's wave value (in the order of SynthExpected::wavefront).
struct Values {
    std::vector<double> late_sender, halo, wrong_order;
    std::vector<std::vector<double>> corner;
};

Values expected_values(const trace::SynthExpected& x) {
    Values v;
    const size_t n = x.late_sender.by_location.size();
    for (size_t p = 0; p < n; ++p) {
        uint64_t sweeps = 0;
        for (const trace::SynthSweep& s : x.sweeps) sweeps += s.late_sender.by_location[p];
        v.late_sender.push_back(static_cast<double>(x.late_sender.by_location[p]) * kTick);
        v.halo.push_back(static_cast<double>(x.late_sender.by_location[p] - sweeps) * kTick);
        v.wrong_order.push_back(static_cast<double>(x.wrong_order_same.by_location[p] +
                                                    x.wrong_order_different.by_location[p]) *
                                kTick);
    }
    for (const trace::SynthCorner& c : x.wavefront) {
        v.corner.emplace_back();
        for (uint64_t ticks : c.late_sender.by_location)
            v.corner.back().push_back(static_cast<double>(ticks) * kTick);
    }
    return v;
}

// `halo_exchange`: the sweeps have a halo exchange between them (--between halo); the call
// path main/halo exists exactly then (a misspelled path must not read as 0).
Values analysis_values(const report::Report& r, const trace::SynthExpected& x, bool halo_exchange) {
    Values v;
    const auto ls = r.find_metric(patterns::metric::kLateSender);
    const auto wo = r.find_metric(patterns::metric::kLateSenderWrongOrder);
    const auto halo = r.find_callpath("main/halo");
    EXPECT_TRUE(ls && wo);
    EXPECT_EQ(halo.has_value(), halo_exchange) << "call path main/halo";
    if (!ls || !wo) return v;
    const size_t n = x.late_sender.by_location.size();
    for (size_t p = 0; p < n; ++p) {
        const int loc = static_cast<int>(p);
        v.late_sender.push_back(r.total(*ls, loc));
        v.halo.push_back(halo ? r.inclusive(*ls, *halo, loc) : 0.0);
        v.wrong_order.push_back(r.total(*wo, loc));
    }
    for (const trace::SynthCorner& c : x.wavefront) {
        v.corner.emplace_back();
        const auto m = r.find_metric(unique_of(c.corner));
        EXPECT_TRUE(m.has_value()) << c.corner;
        for (size_t p = 0; p < n; ++p)
            v.corner.back().push_back(m ? r.total(*m, static_cast<int>(p)) : 0.0);
    }
    return v;
}

// The location at the corner a wave travelling `travel` starts from (`from`) or reaches last.
size_t corner_location(const std::vector<uint32_t>& grid, const std::vector<int>& travel,
                       bool from) {
    size_t rank = 0;
    for (size_t a = grid.size(); a-- > 0;) {
        const bool low = (travel[a] > 0) == from;
        rank = rank * grid[a] + (low ? 0 : grid[a] - 1);
    }
    return rank;
}

// The properties of a sweep's wave values (`what`: whose values). `far_largest`: check that
// the far corner waits most (without latency: Late Sender leaves a message's latency out,
// so ties along a reversed axis, as the east column in NW after NE, split by L).
void expect_wave_properties(const Values& v, const trace::SynthExpected& x,
                            const std::vector<uint32_t>& grid, bool far_largest,
                            const std::string& what) {
    SCOPED_TRACE(what);
    double waves = 0, late_sender = 0, halo = 0;
    for (size_t p = 0; p < v.late_sender.size(); ++p) {
        double wave = 0;
        for (const auto& c : v.corner) wave += c[p];
        // Every Late Sender instance of the sweeps is a refill, Wrong Order or not.
        EXPECT_NEAR(wave, v.late_sender[p] - v.halo[p], kExact) << "location " << p;
        waves += wave;
        late_sender += v.late_sender[p];
        halo += v.halo[p];
    }
    EXPECT_GT(waves, 0.0);
    EXPECT_NEAR(waves, late_sender - halo, kExact * static_cast<double>(v.late_sender.size()));
    for (size_t k = 0; k < x.wavefront.size(); ++k) {
        const trace::SynthCorner& c = x.wavefront[k];
        const size_t origin = corner_location(grid, c.travel, true);
        const size_t far = corner_location(grid, c.travel, false);
        EXPECT_EQ(v.corner[k][origin], 0.0) << c.corner << " at its origin " << origin;
        EXPECT_GT(v.corner[k][far], 0.0) << c.corner << " at its far corner " << far;
        for (size_t p = 0; far_largest && p < v.corner[k].size(); ++p)
            EXPECT_GE(v.corner[k][far] + kExact, v.corner[k][p])
                << c.corner << ": location " << p << " waits more than the far corner " << far;
    }
}

// Analyzes the generator's trace: every metric of its expectations per location, exactly,
// and the wave's properties. Returns the locations with Wrong Order that the wave holds.
size_t expect_sweep(const SynthOptions& o) {
    const trace::Synthetic s = trace::synthesize(o);
    const trace::SynthExpected& x = s.expected;
    SCOPED_TRACE("topolens synth " + trace::synth_arguments(s.options));
    const analysis::AnalysisResult result =
        analysis::analyze(s.builder.trace(), patterns::all_patterns());
    const report::Report& r = result.report;
    EXPECT_EQ(r.attributes.at("topolens.grid_source"), "recorded");

    expect_point_to_point(r, x);
    expect_metric(r, patterns::metric::kWaitNxN, x.wait_nxn, "Wait at NxN");

    std::set<std::string> expected_corners, found_corners;
    for (const trace::SynthCorner& c : x.wavefront) {
        expected_corners.insert(unique_of(c.corner));
        expect_metric(r, unique_of(c.corner).c_str(), c.late_sender, "Wavefront from " + c.corner);
    }
    for (const report::Metric& m : r.metrics)
        if (m.unique_name.rfind("mpi_wavefront_", 0) == 0) found_corners.insert(m.unique_name);
    EXPECT_EQ(found_corners, expected_corners);
    EXPECT_EQ(expected_corners.size(), size_t{1} << o.grid.size());

    const Values expected = expected_values(x),
                 analysed = analysis_values(r, x, o.between == SynthBetween::Halo);
    const bool far_largest = o.latency_ticks == 0;
    expect_wave_properties(expected, x, o.grid, far_largest, "the generator's expectations");
    expect_wave_properties(analysed, x, o.grid, far_largest, "the analysis' values");

    // Locations whose Wrong Order time the wave holds: all of their Late Sender outside the
    // halo is in the wave (above), so with no halo their Wrong Order instances are in it.
    size_t wrong_order_in_wave = 0;
    if (o.between != SynthBetween::Halo)
        for (size_t p = 0; p < analysed.wrong_order.size(); ++p)
            wrong_order_in_wave += analysed.wrong_order[p] > 0;
    return wrong_order_in_wave;
}

const SynthReceive kReceives[] = {SynthReceive::Waitall, SynthReceive::XY, SynthReceive::YX};
const SynthBetween kBetweens[] = {SynthBetween::None, SynthBetween::Halo, SynthBetween::Allreduce};

} // namespace

TEST(SynthSweep, Grid2x2) {
    for (SynthReceive r : kReceives)
        for (SynthBetween b : kBetweens) expect_sweep(sweep({2, 2}, r, b));
}

TEST(SynthSweep, Grid4x4) {
    for (SynthReceive r : kReceives)
        for (SynthBetween b : kBetweens) expect_sweep(sweep({4, 4}, r, b));
}

TEST(SynthSweep, Grid5x3) {
    for (SynthReceive r : kReceives)
        for (SynthBetween b : kBetweens) expect_sweep(sweep({5, 3}, r, b, 2, 3));
}

TEST(SynthSweep, Grid3x3x3) {
    for (SynthReceive r : kReceives)
        for (SynthBetween b : kBetweens) expect_sweep(sweep({3, 3, 3}, r, b, 2, 2));
}

TEST(SynthSweep, Grid1D) {
    for (SynthReceive r : kReceives)
        for (SynthBetween b : kBetweens) expect_sweep(sweep({5}, r, b));
}

TEST(SynthSweep, OneBlockAndLatency) {
    for (SynthReceive r : kReceives) {
        expect_sweep(sweep({4, 3}, r, SynthBetween::None, 1, 1, 3));
        SynthOptions o = sweep({3, 4}, r, SynthBetween::Allreduce, 2, 1);
        o.latency_ticks = 30;
        expect_sweep(o);
    }
}

// x then y: the corner a wave reaches last waits first for its x face, which its west
// neighbour sent after the y face its south neighbour sent: Wrong Order by Scalasca's rule,
// and still the wave's refill.
TEST(SynthSweep, WrongOrderInTheWave) {
    for (const std::vector<uint32_t>& grid :
         std::vector<std::vector<uint32_t>>{{2, 2}, {4, 4}, {5, 3}, {3, 3, 3}}) {
        const size_t locations = expect_sweep(sweep(grid, SynthReceive::XY, SynthBetween::None));
        EXPECT_GT(locations, 0u) << "no Wrong Order on grid " << grid.size() << "D";
        const trace::Synthetic s =
            trace::synthesize(sweep(grid, SynthReceive::XY, SynthBetween::Allreduce));
        EXPECT_GT(s.expected.wrong_order_different.total, 0u);
    }
}
