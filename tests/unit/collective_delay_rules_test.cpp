// Delay costs at collective operations by Scalasca 2.6's rules, on traces with exact times
// (1 tick = 1 ns):
// - The completion of a collective synchronisation point (its PRE_COLL_12N/N21 handlers):
//   the part of a member's call after the member waited for was in and the first
//   synchronising member whose end counts was out. For a broadcast only the members that
//   waited for the root count, not the root: the receiver that finished first has no
//   completion, and the interval after its broadcast holds nothing of that call. Checked by
//   the delay costs of a later reduction.
// - The delaying member's own waits between its group synchpoint and the operation
//   (CalculateScales): every intermediate point (a member it synchronised with in between)
//   switches the scale of the waits from there on to the sum of the members before it, also
//   one whose member adds no scale itself.
#include "pattern_test_util.h"

#include "patterns/collective_waits.h"
#include "patterns/metric_names.h"
#include "trace/builder.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

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

// Barrier 1 [10, 20] on ranks 0..3. Rank 0 sends to rank 1 (MPI_Send [30, 31], rank 1's
// MPI_Recv [25, 31] waits 5: an intermediate point of rank 0 with rank 1), then receives
// from rank 2 (MPI_Recv [35, 51], rank 2's MPI_Send [50, 51] after "work" [20, 50]: rank 0
// waits 15, an intermediate point with rank 2). Barrier 2: rank 3 enters at 60, rank 1 at
// 70, rank 2 at 80, rank 0 last at 100; outside their MPI calls and rank 2's work the ranks
// are in no region. Rank 0's group interval starts at barrier 1 (rank 3 synchronised with it
// only there). Rank 3's share: rank 0's {MPI_Send 1, MPI_Recv 1 after its wait} against
// nothing: d = 2, w = 15, scale 40 / 17. Rank 1's: rank 0's time since its send, {MPI_Recv
// 1}: d = 1, w = 15, scale 30 / 16. Rank 2's: rank 0 has nothing since its receive
// (completion 0): d + w = 0, no scale. The receive wait takes the scales of the members
// before it, 40 / 17 + 30 / 16, and carries 15 times that as Barrier cost to rank 2's send,
// whose interval since barrier 1 holds its "work" 30 (rank 0: none): all of it is rank 2's
// long-term Barrier delay. (Switching only at points whose members add a scale, the receive
// would keep rank 3's 40 / 17 alone.)
TEST(CollectiveIntermediatePoints, APointWithoutScaleStillTakesUpTheScalesBeforeIt) {
    TraceBuilder b(4);
    const trace::Ref work = b.region("work");
    begin(b, 4);
    for (uint32_t r = 0; r < 4; ++r) b.mpi_collective(r, 10, 20, CollectiveOp::Barrier, b.world());
    b.mpi_send(0, 30, 31, 1, b.world(), 0, 8);
    b.mpi_recv(0, 35, 51, 2, b.world(), 0, 8);
    b.mpi_collective(0, 100, 110, CollectiveOp::Barrier, b.world());
    b.mpi_recv(1, 25, 31, 0, b.world(), 0, 8);
    b.mpi_collective(1, 70, 110, CollectiveOp::Barrier, b.world());
    b.enter(2, 20, work);
    b.leave(2, 50, work);
    b.mpi_send(2, 50, 51, 0, b.world(), 0, 8);
    b.mpi_collective(2, 80, 110, CollectiveOp::Barrier, b.world());
    b.mpi_collective(3, 60, 110, CollectiveOp::Barrier, b.world());
    end(b, 4, 200);
    const auto r = run(b);
    ASSERT_NEAR(total(r, metric::kLateSender, 0) / kTick, 15.0, 1e-6);
    ASSERT_NEAR(total(r, metric::kBarrierWait, 3) / kTick, 40.0, 1e-6);
    const double scales = 40.0 / 17.0 + 30.0 / 16.0;
    EXPECT_NEAR(value(r, metric::kDelayBarrier, "program/MPI_Send", 0) / kTick, 40.0 / 17.0, 1e-6);
    EXPECT_NEAR(value(r, metric::kDelayBarrier, "program/MPI_Recv", 0) / kTick, scales, 1e-6);
    EXPECT_NEAR(value(r, metric::kDelayLateSender, "program/work", 2) / kTick, 15.0, 1e-6);
    EXPECT_NEAR(value(r, metric::kDelayBarrierLongTerm, "program/work", 2) / kTick, 15.0 * scales,
                1e-6);
}

// Each member's wait by its operation's shape: members entering at 10, 50, 30, 20 and
// leaving at 60, 70, 65, 40 (the third is the root where there is one).
TEST(CollectiveWaits, EachMemberByItsOperationsShape) {
    analysis::CollectiveInstance instance;
    const analysis::Time enters[] = {10, 50, 30, 20}, leaves[] = {60, 70, 65, 40};
    for (size_t k = 0; k < 4; ++k) {
        analysis::CallInfo call;
        call.location = static_cast<uint32_t>(k);
        call.enter = enters[k];
        call.leave = leaves[k];
        instance.members.push_back(call);
    }
    instance.latest_enter = 50;
    instance.latest_member = 1;
    instance.earliest_leave = 40;
    const std::vector<std::pair<CollectiveOp, std::vector<analysis::Time>>> cases = {
        {CollectiveOp::Barrier, {40, 0, 20, 20}},   // until the latest enter (clamped)
        {CollectiveOp::Allreduce, {40, 0, 20, 20}}, //
        {CollectiveOp::Bcast, {20, 0, 0, 10}},      // until the root's enter
        {CollectiveOp::Reduce, {0, 0, 20, 0}},      // the root until the latest other
        {CollectiveOp::Scan, {0, 0, 0, 0}}};        // nobody
    auto waits = [&] {
        std::vector<analysis::Time> each;
        for (size_t k = 0; k < 4; ++k) each.push_back(patterns::collective_wait(instance, k));
        return each;
    };
    for (const auto& [op, expected] : cases) {
        SCOPED_TRACE(static_cast<int>(op));
        instance.op = op;
        instance.root = op == CollectiveOp::Bcast || op == CollectiveOp::Reduce ? 2 : -1;
        EXPECT_EQ(waits(), expected);
    }
    // A rooted operation without a root: nobody waits.
    instance.op = CollectiveOp::Bcast;
    instance.root = -1;
    EXPECT_EQ(waits(), std::vector<analysis::Time>(4, 0));
}

// What patterns derive from an instance's members is worked out once, by the first member's
// replay that asks, whatever the threads asking at once; each type on its own; a copy of the
// instance shares it.
TEST(CollectiveInstance, DerivedOnceForEveryMemberWhateverTheThreads) {
    analysis::CollectiveInstance instance;
    instance.members.resize(64);
    struct Latest {
        size_t members;
    };
    struct Other {
        int value;
    };
    std::atomic<int> derived{0};
    std::vector<const Latest*> seen(instance.members.size());
    {
        std::vector<std::jthread> members;
        for (size_t m = 0; m < instance.members.size(); ++m)
            members.emplace_back([&, m] {
                seen[m] = &instance.derived<Latest>([&] {
                    ++derived;
                    return Latest{instance.members.size()};
                });
            });
    }
    EXPECT_EQ(derived.load(), 1);
    for (const Latest* s : seen) {
        EXPECT_EQ(s, seen.front());
        EXPECT_EQ(s->members, 64u);
    }
    EXPECT_EQ(instance.derived<Other>([] { return Other{7}; }).value, 7);
    const analysis::CollectiveInstance copy = instance;
    EXPECT_EQ(&copy.derived<Latest>([&] {
        ++derived;
        return Latest{0};
    }),
              seen.front());
    EXPECT_EQ(derived.load(), 1);
}

// A location's member of a collective: members in communicator rank order, which may or may
// not be location order; missing members are kNone.
TEST(CollectiveMatch, MemberOfALocationInOrAgainstLocationOrder) {
    auto with_locations = [](std::vector<uint32_t> locations) {
        trace::CollectiveMatch c;
        for (uint32_t loc : locations) c.members.push_back({loc, 0});
        return c;
    };
    const trace::CollectiveMatch ascending = with_locations({0, 1, 2, 3, 5, 8});
    EXPECT_EQ(trace::member_of(ascending, 0), 0u);
    EXPECT_EQ(trace::member_of(ascending, 5), 4u);
    EXPECT_EQ(trace::member_of(ascending, 8), 5u);
    EXPECT_EQ(trace::member_of(ascending, 4), trace::kNone);
    EXPECT_EQ(trace::member_of(ascending, 9), trace::kNone);
    const trace::CollectiveMatch shuffled = with_locations({6, 2, 9, 0, 4});
    for (uint32_t k = 0; k < shuffled.members.size(); ++k)
        EXPECT_EQ(trace::member_of(shuffled, shuffled.members[k].location), k);
    EXPECT_EQ(trace::member_of(shuffled, 3), trace::kNone);
    const trace::CollectiveMatch missing = with_locations({1, trace::kNone, 4, trace::kNone});
    EXPECT_EQ(trace::member_of(missing, 4), 2u);
    EXPECT_EQ(trace::member_of(missing, 1), 0u);
    EXPECT_EQ(trace::member_of(missing, 2), trace::kNone);
}
