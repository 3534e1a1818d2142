// MPI wait-state patterns on synthetic traces with exact timestamps (1 tick = 1 ns) and
// exact expected severities.
#include "analyzer/engine/engine.h"
#include "analyzer/engine/metric_tree.h"
#include "pattern_test_util.h"
#include "patterns/late_sender.h"
#include "patterns/metric_names.h"
#include "patterns/registry.h"
#include "test_util.h"
#include "trace/builder.h"
#include "trace/reader.h"

#include <gtest/gtest.h>

using namespace topolens;
using trace::CollectiveOp;
using trace::kNone;
using trace::TraceBuilder;
namespace metric = patterns::metric;

using namespace topolens::test;

TEST(LateSender, BlockingReceiveWaitsForTheSendToStart) {
    TraceBuilder b(2);
    begin(b, 2);
    b.mpi_send(0, 100, 110, 1, b.world(), 7, 64);
    b.mpi_recv(1, 40, 120, 0, b.world(), 7, 64);
    end(b, 2, 200);
    const auto r = run(b);
    EXPECT_NEAR(value(r, metric::kLateSender, "program/MPI_Recv", 1), 60 * kTick, 1e-15);
    EXPECT_EQ(value(r, metric::kLateSender, "program/MPI_Send", 0), 0.0);
    EXPECT_EQ(total(r, metric::kLateSenderWrongOrder, 1), 0.0);
    EXPECT_EQ(total(r, metric::kClockViolations, 1), 0.0);
    // The receive's 80 ticks are point-to-point time; Late Sender is part of it.
    EXPECT_NEAR(value(r, metric::kPointToPoint, "program/MPI_Recv", 1), 80 * kTick, 1e-15);
    EXPECT_TRUE(r.warnings.empty());
}

TEST(LateSender, NoWaitWhenTheSendCameFirst) {
    TraceBuilder b(2);
    begin(b, 2);
    b.mpi_send(0, 10, 20, 1, b.world(), 7, 64);
    b.mpi_recv(1, 40, 50, 0, b.world(), 7, 64);
    end(b, 2, 200);
    const auto r = run(b);
    EXPECT_EQ(total(r, metric::kLateSender, 1), 0.0);
}

TEST(LateSender, ClockViolationIsCountedAndTheWaitClamped) {
    TraceBuilder b(2);
    begin(b, 2);
    b.mpi_recv(1, 10, 50, 0, b.world(), 7, 64); // ends before the send even began
    b.mpi_send(0, 60, 70, 1, b.world(), 7, 64);
    end(b, 2, 200);
    const auto r = run(b);
    EXPECT_NEAR(value(r, metric::kLateSender, "program/MPI_Recv", 1), 40 * kTick, 1e-15);
    EXPECT_EQ(value(r, metric::kClockViolations, "program/MPI_Recv", 1), 1.0);
}

TEST(LateSender, WaitCompletingANonblockingReceive) {
    TraceBuilder b(2);
    begin(b, 2);
    b.mpi_irecv(1, 10, 12, /*request*/ 5);
    b.mpi_wait_recv(1, 30, 100, 0, b.world(), 3, 8, 5);
    b.mpi_send(0, 70, 75, 1, b.world(), 3, 8);
    end(b, 2, 200);
    const auto r = run(b);
    EXPECT_NEAR(value(r, metric::kLateSender, "program/MPI_Wait", 1), 40 * kTick, 1e-15);
    EXPECT_EQ(value(r, metric::kLateSender, "program/MPI_Irecv", 1), 0.0);
}

TEST(LateSender, WaitallCountsTheLatestSendOnce) {
    TraceBuilder b(3);
    begin(b, 3);
    b.mpi_irecv(0, 10, 11, 1);
    b.mpi_irecv(0, 12, 13, 2);
    const auto waitall = b.mpi_region("MPI_Waitall");
    b.enter(0, 20, waitall);
    b.irecv(0, 120, 1, b.world(), 0, 8, 1);
    b.irecv(0, 121, 2, b.world(), 0, 8, 2);
    b.leave(0, 122, waitall);
    b.mpi_send(1, 50, 55, 0, b.world(), 0, 8);
    b.mpi_send(2, 80, 85, 0, b.world(), 0, 8);
    end(b, 3, 300);
    const auto r = run(b);
    EXPECT_NEAR(value(r, metric::kLateSender, "program/MPI_Waitall", 0), 60 * kTick, 1e-15);
}

TEST(LateSender, ReceivesMatchInPostingOrderNotCompletionOrder) {
    // Two receives from the same sender with the same tag: the first posted gets the
    // first message even when its wait completes second.
    TraceBuilder b(2);
    begin(b, 2);
    b.mpi_irecv(1, 10, 11, 1); // matches the send at 50
    b.mpi_irecv(1, 12, 13, 2); // matches the send at 90
    b.mpi_wait_recv(1, 20, 100, 0, b.world(), 4, 8, 2);
    b.mpi_wait_recv(1, 101, 102, 0, b.world(), 4, 8, 1);
    b.mpi_send(0, 50, 51, 1, b.world(), 4, 8);
    b.mpi_send(0, 90, 91, 1, b.world(), 4, 8);
    end(b, 2, 300);
    const auto r = run(b);
    // The first wait (request 2) waited for the second send: 90 - 20.
    EXPECT_NEAR(total(r, metric::kLateSender, 1), 70 * kTick, 1e-15);
}

TEST(LateSender, SendrecvWaitsForItsPartner) {
    TraceBuilder b(2);
    begin(b, 2);
    const auto sendrecv = b.mpi_region("MPI_Sendrecv");
    b.enter(0, 10, sendrecv);
    b.send(0, 11, 1, b.world(), 0, 8);
    b.recv(0, 60, 1, b.world(), 0, 8);
    b.leave(0, 61, sendrecv);
    b.enter(1, 50, sendrecv);
    b.send(1, 51, 0, b.world(), 0, 8);
    b.recv(1, 59, 0, b.world(), 0, 8);
    b.leave(1, 60, sendrecv);
    end(b, 2, 200);
    const auto r = run(b);
    EXPECT_NEAR(value(r, metric::kLateSender, "program/MPI_Sendrecv", 0), 40 * kTick, 1e-15);
    EXPECT_EQ(total(r, metric::kLateSender, 1), 0.0);
    EXPECT_EQ(total(r, metric::kLateReceiver, 0), 0.0); // Sendrecv is not a pure send
}

TEST(LateSender, SubCommunicatorRanksAreTranslated) {
    // Communicator {2, 0}: its rank 0 is world rank 2, its rank 1 is world rank 0.
    TraceBuilder b(3);
    begin(b, 3);
    const auto pair = b.communicator("pair", {2, 0}, b.world());
    b.mpi_send(2, 90, 95, /*comm rank*/ 1, pair, 0, 8);
    b.mpi_recv(0, 30, 100, /*comm rank*/ 0, pair, 0, 8);
    end(b, 3, 200);
    const auto r = run(b);
    EXPECT_NEAR(value(r, metric::kLateSender, "program/MPI_Recv", 0), 60 * kTick, 1e-15);
    EXPECT_TRUE(r.warnings.empty());
}

TEST(LateSender, WrongOrderIsThePartWithAnEarlierMessagePending) {
    TraceBuilder b(2);
    begin(b, 2);
    b.mpi_send(0, 10, 11, 1, b.world(), 1, 8); // A, received second
    b.mpi_send(0, 50, 51, 1, b.world(), 2, 8); // B, received first
    b.mpi_recv(1, 20, 60, 0, b.world(), 2, 8); // waits 30 for B while A is pending
    b.mpi_recv(1, 70, 71, 0, b.world(), 1, 8);
    end(b, 2, 300);
    const auto r = run(b);
    EXPECT_NEAR(total(r, metric::kLateSender, 1), 30 * kTick, 1e-15);
    EXPECT_NEAR(total(r, metric::kLateSenderWrongOrder, 1), 30 * kTick, 1e-15);
    // Exclusive Late Sender (without its Wrong Order child) is zero here.
    const int ls = *r.report.find_metric(metric::kLateSender);
    const int cp = *r.report.find_callpath("program/MPI_Recv");
    EXPECT_NEAR(r.report.value(ls, cp, 1), 0.0, 1e-18);
}

TEST(LateReceiver, BlockingSendWaitsForTheReceiveToBePosted) {
    TraceBuilder b(2);
    begin(b, 2);
    const auto ssend = b.mpi_region("MPI_Ssend");
    b.enter(0, 10, ssend);
    b.send(0, 10, 1, b.world(), 0, 1 << 20);
    b.leave(0, 100, ssend);
    b.mpi_recv(1, 70, 100, 0, b.world(), 0, 1 << 20);
    end(b, 2, 200);
    const auto r = run(b);
    EXPECT_NEAR(value(r, metric::kLateReceiver, "program/MPI_Ssend", 0), 60 * kTick, 1e-15);
    EXPECT_EQ(total(r, metric::kLateSender, 1), 0.0);
}

TEST(Collectives, WaitAtNxNAndCompletion) {
    TraceBuilder b(3);
    begin(b, 3);
    const trace::Time enter[] = {10, 20, 50}, leave[] = {60, 61, 62};
    for (uint32_t r = 0; r < 3; ++r)
        b.mpi_collective(r, enter[r], leave[r], CollectiveOp::Allreduce, b.world());
    end(b, 3, 200);
    const auto r = run(b);
    const double wait[] = {40, 30, 0}, completion[] = {0, 1, 2};
    for (uint32_t loc = 0; loc < 3; ++loc) {
        EXPECT_NEAR(value(r, metric::kWaitNxN, "program/MPI_Allreduce", loc), wait[loc] * kTick,
                    1e-15);
        EXPECT_NEAR(value(r, metric::kNxNCompletion, "program/MPI_Allreduce", loc),
                    completion[loc] * kTick, 1e-15);
    }
}

TEST(Collectives, WaitAtBarrier) {
    TraceBuilder b(2);
    begin(b, 2);
    b.mpi_collective(0, 10, 100, CollectiveOp::Barrier, b.world());
    b.mpi_collective(1, 90, 101, CollectiveOp::Barrier, b.world());
    end(b, 2, 200);
    const auto r = run(b);
    EXPECT_NEAR(value(r, metric::kBarrierWait, "program/MPI_Barrier", 0), 80 * kTick, 1e-15);
    EXPECT_EQ(value(r, metric::kBarrierWait, "program/MPI_Barrier", 1), 0.0);
    EXPECT_NEAR(value(r, metric::kBarrierCompletion, "program/MPI_Barrier", 1), 1 * kTick, 1e-15);
    EXPECT_NEAR(value(r, metric::kSynchronization, "program/MPI_Barrier", 0), 90 * kTick, 1e-15);
}

TEST(Collectives, LateBroadcastOnNonRoots) {
    TraceBuilder b(3);
    begin(b, 3);
    const trace::Time enter[] = {10, 50, 30};
    for (uint32_t r = 0; r < 3; ++r)
        b.mpi_collective(r, enter[r], 60, CollectiveOp::Bcast, b.world(), /*root*/ 1);
    end(b, 3, 200);
    const auto r = run(b);
    const double wait[] = {40, 0, 20};
    for (uint32_t loc = 0; loc < 3; ++loc)
        EXPECT_NEAR(value(r, metric::kLateBroadcast, "program/MPI_Bcast", loc), wait[loc] * kTick,
                    1e-15);
}

TEST(Collectives, EarlyReduceOnTheRootOnly) {
    TraceBuilder b(3);
    begin(b, 3);
    const trace::Time enter[] = {10, 30, 70};
    for (uint32_t r = 0; r < 3; ++r)
        b.mpi_collective(r, enter[r], 80, CollectiveOp::Reduce, b.world(), /*root*/ 0);
    end(b, 3, 200);
    const auto r = run(b);
    EXPECT_NEAR(value(r, metric::kEarlyReduce, "program/MPI_Reduce", 0), 60 * kTick, 1e-15);
    EXPECT_EQ(total(r, metric::kEarlyReduce, 1), 0.0);
    EXPECT_EQ(total(r, metric::kEarlyReduce, 2), 0.0);
}

TEST(Collectives, SubCommunicatorCollectivesMatchAmongTheirMembers) {
    TraceBuilder b(4);
    begin(b, 4);
    const auto odd = b.communicator("odd", {1, 3}, b.world());
    const auto even = b.communicator("even", {0, 2}, b.world());
    b.mpi_collective(1, 10, 100, CollectiveOp::Allreduce, odd);
    b.mpi_collective(3, 90, 100, CollectiveOp::Allreduce, odd);
    b.mpi_collective(0, 40, 60, CollectiveOp::Allreduce, even);
    b.mpi_collective(2, 50, 60, CollectiveOp::Allreduce, even);
    end(b, 4, 300);
    const auto r = run(b);
    EXPECT_NEAR(total(r, metric::kWaitNxN, 1), 80 * kTick, 1e-15);
    EXPECT_NEAR(total(r, metric::kWaitNxN, 0), 10 * kTick, 1e-15);
    EXPECT_EQ(total(r, metric::kWaitNxN, 3), 0.0);
}

TEST(Time, EveryTickOfEveryLocationIsAccountedFor) {
    TraceBuilder b(2);
    begin(b, 2);
    const auto solver = b.region("solver");
    b.enter(0, 20, solver);
    b.mpi_send(0, 30, 40, 1, b.world(), 0, 8);
    b.leave(0, 90, solver);
    b.mpi_recv(1, 10, 50, 0, b.world(), 0, 8);
    end(b, 2, 200);
    const auto r = run(b);
    // Location 0 runs from 0 to 205: in regions Init 5 + solver 70 + Finalize 5 (Time, as
    // Scalasca counts it), the other 125 ticks outside every region; MPI: Init 5 + Send 10 +
    // Finalize 5.
    EXPECT_NEAR(total(r, metric::kTime, 0), 80 * kTick, 1e-15);
    EXPECT_NEAR(total(r, metric::kOutsideRegions, 0), 125 * kTick, 1e-15);
    EXPECT_NEAR(value(r, metric::kOutsideRegions, "program/solver", 0), 0.0, 1e-18);
    EXPECT_NEAR(total(r, metric::kMpi, 0), 20 * kTick, 1e-15);
    EXPECT_NEAR(value(r, metric::kTime, "program/solver", 0), 70 * kTick, 1e-15);
    const int time = *r.report.find_metric(metric::kTime);
    const int solver_cp = *r.report.find_callpath("program/solver");
    // Exclusive in both trees: solver's own 60 ticks, none of which is MPI.
    EXPECT_NEAR(r.report.value(time, solver_cp, 0), 60 * kTick, 1e-15);
    const int visits = *r.report.find_metric(metric::kVisits);
    EXPECT_EQ(r.report.value(visits, *r.report.find_callpath("program/solver/MPI_Send"), 0), 1.0);
    // The artificial root is no region the program entered.
    EXPECT_EQ(r.report.value(visits, 0, 0), 0.0);
    EXPECT_EQ(total(r, metric::kVisits, 0), 4.0); // Init, solver, Send, Finalize
}

TEST(BadInput, UnmatchedMessagesAndIncompleteCollectivesAreWarnedAbout) {
    TraceBuilder b(2);
    begin(b, 2);
    b.mpi_send(0, 10, 20, 1, b.world(), 9, 8);                       // nobody receives it
    b.mpi_collective(0, 30, 40, CollectiveOp::Allreduce, b.world()); // rank 1 never joins
    end(b, 2, 200);
    const auto r = run(b);
    ASSERT_GE(r.warnings.size(), 2u);
    bool send = false, collective = false;
    for (const auto& w : r.warnings) {
        send |= w.find("send without a matching receive") != std::string::npos &&
                w.find("location 0") != std::string::npos;
        collective |= w.find("never reached it") != std::string::npos;
    }
    EXPECT_TRUE(send);
    EXPECT_TRUE(collective);
    EXPECT_EQ(total(r, metric::kWaitNxN, 0), 0.0);
}

TEST(BadInput, UnbalancedRegionsDoNotStopTheAnalysis) {
    TraceBuilder b(1);
    b.mpi_init(0, 0, 5);
    const auto lost = b.region("lost");
    b.enter(0, 10, lost); // never left: the trace was cut short
    const auto r = run(b);
    ASSERT_FALSE(r.warnings.empty());
    EXPECT_NE(r.warnings[0].find("never left"), std::string::npos);
    // MPI_Init [0, 5] is Time; the open region ends with the trace (at 10, as it began).
    EXPECT_NEAR(total(r, metric::kTime, 0), 5 * kTick, 1e-15);
    EXPECT_NEAR(total(r, metric::kOutsideRegions, 0), 5 * kTick, 1e-15);
}

TEST(EndToEnd, WrittenTraceGivesTheSameSeverities) {
    TraceBuilder b(2);
    begin(b, 2);
    b.mpi_send(0, 100, 110, 1, b.world(), 7, 64);
    b.mpi_recv(1, 40, 120, 0, b.world(), 7, 64);
    end(b, 2, 200);
    topolens::test::ScratchDir scratch;
    const trace::Trace read = trace::read_trace(b.write((scratch / "t").string()));
    const auto r = analysis::analyze(read, patterns::all_patterns());
    EXPECT_NEAR(value(r, metric::kLateSender, "program/MPI_Recv", 1), 60 * kTick, 1e-15);
}

TEST(BadInput, TimeGoingBackwardsIsReported) {
    TraceBuilder b(1);
    b.mpi_init(0, 0, 5);
    const auto solver = b.region("solver");
    b.enter(0, 50, solver);
    b.leave(0, 40, solver); // earlier than its enter
    const auto r = run(b);
    ASSERT_FALSE(r.warnings.empty());
    EXPECT_NE(r.warnings[0].find("time goes backwards"), std::string::npos) << r.warnings[0];
    EXPECT_NE(r.warnings[0].find("event 3"), std::string::npos) << r.warnings[0];
}

TEST(LateSender, WaitanyCompletingOneOfTwoReceives) {
    TraceBuilder b(3);
    begin(b, 3);
    b.mpi_irecv(0, 10, 11, 1);
    b.mpi_irecv(0, 12, 13, 2);
    const auto waitany = b.mpi_region("MPI_Waitany");
    b.enter(0, 20, waitany);
    b.irecv(0, 90, 2, b.world(), 0, 8, 2); // the message of rank 2 arrived first
    b.leave(0, 91, waitany);
    b.enter(0, 100, waitany);
    b.irecv(0, 130, 1, b.world(), 0, 8, 1);
    b.leave(0, 131, waitany);
    b.mpi_send(2, 70, 71, 0, b.world(), 0, 8);
    b.mpi_send(1, 120, 121, 0, b.world(), 0, 8);
    end(b, 3, 300);
    const auto r = run(b);
    // First Waitany: 70 - 20; second: 120 - 100.
    EXPECT_NEAR(value(r, metric::kLateSender, "program/MPI_Waitany", 0), 70 * kTick, 1e-15);
}

namespace {

// A pattern taking a part of Late Sender into a metric tree of its own, the way the wavefront
// patterns do: it sees every published instance, Wrong Order ones included, and keeps those
// whose sender is rank 1. Serial only: the test reads what it saw.
struct FromRankOne : analysis::Pattern {
    int part = -1;
    std::vector<std::pair<analysis::Time, patterns::WrongOrder>> seen;
    std::string name() const override { return "from rank 1"; }
    std::unique_ptr<analysis::Pattern> clone() const override { return nullptr; }
    void merge(analysis::Pattern&) override {}
    void define_metrics(report::Report& r) override {
        part = analysis::define_metric(r, "", "test_from_rank_1", "Late Sender from rank 1",
                                       "test part of Late Sender");
    }
    void subscribe(analysis::Dispatcher& d) override {
        d.subscribe<patterns::LateSenderInstance>(
            [this](analysis::Context& c, const patterns::LateSenderInstance& ls) {
                seen.emplace_back(ls.wait, ls.wrong_order);
                if (ls.message.send_call.location != 1) return;
                c.add(part, ls.message.recv_call.callpath, ls.message.recv_call.location,
                      c.seconds(ls.wait));
            });
    }
};

} // namespace

TEST(Engine, PatternsSeeEveryPublishedLateSenderInstanceWrongOrderIncluded) {
    TraceBuilder b(3);
    begin(b, 3);
    // Rank 0 receives from rank 1 first (sent at 40, a 30-tick wait), then from rank 2,
    // whose message was sent earlier (at 5): the first wait is Wrong Order.
    b.mpi_recv(0, 10, 50, 1, b.world(), 0, 8);
    b.mpi_recv(0, 60, 70, 2, b.world(), 0, 8);
    b.mpi_send(1, 40, 41, 0, b.world(), 0, 8);
    b.mpi_send(2, 5, 6, 0, b.world(), 0, 8);
    end(b, 3, 300);
    auto list = patterns::all_patterns();
    auto part = std::make_unique<FromRankOne>();
    FromRankOne* probe = part.get();
    list.push_back(std::move(part));
    const auto r = analysis::analyze(b.trace(), list);
    using Seen = std::vector<std::pair<analysis::Time, patterns::WrongOrder>>;
    EXPECT_EQ(probe->seen, (Seen{{30, patterns::WrongOrder::DifferentSources}}));
    EXPECT_NEAR(total(r, "test_from_rank_1", 0), 30 * kTick, 1e-15);
    // Late Sender and its Wrong Order part stay whole: the part lives in its own tree.
    EXPECT_NEAR(total(r, metric::kLateSender, 0), 30 * kTick, 1e-15);
    EXPECT_NEAR(total(r, metric::kLateSenderWrongOrder, 0), 30 * kTick, 1e-15);
}
