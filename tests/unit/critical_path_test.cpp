// The critical path (patterns/critical_path.cpp) on hand-built traces with exact times
// (1 tick = 1 ns): where it starts, how it moves at a Late Receiver (from the waiting send to
// the receive's request), and the performance impact derived from its profile. The Late
// Sender and collective hand-overs are checked against synth's closed forms
// (SynthDelay.CriticalPathEqualsTheAnalysis).
#include "pattern_test_util.h"
#include "patterns/metric_names.h"

#include <gtest/gtest.h>

using namespace topolens;
namespace metric = patterns::metric;
using test::kTick;

namespace {

// Rank 0 works [100, 200], sends in MPI_Send [200, 1000] (waiting 700 for the receive to be
// posted at 900), works [1000, 1100] and enters MPI_Finalize last, at 1100. Rank 1 works
// [100, 900], receives in MPI_Recv [900, 950] and enters MPI_Finalize at 1000 (both leave
// it at 1200). With `late_receive` false rank 1 posts its receive at 150: nobody waits.
trace::TraceBuilder late_receiver(bool late_receive) {
    trace::TraceBuilder b(2);
    const trace::Ref work = b.region("work");
    const trace::Time posted = late_receive ? 900 : 150;
    for (uint32_t r = 0; r < 2; ++r) b.mpi_init(r, 0, 100);
    b.enter(0, 100, work);
    b.leave(0, 200, work);
    b.mpi_send(0, 200, 1000, 1, b.world(), 0, 8);
    b.enter(0, 1000, work);
    b.leave(0, 1100, work);
    b.mpi_finalize(0, 1100, 1200);
    b.enter(1, 100, work);
    b.leave(1, posted, work);
    b.mpi_recv(1, posted, late_receive ? 950 : 1000, 0, b.world(), 0, 8);
    b.mpi_finalize(1, 1000, 1200);
    return b;
}

double at(const analysis::AnalysisResult& r, const char* name, const char* path, uint32_t loc) {
    return test::value(r, name, path, loc) / kTick;
}

} // namespace

// The path leaves rank 0 at its send, minus the send's wait, and goes on at rank 1 from its
// receive's request back to MPI_Init: 1100 ticks, MPI_Init's enter to the last Finalize enter.
TEST(CriticalPath, MovesFromALateReceiversSendToTheReceivesRequest) {
    const auto r = test::run(late_receiver(true));
    ASSERT_NEAR(test::total(r, metric::kLateReceiver, 0) / kTick, 700.0, 1e-6);
    EXPECT_NEAR(at(r, metric::kCriticalPath, "MPI_Send", 0), 100.0, 1e-6); // 800 - 700
    EXPECT_NEAR(at(r, metric::kCriticalPath, "work", 0), 100.0, 1e-6);
    EXPECT_NEAR(at(r, metric::kCriticalPath, "MPI_Init", 0), 0.0, 1e-6);
    EXPECT_NEAR(at(r, metric::kCriticalPath, "MPI_Init", 1), 100.0, 1e-6);
    EXPECT_NEAR(at(r, metric::kCriticalPath, "work", 1), 800.0, 1e-6);
    EXPECT_NEAR(test::total(r, metric::kCriticalPath, 1) / kTick, 900.0, 1e-6);
    EXPECT_NEAR(
        (test::total(r, metric::kCriticalPath, 0) + test::total(r, metric::kCriticalPath, 1)) /
            kTick,
        1100.0, 1e-6);
}

// G = {MPI_Init 100, work 900, MPI_Send 100}; T_0 = {MPI_Init 100, work 200, MPI_Send 100
// (800 - its wait), MPI_Finalize 100}; T_1 = {MPI_Init 100, work 800, MPI_Recv 50,
// MPI_Finalize 200}.
TEST(CriticalPath, PerformanceImpactFromTheGlobalProfile) {
    const auto r = test::run(late_receiver(true));
    // Activities: min(G, T_p) where G > 0; the rest of T_p is off the path.
    EXPECT_NEAR(at(r, metric::kCriticalPathActivities, "work", 0), 200.0, 1e-6);
    EXPECT_NEAR(at(r, metric::kCriticalPathActivities, "MPI_Send", 0), 100.0, 1e-6);
    EXPECT_NEAR(at(r, metric::kCriticalPathActivities, "work", 1), 800.0, 1e-6);
    EXPECT_NEAR(test::total(r, metric::kCriticalPathActivities, 1) / kTick, 900.0, 1e-6);
    EXPECT_NEAR(at(r, metric::kNonCriticalPathActivities, "MPI_Finalize", 0), 100.0, 1e-6);
    EXPECT_NEAR(at(r, metric::kNonCriticalPathActivities, "MPI_Recv", 1), 50.0, 1e-6);
    EXPECT_NEAR(at(r, metric::kNonCriticalPathActivities, "MPI_Finalize", 1), 200.0, 1e-6);
    // Imbalance: rank 0's excess {work 700} scaled to its wait 1100 - 500 = 600, rank 1's
    // {work 100, MPI_Send 100} to 1100 - 1150 = -50: I = {work 575, MPI_Send -25}, shared
    // by the holders of work on the path (100 and 800 of 900); negative costs are dropped.
    EXPECT_NEAR(at(r, metric::kCriticalImbalanceImpact, "work", 0), 575.0 / 9, 1e-6);
    EXPECT_NEAR(at(r, metric::kCriticalImbalanceImpact, "work", 1), 575.0 * 8 / 9, 1e-6);
    EXPECT_NEAR(at(r, metric::kCriticalImbalanceImpact, "MPI_Send", 0), 0.0, 1e-6);
    // Both ranks run every call path of the path but MPI_Send (rank 1): its headroom is
    // 100 · (1100 - 1250) / 100 < 0, so no inter-partition imbalance.
    EXPECT_EQ(test::total(r, metric::kInterPartitionImbalance, 0), 0.0);
    // The impact's tree is inclusive: activities + imbalance below critical-path activities.
    EXPECT_NEAR(test::total(r, metric::kPerformanceImpactCriticalPath, 1),
                test::total(r, metric::kCriticalPathActivities, 1) +
                    test::total(r, metric::kCriticalImbalanceImpact, 1),
                1e-12);
}

// Without a wait the path never leaves rank 0: its whole run up to MPI_Finalize's enter.
TEST(CriticalPath, StaysOnTheLastProcessWithoutWaits) {
    const auto r = test::run(late_receiver(false));
    ASSERT_EQ(test::total(r, metric::kLateReceiver, 0), 0.0);
    EXPECT_EQ(test::total(r, metric::kCriticalPath, 1), 0.0);
    EXPECT_NEAR(at(r, metric::kCriticalPath, "MPI_Init", 0), 100.0, 1e-6);
    EXPECT_NEAR(at(r, metric::kCriticalPath, "work", 0), 200.0, 1e-6);
    EXPECT_NEAR(at(r, metric::kCriticalPath, "MPI_Send", 0), 800.0, 1e-6);
}
