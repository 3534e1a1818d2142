// `topolens audit` as a user runs it: on a trace and on its report, with other parameters,
// and on bad input (no decision, codelet sets that differ between ranks, a single
// measurement, no tuned operations, a damaged report, bad options).
#include "test_paths.h"
#include "test_util.h"
#include "trace/builder.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <filesystem>

using namespace topolens;
using test::run_command;
using test::ScratchDir;
using trace::TraceBuilder;
using trace::TuningPhase;

namespace {

struct TunedRun {
    int processes = 2;
    int measurements = 5;
    bool decide = true;
    bool rank1_skips_codelet1 = false; // rank 1 measures codelet 0 only
    // Codelet 0 takes 10 ticks, codelet 1 takes 20, except measurement 2 of codelet 0 on
    // rank 0, which takes this long.
    trace::Time slow_execution = 10;
};

// Processes tune "halo" over codelets 0 ("fast") and 1 ("slow"), then decide for 0.
std::string write_run(const std::filesystem::path& dir, const TunedRun& run) {
    TraceBuilder b(run.processes);
    const auto op = b.tuned_op("halo");
    for (int p = 0; p < run.processes; ++p) {
        b.mpi_init(p, 0, 5);
        trace::Time t = 10;
        b.tuning_phase(p, t++, op, TuningPhase::Search);
        for (int codelet = 0; codelet < 2; ++codelet) {
            if (codelet == 1 && p == 1 && run.rank1_skips_codelet1) continue;
            b.codelet_switch(p, t++, op, codelet, codelet == 0 ? "fast" : "slow");
            for (int m = 0; m < run.measurements; ++m) {
                trace::Time duration = codelet == 0 ? 10 : 20;
                if (codelet == 0 && p == 0 && m == 2) duration = run.slow_execution;
                b.tuned_begin(p, t, op);
                b.tuned_end(p, t + duration, op);
                t += duration + 1;
            }
        }
        b.tuning_phase(p, t++, op, TuningPhase::Decision);
        if (run.decide) b.tuning_decision(p, t++, op, 0, "fast");
        b.mpi_finalize(p, t + 10, t + 15);
    }
    return b.write(dir.string());
}

test::CommandResult audit(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {topolens::test::topolens_bin(), "audit"};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_command(argv);
}

} // namespace

TEST(AuditCommand, ConfirmsAGoodDecisionOnTheTraceAndOnItsReport) {
    ScratchDir scratch;
    const std::string trace = write_run(scratch / "t", {});
    const auto text = audit({trace});
    ASSERT_EQ(text.exit_code, 0) << text.err;
    EXPECT_TRUE(test::contains_words(text.out, "halo: CONFIRMED")) << text.out;
    EXPECT_TRUE(test::contains_words(text.out, "tuner's choice 0 fast")) << text.out;

    const auto analyzed = run_command({topolens::test::topolens_bin(), "analyze", trace, "-o",
                                       (scratch / "r.cubex").string(), "--quiet"});
    ASSERT_EQ(analyzed.exit_code, 0) << analyzed.err;
    const auto from_trace = audit({trace, "--format", "json"});
    const auto from_report = audit({(scratch / "r.cubex").string(), "--format", "json"});
    ASSERT_EQ(from_report.exit_code, 0) << from_report.err;
    EXPECT_EQ(from_trace.out, from_report.out);
    EXPECT_TRUE(test::contains_words(from_report.out, "\"verdict\": \"confirmed\""))
        << from_report.out;
}

TEST(AuditCommand, OtherParametersRecomputeTheAuditFromTheReport) {
    ScratchDir scratch;
    TunedRun run;
    run.slow_execution = 25; // 2.5 x the fastest: an outlier for b = 2, not for b = 3
    const std::string trace = write_run(scratch / "t", run);
    ASSERT_EQ(run_command({topolens::test::topolens_bin(), "analyze", trace, "-o",
                           (scratch / "r.cubex").string(), "--quiet"})
                  .exit_code,
              0);
    const std::string report = (scratch / "r.cubex").string();
    const auto b3 = audit({report, "--format", "json"});
    const auto b2 = audit({report, "--format", "json", "--b", "2"});
    ASSERT_EQ(b2.exit_code, 0) << b2.err;
    EXPECT_TRUE(test::contains_words(b3.out, "\"b\": 3")) << b3.out;
    EXPECT_TRUE(test::contains_words(b2.out, "\"b\": 2")) << b2.out;
    // heuristic outliers of codelet 0: none with b = 3, the 25-tick run with b = 2.
    const auto heuristic_count = [](const std::string& json) {
        const std::size_t h = json.find("\"heuristic\": {");
        const std::size_t count = json.find("\"count\": ", h);
        return json.substr(count + 9, json.find_first_of(",\n", count) - count - 9);
    };
    EXPECT_EQ(heuristic_count(b3.out), "0");
    EXPECT_EQ(heuristic_count(b2.out), "1");
}

TEST(AuditCommand, NoDecisionIsUndecided) {
    ScratchDir scratch;
    TunedRun run;
    run.decide = false;
    const auto r = audit({write_run(scratch / "t", run)});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(test::contains_words(r.out, "halo: UNDECIDED")) << r.out;
    EXPECT_TRUE(test::contains_words(r.out, "No process recorded a decision")) << r.out;
    EXPECT_TRUE(test::contains_words(r.out, "the fastest codelet is 0 (fast)")) << r.out;
}

TEST(AuditCommand, CodeletSetsThatDifferBetweenRanksAreNamed) {
    ScratchDir scratch;
    TunedRun run;
    run.rank1_skips_codelet1 = true;
    const auto r = audit({write_run(scratch / "t", run)});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(test::contains_words(r.out, "different codelet sets")) << r.out;
    EXPECT_TRUE(test::contains_words(r.out, "rank(s) 1 measured {0}")) << r.out;
    EXPECT_TRUE(test::contains_words(r.out, "rank(s) 0 measured {0 1}")) << r.out;
    EXPECT_TRUE(test::contains_words(r.out, "halo: QUESTIONABLE")) << r.out;
}

TEST(AuditCommand, ASingleMeasurementIsNamedAndNotConfirmed) {
    ScratchDir scratch;
    TunedRun run;
    run.measurements = 1;
    const auto r = audit({write_run(scratch / "t", run)});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(test::contains_words(r.out, "single measurement per process")) << r.out;
    EXPECT_TRUE(test::contains_words(r.out, "halo: QUESTIONABLE")) << r.out;
}

TEST(AuditCommand, ATraceWithoutTunedOperationsIsAnError) {
    ScratchDir scratch;
    TraceBuilder b(1);
    b.mpi_init(0, 0, 5);
    b.mpi_finalize(0, 10, 15);
    const std::string trace = b.write((scratch / "t").string());
    const auto r = audit({trace});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_TRUE(test::contains_words(r.err, "holds no tuned operations")) << r.err;
}

TEST(AuditCommand, ADamagedReportIsNamed) {
    ScratchDir scratch;
    test::write_file(scratch / "bad.cubex", "this is not a tar archive at all");
    const auto r = audit({(scratch / "bad.cubex").string()});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_TRUE(test::contains_words(r.err, "bad.cubex")) << r.err;
    const auto missing = audit({(scratch / "missing.cubex").string()});
    EXPECT_EQ(missing.exit_code, 1);
    EXPECT_TRUE(test::contains_words(missing.err, "missing.cubex")) << missing.err;
}

TEST(AuditCommand, BadOptionsAreUsageErrors) {
    ScratchDir scratch;
    const std::string trace = write_run(scratch / "t", {});
    for (const std::vector<std::string>& args : {std::vector<std::string>{},
                                                 {trace, "--b", "0.5"},
                                                 {trace, "--b", "x"},
                                                 {trace, "--nomax", "1.5"},
                                                 {trace, "--nu", "0"},
                                                 {trace, "--format", "xml"},
                                                 {trace, "--bogus"},
                                                 {trace, "--b"}}) {
        const auto r = audit(args);
        EXPECT_EQ(r.exit_code, 2) << r.err;
        EXPECT_TRUE(test::contains_words(r.err, "topolens: error: audit:")) << r.err;
    }
}

// A second trace is a verification run (`topolens audit TUNED VERIFY...`), no usage error:
// the tuned run itself searched several codelets, so it cannot verify; one line says so.
TEST(AuditCommand, ATunedRunIsNoVerificationRun) {
    ScratchDir scratch;
    const std::string trace = write_run(scratch / "t", {});
    const auto r = audit({trace, trace});
    EXPECT_EQ(r.exit_code, 1) << r.err;
    // The trace has no report yet: two lines say it is made first (check_one_liners.sh),
    // then the one error line.
    const std::string report =
        (std::filesystem::path(trace).parent_path() / "report.cubex").string();
    const std::string notes = "topolens: analyzing " + trace + " first: it has no report yet (" +
                              report + ")\ntopolens: report written to " + report + "\n";
    ASSERT_EQ(r.err.rfind(notes, 0), 0u) << r.err;
    const std::string error = r.err.substr(notes.size());
    EXPECT_TRUE(test::contains_words(error, "topolens: error: audit: verification run " + trace))
        << r.err;
    EXPECT_TRUE(test::contains_words(error, "is a tuned search")) << r.err;
    EXPECT_EQ(std::count(error.begin(), error.end(), '\n'), 1) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST(AuditCommand, SummaryShowsTheVerdictNotTheDocuments) {
    ScratchDir scratch;
    const std::string trace = write_run(scratch / "t", {});
    const std::string report = (scratch / "r.cubex").string();
    ASSERT_EQ(
        run_command({topolens::test::topolens_bin(), "analyze", trace, "-o", report, "--quiet"})
            .exit_code,
        0);
    const auto r = run_command({topolens::test::topolens_bin(), "summary", report});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(test::contains_words(r.out, "autotuning (codelet audit; details: topolens audit"))
        << r.out;
    EXPECT_TRUE(test::contains_words(r.out, "halo: confirmed. The tuner chose 0 (fast)")) << r.out;
    // The stored measurements and audit are summarized by their size, not printed.
    EXPECT_TRUE(test::contains_words(r.out, "lines; read by topolens audit and the GUI)")) << r.out;
    EXPECT_FALSE(test::contains_words(r.out, "topolens-codelet-measurements")) << r.out;
}
