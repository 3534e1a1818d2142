// The backward replay (analyzer/engine/backward_replay.h): values travel against the
// messages' direction in causal order, gather at collectives, a call's steps post before
// they read (MPI_Sendrecv rings), and a cycle of waits made by clock-condition violations is
// broken with one warning, whatever the number of threads.
#include "analyzer/engine/engine.h"
#include "pattern_test_util.h"
#include "trace/builder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

using namespace topolens;
using analysis::BackwardStep;
using analysis::Context;
using trace::CollectiveOp;
using trace::TraceBuilder;

namespace {

// Counts, per location, the longest chain of messages that leads from it to a later
// receiver ("hops"), and gathers at each collective the sum of (location + 1) over its
// members. Both need every value at the right moment: a value read too early is 0.
class HopCounter : public analysis::Pattern {
  public:
    struct Shared {
        std::vector<double> hops;                 // by location
        std::vector<double> to_sender;            // by message id
        std::vector<std::vector<double>> members; // by collective id
        std::mutex members_lock;                  // members post at once
        std::vector<double> gathered;             // by location
        std::vector<uint32_t> order;              // locations in the order they finished
        size_t unposted_takes = 0;
    };

    std::string name() const override { return "hops"; }
    void define_metrics(report::Report& r) override {
        hops_metric_ = analysis::define_metric(r, "", "test_hops", "Hops", "chain length", "occ");
        gathered_metric_ =
            analysis::define_metric(r, "", "test_gathered", "Gathered", "sum", "occ");
        shared_ = std::make_shared<Shared>();
    }
    std::unique_ptr<analysis::Pattern> clone() const override {
        return std::make_unique<HopCounter>(*this);
    }
    void merge(analysis::Pattern&) override {}
    void subscribe(analysis::Dispatcher& d) override {
        d.on_backward_begin([this](Context& c, uint32_t) {
            Shared& s = *shared_;
            if (s.hops.empty()) {
                s.hops.assign(c.trace().locations.size(), 0.0);
                s.gathered.assign(c.trace().locations.size(), 0.0);
                s.to_sender.assign(c.matching().messages.size(), 0.0);
                s.members.assign(c.matching().collectives.size(), {});
            }
        });
        d.on_backward_post([this](const Context&, const BackwardStep& step) {
            Shared& s = *shared_;
            if (step.kind == BackwardStep::Kind::Receive)
                s.to_sender[step.id] = s.hops[step.location] + 1;
            if (step.kind == BackwardStep::Kind::Collective) {
                const std::lock_guard<std::mutex> hold(s.members_lock);
                s.members[step.id].push_back(step.location + 1.0);
            }
        });
        d.on_backward_take([this](const Context& c, const BackwardStep& step) {
            Shared& s = *shared_;
            if (!step.partners_posted) {
                ++s.unposted_takes;
                return;
            }
            if (step.kind == BackwardStep::Kind::Send)
                s.hops[step.location] = std::max(s.hops[step.location], s.to_sender[step.id]);
            if (step.kind == BackwardStep::Kind::Collective) {
                double sum = 0;
                for (double v : s.members[step.id]) sum += v;
                s.gathered[step.location] += sum;
                EXPECT_EQ(s.members[step.id].size(),
                          c.matching().collectives[step.id].members.size());
            }
        });
        d.on_backward_done([this](Context& c, uint32_t loc) {
            Shared& s = *shared_;
            s.order.push_back(loc);
            c.add(hops_metric_, 0, loc, s.hops[loc]);
            c.add(gathered_metric_, 0, loc, s.gathered[loc]);
        });
    }

    std::shared_ptr<Shared> shared_;
    int hops_metric_ = -1, gathered_metric_ = -1;
};

analysis::AnalysisResult run(const TraceBuilder& b, unsigned threads = 1) {
    std::vector<std::unique_ptr<analysis::Pattern>> patterns;
    patterns.push_back(std::make_unique<HopCounter>());
    analysis::AnalysisOptions options;
    options.threads = threads;
    options.backward_threads = threads;
    return analysis::analyze(b.trace(), patterns, options);
}

double metric(const analysis::AnalysisResult& r, const char* name, uint32_t loc) {
    return r.report.total(*r.report.find_metric(name), static_cast<int>(loc));
}

// 0 -> 1 -> 2 -> 3 with blocking calls, then an MPI_Allreduce of all four.
TraceBuilder chain() {
    TraceBuilder b(4);
    test::begin(b, 4);
    b.mpi_send(0, 10, 11, 1, b.world(), 0, 8);
    b.mpi_recv(1, 5, 12, 0, b.world(), 0, 8);
    b.mpi_send(1, 20, 21, 2, b.world(), 0, 8);
    b.mpi_recv(2, 5, 22, 1, b.world(), 0, 8);
    b.mpi_send(2, 30, 31, 3, b.world(), 0, 8);
    b.mpi_recv(3, 5, 32, 2, b.world(), 0, 8);
    for (uint32_t r = 0; r < 4; ++r)
        b.mpi_collective(r, 40 + r, 50, CollectiveOp::Allreduce, b.world(), trace::kNone, 8, 8);
    test::end(b, 4, 60);
    return b;
}

} // namespace

TEST(BackwardReplay, ValuesTravelAgainstTheMessagesInCausalOrder) {
    const TraceBuilder b = chain();
    for (unsigned threads : {1u, 4u}) {
        const auto r = run(b, threads);
        EXPECT_EQ(metric(r, "test_hops", 0), 3.0) << threads << " threads";
        EXPECT_EQ(metric(r, "test_hops", 1), 2.0);
        EXPECT_EQ(metric(r, "test_hops", 2), 1.0);
        EXPECT_EQ(metric(r, "test_hops", 3), 0.0);
        EXPECT_TRUE(r.warnings.empty());
    }
}

TEST(BackwardReplay, CollectiveMembersReadEveryMembersPost) {
    const auto r = run(chain());
    for (uint32_t loc = 0; loc < 4; ++loc)
        EXPECT_EQ(metric(r, "test_gathered", loc), 1.0 + 2.0 + 3.0 + 4.0) << loc;
}

// Each rank sends to its right neighbour and receives from its left one in one
// MPI_Sendrecv: a ring, which only goes on because a call's steps post before they read.
TEST(BackwardReplay, SendrecvRingGoesOnWithoutAWarning) {
    TraceBuilder b(4);
    test::begin(b, 4);
    const trace::Ref sendrecv = b.mpi_region("MPI_Sendrecv");
    for (uint32_t r = 0; r < 4; ++r) {
        b.enter(r, 10, sendrecv);
        b.send(r, 11, (r + 1) % 4, b.world(), 0, 8);
        b.recv(r, 19, (r + 3) % 4, b.world(), 0, 8);
        b.leave(r, 20, sendrecv);
    }
    test::end(b, 4, 30);
    const auto r = run(b);
    EXPECT_TRUE(r.warnings.empty()) << r.warnings.front();
    for (uint32_t loc = 0; loc < 4; ++loc) EXPECT_EQ(metric(r, "test_hops", loc), 1.0) << loc;
}

// Both ranks receive before they send, each receive matched to the other's later send
// (clock-condition violations): each waits for the other. The cycle is broken once, at
// the lowest location, and every location finishes.
TEST(BackwardReplay, CycleOfWaitsIsBrokenOnceWithAWarning) {
    TraceBuilder b(2);
    test::begin(b, 2);
    b.mpi_recv(0, 10, 20, 1, b.world(), 0, 8);
    b.mpi_send(0, 30, 31, 1, b.world(), 0, 8);
    b.mpi_recv(1, 10, 20, 0, b.world(), 0, 8);
    b.mpi_send(1, 30, 31, 0, b.world(), 0, 8);
    test::end(b, 2, 40);
    const auto r = run(b);
    const auto cycles = std::count_if(r.warnings.begin(), r.warnings.end(), [](const auto& w) {
        return w.find("backward replay") != std::string::npos;
    });
    EXPECT_EQ(cycles, 1);
    // Location 0's send read nothing; then 1's send read 0's receive (posted by then).
    EXPECT_EQ(metric(r, "test_hops", 0), 0.0);
    EXPECT_EQ(metric(r, "test_hops", 1), 1.0);
}

// No pattern asks for it: no backward replay runs (nothing changes for the others).
TEST(BackwardReplay, RunsOnlyWhenAPatternSubscribes) {
    analysis::Dispatcher d;
    EXPECT_FALSE(d.replays_backward());
    d.on_backward_take([](const Context&, const BackwardStep&) {});
    EXPECT_TRUE(d.replays_backward());
}

namespace {

// Counts how many locations are inside a take at once; each collective take lasts 100 ms.
struct Overlap : analysis::Pattern {
    std::shared_ptr<std::atomic<int>> inside = std::make_shared<std::atomic<int>>(0);
    std::shared_ptr<std::atomic<int>> most = std::make_shared<std::atomic<int>>(0);
    std::string name() const override { return "overlap"; }
    std::unique_ptr<analysis::Pattern> clone() const override {
        return std::make_unique<Overlap>(*this);
    }
    void merge(analysis::Pattern&) override {}
    void define_metrics(report::Report&) override {}
    void subscribe(analysis::Dispatcher& d) override {
        d.on_backward_take([this](const Context&, const BackwardStep& step) {
            if (step.kind != BackwardStep::Kind::Collective) return;
            const int now = ++*inside;
            int seen = most->load();
            while (now > seen && !most->compare_exchange_weak(seen, now)) {
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
            --*inside;
        });
    }
};

int most_at_once(unsigned threads) {
    std::vector<std::unique_ptr<analysis::Pattern>> patterns;
    auto overlap = std::make_unique<Overlap>();
    const auto most = overlap->most;
    patterns.push_back(std::move(overlap));
    analysis::AnalysisOptions options;
    options.threads = threads;
    options.backward_threads = threads;
    analysis::analyze(chain().trace(), patterns, options);
    return most->load();
}

} // namespace

// The members of the closing MPI_Allreduce can all go on once each posted: with threads
// they do so at once, in one thread one after the other.
TEST(BackwardReplay, LocationsThatCanGoOnRunInThreadsAtOnce) {
    EXPECT_EQ(most_at_once(1), 1);
    EXPECT_GE(most_at_once(4), 2);
}
