// `topolens analyze` as a user runs it: reports written, bad input named, partial analyses.
#include "analyzer/report/cube4.h"
#include "patterns/metric_names.h"
#include "test_paths.h"
#include "test_util.h"
#include "trace/builder.h"

#include <gtest/gtest.h>

#include <filesystem>

using namespace topolens;
using test::run_command;
using test::ScratchDir;
using trace::CollectiveOp;
using trace::TraceBuilder;

namespace {

// Two ranks: a late sender (60 ticks) and an Allreduce; `cut` drops rank 1's events after
// its receive, as when a process died or its trace was cut short.
std::string write_trace(const std::filesystem::path& dir, bool cut) {
    TraceBuilder b(2);
    b.mpi_init(0, 0, 5);
    b.mpi_init(1, 0, 5);
    b.mpi_send(0, 100, 110, 1, b.world(), 7, 64);
    b.mpi_recv(1, 40, 120, 0, b.world(), 7, 64);
    b.mpi_collective(0, 130, 200, CollectiveOp::Allreduce, b.world());
    if (!cut) b.mpi_collective(1, 190, 200, CollectiveOp::Allreduce, b.world());
    b.mpi_finalize(0, 300, 305);
    if (!cut) b.mpi_finalize(1, 300, 305);
    return b.write(dir.string());
}

double late_sender_of_rank1(const report::Report& r) {
    const int ls = *r.find_metric(patterns::metric::kLateSender);
    return r.total(ls, 1);
}

} // namespace

TEST(AnalyzeCommand, WritesTheReportNextToTheTraceByDefault) {
    ScratchDir scratch;
    write_trace(scratch / "t", false);
    const auto r =
        run_command({topolens::test::topolens_bin(), "analyze", (scratch / "t").string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto report_path = scratch / "t" / "report.cubex";
    EXPECT_NE(r.out.find(report_path.string()), std::string::npos) << r.out;
    const report::Report report = report::read_cube4(report_path.string());
    EXPECT_NEAR(late_sender_of_rank1(report), 60e-9, 1e-15);
    EXPECT_NE(r.err.find("reading"), std::string::npos); // progress unless --quiet
}

// The root-cause analysis is on by default (delay costs, the critical path, wait edges) and
// --no-root-causes leaves it out, the other metrics unchanged.
TEST(AnalyzeCommand, RootCausesByDefaultAndLeftOutOnRequest) {
    ScratchDir scratch;
    write_trace(scratch / "t", false);
    const auto with = scratch / "with.cubex", without = scratch / "without.cubex";
    ASSERT_EQ(run_command({topolens::test::topolens_bin(), "analyze", (scratch / "t").string(),
                           "-o", with.string(), "-q"})
                  .exit_code,
              0);
    const auto r = run_command({topolens::test::topolens_bin(), "analyze", (scratch / "t").string(),
                                "-o", without.string(), "-q", "--no-root-causes"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const report::Report a = report::read_cube4(with.string());
    const report::Report b = report::read_cube4(without.string());
    ASSERT_TRUE(a.find_metric(patterns::metric::kDelay).has_value());
    ASSERT_TRUE(a.find_metric(patterns::metric::kCriticalPath).has_value());
    ASSERT_EQ(a.wait_edges.size(), 2u); // rank 1 waited for rank 0's send and its Allreduce
    EXPECT_EQ(a.wait_edges[0], (report::WaitEdge{"latesender", 1, 0, 60e-9}));
    EXPECT_FALSE(b.find_metric(patterns::metric::kDelay).has_value());
    EXPECT_FALSE(b.find_metric(patterns::metric::kCriticalPath).has_value());
    EXPECT_TRUE(b.wait_edges.empty());
    EXPECT_NEAR(late_sender_of_rank1(b), late_sender_of_rank1(a), 1e-15);
}

TEST(AnalyzeCommand, QuietAndExplicitOutput) {
    ScratchDir scratch;
    write_trace(scratch / "t", false);
    const auto out = scratch / "elsewhere.cubex";
    const auto r = run_command({topolens::test::topolens_bin(), "analyze", (scratch / "t").string(),
                                "-o", out.string(), "--quiet"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(r.err.empty()) << r.err;
    EXPECT_TRUE(std::filesystem::exists(out));
}

TEST(AnalyzeCommand, ACutTraceGivesWarningsAndAPartialReport) {
    ScratchDir scratch;
    write_trace(scratch / "t", true);
    const auto out = scratch / "partial.cubex";
    const auto r = run_command({topolens::test::topolens_bin(), "analyze", (scratch / "t").string(),
                                "-o", out.string(), "--quiet"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("warning: "), std::string::npos);
    EXPECT_NE(r.err.find("never reached it"), std::string::npos) << r.err;
    // What still means something is kept: the late sender before the cut.
    EXPECT_NEAR(late_sender_of_rank1(report::read_cube4(out.string())), 60e-9, 1e-15);
}

TEST(AnalyzeCommand, MissingTraceIsOneClearError) {
    ScratchDir scratch;
    const auto r =
        run_command({topolens::test::topolens_bin(), "analyze", (scratch / "nothing").string()});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("topolens: error: "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("nothing"), std::string::npos) << r.err;
}

TEST(AnalyzeCommand, UnwritableReportIsOneClearError) {
    ScratchDir scratch;
    write_trace(scratch / "t", false);
    const auto r = run_command({topolens::test::topolens_bin(), "analyze", (scratch / "t").string(),
                                "-o", "/proc/topolens/report.cubex", "--quiet"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("/proc/topolens/report.cubex"), std::string::npos) << r.err;
}

TEST(AnalyzeCommand, UsageErrors) {
    EXPECT_EQ(run_command({topolens::test::topolens_bin(), "analyze"}).exit_code, 2);
    EXPECT_EQ(run_command({topolens::test::topolens_bin(), "analyze", "a", "b"}).exit_code, 2);
    EXPECT_EQ(run_command({topolens::test::topolens_bin(), "analyze", "a", "--bogus"}).exit_code,
              2);
}

TEST(AnalyzeCommand, AReportNameMustEndInCubex) {
    ScratchDir scratch;
    write_trace(scratch / "t", false);
    for (const char* name : {"r.cube", "r", "r.cubex.tmp"}) {
        const auto r =
            run_command({topolens::test::topolens_bin(), "analyze", (scratch / "t").string(), "-o",
                         (scratch / name).string(), "--quiet"});
        EXPECT_EQ(r.exit_code, 2) << name;
        EXPECT_NE(r.err.find("must end in .cubex"), std::string::npos) << r.err;
        EXPECT_FALSE(std::filesystem::exists(scratch / name)) << name;
    }
}
