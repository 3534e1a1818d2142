// One encoding, one reconstruction: the codelet metrics, the codelet audit and `topolens info`
// (trace::reconstruct_tuned_operations) see the same executions in the same phases, also
// when operation and codelet names contain the encoding's separators (":1:" looks like the
// index between OP and C in "topolens.codelet:OP:i:C").
#include "analyzer/engine/engine.h"
#include "patterns/audit/codelet_estimators.h"
#include "patterns/audit/codelet_measurements.h"
#include "patterns/metric_names.h"
#include "patterns/registry.h"
#include "trace/builder.h"
#include "trace/tuned.h"
#include "trace/tuned_encoding.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

using namespace topolens;
using trace::TraceBuilder;
using trace::TuningPhase;
namespace metric = patterns::metric;

namespace {

constexpr double kTick = 1e-9;
const std::string kOp = "solver:1:halo";
const std::string kCodelets[2] = {"pack:2:v", "direct"};

// On both locations "solver:1:halo" searches over its two codelets (five executions each, one
// of codelet 1 slow: a search-phase outlier), decides for codelet 0 and runs it in
// production, once fast and once slow (no search measurement, so no outlier). Beside it,
// the operation "solver" (a prefix of the other's name) searches all along.
TraceBuilder separator_run() {
    TraceBuilder b(2);
    for (uint32_t loc = 0; loc < 2; ++loc) b.mpi_init(loc, 0, 5);
    const auto op = b.tuned_op(kOp);
    const auto prefix = b.tuned_op("solver");
    trace::Time t = 10;
    auto run = [&](TraceBuilder::TunedOp o, trace::Time duration) {
        for (uint32_t loc = 0; loc < 2; ++loc) {
            b.tuned_begin(loc, t, o);
            b.tuned_end(loc, t + duration, o);
        }
        t += duration + 1;
    };
    for (uint32_t loc = 0; loc < 2; ++loc) {
        b.tuning_phase(loc, t, prefix, TuningPhase::Search);
        b.codelet_switch(loc, t, prefix, 1, "any:0:x");
        b.tuning_phase(loc, t + 1, op, TuningPhase::Search);
    }
    t += 2;
    for (int c = 0; c < 2; ++c) {
        for (uint32_t loc = 0; loc < 2; ++loc) b.codelet_switch(loc, t, op, c, kCodelets[c]);
        ++t;
        for (int m = 0; m < 5; ++m) run(op, c == 1 && m == 2 ? 100 : 10);
        run(prefix, 10);
    }
    for (uint32_t loc = 0; loc < 2; ++loc) {
        b.tuning_phase(loc, t, op, TuningPhase::Decision);
        b.tuning_decision(loc, t + 1, op, 0, kCodelets[0]);
        b.tuning_phase(loc, t + 2, op, TuningPhase::Production);
        b.codelet_switch(loc, t + 3, op, 0, kCodelets[0]);
    }
    t += 4;
    run(op, 10);
    run(op, 100);
    run(prefix, 10);
    for (uint32_t loc = 0; loc < 2; ++loc) b.mpi_finalize(loc, t, t + 5);
    return b;
}

} // namespace

TEST(TunedPhases, EncodingRoundTripsNamesWithSeparators) {
    const std::vector<std::string> known = {"solver", kOp};
    const std::string canonical = trace::codelet_canonical_name(kOp, 12, "pack:2:v");
    EXPECT_EQ(canonical, "topolens.codelet:solver:1:halo:12:pack:2:v");
    const auto c = trace::parse_codelet_canonical_name(canonical, known);
    ASSERT_TRUE(c.has_value());
    EXPECT_EQ(c->op, kOp);
    EXPECT_EQ(c->index, 12);
    EXPECT_EQ(c->codelet, "pack:2:v");
    const std::string op_name = trace::tuned_op_canonical_name(kOp);
    EXPECT_EQ(trace::parse_tuned_op_canonical_name(op_name), kOp);
    // The parsed names are views into the names parsed.
    const std::string phase_name = trace::phase_parameter_name(kOp);
    const std::string decision_name = trace::decision_parameter_name(kOp);
    const std::string switch_name = trace::codelet_parameter_name(kOp);
    const auto phase = trace::parse_tuned_parameter_name(phase_name);
    ASSERT_TRUE(phase.has_value());
    EXPECT_EQ(phase->role, trace::TunedParameterRole::Phase);
    EXPECT_EQ(phase->op, kOp);
    const auto decision = trace::parse_tuned_parameter_name(decision_name);
    ASSERT_TRUE(decision.has_value());
    EXPECT_EQ(decision->role, trace::TunedParameterRole::Decision);
    const auto codelet = trace::parse_tuned_parameter_name(switch_name);
    ASSERT_TRUE(codelet.has_value());
    EXPECT_EQ(codelet->role, trace::TunedParameterRole::Switch);
    EXPECT_EQ(codelet->op, kOp);
    for (TuningPhase p : {TuningPhase::Search, TuningPhase::Decision, TuningPhase::Production})
        EXPECT_EQ(trace::parse_tuning_phase(trace::tuning_phase_name(p)), p);
}

TEST(TunedPhases, MetricsAuditAndInfoSeeTheSamePhases) {
    const TraceBuilder b = separator_run();
    const auto result = analysis::analyze(b.trace(), patterns::all_patterns());
    const report::Report& rep = result.report;

    // `topolens info`: per location, codelet and phase the executions of kOp (durations in
    // ticks).
    std::map<std::pair<uint32_t, int64_t>, std::vector<long long>> info_search;
    std::map<std::pair<uint32_t, int64_t>, uint64_t> info_production;
    std::vector<trace::TunedOperation> ops = trace::reconstruct_tuned_operations(b.trace());
    ASSERT_EQ(ops.size(), 2u);
    const trace::TunedOperation& op = ops[1];
    ASSERT_EQ(op.name, kOp);
    EXPECT_EQ(op.codelets, (std::map<int64_t, std::string>{{0, kCodelets[0]}, {1, kCodelets[1]}}));
    for (const trace::CodeletExecution& x : op.executions) {
        ASSERT_GE(x.codelet, 0);
        if (x.phase == TuningPhase::Search)
            info_search[{x.location, x.codelet}].push_back(static_cast<long long>(x.end - x.start));
        else if (x.phase == TuningPhase::Production)
            ++info_production[{x.location, x.codelet}];
    }
    EXPECT_EQ(info_search.size(), 4u);
    EXPECT_EQ(info_production,
              (std::map<std::pair<uint32_t, int64_t>, uint64_t>{{{0, 0}, 2}, {{1, 0}, 2}}));

    // The audit's measurements: the same search executions, the same production ones.
    ASSERT_TRUE(rep.attributes.count(patterns::kMeasurementsAttribute));
    const patterns::CodeletMeasurements m =
        patterns::parse_codelet_measurements(rep.attributes.at(patterns::kMeasurementsAttribute));
    ASSERT_EQ(m.operations.size(), 2u);
    const patterns::OperationMeasurements& audited = m.operations[1];
    ASSERT_EQ(audited.name, kOp);
    std::map<std::pair<uint32_t, int64_t>, std::vector<double>> audit_search;
    std::map<std::pair<uint32_t, int64_t>, std::vector<long long>> audit_search_ticks;
    for (const patterns::SearchMeasurement& s : audited.search) {
        audit_search[{s.location, s.codelet}].push_back(s.duration);
        audit_search_ticks[{s.location, s.codelet}].push_back(std::llround(s.duration / kTick));
    }
    EXPECT_EQ(audit_search_ticks, info_search);
    std::map<std::pair<uint32_t, int64_t>, uint64_t> audit_production;
    for (const patterns::ProductionTotal& p : audited.production)
        audit_production[{p.location, p.codelet}] = p.executions;
    EXPECT_EQ(audit_production, info_production);

    // The metrics: Codelet outlier time is the heuristic's outliers among exactly the
    // audit's search-phase executions (the slow production run of codelet 0 is none).
    const int outliers = *rep.find_metric(metric::kCodeletOutlierTime);
    for (int64_t c = 0; c < 2; ++c) {
        const auto callpath = rep.find_callpath("program/" + kOp + "/" + kCodelets[c]);
        ASSERT_TRUE(callpath.has_value()) << kCodelets[c];
        for (uint32_t loc = 0; loc < 2; ++loc) {
            SCOPED_TRACE("codelet " + std::to_string(c) + " location " + std::to_string(loc));
            const std::vector<double>& search = audit_search[{loc, c}];
            double expected = 0;
            for (std::size_t k : patterns::heuristic_estimate(search).outliers)
                expected += search[k];
            EXPECT_NEAR(rep.inclusive(outliers, *callpath, loc), expected, 1e-15);
            EXPECT_NEAR(expected, c == 1 ? 100 * kTick : 0.0, 1e-15);
        }
    }
}
