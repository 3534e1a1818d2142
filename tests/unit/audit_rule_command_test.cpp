// `topolens audit --rule adcl | --measurements N | --sweep | --aggregate min|max` as a user
// runs them, on a synthetic autotuner trace where ADCL's own rule and the tuner's recorded
// decision differ, and bad values of the new options.
#include "json_check.h"
#include "test_paths.h"
#include "test_util.h"
#include "trace/builder.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

using namespace topolens;
using test::JsonValue;
using test::parse_json;
using test::run_command;
using test::ScratchDir;
using trace::TraceBuilder;
using trace::TuningPhase;

namespace {

// Two processes tune "halo" over codelets 0 ("fast", 10 ticks) and 1 ("slow", 14 ticks),
// 10 measurements each, and decide for 0. On rank 0, measurements 3 and 7 of codelet 0 take
// 40 ticks: 40 >= 3 * 10, so ADCL counts 2 of 10 = 20% outliers there, not below 20: its rule
// takes the unfiltered avgs, max over processes 16 (rank 0) against 14, and picks 1.
std::string write_run(const std::filesystem::path& dir) {
    TraceBuilder b(2);
    const auto op = b.tuned_op("halo");
    for (int p = 0; p < 2; ++p) {
        b.mpi_init(p, 0, 5);
        trace::Time t = 10;
        b.tuning_phase(p, t++, op, TuningPhase::Search);
        for (int codelet = 0; codelet < 2; ++codelet) {
            b.codelet_switch(p, t++, op, codelet, codelet == 0 ? "fast" : "slow");
            for (int m = 0; m < 10; ++m) {
                trace::Time duration = codelet == 0 ? 10 : 14;
                if (codelet == 0 && p == 0 && (m == 3 || m == 7)) duration = 40;
                b.tuned_begin(p, t, op);
                b.tuned_end(p, t + duration, op);
                t += duration + 1;
            }
        }
        b.tuning_phase(p, t++, op, TuningPhase::Decision);
        b.tuning_decision(p, t++, op, 0, "fast");
        b.mpi_finalize(p, t + 10, t + 15);
    }
    return b.write(dir.string());
}

test::CommandResult audit(const std::string& trace, const std::vector<std::string>& args) {
    std::vector<std::string> argv = {topolens::test::topolens_bin(), "audit", trace};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_command(argv);
}

class AuditRuleCommand : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        scratch_ = new ScratchDir;
        trace_ = write_run(*scratch_ / "t");
    }
    static void TearDownTestSuite() {
        delete scratch_;
        scratch_ = nullptr;
    }
    static ScratchDir* scratch_;
    static std::string trace_;
};
ScratchDir* AuditRuleCommand::scratch_ = nullptr;
std::string AuditRuleCommand::trace_;

} // namespace

TEST_F(AuditRuleCommand, AdclRuleDisagreesWithTheRecordedDecision) {
    const auto r = audit(trace_, {"--rule", "adcl"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(test::contains_words(r.out, "ADCL_OUTLIER_FACTOR = 3, ADCL_OUTLIER_FRACTION = 20"))
        << r.out;
    EXPECT_TRUE(test::contains_words(r.out, "timing: no barrier before the measurements")) << r.out;
    EXPECT_TRUE(test::contains_words(r.out,
                                     "halo: ADCL's rule picks 1 slow (unfiltered avg); the tuner "
                                     "chose 0 fast"))
        << r.out;
    EXPECT_TRUE(test::contains_words(r.out,
                                     "its 20% outliers are not below 20%, so the smallest non-zero "
                                     "unfiltered avg wins: 1 slow (unfiltered)."))
        << r.out;
    // The default view names ADCL's rule among the facts.
    const auto d = audit(trace_, {});
    ASSERT_EQ(d.exit_code, 0) << d.err;
    EXPECT_TRUE(
        test::contains_words(d.out, "ADCL's rule 1 slow (unfiltered avg); the tuner chose 0 fast"))
        << d.out;
}

TEST_F(AuditRuleCommand, OutlierFractionAndAggregateAndMeasurementsChangeTheReplay) {
    const std::string same =
        "halo: ADCL's rule picks 0 fast (filtered avg); the tuner chose the same";
    // 20 < 21.
    auto r = audit(trace_, {"--rule", "adcl", "--outlier-fraction", "21"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(test::contains_words(r.out, same)) << r.out;
    // The fastest process (rank 1) has no outliers.
    r = audit(trace_, {"--rule", "adcl", "--aggregate", "min"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(test::contains_words(r.out, "min over processes")) << r.out;
    EXPECT_TRUE(test::contains_words(r.out, same)) << r.out;
    // The default view says whose estimates it shows.
    r = audit(trace_, {"--aggregate", "min"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(test::contains_words(r.out, "estimates of the fastest process (min)")) << r.out;
    EXPECT_TRUE(test::contains_words(r.out, "the fastest process's estimate of one execution"))
        << r.out;
    EXPECT_TRUE(
        test::contains_words(r.out, "ADCL's rule 0 fast (filtered avg); the tuner chose the same"))
        << r.out;
    // The first 3 measurements hold no outlier.
    r = audit(trace_, {"--rule", "adcl", "--measurements", "3"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(test::contains_words(r.out, "the first 3 measurement(s) per process")) << r.out;
    EXPECT_TRUE(test::contains_words(r.out, same)) << r.out;
    // Outlier factor 5: 40 < 50, no outliers; the filtered avg of 0 is then 16 > 14.
    r = audit(trace_, {"--rule", "adcl", "--outlier-factor", "5"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(test::contains_words(
        r.out, "halo: ADCL's rule picks 1 slow (filtered avg); the tuner chose "
               "0 fast"))
        << r.out;
}

TEST_F(AuditRuleCommand, MoreMeasurementsThanRecordedAreSaid) {
    const auto r = audit(trace_, {"--measurements", "50", "--format", "json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const JsonValue d = parse_json(r.out);
    EXPECT_EQ(d["parameters"]["measurements"].num(), 50);
    const JsonValue& diagnostics = d["operations"][0]["diagnostics"];
    ASSERT_EQ(diagnostics.size(), 2u) << r.out;
    EXPECT_EQ(diagnostics[0].str(), "codelet 0 (fast) has only 10 measurement(s) per process, "
                                    "fewer than the 50 asked for; all of them are used");
    EXPECT_EQ(d["operations"][0]["codelets"][0]["measurements"].num(), 10);
}

TEST_F(AuditRuleCommand, SweepShowsWhereEachWinnerSettles) {
    // ADCL on rank 0's codelet 0 by N: N <= 3 no outlier (0); N = 4 25%, N = 5 20%: unfiltered
    // avg 17.5, 16 ticks > 14 (1); N = 6, 7: 16%, 14% (0); N = 8, 9, 10: 25%, 22%, 20% (1).
    const auto r = audit(trace_, {"--sweep", "--format", "json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const JsonValue d = parse_json(r.out);
    EXPECT_EQ(d["format"].str(), "topolens-audit-sweep");
    const JsonValue& o = d["operations"][0];
    EXPECT_EQ(o["name"].str(), "halo");
    EXPECT_EQ(o["tuner_winner"].num(), 0);
    ASSERT_EQ(o["steps"].size(), 10u);
    const std::vector<int> adcl = {0, 0, 0, 1, 1, 0, 0, 1, 1, 1};
    for (std::size_t n = 0; n < 10; ++n) {
        EXPECT_EQ(o["steps"][n]["measurements"].num(), double(n + 1));
        EXPECT_EQ(o["steps"][n]["adcl"].num(), adcl[n]) << "N = " << n + 1;
    }
    EXPECT_EQ(o["stable_from"]["adcl"].num(), 8);
    for (const char* key : {"raw", "heuristic", "iqr", "cluster", "student_t", "consensus"})
        EXPECT_TRUE(o["stable_from"].has(key)) << key;
    const auto text = audit(trace_, {"--sweep"});
    ASSERT_EQ(text.exit_code, 0) << text.err;
    EXPECT_TRUE(test::contains_words(
        text.out, "halo: the winner from the first N measurements of each codelet "
                  "per process (N = 1-10 of 10 available; tuner's choice 0)"))
        << text.out;
    EXPECT_TRUE(
        test::contains_words(text.out, "N ADCL raw mean heuristic IQR cluster Student-t consensus"))
        << text.out;
    EXPECT_TRUE(test::contains_words(text.out, " 4 1 u ")) << text.out;
    EXPECT_TRUE(test::contains_words(text.out, "stable from N 8 ")) << text.out;
}

TEST_F(AuditRuleCommand, JsonHoldsTheNewKeys) {
    const auto r = audit(trace_, {"--format", "json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const JsonValue d = parse_json(r.out);
    EXPECT_EQ(d["parameters"]["aggregate"].str(), "max");
    EXPECT_EQ(d["parameters"]["outlier_factor"].num(), 3);
    EXPECT_EQ(d["parameters"]["outlier_fraction"].num(), 20);
    EXPECT_TRUE(d["parameters"]["measurements"].is_null());
    const JsonValue& o = d["operations"][0];
    EXPECT_EQ(o["adcl"]["winner"]["index"].num(), 1);
    EXPECT_EQ(o["adcl"]["basis"].str(), "unfiltered");
    EXPECT_EQ(o["adcl"]["filtered_candidate"].num(), 0);
    EXPECT_EQ(o["adcl"]["unfiltered_candidate"].num(), 1);
    EXPECT_FALSE(o["adcl"]["matches_tuner"].boolean_value());
    EXPECT_EQ(o["available_measurements"].num(), 10);
    // No barrier in the trace before the executions.
    EXPECT_EQ(o["timing_technique"].str(), "no-barrier");
    const JsonValue& c0 = o["codelets"][0];
    EXPECT_EQ(c0["adcl"]["outlier_percent"].num(), 20);
    EXPECT_NEAR(c0["adcl"]["unfiltered_avg"].num(), 16e-9, 1e-15);
    EXPECT_NEAR(c0["adcl"]["filtered_avg"].num(), 10e-9, 1e-15);
    ASSERT_EQ(c0["samples_min"].size(), 10u);
    EXPECT_NEAR(c0["samples_min"][3].num(), 10e-9, 1e-15);
    EXPECT_NEAR(c0["samples"][3].num(), 40e-9, 1e-15);
    EXPECT_TRUE(c0.has("worst_set"));
    EXPECT_TRUE(o["codelets"][1]["worst_set"].boolean_value());
}

TEST_F(AuditRuleCommand, BadValuesAreOneLineAndExit2) {
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"--rule", "foo"}, "--rule must be audit or adcl, not 'foo'"},
        {{"--measurements", "0"}, "--measurements needs a whole number >= 1, not '0'"},
        {{"--measurements", "2.5"}, "--measurements needs a whole number >= 1, not '2.5'"},
        {{"--aggregate", "avg"}, "--aggregate must be max or min, not 'avg'"},
        {{"--outlier-factor", "0"}, "--outlier-factor needs a whole number >= 1, not '0'"},
        {{"--outlier-fraction", "101"},
         "--outlier-fraction needs a whole number from 0 to 100, not '101'"},
    };
    for (const auto& [args, message] : cases) {
        const auto r = audit(trace_, args);
        EXPECT_EQ(r.exit_code, 2) << args[0];
        EXPECT_EQ(r.err, "topolens: error: audit: " + message + "\n");
        EXPECT_TRUE(r.out.empty()) << r.out;
    }
}
