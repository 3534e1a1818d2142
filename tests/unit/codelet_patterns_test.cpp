// Codelet time and Codelet outlier time on synthetic autotuner traces with exact times.
#include "analyzer/engine/engine.h"
#include "patterns/metric_names.h"
#include "patterns/registry.h"
#include "trace/builder.h"

#include <gtest/gtest.h>

using namespace topolens;
using trace::TraceBuilder;
using trace::TuningPhase;
namespace metric = patterns::metric;

namespace {

constexpr double kTick = 1e-9;

// One process tunes "halo" over two codelets, 5 search executions each (10 ticks; one
// execution of codelet 1 takes 100: an outlier), then runs codelet 0 in production,
// where a slow execution (100) is no search measurement and so no outlier.
TraceBuilder tuned_run() {
    TraceBuilder b(1);
    b.mpi_init(0, 0, 5);
    const auto op = b.tuned_op("halo");
    trace::Time t = 10;
    b.tuning_phase(0, t++, op, TuningPhase::Search);
    for (int codelet = 0; codelet < 2; ++codelet) {
        b.codelet_switch(0, t++, op, codelet, codelet == 0 ? "isend" : "sendrecv");
        for (int m = 0; m < 5; ++m) {
            const trace::Time duration = codelet == 1 && m == 2 ? 100 : 10;
            b.tuned_begin(0, t, op);
            b.tuned_end(0, t + duration, op);
            t += duration + 1;
        }
    }
    b.tuning_phase(0, t++, op, TuningPhase::Decision);
    b.tuning_decision(0, t++, op, 0, "isend");
    b.tuning_phase(0, t++, op, TuningPhase::Production);
    b.codelet_switch(0, t++, op, 0, "isend");
    for (const trace::Time duration : {10, 100}) {
        b.tuned_begin(0, t, op);
        b.tuned_end(0, t + duration, op);
        t += duration + 1;
    }
    b.mpi_finalize(0, t, t + 5);
    return b;
}

} // namespace

TEST(Codelets, TimeAndSearchPhaseOutliersPerCodeletCallPath) {
    const auto r = analysis::analyze(tuned_run().trace(), patterns::all_patterns());
    const report::Report& rep = r.report;
    const int time = *rep.find_metric(metric::kCodeletTime);
    const int outliers = *rep.find_metric(metric::kCodeletOutlierTime);
    const int isend = *rep.find_callpath("program/halo/isend");
    const int sendrecv = *rep.find_callpath("program/halo/sendrecv");
    // isend: 5 x 10 in search + 10 + 100 in production; sendrecv: 4 x 10 + 100.
    EXPECT_NEAR(rep.inclusive(time, isend, 0), 160 * kTick, 1e-15);
    EXPECT_NEAR(rep.inclusive(time, sendrecv, 0), 140 * kTick, 1e-15);
    EXPECT_NEAR(rep.inclusive(outliers, sendrecv, 0), 100 * kTick, 1e-15);
    EXPECT_EQ(rep.inclusive(outliers, isend, 0), 0.0); // the slow run was in production
    EXPECT_EQ(rep.metrics[outliers].parent, time);
}

TEST(Codelets, NoTunedOperationsNoCodeletMetrics) {
    TraceBuilder b(1);
    b.mpi_init(0, 0, 5);
    b.mpi_finalize(0, 10, 15);
    const auto r = analysis::analyze(b.trace(), patterns::all_patterns());
    EXPECT_FALSE(r.report.find_metric(metric::kCodeletTime).has_value());
}
