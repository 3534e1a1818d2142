// No wave where nothing travels as a pipeline, now that every Late Sender instance of a
// refilling wave counts, Wrong Order ones included (issue 21): CG-like and multigrid-like
// traces on a recorded 4x4 grid, with one slow process so that its neighbours wait (Late
// Sender, and Wrong Order where the receives take the faces in a fixed order), give every
// "Wavefront from" metric 0 at every process. Halo, pairwise and SSOR traces are checked
// the same way in synth_patterns_test.cpp.
#include "analyzer/engine/engine.h"
#include "patterns/metric_names.h"
#include "patterns/registry.h"
#include "trace/builder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <vector>

using namespace topolens;
using trace::CollectiveOp;
using trace::Time;
using trace::TraceBuilder;

namespace {

constexpr uint32_t kSide = 4;
constexpr uint32_t kRanks = kSide * kSide;
constexpr uint32_t kSlow = 5;   // coordinates (1, 1): interior
constexpr Time kWork = 1000;    // compute before each exchange
constexpr Time kLate = 400;     // the slow process's extra compute
constexpr uint64_t kBytes = 64; // per message

enum class Receive { FixedOrder, Waitall };

uint32_t rank_of(uint32_t x, uint32_t y) {
    return x + kSide * y;
}

struct Message {
    uint32_t from, to, tag;
};

// A process program of MPI calls with times computed from a simple model: a send takes one
// tick and never blocks; a receive (or the Waitall of an exchange) ends one tick after the
// later of its enter and the sends it takes; an Allreduce ends one tick after the last
// member entered. Each process moves on as soon as its own calls are done: no barrier.
class ModelRun {
  public:
    ModelRun() : b_(kRanks), now_(kRanks, 0) {
        const auto grid = b_.cart_topology("grid", b_.world(), {kSide, kSide}, {false, false});
        for (uint32_t r = 0; r < kRanks; ++r) {
            b_.cart_coords(grid, r, {r % kSide, r / kSide});
            b_.mpi_init(r, 0, 10);
            now_[r] = 10;
        }
    }

    void compute(const std::vector<uint32_t>& ranks) {
        for (uint32_t r : ranks) now_[r] += kWork + (r == kSlow ? kLate : 0);
    }

    // Every process sends its messages, then takes its receives, in the order given.
    void exchange(const std::vector<Message>& messages, Receive receive) {
        std::vector<Time> sent(messages.size());
        for (size_t m = 0; m < messages.size(); ++m) {
            const Message& msg = messages[m];
            sent[m] = now_[msg.from];
            if (receive == Receive::FixedOrder)
                b_.mpi_send(msg.from, sent[m], sent[m] + 1, msg.to, b_.world(), msg.tag, kBytes);
            else
                b_.mpi_isend(msg.from, sent[m], sent[m] + 1, msg.to, b_.world(), msg.tag, kBytes,
                             request(msg.from, m));
            now_[msg.from] = sent[m] + 1;
        }
        if (receive == Receive::FixedOrder) {
            for (size_t m = 0; m < messages.size(); ++m) {
                const Message& msg = messages[m];
                const Time enter = now_[msg.to], leave = std::max(enter, sent[m]) + 1;
                b_.mpi_recv(msg.to, enter, leave, msg.from, b_.world(), msg.tag, kBytes);
                now_[msg.to] = leave;
            }
            return;
        }
        // MPI_Irecv for each, then one MPI_Waitall completing the process's receives and sends.
        std::vector<Time> arrival(kRanks, 0);
        std::vector<bool> takes_part(kRanks, false);
        for (size_t m = 0; m < messages.size(); ++m) {
            const Message& msg = messages[m];
            arrival[msg.to] = std::max(arrival[msg.to], sent[m]);
            takes_part[msg.to] = takes_part[msg.from] = true;
        }
        for (size_t m = 0; m < messages.size(); ++m) {
            const uint32_t to = messages[m].to;
            b_.mpi_irecv(to, now_[to], now_[to] + 1, receive_request(m));
            now_[to] += 1;
        }
        const trace::Ref waitall = b_.mpi_region("MPI_Waitall");
        std::vector<Time> leave(kRanks, 0);
        for (uint32_t r = 0; r < kRanks; ++r) {
            if (!takes_part[r]) continue;
            leave[r] = std::max(now_[r], arrival[r]) + 1;
            b_.enter(r, now_[r], waitall);
        }
        for (size_t m = 0; m < messages.size(); ++m) {
            const Message& msg = messages[m];
            b_.irecv(msg.to, leave[msg.to], msg.from, b_.world(), msg.tag, kBytes,
                     receive_request(m));
            b_.isend_complete(msg.from, leave[msg.from], request(msg.from, m));
        }
        for (uint32_t r = 0; r < kRanks; ++r) {
            if (!takes_part[r]) continue;
            b_.leave(r, leave[r], waitall);
            now_[r] = leave[r];
        }
    }

    void allreduce() {
        const Time last = *std::max_element(now_.begin(), now_.end());
        for (uint32_t r = 0; r < kRanks; ++r) {
            b_.mpi_collective(r, now_[r], last + 1, CollectiveOp::Allreduce, b_.world(),
                              trace::kNone, 8, 8);
            now_[r] = last + 1;
        }
    }

    analysis::AnalysisResult analyze() {
        const Time last = *std::max_element(now_.begin(), now_.end());
        for (uint32_t r = 0; r < kRanks; ++r) b_.mpi_finalize(r, last + 10, last + 20);
        return analysis::analyze(b_.trace(), patterns::all_patterns());
    }

  private:
    static uint64_t request(uint32_t rank, size_t message) {
        return (uint64_t{rank} << 32) + 2 * message + 1;
    }
    static uint64_t receive_request(size_t message) { return 2 * message + 2; }

    TraceBuilder b_;
    std::vector<Time> now_;
};

std::vector<uint32_t> everyone() {
    std::vector<uint32_t> all(kRanks);
    for (uint32_t r = 0; r < kRanks; ++r) all[r] = r;
    return all;
}

// Halo exchange among the processes at even multiples of `stride` (stride 1: everybody),
// with their neighbours at that stride; receives in the order west, east, south, north.
std::vector<Message> halo(uint32_t stride, uint32_t tag) {
    std::vector<Message> messages;
    const std::array<std::array<int, 2>, 4> from = {{{-1, 0}, {1, 0}, {0, -1}, {0, 1}}};
    for (uint32_t y = 0; y < kSide; y += stride)
        for (uint32_t x = 0; x < kSide; x += stride)
            for (const auto& d : from) {
                const int fx = static_cast<int>(x) + d[0] * static_cast<int>(stride);
                const int fy = static_cast<int>(y) + d[1] * static_cast<int>(stride);
                if (fx < 0 || fy < 0 || fx >= static_cast<int>(kSide) ||
                    fy >= static_cast<int>(kSide))
                    continue;
                messages.push_back({rank_of(static_cast<uint32_t>(fx), static_cast<uint32_t>(fy)),
                                    rank_of(x, y), tag});
            }
    return messages;
}

// Multigrid transfers: every process that is not a coarse one (both coordinates even) sends
// to the coarse process of its 2x2 block (restriction), or the other way (prolongation).
std::vector<Message> transfer(bool restrict_down, uint32_t tag) {
    std::vector<Message> messages;
    for (uint32_t y = 0; y < kSide; ++y)
        for (uint32_t x = 0; x < kSide; ++x) {
            const uint32_t fine = rank_of(x, y), coarse = rank_of(x & ~1u, y & ~1u);
            if (fine == coarse) continue;
            messages.push_back(restrict_down ? Message{fine, coarse, tag}
                                             : Message{coarse, fine, tag});
        }
    return messages;
}

void expect_no_wave(const analysis::AnalysisResult& result, bool expect_wrong_order) {
    const report::Report& r = result.report;
    ASSERT_EQ(r.attributes.at("topolens.grid_source"), "recorded");
    const double late_sender = r.total(*r.find_metric(patterns::metric::kLateSender));
    const double wrong_order = r.total(*r.find_metric(patterns::metric::kLateSenderWrongOrder));
    // The slow process makes others wait: there is something a wrong rule could call a wave.
    EXPECT_GT(late_sender, 100e-9);
    if (expect_wrong_order) {
        EXPECT_GT(wrong_order, 100e-9);
    }
    const auto root = r.find_metric(patterns::metric::kWavefrontRoot);
    ASSERT_TRUE(root.has_value()) << "a 4x4 grid has wave metrics";
    int corners = 0;
    for (int m : r.metric_subtree(*root)) {
        corners += m != *root;
        for (size_t loc = 0; loc < r.locations.size(); ++loc)
            EXPECT_EQ(r.total(m, static_cast<int>(loc)), 0.0)
                << r.metrics[m].unique_name << " at location " << loc;
    }
    EXPECT_EQ(corners, 4);
}

} // namespace

TEST(NoWave, ConjugateGradientLikeWithFixedOrderReceives) {
    ModelRun run;
    for (int iteration = 0; iteration < 3; ++iteration) {
        run.compute(everyone());
        run.exchange(halo(1, 1), Receive::FixedOrder);
        run.compute(everyone());
        run.allreduce();
        run.allreduce();
    }
    expect_no_wave(run.analyze(), /*expect_wrong_order=*/true);
}

TEST(NoWave, ConjugateGradientLikeWithWaitall) {
    ModelRun run;
    for (int iteration = 0; iteration < 3; ++iteration) {
        run.compute(everyone());
        run.exchange(halo(1, 1), Receive::Waitall);
        run.compute(everyone());
        run.allreduce();
        run.allreduce();
    }
    expect_no_wave(run.analyze(), /*expect_wrong_order=*/false);
}

TEST(NoWave, MultigridLikeVCycles) {
    for (const Receive receive : {Receive::FixedOrder, Receive::Waitall}) {
        SCOPED_TRACE(receive == Receive::FixedOrder ? "fixed order" : "waitall");
        ModelRun run;
        for (int cycle = 0; cycle < 2; ++cycle) {
            run.compute(everyone());
            run.exchange(halo(1, 1), receive); // smooth on the fine grid
            run.exchange(transfer(true, 2), receive);
            run.compute(everyone());
            run.exchange(halo(2, 3), receive); // the coarse grid's halo, stride 2
            run.allreduce();                   // coarse solve's residual
            run.exchange(transfer(false, 4), receive);
            run.compute(everyone());
            run.exchange(halo(1, 5), receive); // smooth again
        }
        expect_no_wave(run.analyze(), receive == Receive::FixedOrder);
    }
}
