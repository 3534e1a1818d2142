// Estimators for the codelet audit (docs/audit.md, "The estimators", after Benkert 2011, §5.2):
// the per-process execution-time estimate of one codelet from its search-phase measurements
// t[0..n) (seconds), by four outlier-handling methods, plus the overlap and instability of
// codelet ranges (§5.3.3.1, §6.3.1). Pure functions: no MPI, no trace types.
//
// Every function that takes a sample throws std::invalid_argument when it is empty or holds a
// NaN or infinite value (the message names the function and the index), so a bad trace is a
// diagnostic, never a silently wrong estimate. A single measurement is its own estimate.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

namespace topolens::patterns {

// One method's answer for one sample.
struct Estimate {
    double value = 0;                  // the method's estimate (seconds)
    double raw_mean = 0;               // plain mean of all measurements
    std::vector<std::size_t> outliers; // indices into the sample, ascending
    // True when `value` is the method's filtered estimate; false when it fell back (the
    // heuristic with more than n_o^max outliers uses the raw mean; a Student-t fit that did
    // not converge uses the median).
    bool filtered = true;
};

// --- Basic statistics -----------------------------------------------------------------------

double mean(std::span<const double> t);

// Percentile p in [0, 100], linear interpolation between order statistics (Hyndman & Fan
// type 7, the default of R, NumPy and Excel's PERCENTILE.INC): with the sorted sample x[0..n),
// h = (n − 1)·p/100, result x[⌊h⌋] + (h − ⌊h⌋)·(x[⌊h⌋+1] − x[⌊h⌋]).
double percentile(std::span<const double> t, double p);

double median(std::span<const double> t); // percentile 50
// Median absolute deviation from the median, unscaled (multiply by 1.483 for a normal σ).
double mad(std::span<const double> t);

// n_o^max = ⌊fraction·n⌋ (fraction in [0, 1], else std::invalid_argument).
std::size_t max_outliers(std::size_t n, double fraction);

// --- The four methods -----------------------------------------------------------------------

// ADCL's heuristic (§5.2.1): outliers are t > b·min(t) (b ≥ 1). With at most n_o^max of them
// the estimate is the mean of the rest; with more, they are taken to be real behaviour and the
// estimate is the raw mean (filtered = false; `outliers` still lists them). Measurements must
// be ≥ 0 (durations).
Estimate heuristic_estimate(std::span<const double> t, double b = 3.0,
                            double no_max_fraction = 0.2);

// Quartiles by `percentile` (type 7) and Tukey's fences Q1 − k·IQR, Q3 + k·IQR.
struct IqrFences {
    double q1 = 0, q3 = 0, lo = 0, hi = 0;
};
IqrFences iqr_fences(std::span<const double> t, double k = 1.5);

// §5.2.2: drop t outside [lo, hi] of `iqr_fences` (bounds inclusive), mean of the rest. Some
// measurement always lies within the fences, so the rest is never empty.
Estimate iqr_estimate(std::span<const double> t, double k = 1.5);

// §5.2.3: average-linkage agglomerative clustering of the values with distance |x − y|.
// In one dimension, average linkage only ever merges clusters that are neighbours in sorted
// order (for ordered clusters A < B < C, d(A,C) = d(A,B) + d(B,C)), and the distance of two
// neighbours is the difference of their means; so the dendrogram is built by repeatedly
// merging the neighbouring pair with the smallest mean difference (ties: leftmost), O(n²).
//
// The cut, from the top of the dendrogram: at the current node (first the root) take its two
// children; the candidate is the smaller one (fewer measurements; equal sizes: the one with
// the larger mean, as slow outliers are the usual kind). If the measurements removed so far
// plus the candidate's stay within n_o^max = ⌊no_max_fraction·n⌋, the candidate is removed
// and the walk continues at the other child; otherwise, or at a leaf, or at a node whose
// merge distance is 0 (all its values equal), it stops. So the clusters merged last, i.e.
// the most isolated, go first, and at most n_o^max measurements — never the majority — go.
// The estimate is the mean of the rest.
Estimate cluster_estimate(std::span<const double> t, double no_max_fraction = 0.2);

// §5.2.4: maximum-likelihood location of a Student-t model with fixed ν > 0, by iteratively
// reweighted least squares (the EM iteration for fixed ν): weights
// w_i = (ν + 1)/(ν + r_i²), r_i = (t_i − μ)/σ; then μ = Σ w_i t_i / Σ w_i and
// σ² = Σ w_i (t_i − μ)² / n. Starts at μ = median, σ = 1.483·MAD; σ is floored at
// 1e-9·max(|median|, 1e-300) so a sample whose MAD is 0 (e.g. all values equal) needs no
// division by zero and stays at the median. Converged when μ and σ change by less than
// 1e-10·σ. Outliers (for reporting only; the location uses every measurement, down-weighted)
// are measurements with |r_i| > outlier_r at the fit, i.e. weight below
// (ν + 1)/(ν + outlier_r²).
struct StudentTFit {
    Estimate estimate; // value = μ (median if not converged, filtered = false)
    double scale = 0;  // σ
    int iterations = 0;
    bool converged = false;
};
StudentTFit student_t_fit(std::span<const double> t, double nu = 5.0, double outlier_r = 3.0);
inline Estimate student_t_estimate(std::span<const double> t, double nu = 5.0,
                                   double outlier_r = 3.0) {
    return student_t_fit(t, nu, outlier_r).estimate;
}

// --- Overlap and instability (docs/audit.md) ------------------------------------------------

// A codelet's range [lo, hi]: in one trace the 10th–90th percentile of its filtered
// measurements, across verification runs the min–max of the runs' means.
struct Range {
    double lo = 0, hi = 0;
};
// The 10th–90th (or other) percentile range of a sample.
Range percentile_range(std::span<const double> t, double lo_p = 10, double hi_p = 90);

// o(c,d): 0 if lo(c) > hi(d) or hi(c) < lo(d), else 1 (touching ranges overlap).
bool overlaps(const Range& c, const Range& d);

// The fastest codelet by `estimates` (ties: lowest index) and every codelet whose range
// overlaps it, ascending. Sizes must match and be > 0; ranges must be finite with lo ≤ hi.
std::vector<std::size_t> winners(std::span<const Range> ranges, std::span<const double> estimates);

// I(c) = Σ_{d≠c} o(c,d) / (n_c − 1); 0 when there is only one codelet.
double instability(std::span<const Range> ranges, std::size_t c);

enum class Stability { VeryStable, Stable, Fair, Unstable, VeryUnstable };
// very stable < 0.2 ≤ stable < 0.4 ≤ fair < 0.6 ≤ unstable < 0.8 ≤ very unstable.
Stability stability_class(double instability);
std::string_view stability_name(Stability s); // "very stable", "stable", ...

} // namespace topolens::patterns
