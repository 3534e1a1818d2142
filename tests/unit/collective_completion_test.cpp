// The completion of a collective synchronisation point by Scalasca 2.6's rule (its
// PRE_COLL_12N/N21 handlers): the part of a member's call after the member waited for was in
// and the first synchronising member whose end counts was out. For a broadcast only the
// members that waited for the root count, not the root: the receiver that finished first has
// no completion, and the interval after its broadcast holds nothing of that call. Checked by
// the delay costs of a later reduction, on a trace with exact times (1 tick = 1 ns).
#include "pattern_test_util.h"

#include "patterns/metric_names.h"
#include "trace/builder.h"

#include <gtest/gtest.h>

using namespace topolens;
using namespace topolens::test;
using trace::CollectiveOp;
using trace::TraceBuilder;
namespace metric = patterns::metric;

namespace {

// MPI_Bcast from rank 0, late: rank 0 [100, 110], rank 1 [10, 120], rank 2 [10, 130]; ranks
// 1 and 2 wait 90 for the root. Then MPI_Reduce to rank 0: rank 0 [110, 400] and ranks 1, 2
// entering at 200, but the latest sender `latest` at 300: the root waits 190 (Early Reduce),
// and the latest sender's interval since the broadcast is compared with the root's. With
// `work`, the latest sender is in a region "work" from its broadcast's leave to 300; else
// it is outside every region there (time of no call path, as in Scalasca).
TraceBuilder broadcast_then_reduce(uint32_t latest, bool work) {
    TraceBuilder b(3);
    const trace::Ref region = b.region("work");
    begin(b, 3);
    b.mpi_collective(0, 100, 110, CollectiveOp::Bcast, b.world(), 0, 8, 0);
    b.mpi_collective(1, 10, 120, CollectiveOp::Bcast, b.world(), 0, 0, 8);
    b.mpi_collective(2, 10, 130, CollectiveOp::Bcast, b.world(), 0, 0, 8);
    b.mpi_collective(0, 110, 400, CollectiveOp::Reduce, b.world(), 0, 8, 8);
    for (uint32_t r = 1; r < 3; ++r) {
        if (r == latest && work) {
            b.enter(r, 110 + 10 * r, region);
            b.leave(r, 300, region);
        }
        b.mpi_collective(r, r == latest ? 300 : 200, 400 + 10 * r, CollectiveOp::Reduce, b.world(),
                         0, 8, 0);
    }
    end(b, 3, 500);
    return b;
}

} // namespace

// Rank 1 finished the broadcast first of the ranks that waited: it has no completion, so
// nothing of its broadcast is in its interval, and its lateness is outside every region:
// no delay at all, and the root's wait is blamed on nobody (Scalasca's answer on the
// collectives oracle trace). With the root's end counting, rank 1 would complete its
// broadcast in 10 ticks and all of the 190 would go to its MPI_Bcast.
TEST(CollectiveCompletion, TheFirstReceiverOutOfABroadcastHasNoCompletion) {
    const auto r = run(broadcast_then_reduce(1, false));
    ASSERT_NEAR(total(r, metric::kEarlyReduce, 0) / kTick, 190.0, 1e-6);
    for (uint32_t loc = 0; loc < 3; ++loc)
        EXPECT_EQ(total(r, metric::kDelayEarlyReduce, loc), 0.0) << loc;
}

// Rank 2 finished the broadcast 10 ticks after rank 1: its completion of 10 is time it spent
// more than the root (whose own completion is 0), beside 170 in "work"; the wait of 190 is
// shared out over that delay of 180. (With the root's end counting, its completion would be
// 20, and MPI_Bcast would get 20 of the 190.)
TEST(CollectiveCompletion, ALaterReceiverCompletesFromTheFirstReceiversEnd) {
    const auto r = run(broadcast_then_reduce(2, true));
    ASSERT_NEAR(total(r, metric::kEarlyReduce, 0) / kTick, 190.0, 1e-6);
    EXPECT_NEAR(value(r, metric::kDelayEarlyReduce, "program/MPI_Bcast", 2) / kTick,
                10.0 * 190.0 / 180.0, 1e-6);
    EXPECT_NEAR(value(r, metric::kDelayEarlyReduce, "program/work", 2) / kTick,
                170.0 * 190.0 / 180.0, 1e-6);
}
