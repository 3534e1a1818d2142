// ADCL's decision rule replayed (patterns/audit/adcl_rule.h), --measurements N, the
// measurement sweep (measurement_sweep.h), --aggregate min|max, samples_min and worst_set,
// on hand-made measurements whose expected values are derived here from ADCL's source
// (ADCL_statistics.c) and the audit's definitions. Times are chosen exactly representable,
// so sums and averages compare exactly.
#include "adcl_decisions_fixture.h"
#include "json_check.h"
#include "patterns/audit/adcl_rule.h"
#include "patterns/audit/codelet_audit.h"
#include "patterns/audit/codelet_audit_json.h"
#include "patterns/audit/codelet_estimators.h"
#include "patterns/audit/measurement_sweep.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

using namespace topolens;
using namespace topolens::patterns;
using test::JsonValue;
using test::parse_json;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

// One operation, "halo", built measurement by measurement.
struct Op {
    OperationMeasurements m;

    Op() {
        m.name = "halo";
        m.codelets = {{0, "a"}, {1, "b"}};
    }
    Op& codelet(int64_t index, std::string name) {
        m.codelets[index] = std::move(name);
        return *this;
    }
    Op& measure(uint32_t location, int64_t codelet, const std::vector<double>& durations) {
        for (std::size_t k = 0; k < durations.size(); ++k)
            m.search.push_back({location, codelet, static_cast<uint32_t>(k),
                                10.0 * static_cast<double>(k), durations[k], 0.0});
        return *this;
    }
    Op& decide(uint32_t location, int64_t codelet) {
        m.decisions[location] = codelet;
        return *this;
    }
};

CodeletMeasurements input(const Op& op) {
    CodeletMeasurements in;
    in.run_seconds = 1000;
    in.operations.push_back(op.m);
    return in;
}

std::vector<uint32_t> ranks(uint32_t n) {
    std::vector<uint32_t> r(n);
    for (uint32_t k = 0; k < n; ++k) r[k] = k;
    return r;
}

OperationAudit audit_one(const Op& op, uint32_t locations, AuditParameters p = {}) {
    return audit(input(op), p, ranks(locations)).operations.at(0);
}

std::vector<double> repeat(double t, std::size_t n) {
    return std::vector<double>(n, t);
}

// `head` followed by `tail`.
std::vector<double> cat(std::vector<double> head, const std::vector<double>& tail) {
    head.insert(head.end(), tail.begin(), tail.end());
    return head;
}

} // namespace

// --- ADCL_statistics_filter_timings ------------------------------------------------------

TEST(AdclFilterTimings, OutlierIsAtLeastFactorTimesMinNotAbove) {
    // 2.75 < 3 * 1: no outlier.
    const AdclValues below = adcl_filter_timings({{1, 1, 1, 1, 2.75}}, 3);
    EXPECT_EQ(below.outlier_percent, 0);
    EXPECT_EQ(below.filtered, 6.75 / 5);
    EXPECT_EQ(below.unfiltered, 6.75 / 5);
    // Exactly 3 * min is an outlier (>=), where the audit's heuristic (>) keeps it.
    const AdclValues at = adcl_filter_timings({{1, 1, 1, 1, 3}}, 3);
    EXPECT_EQ(at.outlier_percent, 20);
    EXPECT_EQ(at.filtered, 1);
    EXPECT_EQ(at.unfiltered, 7.0 / 5);
    EXPECT_TRUE(heuristic_estimate(std::vector<double>{1, 1, 1, 1, 3}).outliers.empty());
    // The factor is ADCL_OUTLIER_FACTOR: with 4, 3 is no outlier.
    EXPECT_EQ(adcl_filter_timings({{1, 1, 1, 1, 3}}, 4).outlier_percent, 0);
}

TEST(AdclFilterTimings, PercentageIsTruncatedIntegerArithmetic) {
    // 1 of 6 = 16.67 -> 16; 2 of 10 = 20; 1 of 3 = 33.3 -> 33; 2 of 3 = 66.7 -> 66.
    EXPECT_EQ(adcl_filter_timings(cat(repeat(1, 5), {4}), 3).outlier_percent, 16);
    EXPECT_EQ(adcl_filter_timings(cat(repeat(1, 8), {4, 4}), 3).outlier_percent, 20);
    EXPECT_EQ(adcl_filter_timings({{1, 4, 1}}, 3).outlier_percent, 33);
    EXPECT_EQ(adcl_filter_timings({{1, 4, 4}}, 3).outlier_percent, 66);
    const AdclValues six = adcl_filter_timings(cat(repeat(1, 5), {4}), 3);
    EXPECT_EQ(six.unfiltered, 9.0 / 6);
    EXPECT_EQ(six.filtered, 1);
}

TEST(AdclFilterTimings, MinZeroMakesEveryMeasurementAnOutlier) {
    // 0 >= 3 * 0 and 1 >= 0: all outliers, filtered avg 0/0 = NaN, as in ADCL.
    const AdclValues v = adcl_filter_timings({{0, 1, 2}}, 3);
    EXPECT_TRUE(std::isnan(v.filtered));
    EXPECT_EQ(v.outlier_percent, 100);
    EXPECT_EQ(v.unfiltered, 1);
    EXPECT_THROW(adcl_filter_timings({}, 3), std::invalid_argument);
}

// --- ADCL_statistics_get_winner_v3 -------------------------------------------------------

TEST(AdclWinner, FilteredWhenItsOutlierPercentageIsBelowTheFraction) {
    const std::vector<AdclValues> g = {{2, 1.5, 16}, {1.75, 1.75, 0}};
    const AdclWinner w = adcl_winner(g, 20);
    EXPECT_EQ(w.winner, 0u);
    EXPECT_EQ(w.basis, AdclBasis::Filtered);
    EXPECT_EQ(w.filtered_min, 0u);
    EXPECT_EQ(w.unfiltered_min, 1u);
    // 16 is not below 16: the smallest unfiltered avg wins.
    const AdclWinner u = adcl_winner(g, 16);
    EXPECT_EQ(u.winner, 1u);
    EXPECT_EQ(u.basis, AdclBasis::Unfiltered);
}

TEST(AdclWinner, AtTheFractionTheUnfilteredAvgDecides) {
    const AdclWinner w = adcl_winner(std::vector<AdclValues>{{2, 1.5, 20}, {1.75, 1.75, 0}}, 20);
    EXPECT_EQ(w.winner, 1u);
    EXPECT_EQ(w.basis, AdclBasis::Unfiltered);
}

TEST(AdclWinner, ZeroAndUndefinedAveragesAreSkippedAndTheFirstOfEqualsWins) {
    // Codelet 0 unmeasured (zeros), codelet 1 undefined filtered avg, 2 and 3 equal.
    const std::vector<AdclValues> g = {{0, 0, 0}, {1, kNaN, 100}, {2, 2, 0}, {2, 2, 0}};
    const AdclWinner w = adcl_winner(g, 20);
    EXPECT_EQ(w.filtered_min, 2u);
    EXPECT_EQ(w.unfiltered_min, 1u);
    EXPECT_EQ(w.winner, 2u);
    EXPECT_EQ(w.basis, AdclBasis::Filtered);
}

TEST(AdclWinner, NoDefinedFilteredAvgMeansNoWinner) {
    const AdclWinner w = adcl_winner(std::vector<AdclValues>{{0, 0, 0}, {0, kNaN, 100}}, 20);
    EXPECT_FALSE(w.winner);
    EXPECT_FALSE(w.filtered_min);
    EXPECT_EQ(w.basis, AdclBasis::None);
    EXPECT_FALSE(adcl_winner({}, 20).winner);
}

TEST(AdclAggregate, NaNPropagatesOtherwiseMaxOrMin) {
    EXPECT_EQ(aggregate(Aggregate::Max, 1, 2), 2);
    EXPECT_EQ(aggregate(Aggregate::Min, 1, 2), 1);
    EXPECT_TRUE(std::isnan(aggregate(Aggregate::Max, kNaN, 2)));
    EXPECT_TRUE(std::isnan(aggregate(Aggregate::Min, 2, kNaN)));
    EXPECT_EQ(parse_aggregate("min"), Aggregate::Min);
    EXPECT_EQ(parse_aggregate("max"), Aggregate::Max);
    EXPECT_FALSE(parse_aggregate("avg"));
}

// --- ADCL's own numbers and decisions ---------------------------------------------------

TEST(AdclReplayOfAdcl, AdclsMeasurementsGiveAdclsDecisions) {
    // emethod -> codelet -> rank -> ADCL's search measurements (microseconds).
    std::map<int, std::map<int, std::map<int, std::vector<double>>>> t;
    std::istringstream in(test::kAdclThreeDimMeasurements);
    int rank = 0, emethod = 0, method = 0;
    double t0 = 0, t1 = 0, t2 = 0;
    while (in >> rank >> emethod >> method >> t0 >> t1 >> t2)
        t[emethod][method][rank] = {t0, t1, t2};
    ASSERT_EQ(t.size(), 5u);
    for (const auto& [e, codelets] : t) {
        SCOPED_TRACE("emethod " + std::to_string(e));
        ASSERT_EQ(codelets.size(), 12u);
        // The rule's functions directly: filter per rank, max each value over the ranks.
        std::vector<AdclValues> global;
        Op op;
        for (const auto& [m, by_rank] : codelets) {
            ASSERT_EQ(by_rank.size(), 8u);
            std::optional<AdclValues> g;
            for (const auto& [r, times] : by_rank) {
                const AdclValues v = adcl_filter_timings(times, 3);
                g = !g ? v
                       : AdclValues{
                             aggregate(Aggregate::Max, g->unfiltered, v.unfiltered),
                             aggregate(Aggregate::Max, g->filtered, v.filtered),
                             aggregate(Aggregate::Max, g->outlier_percent, v.outlier_percent)};
                op.codelet(m, "m" + std::to_string(m));
                op.measure(static_cast<uint32_t>(r), m, times);
            }
            global.push_back(*g);
        }
        const auto& adcl = test::kAdclThreeDimDecisions[e];
        const AdclWinner w = adcl_winner(global, 20);
        EXPECT_EQ(w.winner, static_cast<std::size_t>(adcl.winner));
        EXPECT_EQ(w.basis, adcl.filtered ? AdclBasis::Filtered : AdclBasis::Unfiltered);
        // And through the audit, the times as they are (any unit will do).
        const OperationAudit a = audit_one(op, 8);
        EXPECT_EQ(a.adcl.winner, adcl.winner);
        EXPECT_EQ(a.adcl.basis, adcl.filtered ? AdclBasis::Filtered : AdclBasis::Unfiltered);
    }
}

// --- The replay inside the audit -----------------------------------------------------------

TEST(AdclReplay, OneOutlierOfSixKeepsTheFilteredWinner) {
    Op op;
    for (uint32_t p = 0; p < 2; ++p)
        op.measure(p, 0, cat(repeat(1, 5), {4})).measure(p, 1, repeat(1.25, 6)).decide(p, 0);
    const OperationAudit a = audit_one(op, 2);
    EXPECT_EQ(a.codelets[0].adcl.outlier_percent, 16);
    EXPECT_EQ(a.codelets[0].adcl.filtered, 1);
    EXPECT_EQ(a.codelets[0].adcl.unfiltered, 1.5);
    EXPECT_EQ(a.codelets[1].adcl.filtered, 1.25);
    EXPECT_EQ(a.adcl.winner, 0);
    EXPECT_EQ(a.adcl.basis, AdclBasis::Filtered);
    EXPECT_EQ(a.adcl.matches_tuner, true);
}

TEST(AdclReplay, TwoOutliersOfTenTurnToTheUnfilteredWinner) {
    Op op;
    for (uint32_t p = 0; p < 2; ++p)
        op.measure(p, 0, cat(repeat(1, 8), {4, 4})).measure(p, 1, repeat(1.25, 10)).decide(p, 0);
    const OperationAudit a = audit_one(op, 2);
    EXPECT_EQ(a.codelets[0].adcl.outlier_percent, 20);
    EXPECT_EQ(a.codelets[0].adcl.unfiltered, 1.6);
    EXPECT_EQ(a.adcl.filtered_min, 0);
    EXPECT_EQ(a.adcl.unfiltered_min, 1);
    EXPECT_EQ(a.adcl.winner, 1);
    EXPECT_EQ(a.adcl.basis, AdclBasis::Unfiltered);
    EXPECT_EQ(a.adcl.matches_tuner, false); // the tuner chose 0
    // The audit's heuristic (t > 3 min, at most 20%) keeps filtering: 4 > 3, 2 <= 2.
    EXPECT_EQ(a.method_winner[Heuristic], 0);
    // ADCL_OUTLIER_FRACTION 21: 20 < 21, filtered again.
    AuditParameters p;
    p.adcl.outlier_fraction = 21;
    const OperationAudit b = audit_one(op, 2, p);
    EXPECT_EQ(b.adcl.winner, 0);
    EXPECT_EQ(b.adcl.basis, AdclBasis::Filtered);
}

TEST(AdclReplay, EachGlobalValueIsTheMaxOverProcessesSeparately) {
    Op op;
    // Codelet 0: process 0 has 2 outliers of 10 (20%), filtered 1, unfiltered 18/10;
    // process 1 none, filtered = unfiltered = 1.5. Global: unfiltered 1.8 and 20% from
    // process 0, filtered 1.5 from process 1.
    op.measure(0, 0, cat(repeat(1, 8), {5, 5})).measure(1, 0, repeat(1.5, 10));
    op.measure(0, 1, repeat(1.625, 10)).measure(1, 1, repeat(1.625, 10));
    op.decide(0, 0).decide(1, 0);
    const OperationAudit a = audit_one(op, 2);
    const CodeletAudit& c0 = a.codelets[0];
    EXPECT_EQ(c0.adcl.unfiltered, 1.8);
    EXPECT_EQ(c0.adcl.filtered, 1.5);
    EXPECT_EQ(c0.adcl.outlier_percent, 20);
    // 1.5 < 1.625 makes 0 the filtered candidate, but its 20% are not below 20: the smallest
    // unfiltered avg, 1.625 < 1.8, wins. The triple of the process with the largest filtered
    // avg (process 1: 1.5, 1.5, 0%) would have picked 0 (filtered).
    EXPECT_EQ(a.adcl.filtered_min, 0);
    EXPECT_EQ(a.adcl.winner, 1);
    EXPECT_EQ(a.adcl.basis, AdclBasis::Unfiltered);
    EXPECT_EQ(a.adcl.matches_tuner, false);
}

TEST(AdclReplay, AllZeroCodeletIsSkippedAndUndefinedInJson) {
    Op op;
    op.measure(0, 0, repeat(0, 5)).measure(0, 1, repeat(2, 5));
    const OperationAudit a = audit_one(op, 1);
    EXPECT_EQ(a.codelets[0].adcl.unfiltered, 0);
    EXPECT_TRUE(std::isnan(a.codelets[0].adcl.filtered));
    EXPECT_EQ(a.codelets[0].adcl.outlier_percent, 100);
    EXPECT_EQ(a.adcl.winner, 1);
    EXPECT_EQ(a.adcl.basis, AdclBasis::Filtered);
    EXPECT_FALSE(a.adcl.matches_tuner); // no decision recorded
    Audit whole = audit(input(op), AuditParameters{}, ranks(1));
    const JsonValue d = parse_json(to_json(whole, ranks(1)));
    const JsonValue& o = d["operations"][0];
    EXPECT_TRUE(o["codelets"][0]["adcl"]["filtered_avg"].is_null());
    EXPECT_EQ(o["codelets"][0]["adcl"]["outlier_percent"].num(), 100);
    EXPECT_EQ(o["adcl"]["winner"]["index"].num(), 1);
    EXPECT_EQ(o["adcl"]["basis"].str(), "filtered");
    EXPECT_TRUE(o["adcl"]["matches_tuner"].is_null());
}

TEST(AdclReplay, OnlyZerosLeaveNoWinnerAndSaySo) {
    Op op;
    op.measure(0, 0, repeat(0, 3)).decide(0, 0);
    const OperationAudit a = audit_one(op, 1);
    EXPECT_FALSE(a.adcl.winner);
    EXPECT_EQ(a.adcl.basis, AdclBasis::None);
    EXPECT_EQ(a.adcl.matches_tuner, false);
    bool said = false;
    for (const std::string& d : a.diagnostics)
        said = said || d.find("ADCL's rule has no winner") == 0;
    EXPECT_TRUE(said);
}

TEST(AdclReplay, EqualCodeletsGoToTheLowerIndex) {
    Op op;
    op.codelet(2, "c").measure(0, 1, repeat(2, 4)).measure(0, 2, repeat(2, 4)).decide(0, 2);
    const OperationAudit a = audit_one(op, 1);
    EXPECT_EQ(a.adcl.winner, 1);
    EXPECT_EQ(a.adcl.matches_tuner, false);
}

TEST(AdclReplay, ParametersOutOfRangeAreRefused) {
    Op op;
    op.measure(0, 0, repeat(1, 3));
    AuditParameters p;
    p.adcl.outlier_factor = 0;
    EXPECT_THROW(audit(input(op), p, ranks(1)), std::invalid_argument);
    p.adcl.outlier_factor = 3;
    p.adcl.outlier_fraction = 101;
    EXPECT_THROW(audit(input(op), p, ranks(1)), std::invalid_argument);
}

// --- --aggregate ---------------------------------------------------------------------------

TEST(AuditAggregate, MinOverProcessesChangesTheWinner) {
    // Codelet 0 is fast on process 0 and slow on process 1; codelet 1 takes 2 on both.
    Op op;
    op.measure(0, 0, repeat(1, 5)).measure(1, 0, repeat(3, 5));
    op.measure(0, 1, repeat(2, 5)).measure(1, 1, repeat(2, 5));
    const OperationAudit max = audit_one(op, 2);
    EXPECT_EQ(max.codelets[0].estimate[Raw], 3);
    EXPECT_EQ(max.codelets[0].consensus, 3);
    EXPECT_EQ(max.best, 1);
    for (std::size_t m = 0; m < kMethods; ++m) EXPECT_EQ(max.method_winner[m], 1) << m;
    EXPECT_EQ(max.adcl.winner, 1);
    AuditParameters p;
    p.aggregate = Aggregate::Min;
    const OperationAudit min = audit_one(op, 2, p);
    EXPECT_EQ(min.codelets[0].estimate[Raw], 1);
    EXPECT_EQ(min.codelets[0].consensus, 1);
    EXPECT_EQ(min.codelets[0].adcl.filtered, 1);
    EXPECT_EQ(min.best, 0);
    for (std::size_t m = 0; m < kMethods; ++m) EXPECT_EQ(min.method_winner[m], 0) << m;
    EXPECT_EQ(min.adcl.winner, 0);
    EXPECT_EQ(min.adcl.basis, AdclBasis::Filtered);
    // What the operation took per measurement does not depend on it.
    EXPECT_EQ(min.codelets[0].samples, max.codelets[0].samples);
}

TEST(AuditAggregate, MinOfAdclValuesIsSeparateToo) {
    // Process 0: 20% outliers, filtered 1, unfiltered 1.8; process 1: 0%, 1.5, 1.5.
    // Min: unfiltered 1.5 (p1), filtered 1 (p0), 0% (p1).
    Op op;
    op.measure(0, 0, cat(repeat(1, 8), {5, 5})).measure(1, 0, repeat(1.5, 10));
    AuditParameters p;
    p.aggregate = Aggregate::Min;
    const CodeletAudit c = audit_one(op, 2, p).codelets[0];
    EXPECT_EQ(c.adcl.unfiltered, 1.5);
    EXPECT_EQ(c.adcl.filtered, 1);
    EXPECT_EQ(c.adcl.outlier_percent, 0);
}

// --- --measurements N ------------------------------------------------------------------------

TEST(AuditFirstMeasurements, RedecidesFromTheFirstN) {
    // Codelet 0: 1, 1, 4, 1, 1, 1; codelet 1: 1.25 throughout. Measurement numbers are given
    // out of order to check that "first" means by number m.
    Op op;
    const std::vector<double> t0 = {1, 1, 4, 1, 1, 1};
    for (uint32_t k : {5u, 2u, 0u, 4u, 1u, 3u})
        op.m.search.push_back({0, 0, k, 10.0 * k, t0[k], 0});
    op.measure(0, 1, repeat(1.25, 6)).decide(0, 0);
    AuditParameters p;
    p.measurements = 5; // 1 of 5 = 20%: not below 20, unfiltered 8/5 = 1.6 > 1.25
    OperationAudit a = audit_one(op, 1, p);
    EXPECT_EQ(a.codelets[0].measurements, 5u);
    EXPECT_EQ(a.codelets[0].samples, (std::vector<double>{1, 1, 4, 1, 1}));
    EXPECT_EQ(a.codelets[0].adcl.unfiltered, 1.6);
    EXPECT_EQ(a.adcl.winner, 1);
    EXPECT_EQ(a.adcl.basis, AdclBasis::Unfiltered);
    EXPECT_EQ(a.method_winner[Raw], 1);
    EXPECT_EQ(a.method_winner[Heuristic], 0); // 1 outlier <= floor(0.2 * 5)
    EXPECT_EQ(a.available_measurements, 6u);
    EXPECT_TRUE(a.diagnostics.empty());
    p.measurements = 6; // 1 of 6 = 16%: filtered 1
    a = audit_one(op, 1, p);
    EXPECT_EQ(a.adcl.winner, 0);
    EXPECT_EQ(a.adcl.basis, AdclBasis::Filtered);
    p.measurements = 3; // 1 of 3 = 33%: unfiltered 2; heuristic: floor(0.6) = 0, raw mean 2
    a = audit_one(op, 1, p);
    EXPECT_EQ(a.adcl.winner, 1);
    EXPECT_EQ(a.method_winner[Heuristic], 1);
    EXPECT_EQ(a.search_seconds, 1 + 1 + 4 + 3 * 1.25);
}

TEST(AuditFirstMeasurements, MoreThanAvailableUsesAllAndSaysSo) {
    Op op;
    op.measure(0, 0, repeat(1, 4)).measure(0, 1, repeat(2, 8));
    AuditParameters p;
    p.measurements = 6;
    const OperationAudit a = audit_one(op, 1, p);
    EXPECT_EQ(a.codelets[0].measurements, 4u);
    EXPECT_EQ(a.codelets[1].measurements, 6u);
    ASSERT_EQ(a.diagnostics.size(), 1u);
    EXPECT_EQ(a.diagnostics[0], "codelet 0 (a) has only 4 measurement(s) per process, fewer than "
                                "the 6 asked for; all of them are used");
}

// --- --sweep ---------------------------------------------------------------------------------

TEST(MeasurementSweep, WinnersByNumberOfMeasurementsAndWhereTheySettle) {
    // Codelet 0: 1, 1, 4, 1, 1, 1; codelet 1: 1.25 throughout (one process).
    Op op;
    op.measure(0, 0, {1, 1, 4, 1, 1, 1}).measure(0, 1, repeat(1.25, 6)).decide(0, 0);
    const std::vector<OperationSweep> s =
        sweep_measurements(input(op), AuditParameters{}, ranks(1));
    ASSERT_EQ(s.size(), 1u);
    EXPECT_EQ(s[0].name, "halo");
    EXPECT_EQ(s[0].available, 6u);
    EXPECT_EQ(s[0].tuner_winner, 0);
    ASSERT_EQ(s[0].steps.size(), 6u);
    // Per N, derived from the definitions (codelet 0 against 1.25):
    //   ADCL: N=3 33% u 2, N=4 25% u 1.75, N=5 20% u 1.6 -> 1; N=6 16% f 1 -> 0.
    //   raw: 2, 1.75, 1.6, 1.5 from N=3 -> 1.
    //   heuristic: floor(0.2 N) = 0 for N=3, 4 (raw mean) -> 1; N=5, 6 filtered 1 -> 0.
    //   IQR: N=3 {1,1,4} upper fence 4.75 keeps 4 -> 1; from N=4 the 4 is dropped -> 0.
    //   cluster: n_o^max 0 for N=3, 4 -> raw mean -> 1; N=5, 6 drops {4} -> 0.
    const std::vector<std::vector<int64_t>> expected = {
        // adcl, raw, heuristic, iqr, cluster
        {0, 0, 0, 0, 0}, {0, 0, 0, 0, 0}, {1, 1, 1, 1, 1},
        {1, 1, 1, 0, 1}, {1, 1, 0, 0, 0}, {0, 1, 0, 0, 0},
    };
    const std::vector<double> t0 = {1, 1, 4, 1, 1, 1};
    for (std::size_t n = 1; n <= 6; ++n) {
        const SweepStep& step = s[0].steps[n - 1];
        SCOPED_TRACE("N = " + std::to_string(n));
        EXPECT_EQ(step.measurements, n);
        EXPECT_EQ(step.winner[kAdclDecider], expected[n - 1][0]);
        EXPECT_EQ(step.adcl_basis, n >= 3 && n <= 5 ? AdclBasis::Unfiltered : AdclBasis::Filtered);
        EXPECT_EQ(step.winner[method_decider(Raw)], expected[n - 1][1]);
        EXPECT_EQ(step.winner[method_decider(Heuristic)], expected[n - 1][2]);
        EXPECT_EQ(step.winner[method_decider(Iqr)], expected[n - 1][3]);
        EXPECT_EQ(step.winner[method_decider(Cluster)], expected[n - 1][4]);
        // Student-t and the consensus from the estimators on the first n (codelet 1 is 1.25
        // by every method: all its measurements are equal).
        const std::vector<double> first(t0.begin(), t0.begin() + static_cast<long>(n));
        const double t = student_t_estimate(first).value;
        EXPECT_EQ(step.winner[method_decider(StudentT)], t < 1.25 ? 0 : 1);
        const std::vector<double> robust = {heuristic_estimate(first).value,
                                            iqr_estimate(first).value,
                                            cluster_estimate(first).value, t};
        EXPECT_EQ(step.winner[kConsensusDecider], median(robust) < 1.25 ? 0 : 1);
    }
    EXPECT_EQ(s[0].stable_from[kAdclDecider], 6u);
    EXPECT_EQ(s[0].stable_from[method_decider(Raw)], 3u);
    EXPECT_EQ(s[0].stable_from[method_decider(Heuristic)], 5u);
    EXPECT_EQ(s[0].stable_from[method_decider(Iqr)], 4u);
    EXPECT_EQ(s[0].stable_from[method_decider(Cluster)], 5u);
}

TEST(MeasurementSweep, StopsAtMeasurementsAndWritesJson) {
    Op op;
    op.measure(0, 0, {1, 1, 4, 1, 1, 1}).measure(0, 1, repeat(1.25, 6));
    AuditParameters p;
    p.measurements = 4;
    const auto s = sweep_measurements(input(op), p, ranks(1));
    ASSERT_EQ(s[0].steps.size(), 4u);
    // Up to N = 4, ADCL's winner settles at 1 from N = 3.
    EXPECT_EQ(s[0].stable_from[kAdclDecider], 3u);
    const JsonValue d = parse_json(to_json(s, p));
    EXPECT_EQ(d["format"].str(), "topolens-audit-sweep");
    EXPECT_EQ(d["parameters"]["measurements"].num(), 4);
    ASSERT_EQ(d["deciders"].size(), kDeciders);
    EXPECT_EQ(d["deciders"][0].str(), "adcl");
    EXPECT_EQ(d["deciders"][6].str(), "consensus");
    const JsonValue& o = d["operations"][0];
    EXPECT_EQ(o["available_measurements"].num(), 6);
    EXPECT_TRUE(o["tuner_winner"].is_null());
    EXPECT_EQ(o["stable_from"]["adcl"].num(), 3);
    EXPECT_EQ(o["stable_from"]["iqr"].num(), 4);
    ASSERT_EQ(o["steps"].size(), 4u);
    EXPECT_EQ(o["steps"][2]["measurements"].num(), 3);
    EXPECT_EQ(o["steps"][2]["adcl"].num(), 1);
    EXPECT_EQ(o["steps"][2]["adcl_basis"].str(), "unfiltered");
    EXPECT_EQ(o["steps"][3]["iqr"].num(), 0);
    EXPECT_EQ(o["steps"][3]["raw"].num(), 1);
}

// --- samples_min, worst_set ------------------------------------------------------------------

TEST(CodeletAuditMirror, SamplesMinIsTheFastestProcessPerMeasurement) {
    Op op;
    op.measure(0, 0, {1, 2, 3}).measure(1, 0, {2, 1, 4});
    const CodeletAudit c = audit_one(op, 2).codelets[0];
    EXPECT_EQ(c.samples, (std::vector<double>{2, 2, 4}));
    EXPECT_EQ(c.samples_min, (std::vector<double>{1, 1, 3}));
}

TEST(CodeletAuditMirror, WorstSetIsTheSlowestAndWhatOverlapsIt) {
    // Ranges (10th-90th percentile): 0 [1, 1]; 1 {6,7,6,6,6} [6, 6.6]; 2 {6,8,7,7,7}
    // [6.4, 7.6]. Consensus: 0 is 1, 1 about 6, 2 about 7: 2 is the slowest, 1 overlaps it.
    Op op;
    op.codelet(2, "c").measure(0, 0, repeat(1, 5)).measure(0, 1, {6, 7, 6, 6, 6});
    op.measure(0, 2, {6, 8, 7, 7, 7});
    const OperationAudit a = audit_one(op, 1);
    ASSERT_EQ(a.codelets.size(), 3u);
    EXPECT_DOUBLE_EQ(a.codelets[1].range_hi, 6.6);
    EXPECT_DOUBLE_EQ(a.codelets[2].range_lo, 6.4);
    EXPECT_GT(a.codelets[2].consensus, a.codelets[1].consensus);
    EXPECT_FALSE(a.codelets[0].worst_set);
    EXPECT_TRUE(a.codelets[1].worst_set);
    EXPECT_TRUE(a.codelets[2].worst_set);
    EXPECT_TRUE(a.codelets[0].winner_set);
    EXPECT_FALSE(a.codelets[1].winner_set);
    const JsonValue d =
        parse_json(to_json(audit(input(op), AuditParameters{}, ranks(1)), ranks(1)));
    const JsonValue& cs = d["operations"][0]["codelets"];
    EXPECT_FALSE(cs[0]["worst_set"].boolean_value());
    EXPECT_TRUE(cs[1]["worst_set"].boolean_value());
    EXPECT_TRUE(cs[2]["worst_set"].boolean_value());
    EXPECT_EQ(cs[2]["samples_min"].size(), 5u);
    EXPECT_EQ(cs[2]["samples_min"][1].num(), 8);
}

TEST(CodeletAuditMirror, EqualSlowestCodeletsAreBothInTheWorstSet) {
    // 1 and 2 are equal and slowest, their ranges [2, 2] touch: both in the worst set;
    // 0 [1, 1] is not.
    Op op;
    op.codelet(2, "c").measure(0, 0, repeat(1, 3)).measure(0, 1, repeat(2, 3));
    op.measure(0, 2, repeat(2, 3));
    const OperationAudit a = audit_one(op, 1);
    EXPECT_FALSE(a.codelets[0].worst_set);
    EXPECT_TRUE(a.codelets[1].worst_set);
    EXPECT_TRUE(a.codelets[2].worst_set);
}

// --- timing technique ------------------------------------------------------------------------

TEST(AuditTiming, TheTunersTimingTechniqueIsCarriedToTheAuditAndJson) {
    Op op;
    op.measure(0, 0, repeat(1, 3));
    EXPECT_EQ(audit_one(op, 1).timing, TimingTechnique::Unknown);
    const std::vector<std::pair<TimingTechnique, std::string>> cases = {
        {TimingTechnique::BarrierBefore, "barrier"},
        {TimingTechnique::NoBarrier, "no-barrier"},
        {TimingTechnique::TimerObject, "timer-object"},
        {TimingTechnique::Unknown, "unknown"}};
    for (const auto& [technique, key] : cases) {
        op.m.technique = technique;
        const Audit a = audit(input(op), AuditParameters{}, ranks(1));
        EXPECT_EQ(a.operations[0].timing, technique);
        EXPECT_EQ(parse_json(to_json(a, ranks(1)))["operations"][0]["timing_technique"].str(), key);
    }
}

// --- JSON keys ---------------------------------------------------------------------------------

TEST(AdclReplayJson, NewKeysAreWrittenAndOldOnesKept) {
    Op op;
    for (uint32_t p = 0; p < 2; ++p)
        op.measure(p, 0, cat(repeat(1, 8), {4, 4})).measure(p, 1, repeat(1.25, 10)).decide(p, 0);
    AuditParameters p;
    p.measurements = 10;
    p.aggregate = Aggregate::Min;
    p.adcl = {4, 25};
    const JsonValue d = parse_json(to_json(audit(input(op), p, ranks(2)), ranks(2)));
    const JsonValue& par = d["parameters"];
    EXPECT_EQ(par["b"].num(), 3);
    EXPECT_EQ(par["measurements"].num(), 10);
    EXPECT_EQ(par["aggregate"].str(), "min");
    EXPECT_EQ(par["outlier_factor"].num(), 4);
    EXPECT_EQ(par["outlier_fraction"].num(), 25);
    const JsonValue& o = d["operations"][0];
    for (const char* key : {"verdict", "tuner_winner", "method_winners", "best", "codelets",
                            "diagnostics", "adcl", "available_measurements"})
        EXPECT_TRUE(o.has(key)) << key;
    EXPECT_EQ(o["available_measurements"].num(), 10);
    // Factor 4: 4 >= 4 * 1, still 20% < 25: filtered 1 wins.
    EXPECT_EQ(o["adcl"]["winner"]["index"].num(), 0);
    EXPECT_EQ(o["adcl"]["winner"]["name"].str(), "a");
    EXPECT_EQ(o["adcl"]["basis"].str(), "filtered");
    EXPECT_EQ(o["adcl"]["filtered_candidate"].num(), 0);
    EXPECT_EQ(o["adcl"]["unfiltered_candidate"].num(), 1);
    EXPECT_TRUE(o["adcl"]["matches_tuner"].boolean_value());
    const JsonValue& c = o["codelets"][0];
    for (const char* key : {"samples", "samples_min", "winner_set", "worst_set", "adcl"})
        EXPECT_TRUE(c.has(key)) << key;
    EXPECT_EQ(c["adcl"]["unfiltered_avg"].num(), 1.6);
    EXPECT_EQ(c["adcl"]["filtered_avg"].num(), 1);
    EXPECT_EQ(c["adcl"]["outlier_percent"].num(), 20);
    const JsonValue all =
        parse_json(to_json(audit(input(op), AuditParameters{}, ranks(2)), ranks(2)));
    EXPECT_TRUE(all["parameters"]["measurements"].is_null());
    EXPECT_EQ(all["parameters"]["aggregate"].str(), "max");
    EXPECT_EQ(all["parameters"]["outlier_factor"].num(), 3);
    EXPECT_EQ(all["parameters"]["outlier_fraction"].num(), 20);
}
