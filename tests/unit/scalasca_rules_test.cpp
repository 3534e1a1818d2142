// Late Receiver and LS, Wrong Order by Scalasca 2.6's rules (MPI_LATERECEIVER,
// MPI_LATESENDER_WO, MPI_LSWO_SAME/DIFFERENT) and collectives timed by their records, on
// traces with exact timestamps (1 tick = 1 ns).
#include "pattern_test_util.h"

#include "analyzer/engine/engine.h"
#include "patterns/metric_names.h"
#include "patterns/registry.h"
#include "trace/builder.h"

#include <gtest/gtest.h>

using namespace topolens;
using trace::TraceBuilder;
namespace metric = patterns::metric;

using namespace topolens::test;

// ---------------------------------------------------------------- Late Receiver

TEST(LateReceiverRule, ASendThatLeftBeforeTheReceiveWasPostedDidNotWait) {
    // MPI_Send [10, 12] (the message was buffered), the receive is posted at 70.
    TraceBuilder b(2);
    begin(b, 2);
    b.mpi_send(0, 10, 12, 1, b.world(), 0, 8);
    b.mpi_recv(1, 70, 75, 0, b.world(), 0, 8);
    end(b, 2, 200);
    EXPECT_EQ(total(run(b), metric::kLateReceiver, 0), 0.0);
}

TEST(LateReceiverRule, AStandardSendStillInItsCallWaitedUntilTheReceiveWasPosted) {
    TraceBuilder b(2);
    begin(b, 2);
    b.mpi_send(0, 10, 100, 1, b.world(), 0, 1 << 20);
    b.mpi_recv(1, 70, 100, 0, b.world(), 0, 1 << 20);
    end(b, 2, 200);
    EXPECT_NEAR(value(run(b), metric::kLateReceiver, "program/MPI_Send", 0), 60 * kTick, 1e-15);
}

TEST(LateReceiverRule, ASendLeavingExactlyWhenTheReceiveIsPostedDidNotWait) {
    TraceBuilder b(2);
    begin(b, 2);
    b.mpi_send(0, 10, 70, 1, b.world(), 0, 8);
    b.mpi_recv(1, 70, 75, 0, b.world(), 0, 8);
    end(b, 2, 200);
    EXPECT_EQ(total(run(b), metric::kLateReceiver, 0), 0.0);
}

TEST(LateReceiverRule, BufferedAndReadySendsNeverWait) {
    TraceBuilder b(2);
    begin(b, 2);
    const auto bsend = b.mpi_region("MPI_Bsend");
    const auto rsend = b.mpi_region("MPI_Rsend");
    b.enter(0, 10, bsend);
    b.send(0, 10, 1, b.world(), 0, 8);
    b.leave(0, 100, bsend);
    b.enter(0, 110, rsend);
    b.send(0, 110, 1, b.world(), 1, 8);
    b.leave(0, 200, rsend);
    b.mpi_recv(1, 70, 100, 0, b.world(), 0, 8);
    b.mpi_recv(1, 150, 200, 0, b.world(), 1, 8);
    end(b, 2, 300);
    EXPECT_EQ(total(run(b), metric::kLateReceiver, 0), 0.0);
}

TEST(LateReceiverRule, TheWaitCompletingAnIsendWaitsFromItsOwnEnter) {
    // Isend [10, 11], MPI_Wait [20, 100] completes it; the receive is posted at 70.
    TraceBuilder b(2);
    begin(b, 2);
    b.mpi_isend(0, 10, 11, 1, b.world(), 0, 8, 5);
    b.mpi_wait_send(0, 20, 100, 5);
    b.mpi_recv(1, 70, 100, 0, b.world(), 0, 8);
    end(b, 2, 200);
    const auto r = run(b);
    EXPECT_NEAR(value(r, metric::kLateReceiver, "program/MPI_Wait", 0), 50 * kTick, 1e-15);
    EXPECT_EQ(value(r, metric::kLateReceiver, "program/MPI_Isend", 0), 0.0);
}

TEST(LateReceiverRule, AnIsendCompletedByATestNeverWaits) {
    TraceBuilder b(2);
    begin(b, 2);
    b.mpi_isend(0, 10, 11, 1, b.world(), 0, 8, 5);
    const auto test = b.mpi_region("MPI_Test");
    b.enter(0, 20, test);
    b.isend_complete(0, 99, 5);
    b.leave(0, 100, test);
    b.mpi_recv(1, 70, 100, 0, b.world(), 0, 8);
    end(b, 2, 200);
    EXPECT_EQ(total(run(b), metric::kLateReceiver, 0), 0.0);
}

TEST(LateReceiverRule, AWaitallCountsItsLongestSendWaitOnce) {
    // Two Isends completed by one MPI_Waitall [20, 100]; their receives are posted at 50
    // and 80: the Waitall waited 80 - 20 = 60, counted once.
    TraceBuilder b(3);
    begin(b, 3);
    b.mpi_isend(0, 10, 11, 1, b.world(), 0, 8, 1);
    b.mpi_isend(0, 12, 13, 2, b.world(), 0, 8, 2);
    const auto waitall = b.mpi_region("MPI_Waitall");
    b.enter(0, 20, waitall);
    b.isend_complete(0, 99, 1);
    b.isend_complete(0, 99, 2);
    b.leave(0, 100, waitall);
    b.mpi_recv(1, 50, 60, 0, b.world(), 0, 8);
    b.mpi_recv(2, 80, 90, 0, b.world(), 0, 8);
    end(b, 3, 200);
    EXPECT_NEAR(value(run(b), metric::kLateReceiver, "program/MPI_Waitall", 0), 60 * kTick, 1e-15);
}

TEST(LateReceiverRule, AWaitallThatWaitedAsLateSenderIsNoLateReceiver) {
    // Rank 0's Waitall [20, 100] completes an Isend to rank 1 (posted at 80) and a receive
    // from rank 2, whose send starts at 40: Late Sender 20, and no Late Receiver.
    TraceBuilder b(3);
    begin(b, 3);
    b.mpi_isend(0, 10, 11, 1, b.world(), 0, 8, 1);
    b.mpi_irecv(0, 12, 13, 2);
    const auto waitall = b.mpi_region("MPI_Waitall");
    b.enter(0, 20, waitall);
    b.isend_complete(0, 99, 1);
    b.irecv(0, 99, 2, b.world(), 0, 8, 2);
    b.leave(0, 100, waitall);
    b.mpi_recv(1, 80, 90, 0, b.world(), 0, 8);
    b.mpi_send(2, 40, 41, 0, b.world(), 0, 8);
    end(b, 3, 200);
    const auto r = run(b);
    EXPECT_NEAR(total(r, metric::kLateSender, 0), 20 * kTick, 1e-15);
    EXPECT_EQ(total(r, metric::kLateReceiver, 0), 0.0);
}

// ---------------------------------------------------------------- Delay costs

// In a region [6, 150] on every rank: rank 0's MPI_Send to rank 1 [10, 100] waited as Late
// Receiver, so the whole call is cut off the interval after it; so is rank 1's receive
// [20, 60]. After gaps of `gap` and 10 ticks, rank 1's MPI_Send [70, 120] waits for rank 0's
// MPI_Recv (Late Receiver 30 + gap), and then rank 1 arrives late for rank 2 (Late Sender
// 115), which passes the whole of that wait on as a cost (scale 1). Rank 0's delay for rank
// 1 is gap - 10.
TraceBuilder late_receiver_after_a_cut_send(trace::Time gap) {
    TraceBuilder b(3);
    begin(b, 3);
    const auto exchange = b.region("exchange");
    for (uint32_t r = 0; r < 3; ++r) b.enter(r, 6, exchange);
    b.mpi_send(0, 10, 100, 1, b.world(), 0, 1 << 20);
    b.mpi_recv(0, 100 + gap, 120, 1, b.world(), 1, 1 << 20);
    b.mpi_recv(1, 20, 60, 0, b.world(), 0, 1 << 20);
    b.mpi_send(1, 70, 120, 0, b.world(), 1, 1 << 20);
    b.mpi_send(1, 125, 130, 2, b.world(), 2, 8);
    b.mpi_recv(2, 10, 130, 1, b.world(), 2, 8);
    for (uint32_t r = 0; r < 3; ++r) b.leave(r, 150, exchange);
    end(b, 3, 200);
    return b;
}

TEST(DelayCostRule, ALateProcessNoSlowerThanTheWaitingOneTakesNoLongTermCost) {
    // d + w = 0: the cost that reached the wait (40 ticks, propagated) is assigned nowhere.
    // Scalasca's rule too, in exact arithmetic; in its double seconds the two equal gaps can
    // differ by 4.4e-16 s and then give rank 0 the whole cost (docs/root-causes.md).
    const auto tie = run(late_receiver_after_a_cut_send(10));
    EXPECT_NEAR(value(tie, metric::kWaitPropagatingLateReceiver, "program/exchange/MPI_Send", 1),
                40 * kTick, 1e-15);
    EXPECT_EQ(total(tie, metric::kDelayLateReceiver, 0), 0.0);
    EXPECT_EQ(total(tie, metric::kDelayLateSenderLongTerm, 0), 0.0);
    // One tick of delay explains the wait (41 ticks now) and takes all of its cost.
    const auto later = run(late_receiver_after_a_cut_send(11));
    EXPECT_NEAR(total(later, metric::kDelayLateReceiver, 0), 1 * kTick, 1e-15);
    EXPECT_NEAR(total(later, metric::kDelayLateSenderLongTerm, 0), 41 * kTick, 1e-15);
}

// ---------------------------------------------------------------- Wrong Order

TEST(WrongOrderRule, SameSourceAndDifferentSourcesAreSplit) {
    // Rank 2 waits for rank 0's late message, then takes one rank 1 sent earlier
    // (different sources); then waits for rank 0's tag-2 message and takes its tag-1
    // message, sent earlier (same source).
    TraceBuilder b(3);
    begin(b, 3);
    b.mpi_send(1, 10, 11, 2, b.world(), 0, 8);   // sent at 10
    b.mpi_send(0, 50, 51, 2, b.world(), 0, 8);   // sent at 50
    b.mpi_recv(2, 20, 60, 0, b.world(), 0, 8);   // waits 30 for rank 0
    b.mpi_recv(2, 61, 62, 1, b.world(), 0, 8);   // message sent at 10 < 50
    b.mpi_send(0, 70, 71, 2, b.world(), 1, 8);   // tag 1, sent at 70
    b.mpi_send(0, 120, 121, 2, b.world(), 2, 8); // tag 2, sent at 120
    b.mpi_recv(2, 100, 130, 0, b.world(), 2, 8); // waits 20 for tag 2
    b.mpi_recv(2, 131, 132, 0, b.world(), 1, 8); // message sent at 70 < 120
    end(b, 3, 300);
    const auto r = run(b);
    EXPECT_NEAR(total(r, metric::kLateSender, 2), 50 * kTick, 1e-15);
    EXPECT_NEAR(total(r, metric::kLateSenderWrongOrder, 2), 50 * kTick, 1e-15);
    EXPECT_NEAR(total(r, metric::kWrongOrderDifferentSources, 2), 30 * kTick, 1e-15);
    EXPECT_NEAR(total(r, metric::kWrongOrderSameSource, 2), 20 * kTick, 1e-15);
    // Wrong Order's own part is empty: all of it is in the two children.
    const int wo = *r.report.find_metric(metric::kLateSenderWrongOrder);
    for (int cp = 0; cp < static_cast<int>(r.report.callpaths.size()); ++cp)
        EXPECT_EQ(r.report.value(wo, cp, 2), 0.0);
}

TEST(WrongOrderRule, AReceiveOfALaterMessageRevealsNothing) {
    TraceBuilder b(3);
    begin(b, 3);
    b.mpi_send(0, 50, 51, 2, b.world(), 0, 8);
    b.mpi_send(1, 55, 56, 2, b.world(), 0, 8);
    b.mpi_recv(2, 20, 60, 0, b.world(), 0, 8); // waits 30
    b.mpi_recv(2, 61, 62, 1, b.world(), 0, 8); // sent at 55 > 50: in order
    end(b, 3, 300);
    const auto r = run(b);
    EXPECT_NEAR(total(r, metric::kLateSender, 2), 30 * kTick, 1e-15);
    EXPECT_EQ(total(r, metric::kLateSenderWrongOrder, 2), 0.0);
}

TEST(WrongOrderRule, TheReceivesOfTheSameWaitallDoNotMakeItWrongOrder) {
    // One Waitall completes a late message (sent at 80) and an early one (sent at 10): the
    // Waitall's Late Sender instance is found when it ends, after both receives. A later
    // receive of a message sent at 30 < 80 then reveals it.
    TraceBuilder b(4);
    begin(b, 4);
    b.mpi_irecv(0, 10, 11, 1);
    b.mpi_irecv(0, 12, 13, 2);
    const auto waitall = b.mpi_region("MPI_Waitall");
    b.enter(0, 20, waitall);
    b.irecv(0, 90, 1, b.world(), 0, 8, 1);
    b.irecv(0, 91, 2, b.world(), 0, 8, 2);
    b.leave(0, 92, waitall);
    b.mpi_send(1, 80, 81, 0, b.world(), 0, 8);
    b.mpi_send(2, 10, 11, 0, b.world(), 0, 8);
    end(b, 4, 300);
    const auto in_order = run(b);
    EXPECT_NEAR(total(in_order, metric::kLateSender, 0), 60 * kTick, 1e-15);
    EXPECT_EQ(total(in_order, metric::kLateSenderWrongOrder, 0), 0.0);

    TraceBuilder c(4);
    begin(c, 4);
    c.mpi_irecv(0, 10, 11, 1);
    c.mpi_irecv(0, 12, 13, 2);
    const auto waitall2 = c.mpi_region("MPI_Waitall");
    c.enter(0, 20, waitall2);
    c.irecv(0, 90, 1, c.world(), 0, 8, 1);
    c.irecv(0, 91, 2, c.world(), 0, 8, 2);
    c.leave(0, 92, waitall2);
    c.mpi_recv(0, 100, 101, 3, c.world(), 0, 8);
    c.mpi_send(1, 80, 81, 0, c.world(), 0, 8);
    c.mpi_send(2, 10, 11, 0, c.world(), 0, 8);
    c.mpi_send(3, 30, 31, 0, c.world(), 0, 8);
    end(c, 4, 300);
    const auto revealed = run(c);
    EXPECT_NEAR(value(revealed, metric::kWrongOrderDifferentSources, "program/MPI_Waitall", 0),
                60 * kTick, 1e-15);
}

TEST(WrongOrderRule, LooksBackOverTheLastHundredInstances) {
    // Rank 0 waits 10 ticks in each of 101 receives from rank 1 (sent at 1000 + 100 k);
    // then takes rank 2's message, sent at 500: the 100 latest instances are wrong order,
    // the first one is no longer looked at.
    TraceBuilder b(3);
    begin(b, 3);
    b.mpi_send(2, 500, 501, 0, b.world(), 0, 8);
    for (trace::Time k = 0; k < 101; ++k) {
        const trace::Time sent = 1000 + 100 * k;
        b.mpi_send(1, sent, sent + 1, 0, b.world(), 0, 8);
        b.mpi_recv(0, sent - 10, sent + 2, 1, b.world(), 0, 8);
    }
    b.mpi_recv(0, 20000, 20001, 2, b.world(), 0, 8);
    end(b, 3, 30000);
    const auto r = run(b);
    EXPECT_NEAR(total(r, metric::kLateSender, 0), 101 * 10 * kTick, 1e-14);
    EXPECT_NEAR(total(r, metric::kWrongOrderDifferentSources, 0), 100 * 10 * kTick, 1e-14);
}

TEST(WrongOrderRule, ARefillWaitInTheWrongOrderCountsForItsWaveToo) {
    // A 1D line of 3 (recorded) with a pipeline 0 -> 1 -> 2; rank 2 waits for the wave,
    // then takes a message rank 1 sent before it: that wait is Wrong Order by Scalasca's
    // rule, and it is also the wave's refill wait. Late Sender and its Wrong Order part
    // stay Scalasca's; the wave, in a tree of its own, counts it as well.
    TraceBuilder b(3);
    const auto line = b.cart_topology("line", b.world(), {3}, {false});
    for (uint32_t r = 0; r < 3; ++r) b.cart_coords(line, r, {r});
    begin(b, 3);
    b.mpi_send(0, 10, 11, 1, b.world(), 0, 8);
    b.mpi_send(1, 6, 7, 2, b.world(), 5, 8); // sent at 6, received second
    b.mpi_recv(1, 10, 12, 0, b.world(), 0, 8);
    b.mpi_send(1, 60, 61, 2, b.world(), 0, 8); // relays the wave at 60
    b.mpi_recv(2, 30, 62, 1, b.world(), 0, 8); // waits 30 for the wave
    b.mpi_recv(2, 63, 64, 1, b.world(), 5, 8); // reveals the wrong order
    end(b, 3, 300);
    const auto r = run(b);
    EXPECT_NEAR(total(r, metric::kLateSender, 2), 30 * kTick, 1e-15);
    EXPECT_NEAR(total(r, metric::kWrongOrderSameSource, 2), 30 * kTick, 1e-15);
    EXPECT_NEAR(total(r, "mpi_wavefront_w", 2), 30 * kTick, 1e-15);
    EXPECT_NEAR(total(r, metric::kWavefrontRoot, 2), 30 * kTick, 1e-15);
    EXPECT_EQ(total(r, "mpi_wavefront_e", 2), 0.0);
}

// ---------------------------------------------------------------- collectives

TEST(CollectiveRecords, WaitsAreTimedByTheCollectiveRecordsNotTheCall) {
    // Rank 0 enters MPI_Allreduce at 10 but begins the operation (MpiCollectiveBegin) at 30;
    // rank 1 enters and begins at 50. Wait at NxN of rank 0: 50 - 30 = 20 (not 40).
    TraceBuilder b(2);
    begin(b, 2);
    const auto allreduce = b.mpi_region("MPI_Allreduce");
    b.enter(0, 10, allreduce);
    b.collective_begin(0, 30);
    b.collective_end(0, 60, trace::CollectiveOp::Allreduce, b.world(), trace::kNone, 8, 8);
    b.leave(0, 70, allreduce);
    b.mpi_collective(1, 50, 60, trace::CollectiveOp::Allreduce, b.world(), trace::kNone, 8, 8);
    end(b, 2, 200);
    EXPECT_NEAR(total(run(b), metric::kWaitNxN, 0), 20 * kTick, 1e-15);
}

// ---------------------------------------------------------------- clock conditions

TEST(ClockConditions, LeavingAnAllToAllBeforeTheLastEnteredIsAViolation) {
    // Rank 0 leaves MPI_Allreduce at 40, rank 1 enters it at 50: impossible, as rank 0's
    // result needs rank 1's data.
    TraceBuilder b(2);
    begin(b, 2);
    b.mpi_collective(0, 10, 40, trace::CollectiveOp::Allreduce, b.world(), trace::kNone, 8, 8);
    b.mpi_collective(1, 50, 60, trace::CollectiveOp::Allreduce, b.world(), trace::kNone, 8, 8);
    end(b, 2, 200);
    const auto r = run(b);
    EXPECT_EQ(value(r, metric::kClockViolationsCollective, "program/MPI_Allreduce", 0), 1.0);
    EXPECT_EQ(total(r, metric::kClockViolationsCollective, 1), 0.0);
    EXPECT_EQ(total(r, metric::kClockViolations, 0), 1.0);
    EXPECT_EQ(total(r, metric::kClockViolationsP2P, 0), 0.0);
}

TEST(ClockConditions, OneToAllAndAllToOneFollowTheirData) {
    // Bcast (root 0 enters at 50): rank 1 leaving at 40 is a violation. Reduce (root 0):
    // rank 1 may leave before the root enters (its data can be sent ahead), the root may
    // not leave before rank 1 entered.
    TraceBuilder b(2);
    begin(b, 2);
    b.mpi_collective(0, 50, 60, trace::CollectiveOp::Bcast, b.world(), 0, 8, 0);
    b.mpi_collective(1, 10, 40, trace::CollectiveOp::Bcast, b.world(), 0, 0, 8);
    b.mpi_collective(0, 100, 110, trace::CollectiveOp::Reduce, b.world(), 0, 8, 8);
    b.mpi_collective(1, 120, 130, trace::CollectiveOp::Reduce, b.world(), 0, 8, 0);
    b.mpi_collective(0, 200, 210, trace::CollectiveOp::Reduce, b.world(), 0, 8, 8);
    b.mpi_collective(1, 150, 160, trace::CollectiveOp::Reduce, b.world(), 0, 8, 0);
    end(b, 2, 300);
    const auto r = run(b);
    EXPECT_EQ(value(r, metric::kClockViolationsCollective, "program/MPI_Bcast", 1), 1.0);
    EXPECT_EQ(value(r, metric::kClockViolationsCollective, "program/MPI_Reduce", 0), 1.0);
    EXPECT_EQ(total(r, metric::kClockViolationsCollective, 0), 1.0);
    EXPECT_EQ(total(r, metric::kClockViolationsCollective, 1), 1.0);
}

TEST(ClockConditions, InitAndFinalizeAreSynchronizing) {
    // Rank 1 leaves MPI_Init at 5 before rank 0 enters it at 8, and rank 0 leaves
    // MPI_Finalize at 205 before rank 1 enters it at 250.
    TraceBuilder b(2);
    b.mpi_init(0, 8, 20);
    b.mpi_init(1, 0, 5);
    b.mpi_finalize(0, 200, 205);
    b.mpi_finalize(1, 250, 255);
    const auto r = run(b);
    EXPECT_EQ(value(r, metric::kClockViolationsCollective, "program/MPI_Init", 1), 1.0);
    EXPECT_EQ(value(r, metric::kClockViolationsCollective, "program/MPI_Finalize", 0), 1.0);
    EXPECT_EQ(total(r, metric::kClockViolations, 0), 1.0);
    EXPECT_EQ(total(r, metric::kClockViolations, 1), 1.0);
}

TEST(ClockConditions, AReceiveBeforeItsSendIsAPointToPointViolation) {
    TraceBuilder b(2);
    begin(b, 2);
    b.mpi_send(0, 100, 110, 1, b.world(), 0, 8);
    b.mpi_recv(1, 20, 50, 0, b.world(), 0, 8); // completes at 50, before the send at 100
    end(b, 2, 200);
    const auto r = run(b);
    EXPECT_EQ(total(r, metric::kClockViolationsP2P, 1), 1.0);
    EXPECT_EQ(total(r, metric::kClockViolationsCollective, 1), 0.0);
}
