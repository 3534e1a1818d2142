// ADCL's decision rule replayed; the definitions and their ADCL sources are in the header.
#include "patterns/audit/adcl_rule.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace topolens::patterns {

const char* aggregate_key(Aggregate a) {
    return a == Aggregate::Min ? "min" : "max";
}

std::optional<Aggregate> parse_aggregate(const std::string& key) {
    if (key == "max") return Aggregate::Max;
    if (key == "min") return Aggregate::Min;
    return std::nullopt;
}

double aggregate(Aggregate a, double x, double y) {
    if (std::isnan(x) || std::isnan(y)) return std::numeric_limits<double>::quiet_NaN();
    return a == Aggregate::Min ? std::min(x, y) : std::max(x, y);
}

const char* adcl_basis_key(AdclBasis b) {
    switch (b) {
    case AdclBasis::Filtered:
        return "filtered";
    case AdclBasis::Unfiltered:
        return "unfiltered";
    case AdclBasis::None:
        return "none";
    }
    return "none";
}

AdclValues adcl_filter_timings(std::span<const double> t, int outlier_factor) {
    if (t.empty()) throw std::invalid_argument("adcl_filter_timings: no measurements");
    const double min = *std::min_element(t.begin(), t.end());
    // ADCL multiplies its int factor with the double min.
    const double bound = outlier_factor * min;
    int outliers = 0;
    double sum = 0, sum_filtered = 0;
    for (const double x : t) {
        sum += x;
        if (x >= bound)
            ++outliers;
        else
            sum_filtered += x;
    }
    const int n = static_cast<int>(t.size());
    AdclValues v;
    v.unfiltered = sum / n;
    // 0.0 / 0 is NaN when every measurement is an outlier, as in ADCL.
    v.filtered = sum_filtered / (n - outliers);
    v.outlier_percent = 100 * outliers / n; // integer division: truncated, as in ADCL
    return v;
}

namespace {

// TLINE_MIN_NZ: `value < min && value != 0`; a NaN compares false and is skipped.
void min_nonzero(std::optional<std::size_t>& at, double& min, double value, std::size_t i) {
    if (value < min && value != 0) {
        min = value;
        at = i;
    }
}

} // namespace

AdclWinner adcl_winner(std::span<const AdclValues> global, int outlier_fraction) {
    AdclWinner w;
    double min_unfiltered = std::numeric_limits<double>::infinity();
    double min_filtered = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < global.size(); ++i) {
        min_nonzero(w.unfiltered_min, min_unfiltered, global[i].unfiltered, i);
        min_nonzero(w.filtered_min, min_filtered, global[i].filtered, i);
    }
    if (!w.filtered_min) return w; // ADCL would index codelet -1
    if (global[*w.filtered_min].outlier_percent < outlier_fraction) {
        w.winner = w.filtered_min;
        w.basis = AdclBasis::Filtered;
    } else if (w.unfiltered_min) {
        w.winner = w.unfiltered_min;
        w.basis = AdclBasis::Unfiltered;
    }
    return w;
}

} // namespace topolens::patterns
