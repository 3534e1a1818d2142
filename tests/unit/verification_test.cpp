// Verification runs (patterns/audit/verification.h) on hand-made measurements: a run's time,
// the codelets' ranges, overlaps, instability classes at the boundaries of Benkert's Table
// 6.1, winner and worst sets, the tuner's penalty, the ranking error of §6.3.2, every kind
// of bad verification run, and the "verification" objects in the audit JSON. Every expected
// number is exact or derived here from the definitions.
#include "json_check.h"
#include "patterns/audit/codelet_audit.h"
#include "patterns/audit/codelet_audit_json.h"
#include "patterns/audit/verification.h"
#include "patterns/audit/verification_json.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace topolens;
using namespace topolens::patterns;
using test::JsonValue;
using test::parse_json;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

namespace {

const std::vector<std::string> kNames = {"a", "b", "c", "d", "e", "f", "g"};

// The tuned run: codelets 0..6 searched on two locations, every measurement of codelet c
// taking search[c] seconds (so every estimate, and the consensus, is search[c]); both
// locations decided `choice`.
CodeletMeasurements tuned_run(const std::vector<double>& search, int64_t choice) {
    OperationMeasurements op;
    op.name = "halo";
    op.technique = TimingTechnique::BarrierBefore;
    for (std::size_t c = 0; c < kNames.size(); ++c) op.codelets[int64_t(c)] = kNames[c];
    for (uint32_t location = 0; location < 2; ++location) {
        for (std::size_t c = 0; c < search.size(); ++c)
            for (uint32_t m = 0; m < 5; ++m)
                op.search.push_back({location, int64_t(c), m, 10.0 * m + double(c), search[c], 0});
        op.decisions[location] = choice;
    }
    CodeletMeasurements run;
    run.run_seconds = 100;
    run.operations.push_back(op);
    return run;
}

// A verification run of codelet `c`: location 0 takes `time` per execution, location 1 half
// of it, 4 executions each in production.
VerificationInput fixed_run(int64_t c, double time, const std::string& path) {
    OperationMeasurements op;
    op.name = "halo";
    op.codelets[c] = kNames[std::size_t(c)];
    op.production.push_back({0, c, 4, 4 * time, 0});
    op.production.push_back({1, c, 4, 2 * time, 0});
    VerificationInput in;
    in.path = path;
    in.measurements.operations.push_back(op);
    return in;
}

// Codelet c's runs: its range's two ends (ms).
struct Ends {
    int64_t codelet;
    double lo, hi;
};

// Six codelets whose ranges overlap 1, 4, 2, 3, 2 and 0 others: I = 0.2, 0.8, 0.4, 0.6, 0.4, 0
// (n_c − 1 = 5), every boundary of Table 6.1 hit exactly.
const std::vector<Ends> kBoundaries = {
    {0, 1.0, 1.6},   // overlaps 1
    {1, 1.5, 4.5},   // overlaps 0, 2, 3, 4
    {2, 2.0, 2.5},   // overlaps 1, 3
    {3, 2.4, 3.7},   // overlaps 1, 2, 4
    {4, 3.5, 4.0},   // overlaps 1, 3
    {5, 10.0, 11.0}, // overlaps none
};

std::vector<VerificationInput> runs_of(const std::vector<Ends>& ends) {
    std::vector<VerificationInput> runs;
    for (const Ends& e : ends) {
        runs.push_back(fixed_run(e.codelet, e.lo * 1e-3, "lo" + std::to_string(e.codelet)));
        runs.push_back(fixed_run(e.codelet, e.hi * 1e-3, "hi" + std::to_string(e.codelet)));
    }
    return runs;
}

Verification verify_boundaries(int64_t choice) {
    // The search saw codelet 2 fastest, and searched codelet 6, which no run verifies.
    const CodeletMeasurements tuned = tuned_run({5e-3, 4e-3, 1e-3, 2e-3, 3e-3, 6e-3, 7e-3}, choice);
    const Audit audit = patterns::audit(tuned, {}, {0, 1});
    return verify(tuned, audit, runs_of(kBoundaries));
}

} // namespace

TEST(VerificationRunTime, SlowestProcessMeanOverEveryExecution) {
    OperationMeasurements op;
    op.name = "halo";
    op.codelets[3] = "d";
    // Location 0: 2 search executions of 0.4 s and 10 in production summing to 1.0 s: 0.15 s.
    op.search.push_back({0, 3, 0, 0, 0.4, 0});
    op.search.push_back({0, 3, 1, 1, 0.4, 0});
    op.production.push_back({0, 3, 10, 1.0, 0});
    // Location 1: 5 production executions summing to 0.6 s: 0.12 s.
    op.production.push_back({1, 3, 5, 0.6, 0});
    const RunTime t = verification_run_time(op, "run");
    EXPECT_EQ(t.codelet, 3);
    EXPECT_DOUBLE_EQ(t.time, (0.4 + 0.4 + 1.0) / 12);
    EXPECT_EQ(t.executions, 17u);
}

TEST(Verification, RangesOverlapsAndInstabilityClassesAtTheBoundaries) {
    const Verification v = verify_boundaries(2);
    ASSERT_EQ(v.runs.size(), 12u);
    ASSERT_EQ(v.operations.size(), 1u);
    const OperationVerification& op = v.operations[0];
    EXPECT_EQ(op.name, "halo");
    EXPECT_EQ(op.runs.size(), 12u);
    ASSERT_EQ(op.codelets.size(), 6u);
    const std::vector<std::vector<int64_t>> overlaps = {{1},       {0, 2, 3, 4}, {1, 3},
                                                        {1, 2, 4}, {1, 3},       {}};
    const std::vector<double> instability = {0.2, 0.8, 0.4, 0.6, 0.4, 0};
    const std::vector<std::string> stability = {"stable",   "very unstable", "fair",
                                                "unstable", "fair",          "very stable"};
    for (std::size_t k = 0; k < 6; ++k) {
        const VerifiedCodelet& c = op.codelets[k];
        SCOPED_TRACE("codelet " + std::to_string(k));
        EXPECT_EQ(c.index, int64_t(k));
        EXPECT_EQ(c.name, kNames[k]);
        EXPECT_THAT(c.runs, ElementsAre(2 * k, 2 * k + 1));
        EXPECT_THAT(c.times, ElementsAre(kBoundaries[k].lo * 1e-3, kBoundaries[k].hi * 1e-3));
        EXPECT_EQ(c.lo, kBoundaries[k].lo * 1e-3);
        EXPECT_EQ(c.hi, kBoundaries[k].hi * 1e-3);
        EXPECT_NEAR(c.mean, (kBoundaries[k].lo + kBoundaries[k].hi) * 1e-3 / 2, 1e-15);
        EXPECT_EQ(c.overlaps, overlaps[k]);
        EXPECT_EQ(c.instability, instability[k]);
        EXPECT_EQ(c.stability, stability[k]);
    }
    // Best by mean: 0 (1.3 ms), with 1 overlapping it; worst: 5 (10.5 ms), alone.
    EXPECT_EQ(op.best, 0);
    EXPECT_EQ(op.worst, 5);
    for (std::size_t k = 0; k < 6; ++k) {
        EXPECT_EQ(op.codelets[k].winner_set, k == 0 || k == 1) << k;
        EXPECT_EQ(op.codelets[k].worst_set, k == 5) << k;
    }
    EXPECT_THAT(op.unverified, ElementsAre(6));
    // The tuner chose 2: 2.25 ms against 1.3 ms.
    EXPECT_EQ(op.tuner_choice, 2);
    EXPECT_EQ(op.technique, TimingTechnique::BarrierBefore); // the tuned run's
    ASSERT_TRUE(op.tuner_penalty_percent);
    EXPECT_NEAR(*op.tuner_penalty_percent, (2.25 - 1.3) / 1.3 * 100, 1e-9);
}

TEST(Verification, EveryCodeletOverlappingIsVeryUnstableAndAllAreWinnersAndWorst) {
    const CodeletMeasurements tuned = tuned_run({1e-3, 2e-3, 3e-3}, 0);
    const Verification v = verify(tuned, patterns::audit(tuned, {}, {0, 1}),
                                  runs_of({{0, 1.0, 3.0}, {1, 2.0, 4.0}, {2, 2.5, 2.6}}));
    const OperationVerification& op = v.operations[0];
    ASSERT_EQ(op.codelets.size(), 3u);
    for (const VerifiedCodelet& c : op.codelets) {
        EXPECT_EQ(c.instability, 1.0);
        EXPECT_EQ(c.stability, "very unstable");
        EXPECT_TRUE(c.winner_set);
        EXPECT_TRUE(c.worst_set);
    }
    EXPECT_EQ(op.best, 0);  // mean 2.0 ms
    EXPECT_EQ(op.worst, 1); // mean 3.0 ms
    EXPECT_EQ(*op.tuner_penalty_percent, 0.0);
    EXPECT_TRUE(op.unverified.empty()); // the search measured 0, 1 and 2 only
    // Every pair overlaps: any ranking is right.
    ASSERT_TRUE(op.ranking_error);
    EXPECT_TRUE(op.ranking_error->false_orderings.empty());
    EXPECT_EQ(op.ranking_error->max_avg, 0.0);
}

TEST(Verification, OneCodeletOnlyIsVeryStable) {
    const CodeletMeasurements tuned = tuned_run({1e-3, 2e-3}, 1);
    const Verification v =
        verify(tuned, patterns::audit(tuned, {}, {0, 1}), runs_of({{0, 1.0, 2.0}}));
    const OperationVerification& op = v.operations[0];
    ASSERT_EQ(op.codelets.size(), 1u);
    EXPECT_EQ(op.codelets[0].instability, 0.0);
    EXPECT_EQ(op.codelets[0].stability, "very stable");
    EXPECT_EQ(op.best, 0);
    // The tuner's choice, 1, was not verified: no penalty; nor a ranking of one codelet.
    EXPECT_EQ(op.tuner_choice, 1);
    EXPECT_FALSE(op.tuner_penalty_percent);
    EXPECT_FALSE(op.ranking_error);
}

// ADCL numbers codelets in the order it first runs them: a run of one fixed codelet calls it 0.
// The codelet is known by its name: 'c' (2 in the tuned run) run as codelet 0 verifies 2.
TEST(Verification, ACodeletIsKnownByItsNameWhenTheRunNumbersItOtherwise) {
    const CodeletMeasurements tuned = tuned_run({3e-3, 2e-3, 1e-3}, 2);
    VerificationInput renumbered = fixed_run(0, 1e-3, "selection");
    renumbered.measurements.operations[0].codelets = {{0, "c"}};
    const Verification v =
        verify(tuned, patterns::audit(tuned, {}, {0, 1}), {renumbered, fixed_run(1, 2e-3, "b")});
    const OperationVerification& op = v.operations[0];
    ASSERT_EQ(op.codelets.size(), 2u);
    EXPECT_EQ(op.codelets[0].index, 1);
    EXPECT_EQ(op.codelets[0].name, "b");
    EXPECT_EQ(op.codelets[1].index, 2);
    EXPECT_EQ(op.codelets[1].name, "c");
    EXPECT_EQ(op.codelets[1].mean, 1e-3);
    EXPECT_EQ(op.best, 2);
    EXPECT_EQ(op.tuner_penalty_percent, 0.0);
    // A name the tuned run does not have is still another codelet set.
    VerificationInput unknown = fixed_run(0, 1e-3, "unknown");
    unknown.measurements.operations[0].codelets = {{0, "zz"}};
    EXPECT_THROW(verify(tuned, patterns::audit(tuned, {}, {0, 1}), {unknown}), VerificationError);
}

TEST(Verification, WithoutRunsOfAnOperationEverySearchedCodeletIsUnverified) {
    const CodeletMeasurements tuned = tuned_run({1e-3, 2e-3}, 0);
    const Verification v = verify(tuned, patterns::audit(tuned, {}, {0, 1}), {});
    ASSERT_EQ(v.operations.size(), 1u);
    EXPECT_TRUE(v.operations[0].codelets.empty());
    EXPECT_FALSE(v.operations[0].best);
    EXPECT_FALSE(v.operations[0].tuner_penalty_percent);
    EXPECT_THAT(v.operations[0].unverified, ElementsAre(0, 1));
}

namespace {

VerifiedCodelet verified(int64_t index, double lo, double hi, double mean) {
    VerifiedCodelet c;
    c.index = index;
    c.lo = lo, c.hi = hi, c.mean = mean;
    return c;
}

} // namespace

TEST(RankingError, FalseOrderingsWeighedAsBenkert632) {
    // Verification: A = 0 [1.0, 1.2] avg 1.1, B = 1 [2.0, 3.0] avg 2.5, C = 2 [2.8, 3.2] avg 3.0
    // (B and C overlap). The search ranks them C < B < A, all three pairs the other way round.
    const std::vector<VerifiedCodelet> v = {verified(0, 1.0, 1.2, 1.1), verified(1, 2.0, 3.0, 2.5),
                                            verified(2, 2.8, 3.2, 3.0)};
    const RankingError e = ranking_error(v, {3.0, 2.0, 1.0});
    EXPECT_THAT(e.codelets, ElementsAre(0, 1, 2));
    EXPECT_EQ(e.flips, 1u); // B, C: overlapping, acceptable
    ASSERT_EQ(e.false_orderings.size(), 2u);
    // P_v relative to the fastest: avg over 1.1, min over 1.0, max over 1.2, in percent.
    auto p = [](double t, double min) { return (t - min) / min * 100; };
    const FalseOrdering& ab = e.false_orderings[0];
    EXPECT_EQ(ab.faster, 0);
    EXPECT_EQ(ab.slower, 1);
    EXPECT_DOUBLE_EQ(ab.e_avg, p(2.5, 1.1));
    // w_min(A,B) = min(P_min(B) − P_max(A), P_max(B) − P_min(A)) = min(100, 150); w_max: 150.
    EXPECT_DOUBLE_EQ(ab.e_min, p(2.0, 1.0));
    EXPECT_DOUBLE_EQ(ab.e_max, p(3.0, 1.2));
    const FalseOrdering& ac = e.false_orderings[1];
    EXPECT_EQ(ac.faster, 0);
    EXPECT_EQ(ac.slower, 2);
    EXPECT_DOUBLE_EQ(ac.e_avg, p(3.0, 1.1));
    // Here P_max(C) = 166.7 < P_min(C) = 180: the least loss comes from the maxima.
    EXPECT_DOUBLE_EQ(ac.e_min, p(3.2, 1.2));
    EXPECT_DOUBLE_EQ(ac.e_max, p(2.8, 1.0));
    EXPECT_DOUBLE_EQ(e.max_avg, p(3.0, 1.1));
    EXPECT_DOUBLE_EQ(e.sum_avg, p(2.5, 1.1) + p(3.0, 1.1));
    EXPECT_DOUBLE_EQ(e.max_min, p(3.2, 1.2));
    EXPECT_DOUBLE_EQ(e.max_max, p(2.8, 1.0));
}

TEST(RankingError, TheVerifiedOrderHasNoError) {
    const std::vector<VerifiedCodelet> v = {verified(0, 1.0, 1.2, 1.1), verified(1, 2.0, 3.0, 2.5),
                                            verified(2, 2.8, 3.2, 3.0)};
    // C before B is a flip within overlapping ranges, not an error.
    const RankingError e = ranking_error(v, {1.0, 3.0, 2.0});
    EXPECT_TRUE(e.false_orderings.empty());
    EXPECT_EQ(e.flips, 1u);
    EXPECT_EQ(e.max_avg, 0.0);
    EXPECT_EQ(e.sum_avg, 0.0);
    EXPECT_EQ(e.max_min, 0.0);
    EXPECT_EQ(e.max_max, 0.0);
    EXPECT_TRUE(ranking_error(v, {1.0, 2.0, 3.0}).false_orderings.empty());
    EXPECT_EQ(ranking_error(v, {1.0, 2.0, 3.0}).flips, 0u);
}

TEST(RankingError, ATieInTheSearchBetweenSeparateCodeletsIsAnError) {
    // sgn(0) differs from sgn of the verified difference (eqn. 6.1).
    const std::vector<VerifiedCodelet> v = {verified(0, 1.0, 1.0, 1.0), verified(1, 2.0, 2.0, 2.0)};
    const RankingError e = ranking_error(v, {5.0, 5.0});
    ASSERT_EQ(e.false_orderings.size(), 1u);
    EXPECT_DOUBLE_EQ(e.false_orderings[0].e_avg, 100.0);
    EXPECT_DOUBLE_EQ(e.false_orderings[0].e_min, 100.0);
    EXPECT_DOUBLE_EQ(e.false_orderings[0].e_max, 100.0);
}

TEST(Verification, RankingErrorOfTheTunedSearchOverSearchedAndVerifiedCodelets) {
    // Search (consensus): 2 < 3 < 4 < 1 < 0 < 5 < 6; verified by mean: 0 < 2 < 1 < 3 < 4 < 5.
    const Verification v = verify_boundaries(2);
    const OperationVerification& op = v.operations[0];
    ASSERT_TRUE(op.ranking_error);
    const RankingError& e = *op.ranking_error;
    EXPECT_THAT(e.codelets, ElementsAre(0, 1, 2, 3, 4, 5));
    // Ranked otherwise: (0,1), (0,2), (0,3), (0,4), (1,3), (1,4); of them only 0 with 2, 3
    // and 4 have separate ranges. Means 1.3, 2.25, 3.05, 3.75: e_avg in % of 1.3.
    ASSERT_EQ(e.false_orderings.size(), 3u);
    EXPECT_EQ(e.flips, 3u);
    const std::vector<double> means = {2.25, 3.05, 3.75};
    for (std::size_t k = 0; k < 3; ++k) {
        EXPECT_EQ(e.false_orderings[k].faster, 0);
        EXPECT_EQ(e.false_orderings[k].slower, int64_t(k + 2));
        EXPECT_NEAR(e.false_orderings[k].e_avg, (means[k] - 1.3) / 1.3 * 100, 1e-9);
    }
    EXPECT_NEAR(e.max_avg, (3.75 - 1.3) / 1.3 * 100, 1e-9);
}

namespace {

// The message verify() throws for `run` against the tuned run of the boundary test.
std::string error_for(const VerificationInput& run) {
    const CodeletMeasurements tuned = tuned_run({1e-3, 2e-3}, 0);
    try {
        verify(tuned, patterns::audit(tuned, {}, {0, 1}), {fixed_run(0, 1e-3, "good"), run});
    } catch (const VerificationError& e) {
        return e.what();
    }
    return "(no error)";
}

} // namespace

TEST(VerificationBadInput, AnotherProgramsOperation) {
    VerificationInput run = fixed_run(0, 1e-3, "other.cubex");
    run.measurements.operations[0].name = "allreduce";
    const std::string message = error_for(run);
    EXPECT_THAT(message, HasSubstr("other.cubex"));
    EXPECT_THAT(message, HasSubstr("'allreduce' is not tuned in the tuned run"));
    EXPECT_THAT(message, Not(HasSubstr("\n")));
}

TEST(VerificationBadInput, AnotherCodeletSet) {
    VerificationInput renamed = fixed_run(1, 1e-3, "renamed");
    renamed.measurements.operations[0].codelets[1] = "z";
    EXPECT_THAT(error_for(renamed), HasSubstr("codelet 1 of 'halo' is 'z', in the tuned run it "
                                              "is 'b' (another codelet set)"));
    VerificationInput unknown = fixed_run(1, 1e-3, "unknown");
    unknown.measurements.operations[0].codelets = {{42, "x"}};
    unknown.measurements.operations[0].production[0].codelet = 42;
    unknown.measurements.operations[0].production[1].codelet = 42;
    EXPECT_THAT(error_for(unknown), HasSubstr("verification run unknown: codelet 42 'x' of 'halo' "
                                              "is not a codelet of the tuned run"));
}

TEST(VerificationBadInput, SeveralCodelets) {
    VerificationInput run = fixed_run(0, 1e-3, "mixed");
    run.measurements.operations[0].codelets[1] = "b";
    run.measurements.operations[0].production.push_back({0, 1, 2, 2e-3, 0});
    EXPECT_EQ(error_for(run), "verification run mixed: 'halo' ran several codelets (0, 1); a "
                              "verification run runs one fixed codelet");
}

TEST(VerificationBadInput, ATunedSearch) {
    VerificationInput run;
    run.path = "tuned-again";
    run.measurements = tuned_run({1e-3, 2e-3, 3e-3}, 0);
    EXPECT_EQ(error_for(run), "verification run tuned-again: 'halo' is a tuned search (codelets "
                              "0, 1, 2 searched), not a run of one fixed codelet");
}

TEST(VerificationBadInput, NoOperationOrNoExecution) {
    VerificationInput empty;
    empty.path = "empty";
    EXPECT_EQ(error_for(empty), "verification run empty has no tuned operation");
    VerificationInput idle = fixed_run(0, 1e-3, "idle");
    idle.measurements.operations[0].production.clear();
    EXPECT_EQ(error_for(idle), "verification run idle: no execution of 'halo' finished");
}

TEST(VerificationJson, EachOperationGetsItsVerificationObject) {
    const CodeletMeasurements tuned = tuned_run({5e-3, 4e-3, 1e-3, 2e-3, 3e-3, 6e-3, 7e-3}, 2);
    const Audit audit = patterns::audit(tuned, {}, {0, 1});
    const Verification v = verify(tuned, audit, runs_of(kBoundaries));
    const std::string text = with_verification(audit, {0, 1}, v);
    const JsonValue doc = parse_json(text);
    const JsonValue& op = doc["operations"][0];
    // The audit's own members are unchanged, the verification comes last.
    EXPECT_EQ(op.object.back().first, "verification");
    EXPECT_EQ(op["name"].str(), "halo");
    EXPECT_EQ(op["tuner_winner"]["index"].num(), 2);
    const JsonValue& j = op["verification"];
    ASSERT_EQ(j["runs"].size(), 12u);
    EXPECT_EQ(j["runs"][0].str(), "lo0");
    EXPECT_EQ(j["best"].num(), 0);
    EXPECT_EQ(j["worst"].num(), 5);
    EXPECT_EQ(j["tuner_choice"].num(), 2);
    EXPECT_EQ(j["technique"].str(), "barrier");
    EXPECT_NEAR(j["tuner_penalty_percent"].num(), (2.25 - 1.3) / 1.3 * 100, 1e-9);
    ASSERT_EQ(j["unverified"].size(), 1u);
    EXPECT_EQ(j["unverified"][0].num(), 6);
    ASSERT_EQ(j["codelets"].size(), 6u);
    const JsonValue& c1 = j["codelets"][1];
    EXPECT_EQ(c1["index"].num(), 1);
    EXPECT_EQ(c1["name"].str(), "b");
    EXPECT_EQ(c1["runs"][0].num(), 2);
    EXPECT_EQ(c1["runs"][1].num(), 3);
    EXPECT_EQ(c1["times"][0].num(), 1.5 * 1e-3); // as the runs were made
    EXPECT_EQ(c1["range"][0].num(), 1.5 * 1e-3);
    EXPECT_EQ(c1["range"][1].num(), 4.5 * 1e-3);
    EXPECT_NEAR(c1["mean"].num(), 3e-3, 1e-15);
    EXPECT_EQ(c1["overlaps"].size(), 4u);
    EXPECT_EQ(c1["instability"].num(), 0.8);
    EXPECT_EQ(c1["stability"].str(), "very unstable");
    EXPECT_TRUE(c1["winner_set"].boolean_value());
    EXPECT_FALSE(c1["worst_set"].boolean_value());
    const JsonValue& e = j["ranking_error"];
    EXPECT_EQ(e["estimate"].str(), "consensus");
    EXPECT_EQ(e["codelets"].size(), 6u);
    EXPECT_EQ(e["flips"].num(), 3);
    ASSERT_EQ(e["false_orderings"].size(), 3u);
    EXPECT_EQ(e["false_orderings"][2]["faster"].num(), 0);
    EXPECT_EQ(e["false_orderings"][2]["slower"].num(), 4);
    EXPECT_NEAR(e["max_avg_percent"].num(), (3.75 - 1.3) / 1.3 * 100, 1e-9);
    // Without any: null where nothing is known.
    const Verification none = verify(tuned, audit, {});
    const JsonValue bare = parse_json(with_verification(audit, {0, 1}, none));
    const JsonValue& n = bare["operations"][0]["verification"];
    EXPECT_EQ(n["runs"].size(), 0u);
    EXPECT_TRUE(n["best"].is_null());
    EXPECT_TRUE(n["tuner_penalty_percent"].is_null());
    EXPECT_TRUE(n["ranking_error"].is_null());
    EXPECT_EQ(n["unverified"].size(), 7u);
}

TEST(VerificationJson, OperationsThatDoNotMatchAreRefused) {
    const CodeletMeasurements tuned = tuned_run({1e-3, 2e-3}, 0);
    const Audit audit = patterns::audit(tuned, {}, {0, 1});
    Verification v = verify(tuned, audit, {});
    v.operations[0].name = "other";
    EXPECT_THROW(with_verification(audit, {0, 1}, v), std::invalid_argument);
    v.operations.clear();
    EXPECT_THROW(with_verification(audit, {0, 1}, v), std::invalid_argument);
}
