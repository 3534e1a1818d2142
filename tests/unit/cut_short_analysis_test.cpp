// Analyses of a trace cut short by a dying rank invent no wait states from the cut
// (measure/TRACE_FORMAT.md "Runs that died"): the same run with every rank alive shows the
// waits, the cut one does not (1 tick = 1 ns).
#include "pattern_test_util.h"

#include "patterns/metric_names.h"

#include <gtest/gtest.h>

#include <string>

using namespace topolens;
using namespace topolens::test;
namespace metric = patterns::metric;
using trace::CollectiveOp;

namespace {

// Three ranks. Rank 0 sends to rank 1 [100, 300]; ranks 0 and 2 enter an Allreduce at 350
// and 150. With `cut`, rank 1 died in MPI_Abort at 60 (never received, never reached the
// Allreduce) and ranks 0 and 2 end blocked in MPI_Recv; else rank 1 receives [90, 310] and
// joins the Allreduce at 200, and everyone finalizes.
trace::TraceBuilder run_of(bool cut) {
    trace::TraceBuilder b(3);
    begin(b, 3);
    b.mpi_send(0, 100, 300, 1, b.world(), 7, 64);
    b.mpi_collective(0, 350, 400, CollectiveOp::Allreduce, b.world());
    b.mpi_collective(2, 150, 400, CollectiveOp::Allreduce, b.world());
    if (cut) {
        b.enter(1, 60, b.mpi_region("MPI_Abort"));
        for (uint32_t r : {0u, 2u}) b.enter(r, 500, b.mpi_region("MPI_Recv"));
    } else {
        b.mpi_recv(1, 90, 310, 0, b.world(), 7, 64);
        b.mpi_collective(1, 320, 400, CollectiveOp::Allreduce, b.world());
        end(b, 3, 600);
    }
    return b;
}

size_t warnings_with(const analysis::AnalysisResult& r, const std::string& text) {
    size_t n = 0;
    for (const std::string& w : r.warnings) n += w.find(text) != std::string::npos;
    return n;
}

} // namespace

TEST(CutShortAnalysis, AliveRunHasTheWaits) {
    const auto r = run(run_of(false));
    EXPECT_DOUBLE_EQ(total(r, metric::kWaitNxN, 2), 200 * kTick);   // 150 -> 350
    EXPECT_DOUBLE_EQ(total(r, metric::kWaitNxN, 1), 30 * kTick);    // 320 -> 350
    EXPECT_DOUBLE_EQ(total(r, metric::kLateSender, 1), 10 * kTick); // 90 -> 100
}

TEST(CutShortAnalysis, CutRunInventsNoWaits) {
    const auto r = run(run_of(true));
    for (uint32_t l = 0; l < 3; ++l) {
        EXPECT_EQ(total(r, metric::kWaitNxN, l), 0.0) << l;
        EXPECT_EQ(total(r, metric::kNxNCompletion, l), 0.0) << l;
        EXPECT_EQ(total(r, metric::kLateSender, l), 0.0) << l;
        EXPECT_EQ(total(r, metric::kLateReceiver, l), 0.0) << l;
    }
    EXPECT_EQ(warnings_with(r, "1 member(s) never reached it"), 1u);
    EXPECT_EQ(warnings_with(r, "collectives with members missing were left out"), 1u);
    EXPECT_EQ(warnings_with(r, "send without a matching receive"), 1u);
    EXPECT_EQ(warnings_with(r, "never left"), 3u);
}
