// Time going backwards on a location (issue 15): the matching warns, and every event stamped
// before its predecessor on its location is taken to happen at the predecessor's time, in
// the replay, the messages' call times and the collectives alike, so no duration wraps
// around. Each case is compared with the same trace built with the clamped times (exact
// timestamps, 1 tick = 1 ns).
#include "pattern_test_util.h"
#include "test_util.h"

#include "analyzer/engine/engine.h"
#include "patterns/analyze_file.h"
#include "patterns/metric_names.h"
#include "patterns/registry.h"
#include "test_paths.h"
#include "trace/builder.h"
#include "trace/matching.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <string>

using namespace topolens;
using trace::TraceBuilder;
namespace metric = patterns::metric;

using namespace topolens::test;

namespace {

// The warnings that contain `text`.
size_t warnings_with(const analysis::AnalysisResult& r, const std::string& text) {
    size_t n = 0;
    for (const std::string& w : r.warnings)
        if (w.find(text) != std::string::npos) ++n;
    return n;
}

// Every time metric, at every call path and location, is finite and within [0, run].
void expect_bounded(const analysis::AnalysisResult& r, double run_seconds) {
    const report::Report& rep = r.report;
    for (int m = 0; m < static_cast<int>(rep.metrics.size()); ++m) {
        if (rep.metrics[m].unit != "sec" || !rep.metrics[m].derived_type.empty()) continue;
        for (int c = 0; c < static_cast<int>(rep.callpaths.size()); ++c)
            for (int l = 0; l < static_cast<int>(rep.locations.size()); ++l) {
                const double v = rep.inclusive(m, c, l);
                EXPECT_TRUE(std::isfinite(v)) << rep.metrics[m].unique_name;
                EXPECT_GE(v, 0.0) << rep.metrics[m].unique_name << " " << rep.callpath_name(c);
                EXPECT_LE(v, run_seconds + 1e-15)
                    << rep.metrics[m].unique_name << " " << rep.callpath_name(c) << " " << l;
            }
    }
}

// The same severities, exactly, everywhere.
void expect_same_values(const analysis::AnalysisResult& a, const analysis::AnalysisResult& b) {
    ASSERT_EQ(a.report.metrics.size(), b.report.metrics.size());
    ASSERT_EQ(a.report.callpaths.size(), b.report.callpaths.size());
    ASSERT_EQ(a.report.locations.size(), b.report.locations.size());
    for (int m = 0; m < static_cast<int>(a.report.metrics.size()); ++m)
        for (int c = 0; c < static_cast<int>(a.report.callpaths.size()); ++c) {
            ASSERT_EQ(a.report.callpath_name(c), b.report.callpath_name(c));
            for (int l = 0; l < static_cast<int>(a.report.locations.size()); ++l)
                EXPECT_EQ(a.report.value(m, c, l), b.report.value(m, c, l))
                    << a.report.metrics[m].unique_name << " " << a.report.callpath_name(c) << " "
                    << l;
        }
}

// Builds a trace twice: `backwards` true with the times as recorded (some going
// backwards), false with them clamped; analyzes both, checks the warning and compares.
analysis::AnalysisResult check(uint32_t ranks, double run_seconds, size_t backwards_steps,
                               const std::function<void(TraceBuilder&, bool)>& build) {
    TraceBuilder recorded(ranks), clamped(ranks);
    build(recorded, true);
    build(clamped, false);
    const auto r = run(recorded);
    const auto expected = run(clamped);
    EXPECT_EQ(warnings_with(expected, "time goes backwards"), 0u);
    EXPECT_EQ(warnings_with(r, "time goes backwards"), backwards_steps);
    EXPECT_EQ(warnings_with(r, "clamped"), backwards_steps);
    expect_bounded(r, run_seconds);
    expect_same_values(r, expected);
    // The trace given stays as recorded; clamping a copy gives the clamped one.
    trace::Trace copy = recorded.trace();
    EXPECT_TRUE(trace::clamp_times(copy));
    for (size_t loc = 0; loc < copy.locations.size(); ++loc) {
        const auto& got = copy.locations[loc].events;
        const auto& want = clamped.trace().locations[loc].events;
        EXPECT_EQ(got.size(), want.size());
        for (size_t i = 0; i < std::min(got.size(), want.size()); ++i)
            EXPECT_EQ(got[i].time, want[i].time) << loc << " " << i;
    }
    return r;
}

} // namespace

TEST(TimeBackwards, LeaveStampedBeforeItsEnterIsClampedToTheEnter) {
    const auto solver = [](TraceBuilder& b) { return b.region("solver"); };
    const auto r = check(2, 105 * kTick, 1, [&](TraceBuilder& b, bool backwards) {
        begin(b, 2);
        b.enter(0, 50, solver(b));
        b.leave(0, backwards ? 40 : 50, solver(b));
        end(b, 2, 100);
    });
    EXPECT_NE(r.warnings[0].find("event 3"), std::string::npos) << r.warnings[0];
    EXPECT_EQ(value(r, metric::kTime, "program/solver", 0), 0.0);
    EXPECT_NEAR(value(r, metric::kTime, "program/MPI_Init", 0), 5 * kTick, 1e-15);
    EXPECT_NEAR(value(r, metric::kTime, "program/MPI_Finalize", 0), 5 * kTick, 1e-15);
}

TEST(TimeBackwards, ReceiveLeftBeforeItsEnterWithALateSender) {
    // MPI_Recv entered at 40, its record at 120, its Leave stamped 30: taken as 120.
    const auto r = check(2, 205 * kTick, 1, [](TraceBuilder& b, bool backwards) {
        begin(b, 2);
        b.mpi_send(0, 100, 110, 1, b.world(), 7, 64);
        const auto recv = b.mpi_region("MPI_Recv");
        b.enter(1, 40, recv);
        b.recv(1, 120, 0, b.world(), 7, 64);
        b.leave(1, backwards ? 30 : 120, recv);
        end(b, 2, 200);
    });
    EXPECT_NEAR(value(r, metric::kLateSender, "program/MPI_Recv", 1), 60 * kTick, 1e-15);
    EXPECT_NEAR(value(r, metric::kTime, "program/MPI_Recv", 1), 80 * kTick, 1e-15);
}

TEST(TimeBackwards, ReceiveWhoseWholeCallGoesBackwards) {
    // The receive's Enter, record and Leave all stamped before work's Leave at 150: all
    // three taken as 150, after the send (one step backwards, one warning).
    const auto r = check(2, 205 * kTick, 1, [](TraceBuilder& b, bool backwards) {
        begin(b, 2);
        const auto work = b.region("work");
        b.enter(1, 10, work);
        b.leave(1, 150, work);
        b.mpi_send(0, 100, 110, 1, b.world(), 7, 64);
        b.mpi_recv(1, backwards ? 40 : 150, backwards ? 60 : 150, 0, b.world(), 7, 64);
        end(b, 2, 200);
    });
    EXPECT_EQ(value(r, metric::kLateSender, "program/MPI_Recv", 1), 0.0);
    EXPECT_EQ(value(r, metric::kTime, "program/MPI_Recv", 1), 0.0);
}

TEST(TimeBackwards, EnterEarlierThanThePreviousLeave) {
    // solver [10, 50], then compute entered at 30 (taken as 50) and left at 70.
    const auto r = check(1, 105 * kTick, 1, [](TraceBuilder& b, bool backwards) {
        begin(b, 1);
        const auto solver = b.region("solver");
        const auto compute = b.region("compute");
        b.enter(0, 10, solver);
        b.leave(0, 50, solver);
        b.enter(0, backwards ? 30 : 50, compute);
        b.leave(0, 70, compute);
        end(b, 1, 100);
    });
    EXPECT_NEAR(value(r, metric::kTime, "program/solver", 0), 40 * kTick, 1e-15);
    EXPECT_NEAR(value(r, metric::kTime, "program/compute", 0), 20 * kTick, 1e-15);
}

TEST(TimeBackwards, CollectiveMemberGoingBackwards) {
    // Rank 1 enters the first barrier at 30, inside work [10, 40] it had left: taken as 40.
    // In the second barrier rank 1's Leave (and collective end) is stamped 90, before its
    // enter at 105: taken as 105.
    const auto r = check(2, 205 * kTick, 2, [](TraceBuilder& b, bool backwards) {
        begin(b, 2);
        const auto work = b.region("work");
        b.enter(1, 10, work);
        b.leave(1, 40, work);
        b.mpi_collective(0, 50, 60, trace::CollectiveOp::Barrier, b.world());
        b.mpi_collective(1, backwards ? 30 : 40, 60, trace::CollectiveOp::Barrier, b.world());
        b.mpi_collective(0, 100, 110, trace::CollectiveOp::Barrier, b.world());
        b.mpi_collective(1, 105, backwards ? 90 : 105, trace::CollectiveOp::Barrier, b.world());
        end(b, 2, 200);
    });
    // First barrier: rank 1 waits from 40 to 50; second: rank 0 from 100 to 105.
    EXPECT_NEAR(value(r, metric::kBarrierWait, "program/MPI_Barrier", 1), 10 * kTick, 1e-15);
    EXPECT_NEAR(value(r, metric::kBarrierWait, "program/MPI_Barrier", 0), 5 * kTick, 1e-15);
    EXPECT_NEAR(value(r, metric::kTime, "program/MPI_Barrier", 1), 20 * kTick, 1e-15);
}

TEST(TimeBackwards, AGivenMatchingOfABackwardsTraceIsRedoneOnTheClampedTimes) {
    TraceBuilder b(2);
    begin(b, 2);
    b.mpi_send(0, 100, 110, 1, b.world(), 7, 64);
    const auto recv = b.mpi_region("MPI_Recv");
    b.enter(1, 40, recv);
    b.recv(1, 120, 0, b.world(), 7, 64);
    b.leave(1, 30, recv);
    end(b, 2, 200);
    const trace::Matching matching = trace::match(b.trace());
    EXPECT_TRUE(matching.time_goes_backwards);
    const auto r = analysis::analyze(b.trace(), matching, patterns::all_patterns());
    EXPECT_EQ(warnings_with(r, "time goes backwards"), 1u);
    expect_bounded(r, 205 * kTick);
    EXPECT_NEAR(value(r, metric::kLateSender, "program/MPI_Recv", 1), 60 * kTick, 1e-15);
    // Normal traces are left alone.
    TraceBuilder normal(1);
    begin(normal, 1);
    end(normal, 1, 100);
    EXPECT_FALSE(trace::match(normal.trace()).time_goes_backwards);
    trace::Trace copy = normal.trace();
    EXPECT_FALSE(trace::clamp_times(copy));
}

// ---------------------------------------------------------------- the reproducers

namespace {

std::filesystem::path reproducer(const char* name) {
    return std::filesystem::path(topolens::test::robustness_dir()) / name;
}

} // namespace

TEST(TimeBackwards, ReproducersReadFromFilesAreClamped) {
    struct Case {
        const char* dir;
        const char* callpath;
        const char* metric;
        double expected; // seconds
    };
    // leave_before_enter: rank 0's MPI_Init [1000, 500] -> [1000, 1000].
    // recv_leave: rank 1's MPI_Recv [2500, 100], record at 3020 -> [2500, 3020]; the send
    // was entered at 3000.
    const Case cases[] = {
        {"time_backwards_leave_before_enter", "program/MPI_Init", metric::kTime, 0.0},
        {"time_backwards_recv_leave", "program/MPI_Recv", metric::kLateSender, 500 * kTick},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.dir);
        const auto dir = reproducer(c.dir);
        if (!std::filesystem::exists(dir / "traces.otf2"))
            GTEST_SKIP() << dir << " missing (TOPOLENS_ROBUSTNESS_DIR)";
        const patterns::FileAnalysis a = patterns::analyze_file(dir.string());
        EXPECT_EQ(warnings_with(a.result, "time goes backwards"), 1u);
        EXPECT_EQ(warnings_with(a.result, "clamped"), 1u);
        expect_bounded(a.result, 5000 * kTick); // events from 1000 to 6000
        const uint32_t loc = std::string(c.metric) == metric::kTime ? 0 : 1;
        EXPECT_NEAR(value(a.result, c.metric, c.callpath, loc), c.expected, 1e-15);

        // Through the binary: the warning, then no wrapped-around value in the summary.
        ScratchDir scratch;
        const std::string out = (scratch / "r.cubex").string();
        const auto analyzed =
            run_command({topolens::test::topolens_bin(), "analyze", dir.string(), "-o", out});
        ASSERT_EQ(analyzed.exit_code, 0) << analyzed.err;
        EXPECT_NE(analyzed.err.find("time goes backwards"), std::string::npos) << analyzed.err;
        const auto summary = run_command({topolens::test::topolens_bin(), "summary", out});
        ASSERT_EQ(summary.exit_code, 0) << summary.err;
        EXPECT_EQ(summary.out.find("18446744073"), std::string::npos) << summary.out;
    }
}
