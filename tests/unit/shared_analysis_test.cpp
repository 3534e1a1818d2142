// An analysis shared out to ranks (ranks as threads, as under mpirun): each rank's report
// keeps its own locations, and the report file they write together is the whole trace's,
// byte for byte, whatever the number of ranks; the warnings are the whole trace's, in the
// same order; an error on one rank stops every rank with it.
#include "analyzer/engine/engine.h"
#include "analyzer/engine/gathered_report.h"
#include "analyzer/report/cube4.h"
#include "patterns/registry.h"
#include "same_report.h"
#include "test_paths.h"
#include "test_util.h"
#include "trace/builder.h"
#include "trace/matching.h"
#include "trace/synthetic.h"
#include "trace/thread_exchange.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <set>
#include <string>
#include <vector>

using namespace topolens;
using test::ScratchDir;

namespace {

using Patterns = std::function<std::vector<std::unique_ptr<analysis::Pattern>>()>;

// Every pattern, the root-cause analysis (its backward replay in rounds) included.
std::vector<std::unique_ptr<analysis::Pattern>> shared_patterns() {
    return patterns::all_patterns();
}

// Each rank's report keeps its own locations: every row is as long as its share.
void expect_rows_of_share(const report::Report& kept, trace::LocationShare share) {
    const auto nloc = static_cast<uint32_t>(kept.locations.size());
    const auto first = static_cast<int>(std::min(share.first, nloc));
    const auto last = static_cast<int>(std::min(share.last, nloc));
    EXPECT_EQ(kept.kept_locations().first, first);
    EXPECT_EQ(kept.kept_locations().last, last);
    for (int m = 0; m < static_cast<int>(kept.metrics.size()); ++m)
        for (int c : kept.callpaths_with_values(m))
            ASSERT_EQ(kept.row(m, c)->size(), static_cast<size_t>(last - first))
                << kept.metrics[m].unique_name;
}

// The analysis on ranks in threads, the report written by them to `path`; rank 0's result
// with the report read back from it.
analysis::AnalysisResult analyze_shared(const std::string& anchor, unsigned ranks,
                                        const Patterns& make, unsigned threads,
                                        const std::string& path) {
    std::vector<analysis::AnalysisResult> results(ranks);
    std::vector<trace::LocationShare> shares(ranks);
    trace::run_ranks_in_threads(ranks, [&](trace::Exchange& exchange) {
        const auto [t, m] = trace::read_and_match_share(anchor, exchange, threads);
        analysis::AnalysisOptions options;
        options.threads = threads;
        options.exchange = &exchange;
        results[exchange.rank()] = analysis::analyze(t, m, make(), options);
        shares[exchange.rank()] = m.share;
        analysis::write_cube4_gathered(results[exchange.rank()].report, exchange, path);
    });
    for (unsigned r = 0; r < ranks; ++r) {
        SCOPED_TRACE("rank " + std::to_string(r));
        expect_rows_of_share(results[r].report, shares[r]);
    }
    results[0].report = report::read_cube4(path);
    return std::move(results[0]);
}

// The file the ranks write is the one-process analysis's, byte for byte, and so are its
// values read back, the warnings and the events.
void expect_shared_is_whole(const std::string& anchor, unsigned max_ranks, const Patterns& make) {
    const auto [t, m] = trace::read_and_match(anchor, 1);
    analysis::AnalysisOptions options;
    options.threads = 1;
    analysis::AnalysisResult whole = analysis::analyze(t, m, make(), options);
    ScratchDir dir;
    const std::string whole_path = (dir / "whole.cubex").string();
    report::write_cube4(whole.report, whole_path);
    const std::string expected = test::read_file(whole_path);
    whole.report = report::read_cube4(whole_path);
    std::set<uint32_t> processes;
    for (const trace::Location& l : t.defs.locations) processes.insert(l.rank);
    max_ranks = std::min<unsigned>(max_ranks, static_cast<unsigned>(processes.size()));
    for (unsigned ranks = 1; ranks <= max_ranks; ++ranks)
        for (unsigned threads : {1u, 2u}) {
            const std::string name =
                std::to_string(ranks) + " ranks, " + std::to_string(threads) + " threads each";
            SCOPED_TRACE(name);
            const std::string path = (dir / ("shared" + std::to_string(ranks) + "_" +
                                             std::to_string(threads) + ".cubex"))
                                         .string();
            const analysis::AnalysisResult shared =
                analyze_shared(anchor, ranks, make, threads, path);
            EXPECT_TRUE(test::read_file(path) == expected) << "the report files differ";
            test::expect_same_report(whole, shared);
        }
}

std::string synthetic(const ScratchDir& dir, const std::string& name, trace::SynthOptions o) {
    return trace::synthesize(o).builder.write((dir / name).string());
}

// Four processes on a 2x2 grid, the mixed pattern: for the failure tests.
std::string small_mixed(const ScratchDir& dir, uint32_t iterations) {
    trace::SynthOptions mixed;
    mixed.grid = {2, 2};
    mixed.iterations = iterations;
    return synthetic(dir, "mixed", mixed);
}

TEST(SharedAnalysis, SyntheticReportsAreTheWholeTracesBitForBit) {
    ScratchDir dir;
    trace::SynthOptions mixed;
    mixed.grid = {4, 3};
    mixed.iterations = 4;
    expect_shared_is_whole(synthetic(dir, "mixed", mixed), 4, shared_patterns);

    trace::SynthOptions halo;
    halo.pattern = trace::SynthPattern::Halo;
    halo.grid = {3, 3};
    halo.periodic = {true, false};
    halo.variant = trace::SynthVariant::Nonblocking;
    halo.iterations = 3;
    expect_shared_is_whole(synthetic(dir, "halo", halo), 4, shared_patterns);

    trace::SynthOptions sweep;
    sweep.pattern = trace::SynthPattern::Sweep;
    sweep.grid = {3, 2};
    sweep.between = trace::SynthBetween::Allreduce;
    sweep.iterations = 2;
    expect_shared_is_whole(synthetic(dir, "sweep", sweep), 3, shared_patterns);
}

// The traces of real programs (tests/data/scalasca-oracle: a pipelined wavefront, CG on a 3D
// grid, collectives, a halo exchange autotuned over codelets) and traces whose time goes
// backwards (tests/data/robustness).
TEST(SharedAnalysis, ReportsOfRecordedRunsAreTheWholeTracesBitForBit) {
    const std::filesystem::path oracle = topolens::test::oracle_dir();
    for (const char* name :
         {"wavefront2d", "cg3d", "collectives", "autotune_halo", "synth-mixed"}) {
        SCOPED_TRACE(name);
        expect_shared_is_whole((oracle / name).string(), 4, shared_patterns);
    }
    const std::filesystem::path robustness = topolens::test::robustness_dir();
    for (const char* name : {"time_backwards_leave_before_enter", "time_backwards_recv_leave"}) {
        SCOPED_TRACE(name);
        expect_shared_is_whole((robustness / name).string(), 3, shared_patterns);
    }
}

// Receives matched to the partner's later sends (clock-condition violations) make the
// backward replay's locations wait for each other in a cycle, here across ranks: broken
// once per cycle at the lowest location of all ranks, as in one process.
TEST(SharedAnalysis, CyclesOfWaitsAcrossRanksAreBrokenAsInOneProcess) {
    trace::TraceBuilder b(4);
    for (uint32_t r = 0; r < 4; ++r) b.mpi_init(r, 0, 5);
    for (uint32_t r = 0; r < 4; ++r) {
        const uint32_t partner = r ^ 1;
        b.mpi_recv(r, 10, 20 + r, partner, b.world(), 0, 8);
        b.mpi_send(r, 30, 31, partner, b.world(), 0, 8);
    }
    for (uint32_t r = 0; r < 4; ++r)
        b.mpi_collective(r, 40 + 3 * r, 60, trace::CollectiveOp::Barrier, b.world());
    for (uint32_t r = 0; r < 4; ++r) b.mpi_finalize(r, 70, 75);
    ScratchDir dir;
    const std::string anchor = b.write((dir / "cycles").string());
    const auto [t, m] = trace::read_and_match(anchor, 1);
    const analysis::AnalysisResult whole = analysis::analyze(t, m, shared_patterns());
    ASSERT_EQ(
        std::count_if(whole.warnings.begin(), whole.warnings.end(),
                      [](const std::string& w) { return w.find("cycle") != std::string::npos; }),
        1);
    expect_shared_is_whole(anchor, 4, shared_patterns);
}

// Processes with threads (the reader orders locations by process): a process's threads
// share its messages and collectives, so a rank holds every thread of its processes.
TEST(SharedAnalysis, ThreadedProcessesAreSharedOutWhole) {
    trace::TraceBuilder b(4);
    std::vector<uint32_t> threads;
    for (uint32_t r = 0; r < 4; ++r) threads.push_back(b.add_thread(r));
    for (uint32_t r = 0; r < 4; ++r) b.mpi_init(r, 0, 5);
    for (uint32_t r = 0; r < 4; ++r) {
        // The thread sends to the next process, the main thread receives from the previous.
        b.mpi_send(threads[r], 10 + r, 12 + r, (r + 1) % 4, b.world(), 3, 8);
        b.mpi_recv(r, 8, 30 + 2 * r, (r + 3) % 4, b.world(), 3, 8);
    }
    for (uint32_t r = 0; r < 4; ++r)
        b.mpi_collective(r % 2 ? threads[r] : r, 40 + 5 * r, 70, trace::CollectiveOp::Allreduce,
                         b.world());
    for (uint32_t r = 0; r < 4; ++r) b.mpi_finalize(r, 80, 85);
    ScratchDir dir;
    const std::string anchor = b.write((dir / "threads").string());
    expect_shared_is_whole(anchor, 4, shared_patterns);
}

// A damaged event file in one rank's share stops every rank with the same error, naming
// the file; none waits for it in an exchange.
TEST(SharedAnalysis, ADamagedShareStopsEveryRankWithTheSameError) {
    ScratchDir dir;
    const std::string anchor = small_mixed(dir, 2);
    const std::filesystem::path last_events =
        std::filesystem::path(anchor).parent_path() / "traces" / "3.evt";
    ASSERT_TRUE(std::filesystem::exists(last_events));
    test::write_file(last_events, "not an OTF2 event file");
    constexpr unsigned kRanks = 3;
    std::vector<std::string> errors(kRanks);
    trace::run_ranks_in_threads(kRanks, [&](trace::Exchange& exchange) {
        try {
            trace::read_and_match_share(anchor, exchange, 1);
            errors[exchange.rank()] = "no error";
        } catch (const trace::TraceError& e) {
            errors[exchange.rank()] = e.what();
        }
    });
    EXPECT_TRUE(test::contains_words(errors[0], "3.evt")) << errors[0];
    for (unsigned r = 1; r < kRanks; ++r) EXPECT_EQ(errors[r], errors[0]) << "rank " << r;
}

// A pattern that fails in the backward replay at one location: on one rank only, while the
// others wait for that rank's posts in a round.
struct FailsBackwardAt : analysis::Pattern {
    uint32_t location = 0;
    std::string name() const override { return "fails backward"; }
    std::unique_ptr<analysis::Pattern> clone() const override {
        return std::make_unique<FailsBackwardAt>(*this);
    }
    void merge(analysis::Pattern&) override {}
    bool replays_backward() const override { return true; }
    void define_metrics(report::Report&) override {}
    void subscribe(analysis::Dispatcher& d) override {
        d.on_backward_take([this](const analysis::Context&, const analysis::BackwardStep& step) {
            if (step.location == location)
                throw std::runtime_error("pattern failed at location " + std::to_string(location));
        });
    }
};

TEST(SharedAnalysis, AnErrorInTheBackwardReplayOfOneRankStopsEveryRankWithIt) {
    ScratchDir dir;
    const std::string anchor = small_mixed(dir, 3);
    constexpr unsigned kRanks = 2; // locations 2 and 3 on rank 1
    std::vector<std::string> errors(kRanks, "no error");
    try {
        trace::run_ranks_in_threads(kRanks, [&](trace::Exchange& exchange) {
            try {
                const auto [t, m] = trace::read_and_match_share(anchor, exchange, 1);
                std::vector<std::unique_ptr<analysis::Pattern>> patterns;
                auto failing = std::make_unique<FailsBackwardAt>();
                failing->location = 3;
                patterns.push_back(std::move(failing));
                analysis::AnalysisOptions options;
                options.threads = 1;
                options.exchange = &exchange;
                analysis::analyze(t, m, patterns, options);
            } catch (const std::exception& e) {
                errors[exchange.rank()] = e.what();
                throw;
            }
        });
    } catch (const std::exception& e) {
        EXPECT_EQ(std::string(e.what()), "pattern failed at location 3");
    }
    for (unsigned r = 0; r < kRanks; ++r)
        EXPECT_EQ(errors[r], "pattern failed at location 3") << "rank " << r;
}

} // namespace
