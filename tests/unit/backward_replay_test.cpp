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
#include <stdexcept>
#include <string>
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
// members. Both need every value at the right moment: a value read too early is 0. What a
// location tells another travels only as the steps' payloads.
class HopCounter : public analysis::Pattern {
  public:
    struct Shared {
        std::vector<double> hops;     // by location
        std::vector<double> gathered; // by location
        std::vector<uint32_t> order;  // locations in the order they finished
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
    bool replays_backward() const override { return true; }
    void subscribe(analysis::Dispatcher& d) override {
        d.on_backward_begin([this](Context& c, uint32_t) {
            Shared& s = *shared_;
            if (s.hops.empty()) {
                s.hops.assign(c.trace().locations.size(), 0.0);
                s.gathered.assign(c.trace().locations.size(), 0.0);
            }
        });
        d.on_backward(
            [this](const Context&, const BackwardStep& step, trace::ByteWriter& out) {
                if (step.kind == BackwardStep::Kind::Receive)
                    out.put(shared_->hops[step.location] + 1);
                if (step.kind == BackwardStep::Kind::Collective) out.put(step.location + 1.0);
            },
            [this](const Context& c, const BackwardStep& step,
                   const analysis::BackwardPayloads& posted, trace::ByteWriter*) {
                Shared& s = *shared_;
                if (!step.partners_posted) {
                    ++s.unposted_takes;
                    return;
                }
                if (step.kind == BackwardStep::Kind::Send) {
                    trace::ByteReader in(posted[0], "hops");
                    s.hops[step.location] = std::max(s.hops[step.location], in.get<double>());
                }
                if (step.kind == BackwardStep::Kind::Collective) {
                    double sum = 0;
                    for (size_t k = 0; k < posted.size(); ++k) {
                        trace::ByteReader in(posted[k], "members");
                        sum += in.get<double>();
                    }
                    s.gathered[step.location] += sum;
                    EXPECT_EQ(posted.size(), c.matching().collectives[step.id].members.size());
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

// Both ranks receive before they send, each receive matched to the other's later send
// (clock-condition violations): each waits for the other, a cycle.
TraceBuilder receives_before_sends() {
    TraceBuilder b(2);
    test::begin(b, 2);
    b.mpi_recv(0, 10, 20, 1, b.world(), 0, 8);
    b.mpi_send(0, 30, 31, 1, b.world(), 0, 8);
    b.mpi_recv(1, 10, 20, 0, b.world(), 0, 8);
    b.mpi_send(1, 30, 31, 0, b.world(), 0, 8);
    test::end(b, 2, 40);
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
    TraceBuilder b = receives_before_sends();
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
    bool replays_backward() const override { return true; }
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

// ---------------------------------------------------------------- beside the others

namespace {

struct Beside {
    std::atomic<bool> backward_began{false};
    std::atomic<int> forward_locations{0};
    std::atomic<bool> forward_saw_it{false}; // at its first location
};

// Replays forward only; at the first location it replays it waits (at most `patience`) for
// the backward replay to begin.
struct WaitsForTheBackwardReplay : test::TestPattern<WaitsForTheBackwardReplay> {
    std::shared_ptr<Beside> beside;
    std::chrono::milliseconds patience{0};
    std::string name() const override { return "waits"; }
    void subscribe(analysis::Dispatcher& d) override {
        d.on_location_begin([b = beside, patience = patience](Context&, uint32_t) {
            if (b->forward_locations++ > 0) return;
            const auto until = std::chrono::steady_clock::now() + patience;
            while (!b->backward_began && std::chrono::steady_clock::now() < until)
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            b->forward_saw_it = b->backward_began.load();
        });
    }
};

// Replays backward, and says so unless `undeclared`.
struct MarksItsBackwardReplay : test::TestPattern<MarksItsBackwardReplay> {
    std::shared_ptr<Beside> beside;
    bool undeclared = false;
    std::string name() const override { return undeclared ? "undeclared" : "marks"; }
    bool replays_backward() const override { return !undeclared; }
    void subscribe(analysis::Dispatcher& d) override {
        d.on_backward_begin([b = beside](Context&, uint32_t) { b->backward_began = true; });
        d.on_backward_take([](const Context&, const BackwardStep&) {});
    }
};

using Patterns = std::vector<std::unique_ptr<analysis::Pattern>>;

std::unique_ptr<analysis::Pattern> waits_for(const std::shared_ptr<Beside>& beside,
                                             std::chrono::milliseconds patience) {
    auto waits = std::make_unique<WaitsForTheBackwardReplay>();
    waits->beside = beside;
    waits->patience = patience;
    return waits;
}

std::unique_ptr<analysis::Pattern> marks(const std::shared_ptr<Beside>& beside,
                                         bool undeclared = false) {
    auto marks = std::make_unique<MarksItsBackwardReplay>();
    marks->beside = beside;
    marks->undeclared = undeclared;
    return marks;
}

analysis::AnalysisResult run_patterns(const Patterns& patterns, unsigned threads) {
    analysis::AnalysisOptions options;
    options.threads = threads;
    return analysis::analyze(chain().trace(), patterns, options);
}

} // namespace

// With two threads or more, the backward replay runs while the patterns that do not replay
// backward replay forward (they need nothing of it): the forward-only pattern sees the
// backward replay begin before its first location is done.
TEST(BackwardReplay, RunsBesideTheOthersForwardReplayWithTwoThreadsOrMore) {
    for (unsigned threads : {2u, 3u}) {
        const auto beside = std::make_shared<Beside>();
        Patterns patterns;
        patterns.push_back(waits_for(beside, std::chrono::milliseconds(5000)));
        patterns.push_back(marks(beside));
        run_patterns(patterns, threads);
        EXPECT_TRUE(beside->forward_saw_it) << threads << " threads";
        EXPECT_EQ(beside->forward_locations, 4) << threads << " threads"; // each location once
    }
}

// In one thread, or with a pattern that replays backward before one that does not, every
// pattern replays forward before the backward replay begins.
TEST(BackwardReplay, RunsAfterEveryForwardReplayInOneThreadOrOutOfOrder) {
    for (const bool backward_first : {false, true}) {
        const unsigned threads = backward_first ? 2 : 1;
        const auto beside = std::make_shared<Beside>();
        Patterns patterns;
        patterns.push_back(waits_for(beside, std::chrono::milliseconds(200)));
        patterns.insert(backward_first ? patterns.begin() : patterns.end(), marks(beside));
        run_patterns(patterns, threads);
        EXPECT_FALSE(beside->forward_saw_it) << threads << " threads";
        EXPECT_TRUE(beside->backward_began);
    }
}

// A pattern that subscribes to the backward replay must say so, else it would replay
// forward beside the backward replay it takes part in.
TEST(BackwardReplay, APatternReplayingBackwardUnsaidIsRefusedByName) {
    const auto beside = std::make_shared<Beside>();
    Patterns patterns;
    patterns.push_back(waits_for(beside, std::chrono::milliseconds(0)));
    patterns.push_back(marks(beside, true));
    patterns.push_back(marks(beside));
    try {
        run_patterns(patterns, 2);
        ADD_FAILURE() << "no error";
    } catch (const std::logic_error& e) {
        EXPECT_NE(std::string(e.what()).find("'undeclared'"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("Pattern::replays_backward"), std::string::npos);
    }
    EXPECT_NO_THROW(run_patterns(patterns, 1)); // in one thread nothing replays beside
}

namespace {

// Fails in the forward replay at location 2 (does not replay backward), or, backward, at
// location 1's first step.
struct Fails : test::TestPattern<Fails> {
    bool backward = false;
    std::string name() const override { return backward ? "fails backward" : "fails forward"; }
    bool replays_backward() const override { return backward; }
    void subscribe(analysis::Dispatcher& d) override {
        if (!backward) {
            d.on_location_begin([](Context&, uint32_t loc) {
                if (loc == 2) throw std::runtime_error("failed forward at location 2");
            });
            return;
        }
        d.on_backward_take([](const Context&, const BackwardStep& step) {
            if (step.location == 1) throw std::runtime_error("failed backward at location 1");
        });
    }
};

std::unique_ptr<analysis::Pattern> fails(bool backward) {
    auto f = std::make_unique<Fails>();
    f->backward = backward;
    return f;
}

std::string error_of(const Patterns& patterns, unsigned threads) {
    try {
        run_patterns(patterns, threads);
    } catch (const std::runtime_error& e) {
        return e.what();
    }
    return "no error";
}

} // namespace

// An error in the forward replay beside the backward replay, or in the backward replay,
// reaches the caller as in one thread: a forward replay's error first.
TEST(BackwardReplay, ErrorsBesideTheOthersAreTheOneThreadsErrors) {
    const auto beside = std::make_shared<Beside>();
    Patterns forward_and_backward;
    forward_and_backward.push_back(fails(false));
    forward_and_backward.push_back(fails(true));
    Patterns backward_only;
    backward_only.push_back(waits_for(beside, std::chrono::milliseconds(0)));
    backward_only.push_back(fails(true));
    for (unsigned threads : {1u, 2u, 3u}) {
        EXPECT_EQ(error_of(forward_and_backward, threads), "failed forward at location 2")
            << threads << " threads";
        EXPECT_EQ(error_of(backward_only, threads), "failed backward at location 1")
            << threads << " threads";
    }
}

// ---------------------------------------------------------------- payloads

namespace {

// A pattern made of a test's callbacks: one backward channel, a gather, on_backward_done.
struct Scripted : analysis::Pattern {
    analysis::Dispatcher::BackwardPost post;
    analysis::Dispatcher::BackwardTake take;
    analysis::Dispatcher::BackwardReply reply;
    analysis::Dispatcher::BackwardNeeds needs;
    analysis::Dispatcher::LocationWrite write;
    analysis::Dispatcher::LocationRead read;
    analysis::Dispatcher::LocationBegin done;
    std::string name() const override { return "scripted"; }
    std::unique_ptr<analysis::Pattern> clone() const override {
        return std::make_unique<Scripted>(*this);
    }
    void merge(analysis::Pattern&) override {}
    bool replays_backward() const override { return true; }
    void define_metrics(report::Report&) override {}
    void subscribe(analysis::Dispatcher& d) override {
        if (post || take || reply) d.on_backward(post, take, reply, needs);
        if (write) d.on_gather(write, read);
        if (done) d.on_backward_done(done);
    }
};

// What the callbacks saw, from several threads at once.
struct Log {
    std::mutex lock;
    std::vector<std::string> lines;
    void add(std::string line) {
        const std::lock_guard<std::mutex> hold(lock);
        lines.push_back(std::move(line));
    }
    std::vector<std::string> sorted() {
        const std::lock_guard<std::mutex> hold(lock);
        std::vector<std::string> s = lines;
        std::sort(s.begin(), s.end());
        return s;
    }
};

analysis::AnalysisResult run_all(const TraceBuilder& b, std::vector<Scripted> scripts,
                                 unsigned threads) {
    std::vector<std::unique_ptr<analysis::Pattern>> patterns;
    for (Scripted& s : scripts) patterns.push_back(std::make_unique<Scripted>(std::move(s)));
    analysis::AnalysisOptions options;
    options.threads = threads;
    options.backward_threads = threads;
    return analysis::analyze(b.trace(), patterns, options);
}

std::string text(std::span<const std::byte> bytes) {
    std::string s;
    for (std::byte b : bytes) s += std::to_string(static_cast<int>(b)) + ",";
    return s;
}

} // namespace

// Two channels post at every receive; each send reads exactly what its own channel posted
// (a third that posts nothing reads an empty payload), whatever the number of threads.
TEST(BackwardPayloads, EachChannelReadsExactlyWhatItsPostWrote) {
    for (unsigned threads : {1u, 4u}) {
        auto log = std::make_shared<Log>();
        Scripted a, b, silent;
        a.post = [](const Context& c, const BackwardStep& step, trace::ByteWriter& out) {
            if (step.kind != BackwardStep::Kind::Receive) return;
            out.put<uint32_t>(step.location);
            out.put<uint32_t>(c.matching().messages[step.id].send.location);
            out.put_string("from the receive");
        };
        a.take = [log](const Context& c, const BackwardStep& step,
                       const analysis::BackwardPayloads& posted, trace::ByteWriter*) {
            if (step.kind != BackwardStep::Kind::Send) return;
            ASSERT_EQ(posted.size(), 1u);
            trace::ByteReader in(posted[0], "a");
            const auto receiver = in.get<uint32_t>(), sender = in.get<uint32_t>();
            const std::string s = in.get_string();
            EXPECT_TRUE(in.done());
            EXPECT_EQ(receiver, c.matching().messages[step.id].recv.location);
            EXPECT_EQ(sender, step.location);
            log->add("a " + std::to_string(step.location) + "<-" + std::to_string(receiver) + " " +
                     s);
        };
        b.post = [](const Context&, const BackwardStep& step, trace::ByteWriter& out) {
            if (step.kind == BackwardStep::Kind::Receive) out.put(1.0 / 3.0 + step.location);
        };
        b.take = [log](const Context&, const BackwardStep& step,
                       const analysis::BackwardPayloads& posted, trace::ByteWriter*) {
            if (step.kind != BackwardStep::Kind::Send) return;
            trace::ByteReader in(posted[0], "b");
            const double value = in.get<double>();
            EXPECT_TRUE(in.done());
            EXPECT_EQ(value, 1.0 / 3.0 + (step.location + 1)); // bit for bit
            log->add("b " + std::to_string(step.location));
        };
        silent.take = [log](const Context&, const BackwardStep& step,
                            const analysis::BackwardPayloads& posted, trace::ByteWriter*) {
            if (step.kind != BackwardStep::Kind::Send) return;
            ASSERT_EQ(posted.size(), 1u);
            EXPECT_TRUE(posted[0].empty());
            log->add("silent " + std::to_string(step.location));
        };
        run_all(chain(), {a, b, silent}, threads);
        EXPECT_EQ(log->sorted(),
                  (std::vector<std::string>{"a 0<-1 from the receive", "a 1<-2 from the receive",
                                            "a 2<-3 from the receive", "b 0", "b 1", "b 2",
                                            "silent 0", "silent 1", "silent 2"}))
            << threads << " threads";
    }
}

// Every member of a collective reads every member's payload, in member order; a member
// that posted nothing gives an empty one.
TEST(BackwardPayloads, CollectiveMembersReadEveryMembersPayloadInMemberOrder) {
    for (unsigned threads : {1u, 4u}) {
        auto log = std::make_shared<Log>();
        Scripted s;
        s.post = [](const Context&, const BackwardStep& step, trace::ByteWriter& out) {
            if (step.kind == BackwardStep::Kind::Collective && step.location % 2 == 1)
                out.put<uint8_t>(static_cast<uint8_t>(10 * step.member + step.location));
        };
        s.take = [log](const Context&, const BackwardStep& step,
                       const analysis::BackwardPayloads& posted, trace::ByteWriter* reply) {
            if (step.kind != BackwardStep::Kind::Collective) return;
            EXPECT_EQ(reply, nullptr);
            std::string seen = std::to_string(step.location) + ":";
            for (size_t k = 0; k < posted.size(); ++k) seen += "[" + text(posted[k]) + "]";
            log->add(seen);
        };
        run_all(chain(), {s}, threads);
        EXPECT_EQ(log->sorted(), (std::vector<std::string>{"0:[][11,][][33,]", "1:[][11,][][33,]",
                                                           "2:[][11,][][33,]", "3:[][11,][][33,]"}))
            << threads << " threads";
    }
}

// A reader's answer reaches the step that posted, after every location's last step, in
// location order and before the location's on_backward_done: against a message's direction
// and back (Late Sender) and from a send's completion to the receive's request and back
// (Late Receiver).
TEST(BackwardPayloads, RepliesReachThePostingStepInLocationOrder) {
    TraceBuilder b(3);
    test::begin(b, 3);
    // Each send is still in MPI_Send when its receive is posted.
    b.mpi_send(0, 10, 30, 1, b.world(), 0, 8);
    b.mpi_recv(1, 20, 31, 0, b.world(), 0, 8);
    b.mpi_send(1, 40, 41, 2, b.world(), 0, 8);
    b.mpi_recv(2, 35, 42, 1, b.world(), 0, 8);
    test::end(b, 3, 50);
    for (unsigned threads : {1u, 3u}) {
        auto log = std::make_shared<Log>();
        Scripted s;
        s.post = [](const Context&, const BackwardStep& step, trace::ByteWriter& out) {
            if (step.kind == BackwardStep::Kind::Receive ||
                step.kind == BackwardStep::Kind::SendCompletion)
                out.put<uint8_t>(1);
        };
        s.take = [](const Context&, const BackwardStep& step,
                    const analysis::BackwardPayloads& posted, trace::ByteWriter* reply) {
            if (step.kind != BackwardStep::Kind::Send &&
                step.kind != BackwardStep::Kind::ReceiveRequest)
                return;
            ASSERT_NE(reply, nullptr);
            ASSERT_EQ(posted.size(), 1u);
            EXPECT_EQ(text(posted[0]), "1,");
            reply->put<uint32_t>(100 * step.location +
                                 (step.kind == BackwardStep::Kind::Send ? 1 : 2));
        };
        s.reply = [log](Context&, const BackwardStep& step, std::span<const std::byte> reply) {
            trace::ByteReader in(reply, "reply");
            const auto value = in.get<uint32_t>();
            EXPECT_TRUE(in.done());
            const char* kind = step.kind == BackwardStep::Kind::Receive          ? "receive"
                               : step.kind == BackwardStep::Kind::SendCompletion ? "completion"
                                                                                 : "?";
            log->add(std::to_string(step.location) + " " + kind + " " + std::to_string(value));
        };
        s.done = [log](Context&, uint32_t loc) { log->add(std::to_string(loc) + " done"); };
        run_all(b, {s}, threads);
        EXPECT_EQ(log->lines, (std::vector<std::string>{"0 completion 102", "0 done", "1 receive 1",
                                                        "1 completion 202", "1 done",
                                                        "2 receive 101", "2 done"}))
            << threads << " threads";
    }
}

// A step let go in a broken cycle reads no payloads; what its partner posts later is kept
// for nobody, and is no answer to the partner.
TEST(BackwardPayloads, AStepLetGoInACycleReadsNoPayloads) {
    TraceBuilder b = receives_before_sends();
    for (unsigned threads : {1u, 2u}) {
        auto log = std::make_shared<Log>();
        Scripted s;
        s.post = [](const Context&, const BackwardStep& step, trace::ByteWriter& out) {
            if (step.kind == BackwardStep::Kind::Receive) out.put<uint8_t>(7);
        };
        s.take = [log](const Context&, const BackwardStep& step,
                       const analysis::BackwardPayloads& posted, trace::ByteWriter* reply) {
            if (step.kind != BackwardStep::Kind::Send) return;
            log->add("take " + std::to_string(step.location) + " " +
                     (step.partners_posted ? "posted " : "let go ") +
                     std::to_string(posted.size()) +
                     (posted.size() ? " " + text(posted[0]) : std::string()));
            if (step.partners_posted) reply->put<uint8_t>(9);
        };
        s.reply = [log](Context&, const BackwardStep& step, std::span<const std::byte> reply) {
            log->add("reply " + std::to_string(step.location) + " " + text(reply));
        };
        run_all(b, {s}, threads);
        EXPECT_EQ(log->lines,
                  (std::vector<std::string>{"take 0 let go 0", "take 1 posted 1 7,", "reply 0 9,"}))
            << threads << " threads";
    }
}

// A payload at a step that only reads has nowhere to go: a pattern's bug, named.
TEST(BackwardPayloads, APayloadAtAReadingStepIsRefused) {
    Scripted s;
    s.post = [](const Context&, const BackwardStep& step, trace::ByteWriter& out) {
        if (step.kind == BackwardStep::Kind::Send) out.put<uint8_t>(1);
    };
    EXPECT_THROW(run_all(chain(), {s}, 1), std::logic_error);
}

// Every location's facts are written first, then read for every location in location order.
TEST(BackwardPayloads, GatheredFactsAreReadForEveryLocationInLocationOrder) {
    for (unsigned threads : {1u, 4u}) {
        auto log = std::make_shared<Log>();
        Scripted s;
        s.write = [log](const Context&, uint32_t loc, trace::ByteWriter& out) {
            log->add("write " + std::to_string(loc));
            if (loc != 2) out.put<uint64_t>(1000 + loc);
        };
        s.read = [log](Context&, uint32_t loc, trace::ByteReader& in) {
            log->add("read " + std::to_string(loc) + " " +
                     (in.done() ? std::string("nothing") : std::to_string(in.get<uint64_t>())));
        };
        run_all(chain(), {s}, threads);
        EXPECT_EQ(log->lines, (std::vector<std::string>{"write 0", "write 1", "write 2", "write 3",
                                                        "read 0 1000", "read 1 1001",
                                                        "read 2 nothing", "read 3 1003"}))
            << threads << " threads";
    }
}

// Facts a read leaves unread mean the two sides disagree: refused.
TEST(BackwardPayloads, GatheredFactsLeftUnreadAreRefused) {
    Scripted s;
    s.write = [](const Context&, uint32_t, trace::ByteWriter& out) { out.put<uint32_t>(1); };
    s.read = [](Context&, uint32_t, trace::ByteReader&) {};
    EXPECT_THROW(run_all(chain(), {s}, 1), std::logic_error);
}

// ---------------------------------------------------------------- the steps visited

namespace {

// Logs every step a channel posts or reads at: "post|take <kind> <location>".
Scripted watching(const std::shared_ptr<Log>& log, const std::string& name) {
    static const char* const kKinds[] = {"send", "receive", "collective", "completion", "request"};
    Scripted s;
    s.post = [log, name](const Context&, const BackwardStep& step, trace::ByteWriter&) {
        log->add(name + " post " + kKinds[static_cast<int>(step.kind)] + " " +
                 std::to_string(step.location));
    };
    s.take = [log, name](const Context&, const BackwardStep& step,
                         const analysis::BackwardPayloads&, trace::ByteWriter*) {
        log->add(name + " take " + kKinds[static_cast<int>(step.kind)] + " " +
                 std::to_string(step.location));
    };
    return s;
}

size_t count_with(const std::vector<std::string>& lines, const std::string& part) {
    return static_cast<size_t>(std::count_if(lines.begin(), lines.end(), [&](const auto& line) {
        return line.find(part) != std::string::npos;
    }));
}

} // namespace

// A channel that needs only the collectives sees only their steps; a second channel that
// needs only messages from location 1 makes both ends of that message visited, for both
// channels (the union); a channel without `needs` makes every step visited.
TEST(BackwardReplay, OnlyTheStepsSomeChannelNeedsAreVisited) {
    const TraceBuilder b = chain();
    const trace::Matching m = trace::match(b.trace(), 1);
    uint32_t from_1 = trace::kNone; // the message 1 -> 2
    for (uint32_t id = 0; id < m.messages.size(); ++id)
        if (m.messages[id].send.location == 1) from_1 = id;
    ASSERT_NE(from_1, trace::kNone);
    for (unsigned threads : {1u, 4u}) {
        auto log = std::make_shared<Log>();
        Scripted collectives = watching(log, "c");
        collectives.needs = [](BackwardStep::Kind kind, uint32_t) {
            return kind == BackwardStep::Kind::Collective;
        };
        run_all(b, {collectives}, threads);
        std::vector<std::string> seen = log->sorted();
        EXPECT_EQ(seen, (std::vector<std::string>{"c post collective 0", "c post collective 1",
                                                  "c post collective 2", "c post collective 3",
                                                  "c take collective 0", "c take collective 1",
                                                  "c take collective 2", "c take collective 3"}))
            << threads << " threads";

        log = std::make_shared<Log>();
        collectives = watching(log, "c");
        collectives.needs = [](BackwardStep::Kind kind, uint32_t) {
            return kind == BackwardStep::Kind::Collective;
        };
        Scripted one_message = watching(log, "m");
        one_message.needs = [from_1](BackwardStep::Kind kind, uint32_t id) {
            return kind == BackwardStep::Kind::Receive && id == from_1;
        };
        run_all(b, {collectives, one_message}, threads);
        seen = log->sorted();
        for (const char* channel : {"c", "m"}) {
            const std::string c = channel;
            EXPECT_EQ(count_with(seen, c + " post collective"), 4u) << c;
            EXPECT_EQ(count_with(seen, c + " take collective"), 4u) << c;
            EXPECT_EQ(count_with(seen, c + " post receive 2"), 1u) << c;
            EXPECT_EQ(count_with(seen, c + " take send 1"), 1u) << c;
            EXPECT_EQ(count_with(seen, c + " post receive"), 1u) << c;
            EXPECT_EQ(count_with(seen, c + " take send"), 1u) << c;
        }

        log = std::make_shared<Log>();
        one_message = watching(log, "m");
        one_message.needs = [from_1](BackwardStep::Kind kind, uint32_t id) {
            return kind == BackwardStep::Kind::Receive && id == from_1;
        };
        run_all(b, {one_message, watching(log, "all")}, threads);
        seen = log->sorted();
        EXPECT_EQ(count_with(seen, "m take send"), 3u);
        EXPECT_EQ(count_with(seen, "m post receive"), 3u);
        EXPECT_EQ(count_with(seen, "m take collective"), 4u);
    }
}

// Receives matched to the other's later sends wait for each other (a cycle, see above), but
// not when no channel needs those messages' steps: nothing would travel along the cycle.
TEST(BackwardReplay, ACycleThroughStepsNoChannelNeedsIsNone) {
    TraceBuilder b = receives_before_sends();
    auto log = std::make_shared<Log>();
    Scripted none = watching(log, "n");
    none.needs = [](BackwardStep::Kind, uint32_t) { return false; };
    const auto r = run_all(b, {none}, 1);
    EXPECT_TRUE(log->sorted().empty());
    EXPECT_TRUE(r.warnings.empty()) << r.warnings.front();
    log = std::make_shared<Log>();
    Scripted all = watching(log, "a");
    all.needs = [](BackwardStep::Kind, uint32_t) { return true; };
    const auto cycle = run_all(b, {all}, 1);
    EXPECT_EQ(count_with(cycle.warnings, "backward replay"), 1u);
    EXPECT_EQ(count_with(log->sorted(), "a take send"), 2u);
}
