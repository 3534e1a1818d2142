// An analysis shared out to ranks: each rank reads and matches its share of the locations
// and, through the Exchange, sees exactly the serial matching of the messages and
// collectives its locations take part in, under the same ids, with the same warnings and
// counts as the whole trace's. Ranks run as threads (ThreadExchange), as in an MPI run.
#include "test_util.h"
#include "trace/builder.h"
#include "trace/bytes.h"
#include "trace/location_shares.h"
#include "trace/matching.h"
#include "trace/reader.h"
#include "trace/synthetic.h"
#include "trace/thread_exchange.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <barrier>
#include <cstddef>
#include <cstring>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

using namespace topolens;
using test::ScratchDir;

namespace {

TEST(LocationShares, WholeProcessesAboutAsHeavyEach) {
    // Four processes, the second with two threads (locations 1 and 2).
    const std::vector<uint32_t> process = {0, 1, 1, 2, 3};
    const std::vector<uint64_t> weight = {10, 10, 10, 10, 10};
    auto shares = trace::share_locations(process, weight, 2);
    ASSERT_EQ(shares.size(), 2u);
    EXPECT_EQ(shares[0].first, 0u);
    EXPECT_EQ(shares[0].last, 3u); // 30 of 50: the thread pair stays together
    EXPECT_EQ(shares[1].first, 3u);
    EXPECT_EQ(shares[1].last, 5u);
    shares = trace::share_locations(process, weight, 4);
    ASSERT_EQ(shares.size(), 4u);
    const uint32_t firsts[] = {0, 1, 3, 4}, lasts[] = {1, 3, 4, 5};
    for (size_t r = 0; r < 4; ++r) {
        EXPECT_EQ(shares[r].first, firsts[r]) << "rank " << r;
        EXPECT_EQ(shares[r].last, lasts[r]) << "rank " << r;
    }
    // One heavy location takes a share of its own.
    shares = trace::share_locations({0, 1, 2, 3}, {100, 1, 1, 1}, 2);
    EXPECT_EQ(shares[0].last, 1u);
    EXPECT_EQ(shares[1].first, 1u);
    EXPECT_EQ(shares[1].last, 4u);
}

TEST(LocationShares, MoreRanksThanProcessesAreRefusedByName) {
    try {
        trace::share_locations({0, 1, 1, 2}, {1, 1, 1, 1}, 4);
        FAIL() << "4 ranks for 3 processes were accepted";
    } catch (const trace::TraceError& e) {
        EXPECT_TRUE(test::contains_words(e.what(), "4 ranks")) << e.what();
        EXPECT_TRUE(test::contains_words(e.what(), "3 processes")) << e.what();
    }
    EXPECT_THROW(trace::share_locations({0, 1, 0}, {1, 1, 1}, 2), trace::TraceError);
}

TEST(Bytes, ValuesComeBackInOrderAndReadingPastTheEndIsCaught) {
    trace::Bytes bytes;
    trace::ByteWriter out(bytes);
    out.put<uint32_t>(7);
    out.put<double>(0.1);
    out.put_all(std::vector<uint64_t>{1, 2, 3});
    out.put_string("late sender");
    trace::ByteReader in(bytes, "test");
    EXPECT_EQ(in.get<uint32_t>(), 7u);
    EXPECT_EQ(in.get<double>(), 0.1);
    EXPECT_EQ(in.get_all<uint64_t>(), (std::vector<uint64_t>{1, 2, 3}));
    EXPECT_EQ(in.get_string(), "late sender");
    EXPECT_TRUE(in.done());
    EXPECT_THROW(in.get<uint8_t>(), std::logic_error);
}

TEST(ThreadExchange, EachRankGetsWhatEveryRankSentIt) {
    constexpr unsigned kRanks = 3;
    std::mutex lock;
    std::vector<std::vector<uint32_t>> got(kRanks);
    std::vector<std::string> errors(kRanks);
    trace::run_ranks_in_threads(kRanks, [&](trace::Exchange& ex) {
        std::vector<trace::Bytes> out(ex.size());
        for (unsigned to = 0; to < ex.size(); ++to)
            trace::ByteWriter(out[to]).put<uint32_t>(10 * ex.rank() + to);
        std::vector<uint32_t> mine;
        for (const trace::Bytes& in : ex.all_to_all(std::move(out)))
            mine.push_back(trace::ByteReader(in, "test").get<uint32_t>());
        std::optional<std::string> error;
        if (ex.rank() >= 1) error = "rank " + std::to_string(ex.rank()) + " failed";
        const auto first = ex.first_error(error);
        const std::lock_guard<std::mutex> hold(lock);
        got[ex.rank()] = mine;
        errors[ex.rank()] = first.value_or("none");
    });
    for (unsigned r = 0; r < kRanks; ++r) {
        EXPECT_EQ(got[r], (std::vector<uint32_t>{r, 10 + r, 20 + r})) << "rank " << r;
        EXPECT_EQ(errors[r], "rank 1 failed") << "rank " << r;
    }
}

bool same_call(const trace::CallSummary& x, const trace::CallSummary& y) {
    return x.enter == y.enter && x.leave == y.leave && x.region == y.region &&
           x.callpath == y.callpath;
}

// One rank's matching against the whole trace's: its share's view, under the whole
// trace's ids.
void expect_view_of_share(const trace::Trace& whole, const trace::Matching& all,
                          const trace::Matching& view) {
    const trace::LocationShare share = view.share;
    auto local = [&](uint32_t loc) { return loc >= share.first && loc < share.last; };
    ASSERT_EQ(view.calltree.size(), all.calltree.size());
    for (size_t k = 0; k < all.calltree.size(); ++k)
        EXPECT_TRUE(view.calltree[k].region == all.calltree[k].region &&
                    view.calltree[k].parent == all.calltree[k].parent)
            << "node " << k;
    EXPECT_EQ(view.warnings, all.warnings);
    EXPECT_EQ(view.unmatched_sends, all.unmatched_sends);
    EXPECT_EQ(view.unmatched_receives, all.unmatched_receives);
    EXPECT_EQ(view.incomplete_collectives, all.incomplete_collectives);
    EXPECT_EQ(view.location_of_rank, all.location_of_rank);

    std::vector<uint32_t> expected_messages;
    for (uint32_t id = 0; id < all.messages.size(); ++id)
        if (local(all.messages[id].send.location) || local(all.messages[id].recv.location))
            expected_messages.push_back(id);
    ASSERT_EQ(view.global_message_ids, expected_messages);
    ASSERT_EQ(view.messages.size(), expected_messages.size());
    ASSERT_EQ(view.message_calls.size(), expected_messages.size());
    for (size_t k = 0; k < view.messages.size(); ++k) {
        const uint32_t id = expected_messages[k];
        const trace::MessageMatch& x = view.messages[k];
        const trace::MessageMatch& y = all.messages[id];
        EXPECT_TRUE(x.send.location == y.send.location && x.send.event == y.send.event &&
                    x.recv.location == y.recv.location && x.recv.event == y.recv.event &&
                    x.recv_posted == y.recv_posted)
            << "message " << id;
        const trace::MessageCalls& a = view.message_calls[k];
        const trace::MessageCalls& b = all.message_calls[id];
        EXPECT_TRUE(same_call(a.send_call, b.send_call) && same_call(a.recv_call, b.recv_call) &&
                    a.send_time == b.send_time && a.recv_time == b.recv_time &&
                    a.recv_post == b.recv_post)
            << "message " << id;
    }
    std::vector<uint32_t> expected_collectives;
    for (uint32_t id = 0; id < all.collectives.size(); ++id)
        for (const trace::EventRef& m : all.collectives[id].members)
            if (m.location != trace::kNone && local(m.location)) {
                expected_collectives.push_back(id);
                break;
            }
    ASSERT_EQ(view.global_collective_ids, expected_collectives);
    // A rank hears of a collective only from its members, and only if one of its own
    // locations takes part: each other member's end once.
    uint64_t expected_ends = 0;
    for (const uint32_t id : expected_collectives)
        for (const trace::EventRef& m : all.collectives[id].members)
            if (m.location != trace::kNone && !local(m.location)) ++expected_ends;
    EXPECT_EQ(view.collective_ends_received, expected_ends);
    ASSERT_EQ(view.collectives.size(), expected_collectives.size());
    ASSERT_EQ(view.member_calls.size(), expected_collectives.size());
    for (size_t k = 0; k < view.collectives.size(); ++k) {
        const uint32_t id = expected_collectives[k];
        const trace::CollectiveMatch& x = view.collectives[k];
        const trace::CollectiveMatch& y = all.collectives[id];
        EXPECT_TRUE(x.op == y.op && x.comm == y.comm && x.root == y.root) << "collective " << id;
        ASSERT_EQ(x.members.size(), y.members.size());
        for (size_t m = 0; m < x.members.size(); ++m) {
            EXPECT_TRUE(x.members[m].location == y.members[m].location &&
                        x.members[m].event == y.members[m].event)
                << "collective " << id << " member " << m;
            if (y.members[m].location != trace::kNone) {
                EXPECT_TRUE(same_call(view.member_calls[k][m],
                                      trace::collective_call(whole, all, y.members[m])))
                    << "collective " << id << " member " << m;
            }
        }
    }

    // Per location: the share's lists, under the view's ids; nothing for the others.
    auto to_whole = [](const std::vector<std::pair<uint32_t, uint32_t>>& list,
                       const std::vector<uint32_t>& ids) {
        auto out = list;
        for (auto& [event, id] : out)
            if (id != trace::kNone) id = ids[id];
        return out;
    };
    for (uint32_t loc = 0; loc < all.frames.size(); ++loc) {
        SCOPED_TRACE("location " + std::to_string(loc));
        if (!local(loc)) {
            EXPECT_TRUE(view.frames[loc].empty() && view.receives_of[loc].empty() &&
                        view.sends_of[loc].empty() && view.collectives_of[loc].empty() &&
                        view.callpath_nodes[loc].empty());
            continue;
        }
        EXPECT_EQ(view.callpath_nodes[loc], all.callpath_nodes[loc]);
        ASSERT_EQ(view.frames[loc].size(), all.frames[loc].size());
        for (size_t i = 0; i < all.frames[loc].size(); ++i)
            ASSERT_TRUE(view.frames[loc][i].frame == all.frames[loc][i].frame &&
                        view.frames[loc][i].callpath == all.frames[loc][i].callpath);
        EXPECT_EQ(to_whole(view.receives_of[loc], view.global_message_ids), all.receives_of[loc]);
        EXPECT_EQ(to_whole(view.sends_of[loc], view.global_message_ids), all.sends_of[loc]);
        EXPECT_EQ(to_whole(view.collectives_of[loc], view.global_collective_ids),
                  all.collectives_of[loc]);
        EXPECT_EQ(view.send_completions[loc], all.send_completions[loc]);
        EXPECT_EQ(view.message_records[loc], all.message_records[loc]);
    }
}

// Each rank's matching of its share of the trace at `anchor`, `ranks` ranks as threads.
std::vector<trace::Matching> match_on_ranks(const std::string& anchor, unsigned ranks) {
    std::vector<trace::Matching> views(ranks);
    trace::run_ranks_in_threads(ranks, [&](trace::Exchange& ex) {
        views[ex.rank()] = trace::read_and_match_share(anchor, ex, 1).second;
    });
    return views;
}

void expect_every_share_sees_the_whole(const std::string& anchor, unsigned max_ranks) {
    const auto [whole, all] = trace::read_and_match(anchor, 1);
    for (unsigned ranks = 1; ranks <= max_ranks; ++ranks) {
        SCOPED_TRACE(std::to_string(ranks) + " ranks");
        std::vector<trace::Matching> views(ranks);
        std::vector<trace::Trace> traces(ranks);
        trace::run_ranks_in_threads(ranks, [&](trace::Exchange& ex) {
            auto [t, m] = trace::read_and_match_share(anchor, ex, 1);
            traces[ex.rank()] = std::move(t);
            views[ex.rank()] = std::move(m);
        });
        uint32_t next = 0;
        for (unsigned r = 0; r < ranks; ++r) {
            SCOPED_TRACE("rank " + std::to_string(r));
            EXPECT_EQ(views[r].share.first, next);
            next = views[r].share.last;
            expect_view_of_share(whole, all, views[r]);
        }
        EXPECT_EQ(next, whole.locations.size());
    }
}

std::string synthetic(const ScratchDir& dir, const std::string& name, trace::SynthOptions o) {
    return trace::synthesize(o).builder.write((dir / name).string());
}

TEST(SharedMatching, EveryRankSeesTheWholeTracesMatchingOfItsShare) {
    ScratchDir dir;
    trace::SynthOptions mixed;
    mixed.grid = {4, 3};
    mixed.iterations = 4;
    expect_every_share_sees_the_whole(synthetic(dir, "mixed", mixed), 5);

    trace::SynthOptions halo;
    halo.pattern = trace::SynthPattern::Halo;
    halo.grid = {2, 2};
    halo.periodic = {true, true};
    halo.variant = trace::SynthVariant::Nonblocking;
    halo.iterations = 3;
    expect_every_share_sees_the_whole(synthetic(dir, "halo", halo), 4);

    trace::SynthOptions sweep;
    sweep.pattern = trace::SynthPattern::Sweep;
    sweep.grid = {3, 3};
    sweep.receive = trace::SynthReceive::Waitall;
    sweep.between = trace::SynthBetween::Allreduce;
    sweep.iterations = 2;
    expect_every_share_sees_the_whole(synthetic(dir, "sweep", sweep), 4);

    trace::SynthOptions collectives;
    collectives.pattern = trace::SynthPattern::Collectives;
    collectives.ranks = 6;
    collectives.iterations = 3;
    expect_every_share_sees_the_whole(synthetic(dir, "collectives", collectives), 3);
}

// Defects are warned about in the serial order, counted over the whole trace, on every rank.
TEST(SharedMatching, DefectsAreWarnedAboutAsInTheWholeTrace) {
    trace::TraceBuilder b(4);
    for (uint32_t r = 0; r < 4; ++r) b.mpi_init(r, 0, 5);
    // 0 -> 3 matched (Isend / Irecv + Wait), 0 -> 2 twice but received once (an unmatched
    // send), 1 waits for a message from 3 that never comes (an unmatched receive).
    b.mpi_isend(0, 10, 12, 3, b.world(), 1, 8, 77);
    b.mpi_irecv(3, 10, 11, 5);
    b.mpi_wait_recv(3, 20, 30, 0, b.world(), 1, 8, 5);
    b.mpi_wait_send(0, 14, 16, 77);
    b.mpi_send(0, 20, 22, 2, b.world(), 2, 8);
    b.mpi_send(0, 24, 26, 2, b.world(), 2, 8);
    b.mpi_recv(2, 18, 30, 0, b.world(), 2, 8);
    b.mpi_recv(1, 18, 40, 3, b.world(), 9, 8);
    // A barrier of all, then an allreduce rank 3 never reaches (trace cut short).
    for (uint32_t r = 0; r < 4; ++r)
        b.mpi_collective(r, 50 + r, 60, trace::CollectiveOp::Barrier, b.world());
    for (uint32_t r = 0; r < 3; ++r)
        b.mpi_collective(r, 70, 80 + r, trace::CollectiveOp::Allreduce, b.world());
    for (uint32_t r = 0; r < 4; ++r) b.mpi_finalize(r, 100, 105);
    ScratchDir dir;
    const std::string anchor = b.write((dir / "defects").string());
    const auto [whole, all] = trace::read_and_match(anchor, 1);
    ASSERT_EQ(all.unmatched_sends, 1u);
    ASSERT_EQ(all.unmatched_receives, 1u);
    ASSERT_EQ(all.incomplete_collectives, 1u);
    ASSERT_EQ(all.warnings.size(), 3u); // one of each
    expect_every_share_sees_the_whole(anchor, 4);
}

// Collectives on sub-communicators whose members live on some ranks only, made (first
// reached) by processes on other ranks than their first member's, some incomplete, one on
// MPI_COMM_SELF, one on a communicator its caller is not in, one whose members disagree on
// the operation. Six processes:
//   A = {0, 1}: two allreduces;        B = {2, 3, 4}: three barriers, 3 reaches two;
//   C = {4, 1}: two broadcasts, 1 reaches one (so process 4 makes the second);
//   D = {5, 0}: 0 reduces, 5 broadcasts (a mismatch); world: a barrier, then an allreduce 3
//   never reaches; 5: a barrier on MPI_COMM_SELF and a barrier on A, which it is not in.
std::string sub_communicator_trace(const ScratchDir& dir) {
    using Op = trace::CollectiveOp;
    trace::TraceBuilder b(6);
    const trace::Ref a = b.communicator("A", {0, 1}, b.world());
    const trace::Ref bb = b.communicator("B", {2, 3, 4}, b.world());
    const trace::Ref c = b.communicator("C", {4, 1}, b.world());
    const trace::Ref d = b.communicator("D", {5, 0}, b.world());
    for (uint32_t r = 0; r < 6; ++r) b.mpi_init(r, 0, 5);
    b.mpi_collective(0, 10, 20, Op::Barrier, b.world());
    b.mpi_collective(0, 30, 40, Op::Allreduce, a);
    b.mpi_collective(0, 50, 60, Op::Reduce, d, 1);
    b.mpi_collective(0, 70, 80, Op::Allreduce, a);
    b.mpi_collective(0, 90, 100, Op::Allreduce, b.world());
    b.mpi_collective(1, 10, 20, Op::Bcast, c, 0);
    b.mpi_collective(1, 30, 40, Op::Barrier, b.world());
    b.mpi_collective(1, 50, 60, Op::Allreduce, a);
    b.mpi_collective(1, 70, 80, Op::Allreduce, a);
    b.mpi_collective(1, 90, 100, Op::Allreduce, b.world());
    b.mpi_collective(2, 10, 20, Op::Barrier, bb);
    b.mpi_collective(2, 30, 40, Op::Barrier, b.world());
    b.mpi_collective(2, 50, 60, Op::Barrier, bb);
    b.mpi_collective(2, 70, 80, Op::Barrier, bb);
    b.mpi_collective(2, 90, 100, Op::Allreduce, b.world());
    b.mpi_collective(3, 10, 20, Op::Barrier, bb);
    b.mpi_collective(3, 30, 40, Op::Barrier, bb);
    b.mpi_collective(3, 50, 60, Op::Barrier, b.world());
    b.mpi_collective(4, 10, 20, Op::Bcast, c, 0);
    b.mpi_collective(4, 22, 28, Op::Barrier, bb);
    b.mpi_collective(4, 30, 40, Op::Barrier, bb);
    b.mpi_collective(4, 50, 60, Op::Bcast, c, 0);
    b.mpi_collective(4, 62, 70, Op::Barrier, b.world());
    b.mpi_collective(4, 72, 80, Op::Barrier, bb);
    b.mpi_collective(4, 90, 100, Op::Allreduce, b.world());
    b.mpi_collective(5, 10, 20, Op::Barrier, b.self());
    b.mpi_collective(5, 22, 28, Op::Barrier, a);
    b.mpi_collective(5, 30, 40, Op::Bcast, d, 1);
    b.mpi_collective(5, 50, 60, Op::Barrier, b.world());
    b.mpi_collective(5, 90, 100, Op::Allreduce, b.world());
    // Some compute, to make the processes about equally heavy (shares are by weight).
    const trace::Ref compute = b.region("compute");
    for (uint32_t r = 0; r < 6; ++r)
        for (trace::Time t = 110; b.trace().locations[r].events.size() < 40; t += 2) {
            b.enter(r, t, compute);
            b.leave(r, t + 1, compute);
        }
    for (uint32_t r = 0; r < 6; ++r) b.mpi_finalize(r, 200, 205);
    return b.write((dir / "subcomms").string());
}

TEST(SharedMatching, SubCommunicatorCollectivesTravelOnlyToTheirMembersRanks) {
    ScratchDir dir;
    const std::string anchor = sub_communicator_trace(dir);
    const auto [whole, all] = trace::read_and_match(anchor, 1);
    // The serial matching, as worked out by hand: ids by first reach, process by process.
    ASSERT_EQ(all.collectives.size(), 11u);
    const trace::Ref b_comm = all.collectives[6].comm; // B's first, made by process 2
    ASSERT_EQ(whole.defs.communicators[b_comm].members, (std::vector<uint32_t>{2, 3, 4}));
    EXPECT_EQ(all.incomplete_collectives, 3u);
    ASSERT_EQ(all.warnings.size(), 5u);
    EXPECT_TRUE(test::contains_words(all.warnings[0], "not in")) << all.warnings[0];
    EXPECT_TRUE(test::contains_words(all.warnings[1], "differs")) << all.warnings[1];
    for (size_t k = 2; k < 5; ++k)
        EXPECT_TRUE(test::contains_words(all.warnings[k], "never reached")) << all.warnings[k];
    expect_every_share_sees_the_whole(anchor, 4);

    // Three ranks, two processes each: the other members' ends each rank receives.
    const std::vector<trace::Matching> views = match_on_ranks(anchor, 3);
    for (uint32_t r = 0; r < 3; ++r) {
        ASSERT_EQ(views[r].share.first, 2 * r);
        ASSERT_EQ(views[r].share.last, 2 * r + 2);
    }
    // Rank 0 (processes 0, 1): the world's 4 + 3, D's 1 (from 5), C's first 1 (from 4);
    // nothing of B, nor of C's second, which 1 never reaches.
    EXPECT_EQ(views[0].collective_ends_received, 9u);
    // Rank 1 (2, 3): the world's 4 + 4, B's 1 + 1 + 1 (from 4).
    EXPECT_EQ(views[1].collective_ends_received, 11u);
    // Rank 2 (4, 5): C's 1, B's 2 + 2 + 1, the world's 4 + 3, D's 1; MPI_COMM_SELF's none.
    EXPECT_EQ(views[2].collective_ends_received, 14u);
    // Rank 0 holds none of B's collectives (nor C's second).
    for (const trace::CollectiveMatch& x : views[0].collectives) EXPECT_NE(x.comm, b_comm);
    EXPECT_EQ(views[0].collectives.size(), 6u);
}

// The bytes of collective data a rank receives, worked out by hand. Four processes, one
// per rank: a barrier on the world (each end to every other rank, gathered), an allreduce
// on P = {1, 2} (made by 1), a broadcast on Q = {0, 1} (made by 0).
TEST(SharedMatching, CollectiveEndsTravelInBatchesPerCommunicatorOf32BytesEach) {
    using Op = trace::CollectiveOp;
    ScratchDir dir;
    trace::TraceBuilder b(4);
    const trace::Ref p = b.communicator("P", {1, 2}, b.world());
    const trace::Ref q = b.communicator("Q", {0, 1}, b.world());
    for (uint32_t r = 0; r < 4; ++r) b.mpi_init(r, 0, 5);
    for (uint32_t r = 0; r < 4; ++r) b.mpi_collective(r, 10, 20, Op::Barrier, b.world());
    b.mpi_collective(1, 30, 40, Op::Allreduce, p);
    b.mpi_collective(2, 30, 40, Op::Allreduce, p);
    b.mpi_collective(0, 50, 60, Op::Bcast, q, 0);
    b.mpi_collective(1, 50, 60, Op::Bcast, q, 0);
    for (uint32_t r = 0; r < 4; ++r) b.mpi_finalize(r, 200, 205);
    const std::string anchor = b.write((dir / "batches").string());
    const std::vector<trace::Matching> views = match_on_ranks(anchor, 4);
    // Each process's counts, which every rank gathers: on MPI_COMM_SELF (4), then its
    // communicators (8, and 8 each): 0 (world, Q) 28, 1 (world, P, Q) 36, 2 (world, P) 28,
    // 3 (world) 20. Each communicator's ends from a rank to another in one batch: the
    // communicator and the number of ends (8), the ends (32 each), the number of
    // collectives the sender's processes made (4) and these (13 each): a made end's batch
    // 57 bytes, another's 44.
    // Rank 0: the world's ends of 1, 2, 3 and Q's of 1.
    EXPECT_EQ(views[0].collective_ends_received, 4u);
    EXPECT_EQ(views[0].collective_bytes_received, (36u + 28 + 20) + 4 * 44u);
    // Rank 1: the world's of 0 (made), 2, 3; Q's of 0 (made), P's of 2.
    EXPECT_EQ(views[1].collective_ends_received, 5u);
    EXPECT_EQ(views[1].collective_bytes_received, (28u + 28 + 20) + 2 * 57u + 3 * 44u);
    // Rank 2: the world's of 0 (made), 1, 3; P's of 1 (made).
    EXPECT_EQ(views[2].collective_ends_received, 4u);
    EXPECT_EQ(views[2].collective_bytes_received, (28u + 36 + 20) + 2 * 57u + 2 * 44u);
    // Rank 3: the world's of 0 (made), 1, 2.
    EXPECT_EQ(views[3].collective_ends_received, 3u);
    EXPECT_EQ(views[3].collective_bytes_received, (28u + 36 + 28) + 57u + 2 * 44u);
    expect_every_share_sees_the_whole(anchor, 4);
}

// A rank's matcher holds its share's locations only: it refuses to scan another's, and a
// share is finished with the exchange, a whole trace alone.
TEST(SharedMatching, AMatcherOfAShareScansItsLocationsOnly) {
    ScratchDir dir;
    const std::string anchor = sub_communicator_trace(dir);
    const auto [whole, all] = trace::read_and_match(anchor, 1);
    trace::Matcher share(whole, trace::LocationShare{2, 4}, 1);
    EXPECT_THROW(share.scan(0), std::logic_error);
    EXPECT_THROW(share.scan(4), std::logic_error);
    EXPECT_THROW(share.scan(100), std::logic_error); // beyond the trace's locations
    share.scan(2);
    share.scan(3);
    EXPECT_THROW(share.finish(), std::logic_error);
    trace::Matcher alone(whole, 1);
    for (uint32_t loc = 0; loc < 6; ++loc) alone.scan(loc);
    trace::run_ranks_in_threads(
        1, [&](trace::Exchange& ex) { EXPECT_THROW(alone.finish(ex), std::logic_error); });
    EXPECT_EQ(alone.finish().collectives.size(), all.collectives.size());
}

// Four processes of two threads each: collectives, whichever thread makes them, on
// sub-communicators whose members are on some ranks only; one process reaches one
// collective less.
std::string threaded_trace(const ScratchDir& dir) {
    using Op = trace::CollectiveOp;
    trace::TraceBuilder b(4);
    std::vector<uint32_t> threads;
    for (uint32_t r = 0; r < 4; ++r) threads.push_back(b.add_thread(r));
    const trace::Ref odd = b.communicator("odd", {3, 1}, b.world());
    const trace::Ref even = b.communicator("even", {0, 2}, b.world());
    for (uint32_t r = 0; r < 4; ++r) b.mpi_init(r, 0, 5);
    for (uint32_t r = 0; r < 4; ++r) {
        const trace::Ref sub = r % 2 ? odd : even;
        b.mpi_collective(r, 10 + r, 20, Op::Allreduce, sub);
        b.mpi_collective(threads[r], 22, 30 + r, Op::Barrier, b.world());
        b.mpi_collective(threads[r], 32 + r, 40, Op::Bcast, sub, 1);
        if (r != 3) b.mpi_collective(r, 42, 50 + r, Op::Allreduce, sub);
        b.mpi_collective(r % 2 ? r : threads[r], 60, 70 + r, Op::Barrier, b.world());
    }
    for (uint32_t r = 0; r < 4; ++r) b.mpi_finalize(r, 80, 85);
    return b.write((dir / "threads").string());
}

TEST(SharedMatching, ThreadedProcessesCollectivesOnSubCommunicators) {
    ScratchDir dir;
    const std::string anchor = threaded_trace(dir);
    const auto [whole, all] = trace::read_and_match(anchor, 1);
    EXPECT_EQ(all.incomplete_collectives, 1u);
    expect_every_share_sees_the_whole(anchor, 4);
}

// A share holds whole processes: one that ends or begins between a process's threads is
// refused at once (its matcher holds scans for the share only, and a process's threads are
// matched together).
TEST(SharedMatching, AMatcherOfAShareThatSplitsAProcessIsRefused) {
    ScratchDir dir;
    const auto [whole, all] = trace::read_and_match(threaded_trace(dir), 1);
    const auto& locations = whole.defs.locations;
    ASSERT_EQ(locations.size(), 8u);
    ASSERT_EQ(locations[0].rank, locations[1].rank); // a process's threads are adjacent
    ASSERT_NE(locations[1].rank, locations[2].rank);
    EXPECT_THROW(trace::Matcher(whole, trace::LocationShare{0, 1}, 1), std::logic_error);
    EXPECT_THROW(trace::Matcher(whole, trace::LocationShare{1, 8}, 1), std::logic_error);
    EXPECT_THROW(trace::Matcher(whole, trace::LocationShare{3, 5}, 1), std::logic_error);
    EXPECT_NO_THROW(trace::Matcher(whole, trace::LocationShare{2, 6}, 1));
    EXPECT_NO_THROW(trace::Matcher(whole, 1));
}

// One communicator's collectives in one batch from a rank, some to every other rank (one
// gathered buffer), some to some ranks only (a buffer each); on the world and on a
// communicator of a process on every rank (of three), processes cut short. Six processes:
//   world: 0 reaches 4 collectives, 1 3, 2 4, 3 2, 4 3, 5 one (cut short);
//   E = {0, 2, 4, 5}: 0 reaches 3 (a broadcast from E's rank 1), 2 one, 4 3, 5 two.
// With three ranks (0, 1 | 2, 3 | 4, 5) the world's fourth goes from rank 0 to rank 1
// only, its first three to all; E's second and third from rank 0 to rank 2 only.
std::string mixed_destinations_trace(const ScratchDir& dir) {
    using Op = trace::CollectiveOp;
    trace::TraceBuilder b(6);
    const trace::Ref e = b.communicator("E", {0, 2, 4, 5}, b.world());
    const uint32_t on_world[] = {4, 3, 4, 2, 3, 1}, on_e[] = {3, 0, 1, 0, 3, 2};
    for (uint32_t r = 0; r < 6; ++r) {
        b.mpi_init(r, 0, 5);
        trace::Time t = 10;
        for (uint32_t k = 0; k < 4; ++k, t += 20) {
            if (k < on_world[r]) b.mpi_collective(r, t + r, t + 8, Op::Allreduce, b.world());
            if (k < on_e[r]) b.mpi_collective(r, t + 10, t + 18, Op::Bcast, e, 1);
        }
    }
    // Some compute, to make the processes about equally heavy (shares are by weight).
    const trace::Ref compute = b.region("compute");
    for (uint32_t r = 0; r < 6; ++r)
        for (trace::Time t = 110; b.trace().locations[r].events.size() < 60; t += 2) {
            b.enter(r, t, compute);
            b.leave(r, t + 1, compute);
        }
    for (uint32_t r = 0; r < 6; ++r) b.mpi_finalize(r, 300, 305);
    return b.write((dir / "mixed_destinations").string());
}

// Each rank's matching of `whole` with the given shares, ranks as threads.
std::vector<trace::Matching> match_shares(const trace::Trace& whole,
                                          const std::vector<trace::LocationShare>& shares) {
    std::vector<trace::Matching> views(shares.size());
    trace::run_ranks_in_threads(static_cast<unsigned>(shares.size()), [&](trace::Exchange& ex) {
        const trace::LocationShare share = shares[ex.rank()];
        trace::Matcher matcher(whole, share, 1);
        for (uint32_t loc = share.first; loc < share.last; ++loc) matcher.scan(loc);
        views[ex.rank()] = matcher.finish(ex);
    });
    return views;
}

TEST(SharedMatching, OneBatchOfEndsToEveryRankAndToSomeRanks) {
    ScratchDir dir;
    const std::string anchor = mixed_destinations_trace(dir);
    const auto [whole, all] = trace::read_and_match(anchor, 1);
    // The world's second to fourth and E's second and third have members missing.
    EXPECT_EQ(all.incomplete_collectives, 5u);
    // Each rank sees the serial matching of its share and receives each other member's end
    // exactly once (expect_view_of_share): as read (shares by weight, 1 to 5 ranks) ...
    expect_every_share_sees_the_whole(anchor, 5);
    // ... and with three ranks of two processes each, and five ranks.
    const std::vector<trace::Matching> three = match_shares(whole, {{0, 2}, {2, 4}, {4, 6}});
    for (const trace::Matching& view : three) expect_view_of_share(whole, all, view);
    // Rank 1 (2, 3): of the world's first the ends of 0, 1, 4, 5; second 0, 1, 4; third
    // 0, 1, 4; fourth 0; of E's first 0, 4, 5.
    EXPECT_EQ(three[1].collective_ends_received, 14u);
    // Rank 2 (4, 5): the world's 4 + 4 + 3, none of the fourth (not reached here); E's
    // first 2 (0, 2), second 1 (0), third 1 (0).
    EXPECT_EQ(three[2].collective_ends_received, 15u);
    for (const trace::Matching& view :
         match_shares(whole, {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 6}}))
        expect_view_of_share(whole, all, view);
}

// Every location reaches its own region, and calls the collective and the send from call
// paths that differ by location (odd ones below their own region, first): the trace's call
// tree numbers nodes in the order the locations first reach them, interleaved.
std::string varied_call_tree_trace(const ScratchDir& dir, uint32_t n) {
    trace::TraceBuilder b(n);
    const trace::Ref main = b.region("main"), solver = b.region("solver"), step = b.region("step");
    for (uint32_t l = 0; l < n; ++l) {
        const trace::Ref own = b.region("part " + std::to_string(l));
        const trace::Ref around = l % 2 ? own : solver;
        b.mpi_init(l, 0, 5);
        b.enter(l, 10, main);
        b.enter(l, 11, around);
        b.mpi_collective(l, 12 + l, 40, trace::CollectiveOp::Allreduce, b.world());
        b.leave(l, 41, around);
        b.enter(l, 42, step);
        b.enter(l, 43, own);
        b.leave(l, 44, own);
        b.mpi_send(l, 45, 46, (l + 1) % n, b.world(), 0, 8);
        b.mpi_recv(l, 47, 50 + l, (l + n - 1) % n, b.world(), 0, 8);
        b.leave(l, 70, step);
        b.leave(l, 71, main);
        b.mpi_finalize(l, 80, 85);
    }
    return b.write((dir / "varied").string());
}

// Each rank keeps call paths for its own locations only and receives, of the other ranks'
// locations, one call tree per rank (its locations' merged), not one per location; the
// trace's call tree, the call paths of the collective members' parts and of the messages'
// other ends are the serial matching's all the same (expect_view_of_share).
TEST(SharedMatching, EachRankHoldsItsOwnCallPathsAndGetsOneCallTreePerRank) {
    constexpr uint32_t kLocations = 12;
    ScratchDir dir;
    const std::string anchor = varied_call_tree_trace(dir, kLocations);
    const auto [whole, all] = trace::read_and_match(anchor, 1);
    // The call tree nodes each location reaches (its numbers are distinct nodes).
    std::vector<std::set<uint32_t>> reached(kLocations);
    uint64_t per_location = 0;
    for (uint32_t l = 0; l < kLocations; ++l) {
        reached[l].insert(all.callpath_nodes[l].begin(), all.callpath_nodes[l].end());
        ASSERT_EQ(reached[l].size(), all.callpath_nodes[l].size());
        per_location += reached[l].size();
    }
    expect_every_share_sees_the_whole(anchor, 6);
    for (const unsigned ranks : {2u, 4u}) {
        SCOPED_TRACE(std::to_string(ranks) + " ranks");
        const std::vector<trace::Matching> views = match_on_ranks(anchor, ranks);
        // The nodes of each rank's tree: those its locations reach.
        std::vector<uint64_t> tree_size(ranks);
        for (unsigned r = 0; r < ranks; ++r) {
            std::set<uint32_t> nodes;
            for (uint32_t l = views[r].share.first; l < views[r].share.last; ++l)
                nodes.insert(reached[l].begin(), reached[l].end());
            tree_size[r] = nodes.size();
        }
        for (unsigned r = 0; r < ranks; ++r) {
            SCOPED_TRACE("rank " + std::to_string(r));
            uint64_t expected = 0, others_per_location = 0;
            for (unsigned q = 0; q < ranks; ++q) {
                if (q == r) continue;
                expected += tree_size[q];
                for (uint32_t l = views[q].share.first; l < views[q].share.last; ++l)
                    others_per_location += reached[l].size();
            }
            EXPECT_EQ(views[r].calltree_nodes_received, expected);
            // (Every location's tree would be many more: the common nodes once per location.)
            EXPECT_LT(expected, others_per_location);
            for (uint32_t l = 0; l < kLocations; ++l) {
                const bool own = l >= views[r].share.first && l < views[r].share.last;
                EXPECT_EQ(views[r].callpath_nodes[l].empty(), !own) << "location " << l;
            }
        }
    }
    EXPECT_GT(per_location, all.calltree.size());
}

// Ranks as threads whose exchanges pass what each rank receives through `damage` (the
// round, counted from the matching's first exchange; the receiving rank; its buffers by
// sender, each ending in Exchange's status byte), to show that a damaged or inconsistent
// exchange stops the matching with a clear error, never an access out of bounds.
class DamagingExchange : public trace::Exchange {
  public:
    using Damage = std::function<void(unsigned round, unsigned rank, std::vector<trace::Bytes>&)>;
    struct Hub {
        explicit Hub(unsigned ranks) : sync(ranks), boxes(ranks) {}
        std::barrier<> sync;
        std::vector<std::vector<trace::Bytes>> boxes; // by sender
    };
    DamagingExchange(Hub& hub, unsigned rank, Damage damage)
        : hub_(hub), rank_(rank), damage_(std::move(damage)) {}
    unsigned rank() const override { return rank_; }
    unsigned size() const override { return static_cast<unsigned>(hub_.boxes.size()); }

  protected:
    std::vector<trace::Bytes> transfer(std::vector<trace::Bytes> out) override {
        hub_.boxes[rank_] = std::move(out);
        hub_.sync.arrive_and_wait();
        std::vector<trace::Bytes> in(size());
        for (unsigned r = 0; r < size(); ++r) in[r] = hub_.boxes[r][rank_];
        hub_.sync.arrive_and_wait();
        damage_(round_++, rank_, in);
        return in;
    }

  private:
    Hub& hub_;
    unsigned rank_;
    Damage damage_;
    unsigned round_ = 0;
};

// Four processes, two ranks (0, 1 | 2, 3): two barriers on the world of processes 2 and 3
// only, then an allreduce on A = {1, 2}; rank 0 sends rank 1 one batch, A's, of process 1's
// end (which made the collective).
std::string damage_trace(const ScratchDir& dir) {
    trace::TraceBuilder b(4);
    const trace::Ref a = b.communicator("A", {1, 2}, b.world());
    for (uint32_t r = 0; r < 4; ++r) b.mpi_init(r, 0, 5);
    for (uint32_t r = 2; r < 4; ++r) {
        b.mpi_collective(r, 10, 20, trace::CollectiveOp::Barrier, b.world());
        b.mpi_collective(r, 22, 28, trace::CollectiveOp::Barrier, b.world());
    }
    b.mpi_collective(1, 30, 40, trace::CollectiveOp::Allreduce, a);
    b.mpi_collective(2, 30, 40, trace::CollectiveOp::Allreduce, a);
    for (uint32_t r = 0; r < 4; ++r) b.mpi_finalize(r, 100, 105);
    return b.write((dir / "damage").string());
}

// Each rank's error when two ranks (processes 0, 1 | 2, 3) match `whole` with `damage` in
// their exchanges ("" for a rank that finished).
std::vector<std::string> match_damaged(const trace::Trace& whole,
                                       const DamagingExchange::Damage& damage) {
    DamagingExchange::Hub hub(2);
    const trace::LocationShare shares[] = {{0, 2}, {2, 4}};
    std::vector<std::string> errors(2);
    std::vector<std::thread> ranks;
    for (unsigned r = 0; r < 2; ++r)
        ranks.emplace_back([&, r] {
            DamagingExchange ex(hub, r, damage);
            try {
                ex.run_agreed([&] {
                    trace::Matcher matcher(whole, shares[r], 1);
                    for (uint32_t loc = shares[r].first; loc < shares[r].last; ++loc)
                        matcher.scan(loc);
                    matcher.finish(ex);
                });
            } catch (const std::exception& e) {
                errors[r] = e.what();
            }
        });
    for (std::thread& t : ranks) t.join();
    return errors;
}

TEST(SharedMatching, DamagedExchangesOfCollectivesAreClearErrors) {
    ScratchDir dir;
    const auto [whole, all] = trace::read_and_match(damage_trace(dir), 1);
    ASSERT_LT(whole.defs.locations.size(), 9999u);
    // The world's collectives are numbered before A's on rank 1 (the wrap below).
    const auto& comms = whole.defs.communicators;
    const auto a = std::find_if(comms.begin(), comms.end(), [](auto& c) { return c.name == "A"; });
    ASSERT_NE(a, comms.end());
    ASSERT_TRUE(std::any_of(comms.begin(), a, [](auto& c) { return c.members.size() == 4; }));
    // The rounds: 0 the shares and collective counts (all-gathered), 1 the collective ends
    // to some ranks (all-to-all; with two ranks every end goes this way).
    auto on_rank_1 = [](unsigned round, auto&& change) {
        return [=](unsigned r, unsigned rank, std::vector<trace::Bytes>& in) {
            if (r == round && rank == 1) change(in[0]);
        };
    };
    auto set_u32 = [](trace::Bytes& bytes, size_t at, uint32_t value) {
        ASSERT_LE(at + sizeof value, bytes.size());
        std::memcpy(bytes.data() + at, &value, sizeof value);
    };
    auto expect_every_rank_says = [](const std::vector<std::string>& errors, const char* what) {
        for (const std::string& error : errors)
            EXPECT_NE(error.find(what), std::string::npos)
                << "said: " << error << "; expected: " << what;
    };
    // Undamaged, both ranks finish.
    EXPECT_EQ(match_damaged(whole, [](unsigned, unsigned, std::vector<trace::Bytes>&) {}),
              (std::vector<std::string>{"", ""}));
    // Rank 0's counts with bytes after its processes'.
    expect_every_rank_says(
        match_damaged(
            whole, on_rank_1(0, [](trace::Bytes& b) { b.insert(b.end() - 1, 4, std::byte{0}); })),
        "collective counts go on past");
    // Rank 0's share said to be another (contiguous, and rank 1's with it).
    expect_every_rank_says(
        match_damaged(whole,
                      [&](unsigned round, unsigned rank, std::vector<trace::Bytes>& in) {
                          if (round != 0 || rank != 1) return;
                          set_u32(in[0], offsetof(trace::LocationShare, last), 1);
                          set_u32(in[1], offsetof(trace::LocationShare, first), 1);
                      }),
        "share came back changed");
    // A's batch: the communicator and the number of ends (8 bytes), then process 1's end:
    // location, record, instance (each 32 bits), ...
    constexpr size_t kLocation = 8, kInstance = 16;
    // From a location that is no member of A, or none at all.
    expect_every_rank_says(
        match_damaged(whole, on_rank_1(1, [&](trace::Bytes& b) { set_u32(b, kLocation, 0); })),
        "from a non-member");
    expect_every_rank_says(
        match_damaged(whole, on_rank_1(1, [&](trace::Bytes& b) { set_u32(b, kLocation, 9999); })),
        "from a non-member");
    // An instance that, added to the collectives before A's on rank 1 (the world's two),
    // wraps around at 32 bits to the world's first.
    expect_every_rank_says(
        match_damaged(whole,
                      on_rank_1(1, [&](trace::Bytes& b) { set_u32(b, kInstance, 0xFFFFFFFEu); })),
        "not taken part in");
}

} // namespace
