// ADCL's own decision rule, replayed on the traced measurements: what the tuner should have
// decided if it is ADCL (Gabriel et al.; source: ADCL d65afdb, src/framework/ADCL_statistics.c,
// ADCL_statistics_filter_timings, ADCL_statistics_global_max_v3 and
// ADCL_statistics_get_winner_v3, called by ADCL_emethods_get_winner in ADCL_emethod.c).
// Not the audit's heuristic (codelet_estimators.h): ADCL counts t >= factor * min as an
// outlier (>=, not >), keeps the filtered average when the percentage of outliers, in whole
// percent truncated, is below a fraction, and reduces each of its three values separately
// over the processes. Pure functions, no MPI.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>

namespace topolens::patterns {

// ADCL's configuration keywords of the same names, both ints as in ADCL.
struct AdclParameters {
    int outlier_factor = 3;    // ADCL_OUTLIER_FACTOR: outliers are t >= factor * min t
    int outlier_fraction = 20; // ADCL_OUTLIER_FRACTION: filtered avg kept below this percentage
};

// How per-process values become the operation's (the audit's estimates and ADCL's three
// values): Max, the pessimistic predictor (the slowest process; ADCL's MPI_Allreduce MAX),
// or Min, the optimistic one (the fastest process; Iancu & Hofmeyr).
enum class Aggregate { Max, Min };
const char* aggregate_key(Aggregate a); // "max", "min"
std::optional<Aggregate> parse_aggregate(const std::string& key);

// The max or min of a and b; NaN when either is NaN. ADCL's MPI_MAX result with a NaN input
// depends on the order of the reduction; the replay defines it so: a process whose values are
// undefined makes the global value undefined.
double aggregate(Aggregate a, double x, double y);

// ADCL's three values (s_lpts / s_gpts) of one codelet.
struct AdclValues {
    double unfiltered = 0;      // sum / n
    double filtered = 0;        // sum of the non-outliers / (n - outliers); NaN when all are
    double outlier_percent = 0; // 100 * outliers / n in integer arithmetic (truncated)
};

// ADCL_statistics_filter_timings on one process's measurements t[0..n) of one codelet, in
// measurement order (the sums are formed in that order, as ADCL does). An outlier is
// t >= factor * min. When min <= 0 every measurement is an outlier (0 >= 0) and the
// filtered average is 0/0 = NaN, as in ADCL. ADCL's starting value of min (999999) and of
// its winner search (9999999999.99) are sentinels the replay does not copy: in seconds, no
// real measurement reaches them. t must not be empty (std::invalid_argument).
AdclValues adcl_filter_timings(std::span<const double> t, int outlier_factor);

// What ADCL_statistics_get_winner_v3 decided on.
enum class AdclBasis {
    Filtered,   // the smallest non-zero filtered avg, its outlier percentage below the fraction
    Unfiltered, // else the smallest non-zero unfiltered avg
    None,       // no codelet has a non-zero, defined filtered avg: ADCL would read codelet -1
                // (undefined behaviour in ADCL); the replay names no winner
};
const char* adcl_basis_key(AdclBasis b); // "filtered", "unfiltered", "none"

// Positions into the `global` values given to adcl_winner.
struct AdclWinner {
    std::optional<std::size_t> winner;
    AdclBasis basis = AdclBasis::None;
    // TLINE_MIN_NZ over the filtered and the unfiltered averages: the smallest value that is
    // not 0 (NaN is never smaller, so never chosen), the first position on ties.
    std::optional<std::size_t> filtered_min, unfiltered_min;
};

// ADCL_statistics_get_winner_v3 on each codelet's global values, in codelet order.
AdclWinner adcl_winner(std::span<const AdclValues> global, int outlier_fraction);

} // namespace topolens::patterns
