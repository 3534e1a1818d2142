// The exchange between the ranks of a shared analysis (ranks as threads): what each rank
// sends arrives unchanged, and a rank that stops stops every rank with its reason, whichever
// exchange the others wait in, even after they are done.
#include "trace/thread_exchange.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <mutex>
#include <string>
#include <vector>

using namespace topolens;

namespace {

// Runs `body` on `ranks` ranks and returns the error that reached the caller ("none").
std::string error_of(unsigned ranks, const std::function<void(trace::Exchange&)>& body) {
    try {
        trace::run_ranks_in_threads(ranks, body);
    } catch (const trace::ExchangeFailed& e) {
        return e.what();
    } catch (const std::exception& e) {
        return std::string("not agreed: ") + e.what();
    }
    return "none";
}

TEST(Exchange, BuffersArriveUnchangedWhateverTheirLastByte) {
    constexpr unsigned kRanks = 3;
    std::mutex lock;
    std::vector<std::vector<trace::Bytes>> got(kRanks);
    EXPECT_EQ(error_of(kRanks,
                       [&](trace::Exchange& ex) {
                           // Rank r sends r+to bytes to rank `to`, the last one 1 (as the
                           // status of a failed rank is) or 0.
                           std::vector<trace::Bytes> out(ex.size());
                           for (unsigned to = 0; to < ex.size(); ++to)
                               out[to] = trace::Bytes(ex.rank() + to, std::byte{1});
                           std::vector<trace::Bytes> in = ex.all_to_all(std::move(out));
                           const std::lock_guard<std::mutex> hold(lock);
                           got[ex.rank()] = std::move(in);
                       }),
              "none");
    for (unsigned to = 0; to < kRanks; ++to)
        for (unsigned from = 0; from < kRanks; ++from)
            EXPECT_EQ(got[to][from], trace::Bytes(from + to, std::byte{1}))
                << "from " << from << " to " << to;
}

TEST(Exchange, ARankThatStopsStopsTheOthersInWhicheverExchangeTheyWait) {
    constexpr unsigned kRanks = 3;
    std::vector<std::string> seen(kRanks, "went on");
    const std::string error = error_of(kRanks, [&](trace::Exchange& ex) {
        if (ex.rank() == 1) throw std::runtime_error("rank 1 could not read 1.evt");
        try {
            if (ex.rank() == 0)
                ex.all_gather(trace::Bytes(8));
            else
                ex.all_to_all(std::vector<trace::Bytes>(ex.size()));
        } catch (const trace::ExchangeFailed& e) {
            seen[ex.rank()] = e.what();
            throw;
        }
    });
    EXPECT_EQ(error, "rank 1 could not read 1.evt");
    EXPECT_EQ(seen[0], "rank 1 could not read 1.evt");
    EXPECT_EQ(seen[2], "rank 1 could not read 1.evt");
}

TEST(Exchange, RanksThatStopTogetherStopEveryRankWithTheLowestOnesReason) {
    constexpr unsigned kRanks = 4;
    std::vector<std::string> seen(kRanks);
    std::mutex lock;
    error_of(kRanks, [&](trace::Exchange& ex) {
        try {
            if (ex.rank() >= 2) ex.fail("rank " + std::to_string(ex.rank()) + " stopped");
            ex.all_gather({});
        } catch (const trace::ExchangeFailed& e) {
            const std::lock_guard<std::mutex> hold(lock);
            seen[ex.rank()] = e.what();
            throw;
        }
    });
    for (unsigned r = 0; r < kRanks; ++r) EXPECT_EQ(seen[r], "rank 2 stopped") << "rank " << r;
}

// The ranks that are done wait in run_agreed's closing exchange, where a rank that fails
// later finds them.
TEST(Exchange, ARankThatStopsAfterTheOthersAreDoneStillStopsThem) {
    constexpr unsigned kRanks = 3;
    std::vector<int> done(kRanks, 0);
    const std::string error = error_of(kRanks, [&](trace::Exchange& ex) {
        ex.all_gather({});
        if (ex.rank() == 2) throw std::runtime_error("cannot write report.cubex");
        done[ex.rank()] = 1;
    });
    EXPECT_EQ(error, "cannot write report.cubex"); // rank 0's error: rank 2's reason
    EXPECT_EQ(done, (std::vector<int>{1, 1, 0}));
}

} // namespace
