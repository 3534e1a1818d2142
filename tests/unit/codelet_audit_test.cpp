// The codelet audit (patterns/audit/codelet_audit.h) on hand-made measurements whose every
// expected number is exact or derived here from the definitions (docs/audit.md,
// the comments in codelet_audit.h), its text input (patterns/audit/AUDIT_FORMAT.md), its JSON and
// the JSON writer underneath.
#include "analyzer/report/json.h"
#include "json_check.h"
#include "patterns/audit/codelet_audit.h"
#include "patterns/audit/codelet_audit_json.h"
#include "patterns/audit/codelet_estimators.h"
#include "patterns/audit/codelet_measurements.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

using namespace topolens;
using namespace topolens::patterns;
using test::JsonValue;
using test::parse_json;
using ::testing::HasSubstr;

namespace {

// One operation, built measurement by measurement. Starts are 10·m + codelet seconds, so a
// test can tell where an outlier was.
struct Op {
    OperationMeasurements m;

    explicit Op(std::string name = "halo") { m.name = std::move(name); }
    Op& codelet(int64_t index, std::string name) {
        m.codelets[index] = std::move(name);
        return *this;
    }
    // Measurements m = 0, 1, ... of `codelet` on `location`; waits default to 0.
    Op& measure(uint32_t location, int64_t codelet, const std::vector<double>& durations,
                const std::vector<double>& waits = {}) {
        for (std::size_t k = 0; k < durations.size(); ++k)
            m.search.push_back({location, codelet, static_cast<uint32_t>(k),
                                start(static_cast<uint32_t>(k), codelet), durations[k],
                                k < waits.size() ? waits[k] : 0.0});
        return *this;
    }
    Op& decide(uint32_t location, int64_t codelet) {
        m.decisions[location] = codelet;
        return *this;
    }
    Op& produce(uint32_t location, int64_t codelet, uint64_t executions, double duration,
                double wait = 0) {
        m.production.push_back({location, codelet, executions, duration, wait});
        return *this;
    }
    static double start(uint32_t number, int64_t codelet) {
        return 10.0 * number + static_cast<double>(codelet);
    }
};

CodeletMeasurements input(const Op& op, double run_seconds = 100) {
    CodeletMeasurements in;
    in.run_seconds = run_seconds;
    in.operations.push_back(op.m);
    return in;
}

std::vector<uint32_t> identity_ranks(uint32_t n) {
    std::vector<uint32_t> r(n);
    for (uint32_t k = 0; k < n; ++k) r[k] = k;
    return r;
}

OperationAudit audit_one(const Op& op, uint32_t locations, double run_seconds = 100) {
    const Audit a = audit(input(op, run_seconds), AuditParameters{}, identity_ranks(locations));
    EXPECT_EQ(a.operations.size(), 1u);
    return a.operations.at(0);
}

std::vector<double> repeat(double v, std::size_t n) {
    return std::vector<double>(n, v);
}

// Eight measurements of 1 s and, at numbers 2 and 6, two of 10 s: the heuristic, IQR and
// cluster methods drop the two (heuristic: 10 > 3·1 and 2 <= floor(0.2·10); IQR: Q1 = Q3 =
// 1; cluster: {10, 10} is the smaller root child and fits n_o^max = 2) and estimate 1 s,
// while the raw mean is 2.8 s. (Student-t down-weights them but is pulled above 1 s.)
std::vector<double> ones_with_two_tens() {
    std::vector<double> t = repeat(1.0, 10);
    t[2] = t[6] = 10.0;
    return t;
}

bool contains(const std::vector<std::string>& diagnostics, const std::string& text) {
    return std::any_of(diagnostics.begin(), diagnostics.end(),
                       [&](const std::string& d) { return d.find(text) != std::string::npos; });
}

std::string joined(const std::vector<std::string>& diagnostics) {
    std::string out;
    for (const std::string& d : diagnostics) out += d + "\n";
    return out;
}

std::vector<OutlierAt> at_location(const std::vector<OutlierAt>& all, uint32_t location) {
    std::vector<OutlierAt> out;
    for (const OutlierAt& o : all)
        if (o.location == location) out.push_back(o);
    return out;
}

// median of four values: the mean of the middle two.
double median4(std::array<double, 4> v) {
    std::sort(v.begin(), v.end());
    return (v[1] + v[2]) / 2;
}

} // namespace

// ---- verdicts --------------------------------------------------------------------------------

TEST(CodeletAudit, ConfirmedWhenTheTunerPickedTheFastest) {
    Op op;
    op.codelet(0, "isend").codelet(1, "sendrecv");
    for (uint32_t loc = 0; loc < 2; ++loc) {
        op.measure(loc, 0, repeat(1.0, 5)).measure(loc, 1, repeat(2.0, 5)).decide(loc, 0);
        // Production at exactly 1.25 x the search estimate: not yet flagged (flag if > 1.25).
        op.produce(loc, 0, 4, 5.0);
    }
    const OperationAudit a = audit_one(op, 2);
    EXPECT_EQ(a.verdict, Verdict::Confirmed);
    ASSERT_TRUE(a.tuner_winner.has_value());
    EXPECT_EQ(*a.tuner_winner, 0);
    ASSERT_TRUE(a.best.has_value());
    EXPECT_EQ(*a.best, 0);
    EXPECT_EQ(a.agreeing_methods, 4);
    for (std::size_t m = 0; m < kMethods; ++m) EXPECT_EQ(a.method_winner[m], 0) << m;
    EXPECT_EQ(a.penalty_percent, 0.0);
    EXPECT_THAT(a.reason, HasSubstr("0 (isend)"));
    EXPECT_THAT(a.reason, HasSubstr("4 of 4"));
    EXPECT_TRUE(a.diagnostics.empty()) << joined(a.diagnostics);
    ASSERT_EQ(a.codelets.size(), 2u);
    for (std::size_t m = 0; m < kMethods; ++m) {
        EXPECT_DOUBLE_EQ(a.codelets[0].estimate[m], 1.0) << m;
        EXPECT_DOUBLE_EQ(a.codelets[1].estimate[m], 2.0) << m;
    }
    EXPECT_DOUBLE_EQ(a.codelets[0].consensus, 1.0);
    EXPECT_DOUBLE_EQ(a.codelets[1].consensus, 2.0);
    EXPECT_EQ(a.codelets[0].processes, 2u);
    EXPECT_EQ(a.codelets[0].measurements, 5u);
    ASSERT_TRUE(a.production.has_value());
    EXPECT_EQ(a.production->executions, 8u);
    EXPECT_DOUBLE_EQ(a.production->mean, 1.25);
    EXPECT_DOUBLE_EQ(a.production->search_estimate, 1.0);
    EXPECT_DOUBLE_EQ(a.production->ratio, 1.25);
    EXPECT_FALSE(a.production->flagged);
}

TEST(CodeletAudit, WrongWhenAFasterCodeletDoesNotOverlap) {
    // The tuner went by the raw mean: A's two 10 s outliers on location 0 make its mean
    // 2.8 s, above B's 1.5 s, though A takes 1 s whenever nothing disturbs it.
    Op op;
    op.codelet(0, "A").codelet(1, "B");
    op.measure(0, 0, ones_with_two_tens()).measure(1, 0, repeat(1.0, 10));
    for (uint32_t loc = 0; loc < 2; ++loc) op.measure(loc, 1, repeat(1.5, 10)).decide(loc, 1);
    const OperationAudit a = audit_one(op, 2);
    EXPECT_EQ(a.verdict, Verdict::Wrong);
    ASSERT_TRUE(a.best.has_value());
    EXPECT_EQ(*a.best, 0);
    EXPECT_EQ(*a.tuner_winner, 1);
    EXPECT_EQ(a.agreeing_methods, 0);
    EXPECT_EQ(a.method_winner[Raw], 1);
    for (Method m : kRobustMethods) EXPECT_EQ(a.method_winner[m], 0) << m;

    const CodeletAudit& A = *a.codelet(0);
    const CodeletAudit& B = *a.codelet(1);
    EXPECT_DOUBLE_EQ(A.estimate[Raw], 2.8); // max(2.8 on location 0, 1 on location 1)
    EXPECT_DOUBLE_EQ(A.estimate[Heuristic], 1.0);
    EXPECT_DOUBLE_EQ(A.estimate[Iqr], 1.0);
    EXPECT_DOUBLE_EQ(A.estimate[Cluster], 1.0);
    // Student-t: location 1's fit (all 1 s) is 1; location 0's is whatever the fit of its
    // sample is (its 20 % at +9 s pull it up: about 1.45), and the max of the two counts.
    EXPECT_DOUBLE_EQ(A.estimate[StudentT], student_t_estimate(ones_with_two_tens()).value);
    EXPECT_GT(A.estimate[StudentT], 1.0);
    EXPECT_DOUBLE_EQ(A.consensus, median4({A.estimate[Heuristic], A.estimate[Iqr],
                                           A.estimate[Cluster], A.estimate[StudentT]}));
    EXPECT_DOUBLE_EQ(A.consensus, 1.0);
    EXPECT_DOUBLE_EQ(B.consensus, 1.5);
    EXPECT_DOUBLE_EQ(a.penalty_percent, 100 * (B.consensus - A.consensus) / A.consensus);
    EXPECT_DOUBLE_EQ(a.penalty_percent, 50.0);
    // Ranges of the heuristic-filtered measurements: A [1, 1], B [1.5, 1.5].
    EXPECT_DOUBLE_EQ(A.range_lo, 1.0);
    EXPECT_DOUBLE_EQ(A.range_hi, 1.0);
    EXPECT_DOUBLE_EQ(B.range_lo, 1.5);
    EXPECT_DOUBLE_EQ(B.range_hi, 1.5);
    EXPECT_TRUE(A.winner_set);
    EXPECT_FALSE(B.winner_set);
    EXPECT_EQ(A.rank[Raw], 2);
    EXPECT_EQ(B.rank[Raw], 1);
    for (Method m : kRobustMethods) {
        EXPECT_EQ(A.rank[m], 1) << m;
        EXPECT_EQ(B.rank[m], 2) << m;
    }
    EXPECT_THAT(a.reason, HasSubstr("0 (A) is faster"));
    EXPECT_THAT(a.reason, HasSubstr("50.0%"));
    EXPECT_THAT(a.reason, HasSubstr("raw mean"));
}

// A {1, 1.25, 1.5, 1.75, 2} and B {1.25, ..., 2.25}: symmetric samples without outliers, so
// the heuristic, IQR and cluster estimates are their means 1.5 and 1.75 and the consensus is
// exactly those (Student-t, whatever its rounding, is only one of the four). The 10-90
// percentile ranges [1.1, 1.9] and [1.35, 2.15] overlap.
Op overlapping_op() {
    Op op;
    op.codelet(0, "A").codelet(1, "B");
    for (uint32_t loc = 0; loc < 2; ++loc)
        op.measure(loc, 0, {1.0, 1.25, 1.5, 1.75, 2.0})
            .measure(loc, 1, {1.25, 1.5, 1.75, 2.0, 2.25});
    return op;
}

TEST(CodeletAudit, QuestionableWhenFasterWithinTheSpreadAndProductionMispredicted) {
    Op op = overlapping_op();
    op.decide(0, 1).decide(1, 1);
    op.produce(0, 1, 4, 14.0); // mean 3.5 s = 2 x the search estimate of B
    op.produce(1, 1, 2, 4.0);  // mean 2 s
    const OperationAudit a = audit_one(op, 2);
    const CodeletAudit& A = *a.codelet(0);
    const CodeletAudit& B = *a.codelet(1);
    EXPECT_DOUBLE_EQ(A.consensus, 1.5);
    EXPECT_DOUBLE_EQ(B.consensus, 1.75);
    EXPECT_NEAR(A.range_lo, 1.0 + 0.4 * 0.25, 1e-12);
    EXPECT_NEAR(A.range_hi, 1.75 + 0.6 * 0.25, 1e-12);
    EXPECT_NEAR(B.range_lo, 1.25 + 0.4 * 0.25, 1e-12);
    EXPECT_NEAR(B.range_hi, 2.0 + 0.6 * 0.25, 1e-12);
    EXPECT_TRUE(A.winner_set);
    EXPECT_TRUE(B.winner_set);
    EXPECT_EQ(*a.best, 0);
    const double penalty = 100 * (B.consensus - A.consensus) / A.consensus;
    EXPECT_GT(penalty, kPenaltyTolerancePercent);
    EXPECT_DOUBLE_EQ(a.penalty_percent, penalty);

    EXPECT_EQ(a.verdict, Verdict::Questionable);
    ASSERT_TRUE(a.production.has_value());
    EXPECT_EQ(a.production->executions, 6u);
    EXPECT_DOUBLE_EQ(a.production->mean, 3.5);
    EXPECT_DOUBLE_EQ(a.production->search_estimate, B.consensus);
    EXPECT_DOUBLE_EQ(a.production->ratio, 3.5 / B.consensus);
    EXPECT_DOUBLE_EQ(a.production->ratio, 2.0);
    EXPECT_TRUE(a.production->flagged);
    EXPECT_THAT(a.reason, HasSubstr("mispredicted production"));
    EXPECT_THAT(a.reason, HasSubstr("2.00x"));
    EXPECT_THAT(a.reason, HasSubstr("0 (A)"));
    // The penalty is what the chosen codelet costs more than the best, relative to the best
    // (16.7 % of A's time; A is 14.3 % faster than B).
    EXPECT_THAT(a.reason, HasSubstr("1 (B) costs 16.7% more"));
    EXPECT_THAT(a.reason, HasSubstr("within the measurements' spread"));
}

TEST(CodeletAudit, WithinTheSpreadThePenaltyToleranceDecides) {
    // B at 17/16 and 33/32 of A's times: ranges overlapping, 6.25 % and 3.125 % more.
    Op op;
    op.codelet(0, "A").codelet(1, "B");
    const std::vector<double> a_times = {1.0, 1.25, 1.5, 1.75, 2.0};
    std::vector<double> b_times;
    for (double t : a_times) b_times.push_back(t * 1.0625); // exact in binary: 17/16
    op.measure(0, 0, a_times).measure(0, 1, b_times).decide(0, 1);
    const OperationAudit a = audit_one(op, 1);
    // 1.0625 x: 6.25 % > 5 %, so not within tolerance: Questionable, not Confirmed.
    EXPECT_DOUBLE_EQ(a.penalty_percent, 6.25);
    EXPECT_EQ(a.verdict, Verdict::Questionable);

    Op near;
    near.codelet(0, "A").codelet(1, "B");
    b_times.clear();
    for (double t : a_times) b_times.push_back(t * 1.03125); // 33/32: 3.125 %
    near.measure(0, 0, a_times).measure(0, 1, b_times).decide(0, 1);
    const OperationAudit n = audit_one(near, 1);
    EXPECT_DOUBLE_EQ(n.penalty_percent, 3.125);
    EXPECT_EQ(n.verdict, Verdict::Confirmed);
    EXPECT_EQ(*n.best, 0);
    EXPECT_THAT(n.reason, HasSubstr("0 (A)"));
    EXPECT_THAT(n.reason, HasSubstr("1 (B) costs only 3.1% more"));
}

TEST(CodeletAudit, ReliablyButSlightlySlowerIsQuestionable) {
    // B is 3.125 % slower (within tolerance) but the ranges [1, 1] and [1.03125, 1.03125] do
    // not overlap: not good (not in the winner set), not wrong (penalty within tolerance).
    Op op;
    op.codelet(0, "A").codelet(1, "B");
    op.measure(0, 0, repeat(1.0, 5)).measure(0, 1, repeat(1.03125, 5)).decide(0, 1);
    const OperationAudit a = audit_one(op, 1);
    EXPECT_FALSE(a.codelet(1)->winner_set);
    EXPECT_DOUBLE_EQ(a.penalty_percent, 3.125);
    EXPECT_EQ(a.verdict, Verdict::Questionable);
    EXPECT_THAT(a.reason, HasSubstr("1 (B) costs 3.1% more"));
    EXPECT_THAT(a.reason, HasSubstr("do not overlap"));
}

TEST(CodeletAudit, UndecidedWithoutDecisions) {
    Op op;
    op.codelet(0, "A").codelet(1, "B");
    for (uint32_t loc = 0; loc < 2; ++loc)
        op.measure(loc, 0, repeat(2.0, 5)).measure(loc, 1, repeat(1.0, 5));
    const OperationAudit a = audit_one(op, 2);
    EXPECT_EQ(a.verdict, Verdict::Undecided);
    EXPECT_FALSE(a.tuner_winner.has_value());
    EXPECT_EQ(*a.best, 1);
    EXPECT_EQ(a.agreeing_methods, 0);
    EXPECT_EQ(a.penalty_percent, 0.0);
    EXPECT_THAT(a.reason, HasSubstr("fastest codelet is 1 (B)"));
    // Without a decision the search cost is measured against the audit's winner.
    EXPECT_DOUBLE_EQ(a.search_seconds, 15.0);
    EXPECT_DOUBLE_EQ(a.search_cost_seconds, 15.0 - 10 * 1.0);
}

// ---- bad input: diagnostics, never a crash -------------------------------------------------

TEST(CodeletAudit, DifferentCodeletSetsNameTheRanks) {
    Op op;
    op.codelet(0, "A").codelet(1, "B");
    op.measure(0, 0, repeat(1.0, 5)).measure(0, 1, repeat(2.0, 5)).measure(1, 0, repeat(1.0, 5));
    op.decide(0, 0).decide(1, 0);
    // Locations 0 and 1 are ranks 5 and 7.
    const Audit all = audit(input(op), AuditParameters{}, {5, 7});
    const OperationAudit& a = all.operations.at(0);
    EXPECT_TRUE(contains(a.diagnostics, "different codelet sets")) << joined(a.diagnostics);
    EXPECT_TRUE(contains(a.diagnostics, "rank(s) 5 measured {0 1}")) << joined(a.diagnostics);
    EXPECT_TRUE(contains(a.diagnostics, "rank(s) 7 measured {0}")) << joined(a.diagnostics);
    EXPECT_EQ(a.verdict, Verdict::Questionable);
    EXPECT_THAT(a.reason, HasSubstr("different codelet sets"));
    const CodeletAudit& B = *a.codelet(1);
    EXPECT_EQ(B.processes, 1u);
    ASSERT_EQ(B.per_process_mean.size(), 2u);
    EXPECT_DOUBLE_EQ(*B.per_process_mean[0], 2.0);
    EXPECT_FALSE(B.per_process_mean[1].has_value());
}

TEST(CodeletAudit, DifferentDecisionsTakeTheMostCommon) {
    Op op;
    op.codelet(0, "A").codelet(1, "B");
    for (uint32_t loc = 0; loc < 3; ++loc)
        op.measure(loc, 0, repeat(1.0, 5)).measure(loc, 1, repeat(2.0, 5));
    op.decide(0, 0).decide(1, 1).decide(2, 0);
    const OperationAudit a = audit_one(op, 3);
    EXPECT_EQ(*a.tuner_winner, 0);
    EXPECT_TRUE(contains(a.diagnostics, "rank(s) 0,2 chose 0 (A)")) << joined(a.diagnostics);
    EXPECT_TRUE(contains(a.diagnostics, "rank(s) 1 chose 1 (B)")) << joined(a.diagnostics);
    EXPECT_TRUE(contains(a.diagnostics, "most common choice, 0 (A)")) << joined(a.diagnostics);
    EXPECT_EQ(a.verdict, Verdict::Questionable);
    EXPECT_THAT(a.reason, HasSubstr("decided differently"));
}

TEST(CodeletAudit, MissingDecisionsAreCounted) {
    Op op;
    op.codelet(0, "A");
    for (uint32_t loc = 0; loc < 3; ++loc) op.measure(loc, 0, repeat(1.0, 5));
    op.decide(1, 0);
    const OperationAudit a = audit_one(op, 3);
    EXPECT_TRUE(contains(a.diagnostics, "2 of 3 measuring processes recorded no decision"))
        << joined(a.diagnostics);
}

TEST(CodeletAudit, SingleMeasurementPerProcessIsNeverConfirmed) {
    Op op;
    op.codelet(0, "A").codelet(1, "B");
    for (uint32_t loc = 0; loc < 2; ++loc)
        op.measure(loc, 0, {1.0}).measure(loc, 1, {2.0}).decide(loc, 0);
    const OperationAudit a = audit_one(op, 2);
    EXPECT_TRUE(contains(a.diagnostics, "0 (A) has a single measurement per process"))
        << joined(a.diagnostics);
    EXPECT_NE(a.verdict, Verdict::Confirmed);
    EXPECT_EQ(a.verdict, Verdict::Questionable);
    EXPECT_THAT(a.reason, HasSubstr("only once"));
    EXPECT_DOUBLE_EQ(a.codelet(0)->consensus, 1.0);
    EXPECT_EQ(*a.best, 0);
}

TEST(CodeletAudit, DifferentMeasurementCountsAreADiagnostic) {
    Op op;
    op.codelet(0, "A");
    op.measure(0, 0, repeat(1.0, 5)).measure(1, 0, repeat(1.0, 3)).decide(0, 0).decide(1, 0);
    const OperationAudit a = audit_one(op, 2);
    EXPECT_TRUE(contains(a.diagnostics, "different numbers of measurements (3 to 5)"))
        << joined(a.diagnostics);
    EXPECT_EQ(a.codelet(0)->measurements, 5u);
    EXPECT_EQ(a.codelet(0)->samples.size(), 5u);
}

TEST(CodeletAudit, NoSearchMeasurementsAtAll) {
    Op op;
    op.codelet(0, "A").codelet(1, "B").decide(0, 0);
    const OperationAudit a = audit_one(op, 1);
    EXPECT_TRUE(a.codelets.empty());
    EXPECT_FALSE(a.best.has_value());
    EXPECT_TRUE(contains(a.diagnostics, "codelet 0 (A) was never measured"));
    EXPECT_TRUE(contains(a.diagnostics, "codelet 1 (B) was never measured"));
    EXPECT_EQ(a.verdict, Verdict::Questionable);
    EXPECT_THAT(a.reason, HasSubstr("no search-phase measurements"));
    EXPECT_EQ(a.search_seconds, 0.0);
    EXPECT_EQ(a.search_cost_seconds, 0.0);
    EXPECT_FALSE(a.production.has_value());
    for (std::size_t m = 0; m < kMethods; ++m) EXPECT_FALSE(a.method_winner[m].has_value());

    // Nothing at all: no codelets, no decisions.
    const OperationAudit empty = audit_one(Op("empty"), 1);
    EXPECT_EQ(empty.verdict, Verdict::Undecided);
    EXPECT_EQ(empty.reason, "No process recorded a decision for this operation.");
    // And an input without operations.
    EXPECT_TRUE(audit(CodeletMeasurements{}, AuditParameters{}, {}).operations.empty());
}

TEST(CodeletAudit, TunerChoiceNeverMeasured) {
    Op op;
    op.codelet(0, "A").codelet(1, "B").codelet(2, "C");
    for (uint32_t loc = 0; loc < 2; ++loc)
        op.measure(loc, 0, repeat(1.0, 5)).measure(loc, 1, repeat(2.0, 5)).decide(loc, 2);
    // The run went on with the tuner's choice.
    op.produce(0, 2, 3, 3.0).produce(1, 2, 3, 3.0);
    const OperationAudit a = audit_one(op, 2);
    EXPECT_EQ(*a.tuner_winner, 2);
    EXPECT_EQ(*a.best, 0);
    EXPECT_EQ(a.verdict, Verdict::Questionable);
    EXPECT_THAT(a.reason, HasSubstr("2 (C), which the search phase never measured"));
    EXPECT_TRUE(contains(a.diagnostics, "codelet 2 (C) was never measured"));
    EXPECT_EQ(a.agreeing_methods, 0);
    EXPECT_EQ(a.penalty_percent, 0.0); // no estimate to compare with
    // Production ran the codelet the tuner chose: nothing to say that it was another one,
    // and no search estimate to check it against.
    EXPECT_FALSE(contains(a.diagnostics, "not the chosen codelet")) << joined(a.diagnostics);
    EXPECT_FALSE(a.production.has_value());
    // The JSON still names the choice: the trace defines it even if it never ran.
    const auto doc = parse_json(to_json(audit(input(op), AuditParameters{}, {0, 1}), {0, 1}));
    EXPECT_EQ(doc["operations"][0]["tuner_winner"]["name"].str(), "C");
}

TEST(CodeletAudit, ProductionOfAnotherCodeletIsADiagnostic) {
    Op op;
    op.codelet(0, "A").codelet(1, "B");
    op.measure(0, 0, repeat(1.0, 5)).measure(0, 1, repeat(2.0, 5)).decide(0, 0);
    op.produce(0, 0, 2, 2.0).produce(0, 1, 1, 2.0);
    const OperationAudit a = audit_one(op, 1);
    EXPECT_TRUE(contains(a.diagnostics, "production phase also ran 1 (B), not the chosen codelet"))
        << joined(a.diagnostics);
    ASSERT_TRUE(a.production.has_value());
    EXPECT_EQ(a.production->executions, 2u);
    EXPECT_DOUBLE_EQ(a.production->mean, 1.0);
}

TEST(CodeletAudit, MeasurementBeyondTheRankTableIsIgnored) {
    Op op;
    op.codelet(0, "A");
    op.measure(0, 0, repeat(1.0, 5)).measure(1, 0, repeat(1.0, 5)).decide(0, 0).decide(1, 0);
    op.m.search.push_back({2, 0, 0, 0.0, 100.0, 0.0}); // location 2 of 2
    op.m.unfinished = 3;
    const OperationAudit a = audit_one(op, 2);
    EXPECT_TRUE(contains(a.diagnostics, "location 2")) << joined(a.diagnostics);
    EXPECT_TRUE(contains(a.diagnostics, "3 execution(s) were entered but never left"));
    // Both processes the audit knows decided; the ignored one does not count as measuring.
    EXPECT_FALSE(contains(a.diagnostics, "recorded no decision")) << joined(a.diagnostics);
    const CodeletAudit& A = *a.codelet(0);
    EXPECT_EQ(A.processes, 2u);
    EXPECT_EQ(A.per_process_mean.size(), 2u);
    EXPECT_EQ(A.samples, repeat(1.0, 5));
    EXPECT_DOUBLE_EQ(A.estimate[Raw], 1.0);
    EXPECT_EQ(a.verdict, Verdict::Confirmed);
    // The JSON of such an audit is still valid.
    EXPECT_NO_THROW(parse_json(to_json(audit(input(op), AuditParameters{}, {0, 1}), {0, 1})));
}

// ---- outliers ---------------------------------------------------------------------------------

TEST(CodeletAudit, OutliersOfTheProcessItselfAreNotPropagated) {
    Op op;
    op.codelet(0, "A");
    op.measure(0, 0, ones_with_two_tens()); // waits 0: location 0 itself was slow
    op.measure(1, 0, repeat(1.0, 10));
    op.decide(0, 0).decide(1, 0);
    const OperationAudit a = audit_one(op, 2);
    const CodeletAudit& A = *a.codelet(0);
    EXPECT_TRUE(A.outliers[Raw].empty());
    for (Method m : {Heuristic, Iqr, Cluster}) {
        const auto at0 = at_location(A.outliers[m], 0);
        ASSERT_EQ(at0.size(), 2u) << method_name(m);
        EXPECT_EQ(A.outliers[m].size(), 2u) << method_name(m);
        EXPECT_EQ(at0[0].number, 2u);
        EXPECT_EQ(at0[1].number, 6u);
        for (const OutlierAt& o : at0) {
            EXPECT_DOUBLE_EQ(o.time, 10.0);
            EXPECT_DOUBLE_EQ(o.start, Op::start(o.number, 0));
            EXPECT_EQ(o.wait, 0.0);
            EXPECT_FALSE(o.propagated);
            EXPECT_FALSE(o.global); // one process of two is no majority
            EXPECT_TRUE(o.caused());
        }
    }
}

TEST(CodeletAudit, TheCauseStaysCausedWhenTheOthersWaitedForItInTheSameMeasurement) {
    // Location 0 is slow at measurements 2 and 6 by itself; locations 1 and 2 waited for it
    // in the same measurements (all of their excess): 3 of 3 slow, but only one caused it.
    Op op;
    op.codelet(0, "A");
    op.measure(0, 0, ones_with_two_tens());
    std::vector<double> waits(10, 0.0);
    waits[2] = waits[6] = 9.0;
    op.measure(1, 0, ones_with_two_tens(), waits);
    op.measure(2, 0, ones_with_two_tens(), waits);
    const OperationAudit a = audit_one(op, 3);
    const CodeletAudit& A = *a.codelet(0);
    for (Method m : {Heuristic, Iqr}) {
        ASSERT_EQ(A.outliers[m].size(), 6u) << method_name(m);
        for (const OutlierAt& o : A.outliers[m]) {
            EXPECT_FALSE(o.global) << method_name(m);
            EXPECT_EQ(o.caused(), o.location == 0) << method_name(m);
            EXPECT_EQ(o.propagated, o.location != 0) << method_name(m);
        }
    }
}

TEST(CodeletAudit, HeuristicThatKeepsItsOutliersDropsNoneAndSaysSo) {
    // Three of ten measurements above 3 x min on location 0: more than n_o^max = 2, so the
    // heuristic uses the raw mean there and drops nothing; location 1 is clean.
    Op op;
    op.codelet(0, "A");
    std::vector<double> t = repeat(1.0, 10);
    t[1] = t[4] = t[7] = 10.0;
    op.measure(0, 0, t).measure(1, 0, repeat(1.0, 10)).decide(0, 0).decide(1, 0);
    const OperationAudit a = audit_one(op, 2);
    const CodeletAudit& A = *a.codelet(0);
    EXPECT_TRUE(A.outliers[Heuristic].empty());
    EXPECT_DOUBLE_EQ(*A.per_process_estimate[Heuristic][0], 3.7); // the raw mean
    EXPECT_TRUE(contains(a.diagnostics, "codelet 0 (A): on rank(s) 0 more than n_o^max"))
        << joined(a.diagnostics);
    // Nor does IQR: Q1 = 1, Q3 = 1 + 0.75 x 9 = 7.75 (type 7), upper fence 17.875.
    EXPECT_TRUE(A.outliers[Iqr].empty());
}

TEST(CodeletAudit, OutliersOnMostProcessesAtOnceAreGlobal) {
    // Measurement 2 is slow on 3 of 4 processes (a disturbance of the whole run, nobody
    // waiting), measurement 6 only on process 3 (caused there); 2 of 4 is no majority.
    Op op;
    op.codelet(0, "A");
    for (uint32_t loc = 0; loc < 4; ++loc) {
        std::vector<double> t = repeat(1.0, 10);
        if (loc < 3) t[2] = 10.0;
        if (loc == 3) t[6] = 10.0;
        if (loc < 2) t[8] = 10.0;
        op.measure(loc, 0, t).decide(loc, 0);
    }
    const OperationAudit a = audit_one(op, 4);
    const CodeletAudit& A = *a.codelet(0);
    for (Method m : {Heuristic, Iqr}) {
        ASSERT_EQ(A.outliers[m].size(), 6u) << method_name(m);
        for (const OutlierAt& o : A.outliers[m]) {
            EXPECT_EQ(o.global, o.number == 2) << method_name(m) << " m " << o.number;
            EXPECT_EQ(o.caused(), o.number != 2) << method_name(m) << " m " << o.number;
            EXPECT_FALSE(o.propagated);
        }
    }
    const auto doc = parse_json(
        to_json(audit(input(op), AuditParameters{}, identity_ranks(4)), identity_ranks(4)));
    const auto& first = doc["operations"][0]["codelets"][0]["outliers"]["heuristic"]["at"][0];
    EXPECT_EQ(first["measurement"].num(), 2.0);
    EXPECT_TRUE(first["global"].boolean_value());
}

TEST(CodeletAudit, OutliersWhoseWaitCoversTheExcessArePropagated) {
    // Location 0 caused two outliers (wait 0); locations 1 and 2 waited for them. The excess
    // over the process's median (1 s) is 9 s; propagated means wait >= 4.5 s.
    Op op;
    op.codelet(0, "A");
    op.measure(0, 0, ones_with_two_tens());
    std::vector<double> waits1(10, 0.0), waits2(10, 0.0);
    waits1[2] = 9.0; // all of the excess
    waits1[6] = 4.5; // exactly half of it
    waits2[2] = 4.0; // less than half
    waits2[6] = 0.5;
    op.measure(1, 0, ones_with_two_tens(), waits1);
    op.measure(2, 0, ones_with_two_tens(), waits2);
    const OperationAudit a = audit_one(op, 3);
    const CodeletAudit& A = *a.codelet(0);
    for (Method m : {Heuristic, Iqr}) {
        EXPECT_EQ(A.outliers[m].size(), 6u) << method_name(m);
        const auto at0 = at_location(A.outliers[m], 0);
        const auto at1 = at_location(A.outliers[m], 1);
        const auto at2 = at_location(A.outliers[m], 2);
        ASSERT_EQ(at0.size(), 2u);
        ASSERT_EQ(at1.size(), 2u);
        ASSERT_EQ(at2.size(), 2u);
        EXPECT_FALSE(at0[0].propagated);
        EXPECT_FALSE(at0[1].propagated);
        EXPECT_TRUE(at1[0].propagated);
        EXPECT_DOUBLE_EQ(at1[0].wait, 9.0);
        EXPECT_TRUE(at1[1].propagated);
        EXPECT_DOUBLE_EQ(at1[1].wait, 4.5);
        EXPECT_FALSE(at2[0].propagated);
        EXPECT_FALSE(at2[1].propagated);
    }
    // The median is the process's own: location 3's sample has median 4, so an outlier of
    // 13 s (excess 9) needs a wait of 4.5 s, and one of 4.4 s does not do.
    Op other;
    other.codelet(0, "A");
    std::vector<double> t = repeat(4.0, 10);
    t[1] = 13.0;
    t[8] = 13.0;
    std::vector<double> w(10, 0.0);
    w[1] = 4.5;
    w[8] = 4.4;
    other.measure(3, 0, t, w);
    const OperationAudit b = audit_one(other, 4);
    const auto h = at_location(b.codelet(0)->outliers[Iqr], 3);
    ASSERT_EQ(h.size(), 2u);
    EXPECT_TRUE(h[0].propagated);
    EXPECT_FALSE(h[1].propagated);
}

TEST(CodeletAudit, UnusuallyFastOutliersAreNotSlow) {
    // Nine 4 s and one 0.5 s at number 3: IQR (Q1 = Q3 = 4) drops the fast one; it lies
    // below the median, so it is neither slow nor propagated.
    Op op;
    op.codelet(0, "A");
    std::vector<double> t = repeat(4.0, 10);
    t[3] = 0.5;
    op.measure(0, 0, t, repeat(1.0, 10));
    const OperationAudit a = audit_one(op, 1);
    const auto& iqr = a.codelet(0)->outliers[Iqr];
    ASSERT_EQ(iqr.size(), 1u);
    EXPECT_EQ(iqr[0].number, 3u);
    EXPECT_FALSE(iqr[0].slow);
    EXPECT_FALSE(iqr[0].propagated);
    // The slow ones of the other tests are slow.
    Op slow;
    slow.codelet(0, "A").measure(0, 0, ones_with_two_tens());
    const OperationAudit b = audit_one(slow, 1);
    ASSERT_EQ(b.codelet(0)->outliers[Iqr].size(), 2u);
    for (const OutlierAt& o : b.codelet(0)->outliers[Iqr]) EXPECT_TRUE(o.slow);
}

TEST(CodeletAudit, PerProcessOwnTimeIsTheHeuristicOfDurationMinusWait) {
    Op op;
    op.codelet(0, "A");
    op.measure(0, 0, repeat(2.0, 5));                 // own 2
    op.measure(1, 0, repeat(2.0, 5), repeat(1.0, 5)); // waited half of it: own 1
    // A wait beyond the duration counts as no own time: own {0, 1, 1}, where the heuristic
    // (bound 3 x 0) sees two outliers, more than floor(0.2 x 3) = 0, so the raw mean.
    op.measure(2, 0, {1.0, 1.0, 1.0}, {1.5, 0.0, 0.0});
    const OperationAudit a = audit_one(op, 4);
    const CodeletAudit& A = *a.codelet(0);
    ASSERT_EQ(A.per_process_own.size(), 4u);
    EXPECT_DOUBLE_EQ(*A.per_process_own[0], 2.0);
    EXPECT_DOUBLE_EQ(*A.per_process_own[1], 1.0);
    EXPECT_DOUBLE_EQ(*A.per_process_own[2], 2.0 / 3.0);
    EXPECT_FALSE(A.per_process_own[3].has_value());
    EXPECT_DOUBLE_EQ(*A.per_process_mean[1], 2.0);
    const JsonValue d =
        parse_json(to_json(audit(input(op), AuditParameters{}, {0, 1, 2, 3}), {0, 1, 2, 3}));
    const JsonValue& own = d["operations"][0]["codelets"][0]["per_process_own"];
    ASSERT_EQ(own.size(), 4u);
    EXPECT_EQ(own[1].num(), 1.0);
    EXPECT_TRUE(own[3].is_null());
}

// ---- search cost --------------------------------------------------------------------------------

// Codelet 0: 1 s everywhere. Codelet 1: 2 s except 3 s at number 1 on location 0 and at
// number 0 on location 1, so its samples (max over processes) are {3, 3, 2, 2, 2}: 12 s.
// Its robust estimates are 2 (heuristic keeps 3 <= 3·2: 2.2; IQR and cluster drop the 3: 2;
// Student-t ~2), consensus 2.
Op cost_op() {
    Op op;
    op.codelet(0, "A").codelet(1, "B");
    op.measure(0, 0, repeat(1.0, 5)).measure(1, 0, repeat(1.0, 5));
    op.measure(0, 1, {2.0, 3.0, 2.0, 2.0, 2.0}).measure(1, 1, {3.0, 2.0, 2.0, 2.0, 2.0});
    return op;
}

TEST(CodeletAudit, SearchCostIsTheTimeBeyondTheChosenCodelet) {
    Op op = cost_op();
    op.decide(0, 0).decide(1, 0);
    const OperationAudit a = audit_one(op, 2, 34.0);
    const CodeletAudit& A = *a.codelet(0);
    const CodeletAudit& B = *a.codelet(1);
    EXPECT_EQ(B.samples, (std::vector<double>{3.0, 3.0, 2.0, 2.0, 2.0}));
    EXPECT_DOUBLE_EQ(B.estimate[Heuristic], 2.2);
    EXPECT_DOUBLE_EQ(B.estimate[Iqr], 2.0);
    EXPECT_DOUBLE_EQ(B.estimate[Cluster], 2.0);
    double sum = 0;
    std::size_t n = 0;
    for (const CodeletAudit& c : a.codelets)
        for (double s : c.samples) sum += s, ++n;
    EXPECT_EQ(n, 10u);
    EXPECT_DOUBLE_EQ(sum, 17.0);
    EXPECT_DOUBLE_EQ(a.search_seconds, sum);
    EXPECT_DOUBLE_EQ(a.search_cost_seconds, std::max(0.0, sum - double(n) * A.consensus));
    EXPECT_DOUBLE_EQ(a.search_cost_seconds, 7.0);
    EXPECT_DOUBLE_EQ(a.search_share, 17.0 / 34.0);
    EXPECT_DOUBLE_EQ(a.search_cost_share, 7.0 / 34.0);
}

TEST(CodeletAudit, SearchCostIsNeverNegative) {
    Op op = cost_op();
    op.decide(0, 1).decide(1, 1); // the slower one: 10 x ~2 s > 17 s
    const OperationAudit a = audit_one(op, 2, 0.0);
    EXPECT_DOUBLE_EQ(a.search_seconds, 17.0);
    EXPECT_GT(10 * a.codelet(1)->consensus, 17.0);
    EXPECT_EQ(a.search_cost_seconds, 0.0);
    // Without a run time there are no shares.
    EXPECT_EQ(a.search_share, 0.0);
    EXPECT_EQ(a.search_cost_share, 0.0);
}

// ---- box plot, ranks, winner set ----------------------------------------------------------------

TEST(CodeletAudit, BoxPlotOfThePerMeasurementMaxima) {
    Op op;
    op.codelet(0, "A");
    op.measure(0, 0, {12.0, 0.5, 10.0, 40.0, 11.0, 5.0, 13.0});
    op.measure(1, 0, {6.0, 0.25, 10.0, 1.0, 11.0, 14.0, 13.0});
    const OperationAudit a = audit_one(op, 2);
    const CodeletAudit& A = *a.codelet(0);
    // Sorted 0.5 10 11 12 13 14 40: type-7 quartiles at h = 1.5 and 4.5.
    EXPECT_EQ(A.samples, (std::vector<double>{12.0, 0.5, 10.0, 40.0, 11.0, 14.0, 13.0}));
    EXPECT_DOUBLE_EQ(A.box.min, 0.5);
    EXPECT_DOUBLE_EQ(A.box.q1, 10.5);
    EXPECT_DOUBLE_EQ(A.box.median, 12.0);
    EXPECT_DOUBLE_EQ(A.box.q3, 13.5);
    EXPECT_DOUBLE_EQ(A.box.max, 40.0);
    // Fences 10.5 - 4.5 = 6 and 13.5 + 4.5 = 18.
    EXPECT_DOUBLE_EQ(A.box.whisker_lo, 10.0);
    EXPECT_DOUBLE_EQ(A.box.whisker_hi, 14.0);
    EXPECT_EQ(A.box.outliers, (std::vector<std::size_t>{1, 3}));
}

TEST(CodeletAudit, RanksWinnerSetAndInstability) {
    Op op = overlapping_op();
    op.codelet(2, "C");
    for (uint32_t loc = 0; loc < 2; ++loc) op.measure(loc, 2, repeat(4.0, 5)).decide(loc, 0);
    const OperationAudit a = audit_one(op, 2);
    ASSERT_EQ(a.codelets.size(), 3u);
    for (std::size_t k = 0; k < 3; ++k) {
        EXPECT_EQ(a.codelets[k].index, int64_t(k));
        for (std::size_t m = 0; m < kMethods; ++m) EXPECT_EQ(a.codelets[k].rank[m], int(k) + 1);
    }
    EXPECT_DOUBLE_EQ(a.codelets[0].estimate[Raw], 1.5);
    EXPECT_DOUBLE_EQ(a.codelets[1].estimate[Raw], 1.75);
    EXPECT_DOUBLE_EQ(a.codelets[2].estimate[Raw], 4.0);
    EXPECT_TRUE(a.codelets[0].winner_set);
    EXPECT_TRUE(a.codelets[1].winner_set);
    EXPECT_FALSE(a.codelets[2].winner_set);
    // A and B overlap each other only: I = 1/2; C overlaps nothing.
    EXPECT_DOUBLE_EQ(a.codelets[0].instability, 0.5);
    EXPECT_DOUBLE_EQ(a.codelets[1].instability, 0.5);
    EXPECT_DOUBLE_EQ(a.codelets[2].instability, 0.0);
    EXPECT_EQ(a.codelets[0].overlaps, std::vector<int64_t>{1});
    EXPECT_EQ(a.codelets[1].overlaps, std::vector<int64_t>{0});
    EXPECT_TRUE(a.codelets[2].overlaps.empty());
    EXPECT_EQ(a.codelets[0].stability, "fair");
    EXPECT_EQ(a.codelets[2].stability, "very stable");
    EXPECT_DOUBLE_EQ(a.codelets[2].range_lo, 4.0);
    EXPECT_DOUBLE_EQ(a.codelets[2].range_hi, 4.0);
    EXPECT_EQ(a.verdict, Verdict::Confirmed);
}

TEST(CodeletAudit, RangeLeavesOutWhatTheHeuristicFiltered) {
    // The 10 s outliers of location 0 do not widen the range: every kept maximum is 1 s.
    // With b = 20 nothing is filtered and the range is the 10-90 percentile of all maxima.
    Op op;
    op.codelet(0, "A");
    op.measure(0, 0, ones_with_two_tens()).measure(1, 0, repeat(1.0, 10));
    const OperationAudit a = audit_one(op, 2);
    EXPECT_DOUBLE_EQ(a.codelet(0)->range_lo, 1.0);
    EXPECT_DOUBLE_EQ(a.codelet(0)->range_hi, 1.0);
    AuditParameters p;
    p.b = 20;
    const OperationAudit wide = audit(input(op), p, {0, 1}).operations.at(0);
    // Sorted maxima: eight 1 and two 10; 90th percentile at h = 8.1: 10.
    EXPECT_DOUBLE_EQ(wide.codelet(0)->range_lo, 1.0);
    EXPECT_DOUBLE_EQ(wide.codelet(0)->range_hi, 10.0);
}

// ---- parameters ---------------------------------------------------------------------------------

TEST(CodeletAudit, ParametersOutOfRangeThrow) {
    Op op;
    op.codelet(0, "A").measure(0, 0, repeat(1.0, 5));
    const CodeletMeasurements in = input(op);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    auto with = [](double b, double nomax, double nu) {
        AuditParameters p;
        p.b = b;
        p.nomax = nomax;
        p.nu = nu;
        return p;
    };
    for (double b : {0.0, 0.999, -1.0, nan, inf})
        EXPECT_THROW(audit(in, with(b, 0.2, 5), {0}), std::invalid_argument) << b;
    for (double nomax : {-0.01, 1.01, nan, inf})
        EXPECT_THROW(audit(in, with(3, nomax, 5), {0}), std::invalid_argument) << nomax;
    for (double nu : {0.0, -5.0, nan, inf})
        EXPECT_THROW(audit(in, with(3, 0.2, nu), {0}), std::invalid_argument) << nu;
    // The bounds themselves are valid, and the parameters are kept in the result.
    for (const AuditParameters& p : {with(1, 0, 5), with(3, 1, 5), with(3, 0.2, 1e-3)}) {
        const Audit a = audit(in, p, {0});
        EXPECT_EQ(a.parameters.b, p.b);
        EXPECT_EQ(a.parameters.nomax, p.nomax);
        EXPECT_EQ(a.parameters.nu, p.nu);
    }
}

TEST(CodeletAudit, ParametersReachTheEstimators) {
    Op op;
    op.codelet(0, "A").measure(0, 0, ones_with_two_tens());
    AuditParameters p;
    p.b = 20; // 10 <= 20 x 1: no heuristic outliers, the mean is the raw one
    EXPECT_DOUBLE_EQ(audit(input(op), p, {0}).operations[0].codelets[0].estimate[Heuristic], 2.8);
    p = {};
    p.nomax = 0; // none may be dropped: heuristic and cluster fall back to all measurements
    const CodeletAudit c = audit(input(op), p, {0}).operations[0].codelets[0];
    EXPECT_DOUBLE_EQ(c.estimate[Heuristic], 2.8);
    EXPECT_DOUBLE_EQ(c.estimate[Cluster], 2.8);
    EXPECT_DOUBLE_EQ(c.estimate[Iqr], 1.0); // IQR has no n_o^max
    p = {};
    p.nu = 1;
    const std::vector<double> t = {1.0, 1.5, 1.25, 3.0, 1.1};
    Op st;
    st.codelet(0, "A").measure(0, 0, t);
    EXPECT_DOUBLE_EQ(audit(input(st), p, {0}).operations[0].codelets[0].estimate[StudentT],
                     student_t_estimate(t, 1.0).value);
    EXPECT_NE(student_t_estimate(t, 1.0).value, student_t_estimate(t, 5.0).value);
}

// ---- measurements text
// ----------------------------------------------------------------------------

namespace {

void expect_same(const CodeletMeasurements& a, const CodeletMeasurements& b) {
    EXPECT_EQ(a.run_seconds, b.run_seconds);
    ASSERT_EQ(a.operations.size(), b.operations.size());
    for (std::size_t k = 0; k < a.operations.size(); ++k) {
        const OperationMeasurements& x = a.operations[k];
        const OperationMeasurements& y = b.operations[k];
        EXPECT_EQ(x.name, y.name);
        EXPECT_EQ(x.codelets, y.codelets);
        EXPECT_EQ(x.technique, y.technique);
        EXPECT_EQ(x.decisions, y.decisions);
        EXPECT_EQ(x.unfinished, y.unfinished);
        ASSERT_EQ(x.search.size(), y.search.size());
        for (std::size_t i = 0; i < x.search.size(); ++i) {
            EXPECT_EQ(x.search[i].location, y.search[i].location);
            EXPECT_EQ(x.search[i].codelet, y.search[i].codelet);
            EXPECT_EQ(x.search[i].number, y.search[i].number);
            EXPECT_EQ(x.search[i].start, y.search[i].start);
            EXPECT_EQ(x.search[i].duration, y.search[i].duration);
            EXPECT_EQ(x.search[i].wait, y.search[i].wait);
        }
        ASSERT_EQ(x.production.size(), y.production.size());
        for (std::size_t i = 0; i < x.production.size(); ++i) {
            EXPECT_EQ(x.production[i].location, y.production[i].location);
            EXPECT_EQ(x.production[i].codelet, y.production[i].codelet);
            EXPECT_EQ(x.production[i].executions, y.production[i].executions);
            EXPECT_EQ(x.production[i].duration, y.production[i].duration);
            EXPECT_EQ(x.production[i].wait, y.production[i].wait);
        }
    }
}

std::string parse_error(const std::string& text) {
    try {
        parse_codelet_measurements(text);
    } catch (const MeasurementsFormatError& e) {
        return e.what();
    }
    ADD_FAILURE() << "no error for:\n" << text;
    return "";
}

const std::string kHead = "topolens-codelet-measurements\t2\n";

} // namespace

TEST(CodeletMeasurementsText, ExactText) {
    Op op("a\tb\nc%d");
    op.codelet(0, "x").codelet(3, "50%").decide(1, 3);
    op.m.search.push_back({1, 3, 0, 0.5, 0.25, 0.125});
    op.produce(1, 3, 2, 1.5, 0);
    op.m.unfinished = 1;
    const std::string expected = kHead + "run\t2.5\n"
                                         "operation\ta%09b%0Ac%25d\n"
                                         "codelet\t0\tx\n"
                                         "codelet\t3\t50%25\n"
                                         "decision\t1\t3\n"
                                         "search\t1\t3\t0\t0.5\t0.25\t0.125\n"
                                         "production\t1\t3\t2\t1.5\t0\n"
                                         "unfinished\t1\n";
    EXPECT_EQ(to_text(input(op, 2.5)), expected);
}

TEST(CodeletMeasurementsText, RoundTrip) {
    CodeletMeasurements m;
    m.run_seconds = 0.1 + 0.2; // not a short decimal
    Op a("halo\t3d\nnext line 100% %09 literal");
    a.codelet(0, "isend\t%").codelet(7, "").codelet(-2, "neg\n");
    a.decide(0, 7).decide(4, 0);
    a.measure(0, 0, {1.0 / 3, 2e-9, 1e300}, {0.0, 1e-9, 0.5});
    a.measure(4, 7, {37e-9, 0.1});
    a.produce(0, 7, 18446744073709551615ull, 1.0 / 7, 1.0 / 9).produce(4, 0, 1, 0, 0);
    a.m.unfinished = 12;
    a.m.technique = TimingTechnique::TimerObject;
    m.operations.push_back(a.m);
    m.operations.push_back(Op("").m); // empty name, no records
    m.operations.push_back(Op("%").m);
    const std::string text = to_text(m);
    const CodeletMeasurements back = parse_codelet_measurements(text);
    expect_same(m, back);
    EXPECT_EQ(to_text(back), text);
}

// Version 1 (before the timing record) is still read; version 2 writes the technique.
TEST(CodeletMeasurementsText, TimingTechniqueAndVersionOne) {
    const CodeletMeasurements old =
        parse_codelet_measurements("topolens-codelet-measurements\t1\noperation\tx\n");
    ASSERT_EQ(old.operations.size(), 1u);
    EXPECT_EQ(old.operations[0].technique, TimingTechnique::Unknown);
    for (TimingTechnique t : {TimingTechnique::BarrierBefore, TimingTechnique::NoBarrier,
                              TimingTechnique::TimerObject}) {
        Op op("x");
        op.m.technique = t;
        const std::string text = to_text(input(op, 1));
        EXPECT_EQ(text, kHead + "run\t1\noperation\tx\ntiming\t" + timing_technique_key(t) + "\n");
        EXPECT_EQ(parse_codelet_measurements(text).operations[0].technique, t);
    }
    EXPECT_STREQ(timing_technique_key(TimingTechnique::BarrierBefore), "barrier");
    EXPECT_STREQ(timing_technique_key(TimingTechnique::NoBarrier), "no-barrier");
    EXPECT_STREQ(timing_technique_key(TimingTechnique::TimerObject), "timer-object");
    // Unknown is not written.
    EXPECT_EQ(to_text(input(Op("x"), 1)), kHead + "run\t1\noperation\tx\n");
}

TEST(CodeletMeasurementsText, ErrorsNameTheLine) {
    EXPECT_THAT(parse_error(""), HasSubstr("empty"));
    EXPECT_THAT(parse_error("\n\n"), HasSubstr("empty"));
    EXPECT_THAT(parse_error("topolens-report\t1\n"), HasSubstr("line 1:"));
    EXPECT_THAT(parse_error("\n" + std::string("topolens-codelet-measurements\t3\n")),
                HasSubstr("line 2: version 3"));
    EXPECT_THAT(parse_error("topolens-codelet-measurements\t0\n"), HasSubstr("line 1: version 0"));
    EXPECT_THAT(parse_error(kHead + "operation\tx\ntiming\tsometimes\n"),
                HasSubstr("line 3: unknown timing technique 'sometimes'"));
    EXPECT_THAT(parse_error("topolens-codelet-measurements\n"), HasSubstr("line 1:"));
    // A record before any operation.
    EXPECT_THAT(parse_error(kHead + "run\t1\ncodelet\t0\tA\n"),
                HasSubstr("line 3: 'codelet' before any 'operation'"));
    // Unknown record.
    EXPECT_THAT(parse_error(kHead + "operation\tx\nbogus\t1\n"),
                HasSubstr("line 3: unknown record 'bogus'"));
    // Wrong field counts.
    EXPECT_THAT(parse_error(kHead + "operation\tx\ncodelet\t0\n"),
                HasSubstr("line 3: 'codelet' needs 2 fields, found 1"));
    EXPECT_THAT(parse_error(kHead + "operation\tx\nsearch\t0\t0\t0\t0\t1\t0\t9\n"),
                HasSubstr("line 3: 'search' needs 6 fields, found 7"));
    EXPECT_THAT(parse_error(kHead + "run\n"), HasSubstr("line 2: 'run' needs 1 fields"));
    // Negative and non-finite times.
    EXPECT_THAT(parse_error(kHead + "operation\tx\nsearch\t0\t0\t0\t0.5\t-1\t0\n"),
                HasSubstr("line 3: field 5 is not a time in seconds: '-1'"));
    EXPECT_THAT(parse_error(kHead + "run\t-0.5\n"), HasSubstr("line 2:"));
    EXPECT_THAT(parse_error(kHead + "operation\tx\nproduction\t0\t0\t1\tnan\t0\n"),
                HasSubstr("line 3:"));
    EXPECT_THAT(parse_error(kHead + "operation\tx\nproduction\t0\t0\t1\t1\tinf\n"),
                HasSubstr("line 3:"));
    // Bad integers and escapes.
    EXPECT_THAT(parse_error(kHead + "operation\tx\n\ndecision\t-1\t0\n"),
                HasSubstr("line 4: field 1 is not an integer"));
    EXPECT_THAT(parse_error(kHead + "operation\tx\ndecision\t1x\t0\n"), HasSubstr("line 3:"));
    EXPECT_THAT(parse_error(kHead + "operation\ta%41\n"), HasSubstr("line 2: bad escape"));
    EXPECT_THAT(parse_error(kHead + "operation\ta%\n"), HasSubstr("line 2: bad escape"));
    EXPECT_THAT(parse_error(kHead + "operation\ta%0\n"), HasSubstr("line 2: bad escape"));
}

// ---- JSON ---------------------------------------------------------------------------------------

TEST(CodeletAudit, BoxOutlierCauses) {
    // Per box outlier, over every method's slow outliers at that measurement: a process slow
    // by itself wins over global and propagated ones; fast outliers do not count.
    CodeletAudit c;
    c.samples = {1, 9, 9, 9, 9};
    c.box.outliers = {1, 2, 3, 4};
    const auto at = [](uint32_t location, uint32_t number, bool propagated, bool global,
                       bool slow = true) {
        OutlierAt o;
        o.location = location;
        o.number = number;
        o.propagated = propagated;
        o.global = global;
        o.slow = slow;
        return o;
    };
    c.outliers[Heuristic] = {at(2, 1, false, false), at(1, 1, true, false), at(5, 2, true, true)};
    c.outliers[Iqr] = {at(0, 1, false, false), at(2, 1, false, false), at(3, 3, true, false)};
    c.outliers[StudentT] = {at(4, 4, false, false, false)};
    using Cause = CodeletAudit::OutlierCause;
    const std::vector<BoxOutlierCause> causes = box_outlier_causes(c);
    ASSERT_EQ(causes.size(), 4u);
    EXPECT_EQ(causes[0].cause, Cause::Caused);
    EXPECT_EQ(causes[0].locations, (std::vector<uint32_t>{0, 2}));
    EXPECT_EQ(causes[1].cause, Cause::Global);
    EXPECT_EQ(causes[2].cause, Cause::Propagated);
    EXPECT_EQ(causes[3].cause, Cause::Unflagged);
    for (std::size_t k = 1; k < 4; ++k) EXPECT_TRUE(causes[k].locations.empty());
}

TEST(CodeletAuditJson, OneCodeletDocument) {
    Op op("solo");
    op.codelet(0, "only");
    op.measure(0, 0, repeat(1.0, 5)).measure(1, 0, repeat(0.5, 5)).decide(0, 0).decide(1, 0);
    const std::vector<uint32_t> ranks = {3, 4};
    const Audit a = audit(input(op, 10.0), AuditParameters{}, ranks);
    const JsonValue d = parse_json(to_json(a, ranks));
    EXPECT_EQ(d["format"].str(), "topolens-audit");
    EXPECT_EQ(d["version"].num(), 1);
    EXPECT_EQ(d["parameters"]["b"].num(), 3);
    EXPECT_EQ(d["parameters"]["nomax"].num(), 0.2);
    EXPECT_EQ(d["parameters"]["nu"].num(), 5);
    EXPECT_EQ(d["run_seconds"].num(), 10.0);
    ASSERT_EQ(d["operations"].size(), 1u);
    const JsonValue& o = d["operations"][0];
    EXPECT_EQ(o["name"].str(), "solo");
    EXPECT_EQ(o["verdict"].str(), "confirmed");
    EXPECT_EQ(o["reason"].str(), a.operations[0].reason);
    EXPECT_EQ(o["tuner_winner"]["index"].num(), 0);
    EXPECT_EQ(o["tuner_winner"]["name"].str(), "only");
    for (const char* m : {"raw", "heuristic", "iqr", "cluster", "student_t"})
        EXPECT_EQ(o["method_winners"][m].num(), 0) << m;
    EXPECT_EQ(o["agreeing_methods"].num(), 4);
    // AUDIT_FORMAT.md: "best" is the index of the audit's winner.
    EXPECT_EQ(o["best"].kind, JsonValue::Number);
    EXPECT_EQ(o["best"].num(), 0);
    EXPECT_EQ(o["penalty_percent"].num(), 0);
    EXPECT_EQ(o["search_seconds"].num(), 5.0);
    EXPECT_EQ(o["search_cost_seconds"].num(), 0.0);
    EXPECT_EQ(o["search_share"].num(), 0.5);
    EXPECT_TRUE(o["production"].is_null());
    ASSERT_EQ(o["codelets"].size(), 1u);
    const JsonValue& c = o["codelets"][0];
    EXPECT_EQ(c["index"].num(), 0);
    EXPECT_EQ(c["name"].str(), "only");
    EXPECT_EQ(c["processes"].num(), 2);
    EXPECT_EQ(c["measurements"].num(), 5);
    ASSERT_EQ(c["samples"].size(), 5u);
    for (std::size_t k = 0; k < 5; ++k) EXPECT_EQ(c["samples"][k].num(), 1.0);
    for (const char* f : {"min", "q1", "median", "q3", "max", "whisker_lo", "whisker_hi"})
        EXPECT_EQ(c["box"][f].num(), 1.0) << f;
    EXPECT_EQ(c["box_outliers"].size(), 0u);
    for (const char* m : {"raw", "heuristic", "iqr", "cluster", "student_t"}) {
        EXPECT_EQ(c["estimates"][m].num(), 1.0) << m;
        EXPECT_EQ(c["ranks"][m].num(), 1) << m;
    }
    for (const char* m : {"heuristic", "iqr", "cluster", "student_t"}) {
        EXPECT_EQ(c["outliers"][m]["count"].num(), 0) << m;
        EXPECT_EQ(c["outliers"][m]["at"].size(), 0u) << m;
    }
    EXPECT_FALSE(c["outliers"].has("raw"));
    EXPECT_EQ(c["range"][0].num(), 1.0);
    EXPECT_EQ(c["range"][1].num(), 1.0);
    EXPECT_EQ(c["instability"].num(), 0.0);
    EXPECT_EQ(c["stability"].str(), "very stable");
    EXPECT_TRUE(c["winner_set"].boolean_value());
    EXPECT_EQ(c["per_process_mean"][0].num(), 1.0);
    EXPECT_EQ(c["per_process_mean"][1].num(), 0.5);
    for (const char* m : {"heuristic", "iqr", "cluster", "student_t"}) {
        EXPECT_EQ(c["per_process_estimate"][m][0].num(), 1.0) << m;
        EXPECT_EQ(c["per_process_estimate"][m][1].num(), 0.5) << m;
    }
}

TEST(CodeletAuditJson, NullsOutliersAndAwkwardNames) {
    // No decision (tuner_winner null), a codelet only location 0 measured (nulls in the
    // per-process arrays), outliers with ranks from the rank table, names to escape.
    Op op("quote\" back\\ tab\t nl\n ctl\x01");
    op.codelet(0, "A\"").codelet(1, "B\\");
    op.measure(0, 0, ones_with_two_tens()).measure(1, 0, repeat(1.0, 10));
    op.measure(0, 1, repeat(1.5, 10));
    op.produce(0, 0, 1, 1.0);
    const std::vector<uint32_t> ranks = {8, 9};
    const Audit a = audit(input(op), AuditParameters{}, ranks);
    const std::string text = to_json(a, ranks);
    const JsonValue d = parse_json(text);
    const JsonValue& o = d["operations"][0];
    EXPECT_EQ(o["name"].str(), op.m.name);
    EXPECT_EQ(o["verdict"].str(), "undecided");
    EXPECT_TRUE(o["tuner_winner"].is_null());
    EXPECT_TRUE(o["method_winners"]["raw"].kind == JsonValue::Number);
    EXPECT_EQ(o["best"].num(), 0);
    EXPECT_EQ(o["production"]["executions"].num(), 1);
    EXPECT_EQ(o["production"]["flagged"].boolean_value(), false);
    EXPECT_EQ(o["diagnostics"].size(), a.operations[0].diagnostics.size());
    const JsonValue& A = o["codelets"][0];
    EXPECT_EQ(A["name"].str(), "A\"");
    const JsonValue& h = A["outliers"]["heuristic"];
    ASSERT_EQ(h["count"].num(), 2);
    ASSERT_EQ(h["at"].size(), 2u);
    EXPECT_EQ(h["at"][0]["location"].num(), 0);
    EXPECT_EQ(h["at"][0]["rank"].num(), 8);
    EXPECT_EQ(h["at"][0]["measurement"].num(), 2);
    EXPECT_EQ(h["at"][0]["start"].num(), Op::start(2, 0));
    EXPECT_EQ(h["at"][0]["time"].num(), 10.0);
    EXPECT_EQ(h["at"][0]["wait"].num(), 0.0);
    EXPECT_FALSE(h["at"][0]["propagated"].boolean_value());
    EXPECT_TRUE(h["at"][0]["slow"].boolean_value());
    EXPECT_EQ(h["at"][1]["measurement"].num(), 6);
    const JsonValue& B = o["codelets"][1];
    EXPECT_EQ(B["name"].str(), "B\\");
    EXPECT_EQ(B["per_process_mean"][0].num(), 1.5);
    EXPECT_TRUE(B["per_process_mean"][1].is_null());
    EXPECT_TRUE(B["per_process_estimate"]["student_t"][1].is_null());
    // The document ends with a newline and nothing else.
    ASSERT_FALSE(text.empty());
    EXPECT_EQ(text.back(), '\n');
    EXPECT_NE(text[text.size() - 2], '\n');
}

TEST(CodeletAuditJson, EmptyAndUnmeasuredOperationsAreValid) {
    Op op("nothing");
    op.codelet(0, "A").decide(0, 0);
    CodeletMeasurements in = input(op);
    in.operations.push_back(Op("empty").m);
    const JsonValue d = parse_json(to_json(audit(in, AuditParameters{}, {0}), {0}));
    const JsonValue& o = d["operations"][0];
    EXPECT_TRUE(o["best"].is_null());
    EXPECT_EQ(o["tuner_winner"]["index"].num(), 0);
    EXPECT_TRUE(o["method_winners"]["heuristic"].is_null());
    EXPECT_EQ(o["codelets"].size(), 0u);
    EXPECT_EQ(d["operations"][1]["verdict"].str(), "undecided");
}

// ---- json::Writer ----------------------------------------------------------------------------

TEST(JsonWriter, EscapesStrings) {
    EXPECT_EQ(json::string("plain"), "\"plain\"");
    EXPECT_EQ(json::string("q\"b\\"), "\"q\\\"b\\\\\"");
    EXPECT_EQ(json::string(std::string("\n\t\x01\x1f", 4)), "\"\\u000a\\u0009\\u0001\\u001f\"");
    EXPECT_EQ(json::string(std::string("nul\0x", 5)), "\"nul\\u0000x\"");
    EXPECT_EQ(json::string("\x7f caf\xc3\xa9"), "\"\x7f caf\xc3\xa9\""); // passed through
    EXPECT_EQ(parse_json(json::string(std::string("a\"\\\n\x02\0z", 7))).str(),
              std::string("a\"\\\n\x02\0z", 7));
}

TEST(JsonWriter, NonFiniteNumbersAreNull) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    EXPECT_EQ(json::number(nan), "null");
    EXPECT_EQ(json::number(inf), "null");
    EXPECT_EQ(json::number(-inf), "null");
    EXPECT_EQ(json::number(0.1), "0.1");
    EXPECT_EQ(json::number(-2.5), "-2.5");
    EXPECT_EQ(json::number(3), "3");
    EXPECT_EQ(json::shortest_number(inf), "inf");
    for (double v : {0.1 + 0.2, 1.0 / 3, 1e-300, 1.7976931348623157e308})
        EXPECT_EQ(parse_json(json::number(v)).num(), v) << json::number(v);

    json::Writer w;
    w.begin_object();
    w.key("nan").value(nan);
    w.key("inf").value(-inf);
    w.key("none").value(std::optional<double>());
    w.key("some").value(std::optional<int64_t>(7));
    w.key("null").null();
    w.key("list").numbers(std::vector<double>{1, nan, inf});
    w.key("maybe").numbers(std::vector<std::optional<double>>{std::nullopt, 2.0, nan});
    w.end_object();
    const JsonValue d = parse_json(w.text());
    EXPECT_TRUE(d["nan"].is_null());
    EXPECT_TRUE(d["inf"].is_null());
    EXPECT_TRUE(d["none"].is_null());
    EXPECT_EQ(d["some"].num(), 7);
    EXPECT_TRUE(d["null"].is_null());
    EXPECT_EQ(d["list"][0].num(), 1);
    EXPECT_TRUE(d["list"][1].is_null());
    EXPECT_TRUE(d["list"][2].is_null());
    EXPECT_TRUE(d["maybe"][0].is_null());
    EXPECT_EQ(d["maybe"][1].num(), 2);
    EXPECT_TRUE(d["maybe"][2].is_null());
}

TEST(JsonWriter, Layout) {
    json::Writer w;
    w.begin_object();
    w.key("a").value(1);
    w.key("b").begin_array().value(2).value(true).begin_object().end_object().end_array();
    w.key("c").numbers(std::vector<double>{0.5, 2});
    w.key("d").begin_array().end_array();
    w.key("e").value(std::string("x"));
    w.end_object();
    EXPECT_EQ(w.text(), "{\n"
                        "  \"a\": 1,\n"
                        "  \"b\": [\n"
                        "    2,\n"
                        "    true,\n"
                        "    {}\n"
                        "  ],\n"
                        "  \"c\": [0.5, 2],\n"
                        "  \"d\": [],\n"
                        "  \"e\": \"x\"\n"
                        "}");
    EXPECT_NO_THROW(parse_json(w.text()));
    json::Writer keys;
    keys.begin_object().key("k\"ey\n").value(-3LL).key("u").value(18446744073709551615ull);
    keys.end_object();
    const JsonValue d = parse_json(keys.text());
    EXPECT_EQ(d["k\"ey\n"].num(), -3);
    EXPECT_EQ(d["u"].num(), 18446744073709551615.0);
}

TEST(JsonWriter, InlineObjectsStayOnOneLine) {
    json::Writer w;
    w.begin_object().key("list").begin_array();
    w.begin_inline_object().key("a").value(1).key("b").begin_array().value(2).end_array();
    w.key("c").begin_object().key("d").null().end_object().end_object();
    w.begin_inline_object().end_object();
    w.end_array().key("after").value(3).end_object();
    EXPECT_EQ(w.text(), "{\n"
                        "  \"list\": [\n"
                        "    {\"a\": 1, \"b\": [2], \"c\": {\"d\": null}},\n"
                        "    {}\n"
                        "  ],\n"
                        "  \"after\": 3\n"
                        "}");
    EXPECT_NO_THROW(parse_json(w.text()));
}

// The checker itself rejects what is not JSON (so the tests above can fail).
TEST(JsonCheck, RejectsInvalidDocuments) {
    for (const char* bad :
         {"", "{", "{\"a\": 1,}", "[1,]", "nan", "[NaN]", "{\"a\" 1}", "\"tab\tin string\"", "01",
          "1.", "[1] 2", "{\"a\":1,\"a\":2}", "'single'", "[inf]", "-", "{a: 1}"})
        EXPECT_THROW(parse_json(bad), std::runtime_error) << bad;
    EXPECT_NO_THROW(parse_json(" {\"a\": [1, -2.5e-3, true, false, null, \"\\u00e9\\n\"]} "));
}
