// Estimators for the codelet audit; definitions and their reasons are in the header.
#include "patterns/audit/codelet_estimators.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

namespace topolens::patterns {

namespace {

// Every entry point validates, so a bad trace becomes a message naming the culprit.
void check_sample(std::span<const double> t, const char* who) {
    if (t.empty()) throw std::invalid_argument(std::string(who) + ": empty sample");
    for (std::size_t i = 0; i < t.size(); ++i) {
        if (!std::isfinite(t[i]))
            throw std::invalid_argument(std::string(who) + ": measurement " + std::to_string(i) +
                                        " is not a finite number");
    }
}

std::vector<double> sorted_copy(std::span<const double> t) {
    std::vector<double> s(t.begin(), t.end());
    std::sort(s.begin(), s.end());
    return s;
}

// Type 7 on an already sorted, validated sample.
double percentile_sorted(const std::vector<double>& s, double p) {
    const double h = (static_cast<double>(s.size()) - 1) * p / 100.0;
    const auto lo = static_cast<std::size_t>(std::floor(h));
    if (lo + 1 >= s.size()) return s.back();
    return s[lo] + (h - static_cast<double>(lo)) * (s[lo + 1] - s[lo]);
}

double mean_unchecked(std::span<const double> t) {
    return std::accumulate(t.begin(), t.end(), 0.0) / static_cast<double>(t.size());
}

// Mean of the measurements not listed in `outliers` (ascending); the raw mean if none are kept.
double mean_without(std::span<const double> t, const std::vector<std::size_t>& outliers) {
    double sum = 0;
    std::size_t kept = 0, next = 0;
    for (std::size_t i = 0; i < t.size(); ++i) {
        if (next < outliers.size() && outliers[next] == i) {
            ++next;
            continue;
        }
        sum += t[i];
        ++kept;
    }
    return kept ? sum / static_cast<double>(kept) : mean_unchecked(t);
}

void check_range(const Range& r, const char* who) {
    if (!std::isfinite(r.lo) || !std::isfinite(r.hi) || r.lo > r.hi)
        throw std::invalid_argument(std::string(who) + ": range must be finite with lo <= hi");
}

} // namespace

double mean(std::span<const double> t) {
    check_sample(t, "mean");
    return mean_unchecked(t);
}

double percentile(std::span<const double> t, double p) {
    check_sample(t, "percentile");
    if (!(p >= 0 && p <= 100)) throw std::invalid_argument("percentile: p must be within [0, 100]");
    return percentile_sorted(sorted_copy(t), p);
}

double median(std::span<const double> t) {
    check_sample(t, "median");
    return percentile_sorted(sorted_copy(t), 50);
}

double mad(std::span<const double> t) {
    check_sample(t, "mad");
    const double m = percentile_sorted(sorted_copy(t), 50);
    std::vector<double> dev(t.size());
    for (std::size_t i = 0; i < t.size(); ++i) dev[i] = std::fabs(t[i] - m);
    std::sort(dev.begin(), dev.end());
    return percentile_sorted(dev, 50);
}

std::size_t max_outliers(std::size_t n, double fraction) {
    if (!(fraction >= 0 && fraction <= 1))
        throw std::invalid_argument("n_o^max fraction must be within [0, 1]");
    // The epsilon keeps e.g. 0.29·100 = 28.999… from flooring to 28.
    return static_cast<std::size_t>(std::floor(fraction * static_cast<double>(n) + 1e-9));
}

Estimate heuristic_estimate(std::span<const double> t, double b, double no_max_fraction) {
    check_sample(t, "heuristic_estimate");
    if (!(b >= 1) || !std::isfinite(b))
        throw std::invalid_argument("heuristic_estimate: bound b must be finite and >= 1");
    const double lowest = *std::min_element(t.begin(), t.end());
    if (lowest < 0)
        throw std::invalid_argument("heuristic_estimate: negative duration in the sample");
    const std::size_t no_max = max_outliers(t.size(), no_max_fraction);

    Estimate e;
    e.raw_mean = mean_unchecked(t);
    const double bound = b * lowest;
    for (std::size_t i = 0; i < t.size(); ++i)
        if (t[i] > bound) e.outliers.push_back(i);
    // Too many "outliers" are real behaviour of the codelet: keep them (ADCL).
    e.filtered = e.outliers.size() <= no_max;
    e.value = e.filtered ? mean_without(t, e.outliers) : e.raw_mean;
    return e;
}

IqrFences iqr_fences(std::span<const double> t, double k) {
    check_sample(t, "iqr_fences");
    if (!(k >= 0) || !std::isfinite(k))
        throw std::invalid_argument("iqr_fences: k must be finite and >= 0");
    const auto s = sorted_copy(t);
    IqrFences f;
    f.q1 = percentile_sorted(s, 25);
    f.q3 = percentile_sorted(s, 75);
    const double iqr = f.q3 - f.q1;
    f.lo = f.q1 - k * iqr;
    f.hi = f.q3 + k * iqr;
    return f;
}

Estimate iqr_estimate(std::span<const double> t, double k) {
    const IqrFences f = iqr_fences(t, k);
    Estimate e;
    e.raw_mean = mean_unchecked(t);
    for (std::size_t i = 0; i < t.size(); ++i)
        if (t[i] < f.lo || t[i] > f.hi) e.outliers.push_back(i);
    e.value = mean_without(t, e.outliers);
    return e;
}

Estimate cluster_estimate(std::span<const double> t, double no_max_fraction) {
    check_sample(t, "cluster_estimate");
    const std::size_t n = t.size();
    const std::size_t no_max = max_outliers(n, no_max_fraction);

    // Positions in sorted order (stable, so equal values keep index order).
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return t[a] < t[b]; });

    // Dendrogram nodes: leaves 0..n-1, internal nodes after. A node covers the sorted
    // positions [begin, end) because only neighbours merge.
    struct Node {
        std::size_t begin, end;
        double sum;
        double height = 0; // merge distance (0 for leaves)
        std::size_t left = 0, right = 0;
        bool leaf = true;
        std::size_t count() const { return end - begin; }
        double mean() const { return sum / static_cast<double>(count()); }
    };
    std::vector<Node> nodes;
    nodes.reserve(2 * n);
    for (std::size_t p = 0; p < n; ++p) nodes.push_back({p, p + 1, t[order[p]]});

    std::vector<std::size_t> active(n); // current clusters, left to right
    std::iota(active.begin(), active.end(), std::size_t{0});
    while (active.size() > 1) {
        std::size_t best = 0;
        double best_d = nodes[active[1]].mean() - nodes[active[0]].mean();
        for (std::size_t j = 1; j + 1 < active.size(); ++j) {
            const double d = nodes[active[j + 1]].mean() - nodes[active[j]].mean();
            if (d < best_d) best_d = d, best = j;
        }
        const Node& a = nodes[active[best]];
        const Node& b = nodes[active[best + 1]];
        Node m{a.begin,          b.end, a.sum + b.sum, std::max(best_d, 0.0), active[best],
               active[best + 1], false};
        nodes.push_back(m);
        active[best] = nodes.size() - 1;
        active.erase(active.begin() + static_cast<std::ptrdiff_t>(best) + 1);
    }

    // The cut: peel the smaller child off the top while it fits within n_o^max.
    std::vector<std::size_t> removed;
    std::size_t node = active[0];
    while (!nodes[node].leaf && nodes[node].height > 0) {
        const Node& l = nodes[nodes[node].left];
        const Node& r = nodes[nodes[node].right];
        // Equal sizes: the right (larger mean) child, since slow outliers are the usual kind.
        const bool left_smaller = l.count() < r.count();
        const Node& cand = left_smaller ? l : r;
        if (removed.size() + cand.count() > no_max) break;
        for (std::size_t p = cand.begin; p < cand.end; ++p) removed.push_back(order[p]);
        node = left_smaller ? nodes[node].right : nodes[node].left;
    }

    Estimate e;
    e.raw_mean = mean_unchecked(t);
    std::sort(removed.begin(), removed.end());
    e.outliers = std::move(removed);
    e.value = mean_without(t, e.outliers);
    return e;
}

StudentTFit student_t_fit(std::span<const double> t, double nu, double outlier_r) {
    check_sample(t, "student_t_fit");
    if (!(nu > 0) || !std::isfinite(nu))
        throw std::invalid_argument("student_t_fit: nu must be finite and > 0");
    if (!(outlier_r > 0)) throw std::invalid_argument("student_t_fit: outlier_r must be > 0");
    const std::size_t n = t.size();
    const double med = median(t);
    // The floor keeps r finite when MAD is 0 (all or most values equal).
    const double sigma_floor = 1e-9 * std::max(std::fabs(med), 1e-300);
    double mu = med;
    double sigma = std::max(1.483 * mad(t), sigma_floor);

    StudentTFit fit;
    fit.estimate.raw_mean = mean_unchecked(t);
    std::vector<double> w(n);
    constexpr int kMaxIterations = 1000;
    constexpr double kTolerance = 1e-10;
    while (fit.iterations < kMaxIterations) {
        ++fit.iterations;
        double sw = 0, swy = 0;
        for (std::size_t i = 0; i < n; ++i) {
            const double r = (t[i] - mu) / sigma;
            w[i] = (nu + 1) / (nu + r * r);
            sw += w[i];
            swy += w[i] * t[i];
        }
        const double new_mu = swy / sw;
        double ss = 0;
        for (std::size_t i = 0; i < n; ++i) ss += w[i] * (t[i] - new_mu) * (t[i] - new_mu);
        const double new_sigma = std::max(std::sqrt(ss / static_cast<double>(n)), sigma_floor);
        const bool done = std::fabs(new_mu - mu) <= kTolerance * new_sigma &&
                          std::fabs(new_sigma - sigma) <= kTolerance * new_sigma;
        mu = new_mu;
        sigma = new_sigma;
        if (done) {
            fit.converged = true;
            break;
        }
    }
    fit.scale = sigma;
    fit.estimate.filtered = fit.converged;
    fit.estimate.value = fit.converged ? mu : med;
    for (std::size_t i = 0; i < n; ++i)
        if (std::fabs(t[i] - fit.estimate.value) > outlier_r * sigma)
            fit.estimate.outliers.push_back(i);
    return fit;
}

Range percentile_range(std::span<const double> t, double lo_p, double hi_p) {
    check_sample(t, "percentile_range");
    if (!(lo_p >= 0 && lo_p <= hi_p && hi_p <= 100))
        throw std::invalid_argument("percentile_range: need 0 <= lo_p <= hi_p <= 100");
    const auto s = sorted_copy(t);
    return {percentile_sorted(s, lo_p), percentile_sorted(s, hi_p)};
}

bool overlaps(const Range& c, const Range& d) {
    return !(c.lo > d.hi || c.hi < d.lo);
}

std::vector<std::size_t> winners(std::span<const Range> ranges, std::span<const double> estimates) {
    if (ranges.empty() || ranges.size() != estimates.size())
        throw std::invalid_argument("winners: need one estimate per range and at least one");
    for (const Range& r : ranges) check_range(r, "winners");
    check_sample(estimates, "winners");
    const auto best = static_cast<std::size_t>(
        std::min_element(estimates.begin(), estimates.end()) - estimates.begin());
    std::vector<std::size_t> w;
    for (std::size_t d = 0; d < ranges.size(); ++d)
        if (d == best || overlaps(ranges[best], ranges[d])) w.push_back(d);
    return w;
}

double instability(std::span<const Range> ranges, std::size_t c) {
    if (c >= ranges.size()) throw std::invalid_argument("instability: codelet out of range");
    for (const Range& r : ranges) check_range(r, "instability");
    if (ranges.size() == 1) return 0; // nothing to swap places with
    std::size_t o = 0;
    for (std::size_t d = 0; d < ranges.size(); ++d)
        if (d != c && overlaps(ranges[c], ranges[d])) ++o;
    return static_cast<double>(o) / static_cast<double>(ranges.size() - 1);
}

Stability stability_class(double i) {
    if (!(i >= 0 && i <= 1)) throw std::invalid_argument("stability_class: I must be in [0, 1]");
    if (i < 0.2) return Stability::VeryStable;
    if (i < 0.4) return Stability::Stable;
    if (i < 0.6) return Stability::Fair;
    if (i < 0.8) return Stability::Unstable;
    return Stability::VeryUnstable;
}

std::string_view stability_name(Stability s) {
    switch (s) {
    case Stability::VeryStable:
        return "very stable";
    case Stability::Stable:
        return "stable";
    case Stability::Fair:
        return "fair";
    case Stability::Unstable:
        return "unstable";
    case Stability::VeryUnstable:
        return "very unstable";
    }
    return "unknown";
}

} // namespace topolens::patterns
