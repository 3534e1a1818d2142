// Threads: several locations per process (TraceBuilder::add_thread), exact timestamps
// (1 tick = 1 ns). Messages are matched between processes, whichever threads sent and
// received them: per channel, sends in the order they were made and receives in the order
// they were posted (when their call began); a process's k-th collective on a
// communicator is its part of the k-th instance, whichever thread made it. Wait states go
// to the thread that waited.
#include "pattern_test_util.h"
#include "patterns/metric_names.h"
#include "trace/builder.h"
#include "trace/matching.h"

#include <gtest/gtest.h>

using namespace topolens;
using trace::CollectiveOp;
using trace::TraceBuilder;
namespace metric = patterns::metric;
using namespace topolens::test;

namespace {

// The (send location, receive location) of every matched message, by receive location.
std::vector<std::pair<uint32_t, uint32_t>> pairs(const trace::Matching& m) {
    std::vector<std::pair<uint32_t, uint32_t>> out;
    for (const auto& message : m.messages)
        out.push_back({message.send.location, message.recv.location});
    std::sort(out.begin(), out.end(),
              [](const auto& a, const auto& b) { return a.second < b.second; });
    return out;
}

} // namespace

TEST(ThreadMatching, ReceivesOfAProcessTakeTheSendsInTheOrderTheyWerePosted) {
    TraceBuilder b(2);
    const auto sender_thread = b.add_thread(0);   // location 2
    const auto receiver_thread = b.add_thread(1); // location 3
    begin(b, 2);
    // Rank 0: its thread sends first (10), its main thread second (20), same channel.
    b.mpi_send(sender_thread, 10, 12, 1, b.world(), 5, 8);
    b.mpi_send(0, 20, 22, 1, b.world(), 5, 16);
    // Rank 1: the thread posts first (5) but its record comes last (45): it gets the first
    // message; the main thread, posted at 8, the second.
    b.mpi_recv(receiver_thread, 5, 45, 0, b.world(), 5, 8);
    b.mpi_recv(1, 8, 40, 0, b.world(), 5, 16);
    end(b, 2, 100);

    const trace::Matching m = trace::match(b.trace(), 1);
    EXPECT_EQ(m.unmatched_sends, 0u);
    EXPECT_EQ(m.unmatched_receives, 0u);
    EXPECT_TRUE(m.warnings.empty()) << m.warnings.front();
    const std::vector<std::pair<uint32_t, uint32_t>> expected = {{0, 1},
                                                                 {sender_thread, receiver_thread}};
    EXPECT_EQ(pairs(m), expected);
    // The same with several matching threads.
    EXPECT_EQ(pairs(trace::match(b.trace(), 4)), expected);

    // Late Sender on the receiving threads: 10 - 5 and 20 - 8 ticks, nothing elsewhere.
    const auto r = run(b);
    EXPECT_NEAR(total(r, metric::kLateSender, receiver_thread), 5 * kTick, 1e-15);
    EXPECT_NEAR(total(r, metric::kLateSender, 1), 12 * kTick, 1e-15);
    EXPECT_EQ(total(r, metric::kLateSender, 0), 0.0);
    EXPECT_EQ(total(r, metric::kLateSender, sender_thread), 0.0);
}

TEST(ThreadMatching, SendsOfAProcessAreQueuedInTheOrderTheyWereMade) {
    TraceBuilder b(2);
    const auto thread = b.add_thread(0); // location 2
    begin(b, 2);
    b.mpi_send(0, 30, 31, 1, b.world(), 1, 16);
    b.mpi_send(thread, 10, 11, 1, b.world(), 1, 8); // made first, on the other thread
    b.mpi_recv(1, 6, 12, 0, b.world(), 1, 8);
    b.mpi_recv(1, 20, 35, 0, b.world(), 1, 16);
    end(b, 2, 100);
    const trace::Matching m = trace::match(b.trace(), 1);
    ASSERT_EQ(m.messages.size(), 2u);
    EXPECT_EQ(m.unmatched_receives, 0u);
    // Receive 1 (record 3 of location 1, after MPI_Init's two and its Enter) gets the
    // thread's send, receive 2 the main thread's.
    for (const auto& message : m.messages) {
        const auto& recv = b.trace().locations[1].events[message.recv.event];
        const auto& send = b.trace().locations[message.send.location].events[message.send.event];
        EXPECT_EQ(recv.bytes, send.bytes);
    }
    const auto r = run(b);
    // Late Sender of each receive: 10 - 6 and 30 - 20 ticks.
    EXPECT_NEAR(total(r, metric::kLateSender, 1), 14 * kTick, 1e-15);
}

TEST(ThreadMatching, AProcessesKthCollectiveIsItsPartWhicheverThreadMadeIt) {
    TraceBuilder b(2);
    const auto thread0 = b.add_thread(0); // location 2
    const auto thread1 = b.add_thread(1); // location 3
    begin(b, 2);
    b.mpi_collective(0, 50, 60, CollectiveOp::Allreduce, b.world());
    b.mpi_collective(thread1, 53, 60, CollectiveOp::Allreduce, b.world());
    b.mpi_collective(thread0, 70, 80, CollectiveOp::Allreduce, b.world());
    b.mpi_collective(1, 74, 80, CollectiveOp::Allreduce, b.world());
    end(b, 2, 100);
    const trace::Matching m = trace::match(b.trace(), 1);
    EXPECT_TRUE(m.warnings.empty()) << m.warnings.front();
    EXPECT_EQ(m.incomplete_collectives, 0u);
    ASSERT_EQ(m.collectives.size(), 2u);
    ASSERT_EQ(m.collectives[0].members.size(), 2u);
    EXPECT_EQ(m.collectives[0].members[0].location, 0u);
    EXPECT_EQ(m.collectives[0].members[1].location, thread1);
    EXPECT_EQ(m.collectives[1].members[0].location, thread0);
    EXPECT_EQ(m.collectives[1].members[1].location, 1u);
    // Wait at NxN: the early thread of each instance waits for the other process.
    const auto r = run(b);
    EXPECT_NEAR(total(r, metric::kWaitNxN, 0), 3 * kTick, 1e-15);
    EXPECT_NEAR(total(r, metric::kWaitNxN, thread0), 4 * kTick, 1e-15);
    EXPECT_EQ(total(r, metric::kWaitNxN, 1), 0.0);
    EXPECT_EQ(total(r, metric::kWaitNxN, thread1), 0.0);
}

TEST(ThreadMatching, AReceivePostedByOneThreadAndCompletedByAnotherKeepsItsPostingTime) {
    TraceBuilder b(2);
    const auto sender_thread = b.add_thread(0);   // location 2
    const auto receiver_thread = b.add_thread(1); // location 3
    begin(b, 2);
    b.mpi_send(0, 10, 11, 1, b.world(), 1, 8);
    b.mpi_send(0, 20, 21, 1, b.world(), 1, 16);
    // Rank 1: the thread posts request 7 at 5; the main thread receives (posted at 8) and
    // then completes request 7. MPI gives the first message to the receive posted first.
    b.mpi_irecv(receiver_thread, 5, 6, 7);
    b.mpi_recv(1, 8, 25, 0, b.world(), 1, 16);
    b.mpi_wait_recv(1, 30, 40, 0, b.world(), 1, 8, 7);
    // A send request started by rank 0's thread and completed by its main thread: matched,
    // and a warning says its completion is not followed.
    b.mpi_isend(sender_thread, 50, 51, 1, b.world(), 2, 4, 9);
    b.mpi_wait_send(0, 60, 61, 9);
    b.mpi_recv(1, 55, 70, 0, b.world(), 2, 4);
    end(b, 2, 100);

    for (unsigned threads : {1u, 3u}) {
        const trace::Matching m = trace::match(b.trace(), threads);
        EXPECT_EQ(m.unmatched_sends, 0u);
        EXPECT_EQ(m.unmatched_receives, 0u);
        ASSERT_EQ(m.messages.size(), 3u);
        for (const auto& message : m.messages) {
            const auto& recv =
                b.trace().locations[message.recv.location].events[message.recv.event];
            const auto& send =
                b.trace().locations[message.send.location].events[message.send.event];
            EXPECT_EQ(message.recv.location, 1u);
            EXPECT_EQ(recv.bytes, send.bytes) << "receive " << message.recv.event;
        }
        ASSERT_EQ(m.warnings.size(), 1u);
        EXPECT_NE(m.warnings[0].find("location 0 (rank 0)"), std::string::npos) << m.warnings[0];
        EXPECT_NE(m.warnings[0].find("completes a send request this thread did not start"),
                  std::string::npos)
            << m.warnings[0];
    }
}
