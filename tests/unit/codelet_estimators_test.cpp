// The codelet-audit estimators on data whose answer is known by hand or by construction.
#include "patterns/audit/codelet_estimators.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

namespace tp = topolens::patterns;

namespace {

using Idx = std::vector<std::size_t>;

// Φ⁻¹ by bisection on erfc: a deterministic, symmetric normal-like sample without relying
// on a library's random distributions.
double normal_quantile(double p) {
    double lo = -10, hi = 10;
    for (int i = 0; i < 200; ++i) {
        const double mid = 0.5 * (lo + hi);
        (0.5 * std::erfc(-mid / std::sqrt(2.0)) < p ? lo : hi) = mid;
    }
    return 0.5 * (lo + hi);
}

// n values at the quantiles (i + 0.5)/n of N(mu, sigma²): mean mu up to rounding.
std::vector<double> normal_sample(std::size_t n, double mu, double sigma) {
    std::vector<double> v;
    for (std::size_t i = 0; i < n; ++i)
        v.push_back(
            mu + sigma * normal_quantile((static_cast<double>(i) + 0.5) / static_cast<double>(n)));
    return v;
}

// The same values in a scrambled order, so index bookkeeping is exercised.
std::vector<double> scrambled(const std::vector<double>& v) {
    std::vector<double> out(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) out[(i * 37) % v.size()] = v[i];
    return out;
}

} // namespace

TEST(EstimatorBasics, PercentileIsType7) {
    const std::vector<double> t{4, 1, 3, 2}; // sorted 1 2 3 4
    EXPECT_DOUBLE_EQ(tp::percentile(t, 0), 1);
    EXPECT_DOUBLE_EQ(tp::percentile(t, 25), 1.75); // h = 0.75
    EXPECT_DOUBLE_EQ(tp::percentile(t, 50), 2.5);
    EXPECT_DOUBLE_EQ(tp::percentile(t, 75), 3.25); // h = 2.25
    EXPECT_DOUBLE_EQ(tp::percentile(t, 100), 4);
    EXPECT_DOUBLE_EQ(tp::median(t), 2.5);
    EXPECT_THROW(tp::percentile(t, 101), std::invalid_argument);
}

TEST(EstimatorBasics, MedianAndMad) {
    const std::vector<double> t{1, 2, 3, 4, 100};
    EXPECT_DOUBLE_EQ(tp::median(t), 3);
    EXPECT_DOUBLE_EQ(tp::mad(t), 1); // deviations 2 1 0 1 97
    EXPECT_DOUBLE_EQ(tp::mean(t), 22);
}

TEST(EstimatorBasics, MaxOutliersFloorsTheFraction) {
    EXPECT_EQ(tp::max_outliers(10, 0.2), 2u);
    EXPECT_EQ(tp::max_outliers(14, 0.2), 2u);
    EXPECT_EQ(tp::max_outliers(100, 0.29), 29u); // 0.29·100 is 28.999… in binary
    EXPECT_EQ(tp::max_outliers(4, 0.2), 0u);
    EXPECT_THROW(tp::max_outliers(10, 1.5), std::invalid_argument);
}

TEST(IqrEstimator, FencesOnAHandComputedSample) {
    // Sorted 10 11 12 13 14 40: Q1 at h = 1.25 → 11.25, Q3 at h = 3.75 → 13.75, IQR 2.5.
    const std::vector<double> t{13, 40, 10, 12, 14, 11};
    const tp::IqrFences f = tp::iqr_fences(t);
    EXPECT_DOUBLE_EQ(f.q1, 11.25);
    EXPECT_DOUBLE_EQ(f.q3, 13.75);
    EXPECT_DOUBLE_EQ(f.lo, 7.5);
    EXPECT_DOUBLE_EQ(f.hi, 17.5);

    const tp::Estimate e = tp::iqr_estimate(t);
    EXPECT_EQ(e.outliers, Idx{1});
    EXPECT_DOUBLE_EQ(e.value, 12);
    EXPECT_DOUBLE_EQ(e.raw_mean, 100.0 / 6);
    EXPECT_TRUE(e.filtered);
}

TEST(IqrEstimator, BoundsAreInclusiveAndLowOutliersGoToo) {
    // Sorted 0 10 11 12 13 17.5: Q1 = 10.25, Q3 = 12.75, fences [6.5, 16.5].
    const std::vector<double> t{10, 11, 12, 13, 16.5, 0};
    const tp::Estimate e = tp::iqr_estimate(t);
    const tp::IqrFences f = tp::iqr_fences(t);
    EXPECT_DOUBLE_EQ(f.hi, 16.5);
    EXPECT_EQ(e.outliers, Idx{5}); // 16.5 sits on the fence and stays
    EXPECT_DOUBLE_EQ(e.value, 62.5 / 5);
}

TEST(HeuristicEstimator, FiltersUpToNoMax) {
    // 10 values, n_o^max = 2; min 1.0, bound 3.0: the two 5.0 are outliers.
    const std::vector<double> t{1.0, 1.2, 5.0, 1.1, 1.3, 1.0, 1.2, 5.0, 1.1, 1.1};
    const tp::Estimate e = tp::heuristic_estimate(t);
    EXPECT_EQ(e.outliers, (Idx{2, 7}));
    EXPECT_TRUE(e.filtered);
    EXPECT_DOUBLE_EQ(e.value, (1.0 + 1.2 + 1.1 + 1.3 + 1.0 + 1.2 + 1.1 + 1.1) / 8);
    EXPECT_NEAR(e.raw_mean, 19.0 / 10, 1e-12);
}

TEST(HeuristicEstimator, SwitchesToTheRawMeanBeyondNoMax) {
    // Three outliers of ten exceed n_o^max = 2: they are real behaviour, the raw mean stands.
    const std::vector<double> t{1.0, 1.2, 5.0, 1.1, 1.3, 1.0, 5.0, 5.0, 1.1, 1.1};
    const tp::Estimate e = tp::heuristic_estimate(t);
    EXPECT_EQ(e.outliers, (Idx{2, 6, 7}));
    EXPECT_FALSE(e.filtered);
    EXPECT_DOUBLE_EQ(e.value, e.raw_mean);
    EXPECT_NEAR(e.value, 22.8 / 10, 1e-12);
    // A larger n_o^max (30%) filters them again.
    const tp::Estimate wide = tp::heuristic_estimate(t, 3.0, 0.3);
    EXPECT_TRUE(wide.filtered);
    EXPECT_NEAR(wide.value, 7.8 / 7, 1e-12);
}

TEST(HeuristicEstimator, TheBoundFactorDecides) {
    const std::vector<double> t{1.0, 2.5, 1.0, 1.0, 1.0};
    const tp::Estimate b3 = tp::heuristic_estimate(t, 3.0, 0.2); // 2.5 ≤ 3·1
    EXPECT_TRUE(b3.outliers.empty());
    EXPECT_DOUBLE_EQ(b3.value, 6.5 / 5);
    const tp::Estimate b2 = tp::heuristic_estimate(t, 2.0, 0.2); // 2.5 > 2·1
    EXPECT_EQ(b2.outliers, Idx{1});
    EXPECT_DOUBLE_EQ(b2.value, 1.0);
    // The thesis keeps t ≤ b·min: a value exactly at the bound is no outlier.
    const std::vector<double> at_bound{1.0, 3.0, 1.0, 1.0, 1.0};
    EXPECT_TRUE(tp::heuristic_estimate(at_bound).outliers.empty());
    EXPECT_THROW(tp::heuristic_estimate(t, 0.5), std::invalid_argument);
    const std::vector<double> negative{1.0, -1.0};
    EXPECT_THROW(tp::heuristic_estimate(negative), std::invalid_argument);
}

TEST(ClusterEstimator, RemovesTheSmallDistantClusterOfBimodalData) {
    // 18 values evenly spread in [1.000, 1.017] and 2 near 5: n_o^max = 4, the root splits off
    // the pair; the next split of the 18 is too large to remove.
    std::vector<double> t;
    for (int i = 0; i < 18; ++i) t.push_back(1.0 + 0.001 * i);
    t.insert(t.begin() + 5, 5.0);
    t.insert(t.begin() + 12, 5.1);
    const tp::Estimate e = tp::cluster_estimate(t);
    EXPECT_EQ(e.outliers, (Idx{5, 12}));
    EXPECT_NEAR(e.value, 1.0085, 1e-12);
    EXPECT_TRUE(e.filtered);
    EXPECT_GT(e.raw_mean, 1.4);
}

TEST(ClusterEstimator, IsolatedClustersGoFirstWithinNoMax) {
    // Nested isolation: 16 near 1, 3 near 3, 1 at 10 (n = 20, n_o^max = 4). The root splits
    // off 10, then the next node splits off the three near 3: 4 removed in all.
    std::vector<double> t;
    for (int i = 0; i < 16; ++i) t.push_back(1.0 + 0.01 * (i % 4));
    t.push_back(3.0);
    t.push_back(10.0);
    t.push_back(3.1);
    t.push_back(3.05);
    const tp::Estimate e = tp::cluster_estimate(t);
    EXPECT_EQ(e.outliers, (Idx{16, 17, 18, 19}));
    // With n_o^max = 3 (15%) only the farthest cluster fits; the three near 3 would exceed it.
    const tp::Estimate tight = tp::cluster_estimate(t, 0.15);
    EXPECT_EQ(tight.outliers, Idx{17});
    // No n_o^max: nothing may go.
    EXPECT_TRUE(tp::cluster_estimate(t, 0.0).outliers.empty());
}

TEST(ClusterEstimator, NeverSplitsEqualValues) {
    const std::vector<double> t(10, 2.5);
    const tp::Estimate e = tp::cluster_estimate(t, 0.5);
    EXPECT_TRUE(e.outliers.empty());
    EXPECT_DOUBLE_EQ(e.value, 2.5);
}

TEST(StudentTEstimator, LocationOfAContaminatedNormalSample) {
    // 95 values around 1.0 (σ 0.01) plus 5 at 10.0: the raw mean is 1.45.
    std::vector<double> t = normal_sample(95, 1.0, 0.01);
    const double clean = tp::mean(t);
    for (int i = 0; i < 5; ++i) t.push_back(10.0);
    t = scrambled(t);
    const tp::StudentTFit fit = tp::student_t_fit(t);
    EXPECT_TRUE(fit.converged);
    EXPECT_TRUE(fit.estimate.filtered);
    EXPECT_NEAR(fit.estimate.value, clean, 0.01);
    EXPECT_NEAR(fit.estimate.raw_mean, 1.45, 1e-9);
    EXPECT_GT(std::fabs(fit.estimate.value - fit.estimate.raw_mean), 0.4);
    EXPECT_NEAR(fit.scale, 0.01, 0.005);
    // The five contaminants are reported (|r| > 3); maybe a tail value or two, no more.
    std::size_t at_ten = 0;
    for (std::size_t i : fit.estimate.outliers) at_ten += t[i] == 10.0;
    EXPECT_EQ(at_ten, 5u);
    EXPECT_LE(fit.estimate.outliers.size(), 7u);
}

TEST(StudentTEstimator, SymmetricCleanDataGiveTheMean) {
    const std::vector<double> t = normal_sample(50, 2.0, 0.1);
    const tp::Estimate e = tp::student_t_estimate(t);
    EXPECT_NEAR(e.value, 2.0, 1e-9);
    EXPECT_TRUE(e.outliers.empty());
}

TEST(StudentTEstimator, MostlyEqualValuesStayAtTheMedian) {
    // MAD is 0: σ is floored, no division by zero, the location is the common value.
    const std::vector<double> t{1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 3.0};
    const tp::StudentTFit fit = tp::student_t_fit(t);
    EXPECT_TRUE(std::isfinite(fit.scale));
    EXPECT_GT(fit.scale, 0);
    EXPECT_NEAR(fit.estimate.value, 1.0, 1e-6);
    EXPECT_EQ(fit.estimate.outliers, Idx{6});
}

TEST(EstimatorDegenerate, EmptySampleIsRejected) {
    const std::vector<double> none;
    EXPECT_THROW(tp::mean(none), std::invalid_argument);
    EXPECT_THROW(tp::median(none), std::invalid_argument);
    EXPECT_THROW(tp::heuristic_estimate(none), std::invalid_argument);
    EXPECT_THROW(tp::iqr_estimate(none), std::invalid_argument);
    EXPECT_THROW(tp::cluster_estimate(none), std::invalid_argument);
    EXPECT_THROW(tp::student_t_estimate(none), std::invalid_argument);
    EXPECT_THROW(tp::percentile_range(none), std::invalid_argument);
}

TEST(EstimatorDegenerate, NonFiniteValuesAreRejected) {
    const std::vector<double> nan{1.0, std::numeric_limits<double>::quiet_NaN()};
    const std::vector<double> inf{std::numeric_limits<double>::infinity(), 1.0};
    for (const auto& t : {nan, inf}) {
        EXPECT_THROW(tp::heuristic_estimate(t), std::invalid_argument);
        EXPECT_THROW(tp::iqr_estimate(t), std::invalid_argument);
        EXPECT_THROW(tp::cluster_estimate(t), std::invalid_argument);
        EXPECT_THROW(tp::student_t_estimate(t), std::invalid_argument);
    }
    try {
        tp::iqr_estimate(nan);
        FAIL() << "no exception";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("measurement 1"), std::string::npos) << e.what();
    }
}

TEST(EstimatorDegenerate, OneMeasurementIsItsOwnEstimate) {
    const std::vector<double> one{0.25};
    for (const tp::Estimate& e : {tp::heuristic_estimate(one), tp::iqr_estimate(one),
                                  tp::cluster_estimate(one), tp::student_t_estimate(one)}) {
        EXPECT_DOUBLE_EQ(e.value, 0.25);
        EXPECT_DOUBLE_EQ(e.raw_mean, 0.25);
        EXPECT_TRUE(e.outliers.empty());
        EXPECT_TRUE(e.filtered);
    }
}

TEST(EstimatorDegenerate, AllEqualValuesHaveNoOutliers) {
    const std::vector<double> same(7, 0.125);
    for (const tp::Estimate& e : {tp::heuristic_estimate(same), tp::iqr_estimate(same),
                                  tp::cluster_estimate(same), tp::student_t_estimate(same)}) {
        EXPECT_DOUBLE_EQ(e.value, 0.125);
        EXPECT_TRUE(e.outliers.empty());
        EXPECT_TRUE(e.filtered);
    }
    EXPECT_DOUBLE_EQ(tp::mad(same), 0);
    // Zero durations too: the σ floor and b·min = 0 must not divide by zero.
    const std::vector<double> zeros(5, 0.0);
    EXPECT_DOUBLE_EQ(tp::student_t_estimate(zeros).value, 0);
    EXPECT_TRUE(tp::heuristic_estimate(zeros).outliers.empty());
}

TEST(Overlap, RangesWinnersAndInstability) {
    // A [1,2], B [1.5,3], C [4,5], D [2,2.5] (D touches A at 2, which counts as overlap).
    const std::vector<tp::Range> r{{1, 2}, {1.5, 3}, {4, 5}, {2, 2.5}};
    EXPECT_TRUE(tp::overlaps(r[0], r[1]));
    EXPECT_TRUE(tp::overlaps(r[0], r[3]));
    EXPECT_FALSE(tp::overlaps(r[0], r[2]));
    EXPECT_FALSE(tp::overlaps(r[2], r[1]));

    const std::vector<double> est{1.4, 2.0, 4.5, 2.2};
    EXPECT_EQ(tp::winners(r, est), (Idx{0, 1, 3}));
    const std::vector<double> c_fastest{1.4, 2.0, 0.5, 2.2};
    EXPECT_EQ(tp::winners(r, c_fastest), Idx{2});

    EXPECT_DOUBLE_EQ(tp::instability(r, 0), 2.0 / 3);
    EXPECT_DOUBLE_EQ(tp::instability(r, 1), 2.0 / 3);
    EXPECT_DOUBLE_EQ(tp::instability(r, 2), 0);
    EXPECT_DOUBLE_EQ(tp::instability(r, 3), 2.0 / 3);
    EXPECT_EQ(tp::stability_class(tp::instability(r, 0)), tp::Stability::Unstable);
    EXPECT_EQ(tp::stability_class(tp::instability(r, 2)), tp::Stability::VeryStable);

    const std::vector<tp::Range> single{{1, 2}};
    EXPECT_DOUBLE_EQ(tp::instability(single, 0), 0);
    EXPECT_THROW(tp::instability(r, 4), std::invalid_argument);
    const std::vector<tp::Range> inverted{{2, 1}};
    EXPECT_THROW(tp::instability(inverted, 0), std::invalid_argument);
    EXPECT_THROW(tp::winners(r, std::vector<double>{1.0}), std::invalid_argument);
}

TEST(Overlap, StabilityClassBoundaries) {
    EXPECT_EQ(tp::stability_class(0.0), tp::Stability::VeryStable);
    EXPECT_EQ(tp::stability_class(0.19), tp::Stability::VeryStable);
    EXPECT_EQ(tp::stability_class(0.2), tp::Stability::Stable);
    EXPECT_EQ(tp::stability_class(0.4), tp::Stability::Fair);
    EXPECT_EQ(tp::stability_class(0.6), tp::Stability::Unstable);
    EXPECT_EQ(tp::stability_class(0.8), tp::Stability::VeryUnstable);
    EXPECT_EQ(tp::stability_class(1.0), tp::Stability::VeryUnstable);
    EXPECT_EQ(tp::stability_name(tp::Stability::VeryStable), "very stable");
    EXPECT_EQ(tp::stability_name(tp::Stability::Fair), "fair");
    EXPECT_EQ(tp::stability_name(tp::Stability::VeryUnstable), "very unstable");
    EXPECT_THROW(tp::stability_class(1.5), std::invalid_argument);
}

TEST(Overlap, PercentileRangeIs10To90) {
    std::vector<double> t;
    for (int i = 0; i <= 10; ++i) t.push_back(i); // h = 1 and 9 exactly
    const tp::Range r = tp::percentile_range(t);
    EXPECT_DOUBLE_EQ(r.lo, 1);
    EXPECT_DOUBLE_EQ(r.hi, 9);
}
