// The codelet audit (docs/audit.md, after Benkert 2011): did the autotuner pick
// the right codelet, what did its search cost, and were its measurements trustworthy?
// Computed from CodeletMeasurements alone, so it runs the same on a fresh trace and on a
// stored report. How each number is defined is written next to it below and in docs/audit.md.
#pragma once

#include "patterns/audit/adcl_rule.h"
#include "patterns/audit/codelet_measurements.h"

#include <array>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace topolens::patterns {

struct AuditParameters {
    double b = 3.0;     // heuristic: outliers are t > b * min t
    double nomax = 0.2; // n_o^max as a fraction of the measurements
    double nu = 5.0;    // Student-t degrees of freedom
    // Judge from the first `measurements` (by number m) of each codelet on each process;
    // 0: all of them.
    std::size_t measurements = 0;
    // How per-process estimates become a codelet's (estimate, consensus, ranks, winners, and
    // ADCL's three values): the slowest process (Max, as the tuner reduces) or the fastest.
    Aggregate aggregate = Aggregate::Max;
    AdclParameters adcl; // ADCL's own rule, replayed (adcl_rule.h)
};

// The five estimates, raw mean first, then the four robust methods of docs/audit.md.
enum Method : std::size_t { Raw, Heuristic, Iqr, Cluster, StudentT };
inline constexpr std::size_t kMethods = 5;
inline constexpr std::array<Method, 4> kRobustMethods = {Heuristic, Iqr, Cluster, StudentT};
const char* method_key(Method m);  // "raw", "heuristic", "iqr", "cluster", "student_t"
const char* method_name(Method m); // "raw mean", "heuristic", "IQR", "cluster", "Student-t"

struct OutlierAt {
    uint32_t location = 0;
    uint32_t number = 0; // measurement m
    double start = 0, time = 0, wait = 0;
    // At least half of the time above the process's median measurement was spent waiting
    // for other processes: this process did not cause the outlier, it waited for one that
    // did (e.g. a neighbour in a halo exchange).
    bool propagated = false;
    // Above the process's median: a perturbed measurement. Two-sided filters (IQR, cluster,
    // Student-t) also drop measurements that are unusually fast; those are not perturbations.
    bool slow = true;
    // Slow at once on most (more than half) of the processes, not by waiting: a disturbance of
    // the whole run, e.g. by the operating system, that no single process caused.
    bool global = false;
    // Caused by this process: slow, neither propagated nor global.
    bool caused() const { return slow && !propagated && !global; }
};

struct BoxPlot {
    double min = 0, q1 = 0, median = 0, q3 = 0, max = 0, whisker_lo = 0, whisker_hi = 0;
    std::vector<std::size_t> outliers; // indices into samples beyond the whiskers
};

struct CodeletAudit {
    int64_t index = -1;
    std::string name;
    std::size_t processes = 0;    // locations that measured it
    std::size_t measurements = 0; // per process (the largest count if they differ)
    // Per measurement m, the max over processes of t(c, p, m): what the operation took.
    std::vector<double> samples;
    // Per measurement m, the min over processes of t(c, p, m): the fastest process's time.
    std::vector<double> samples_min;
    BoxPlot box;
    std::array<double, kMethods> estimate{}; // mu(c): max (or min) over processes, per method
    std::array<int, kMethods> rank{};        // 1 = fastest by that method
    double consensus = 0;                    // median of the four robust estimates
    std::array<std::vector<OutlierAt>, kMethods> outliers; // Raw: always empty
    // 10th-90th percentile over measurements m of max_p t(c,p,m), leaving out what each
    // process's heuristic filtered (docs/audit.md, "Overlap and instability").
    double range_lo = 0, range_hi = 0;
    std::vector<int64_t> overlaps; // codelets whose ranges overlap this one's (may swap ranks)
    double instability = 0;
    std::string stability;
    bool winner_set = false; // the fastest by consensus, or overlapping it
    bool worst_set = false;  // the slowest by consensus (ties: lowest index), or overlapping it
    // ADCL's unfiltered avg, filtered avg and outlier percentage, each aggregated over the
    // processes that measured the codelet separately (ADCL_statistics_global_max_v3 with
    // Aggregate::Max; a NaN filtered avg on any process makes the global one NaN).
    AdclValues adcl;
    // By location (size = number of locations); nullopt where it was not measured.
    std::vector<std::optional<double>> per_process_mean;
    std::array<std::vector<std::optional<double>>, kMethods> per_process_estimate;
    // The heuristic's estimate of each process's own time, duration minus wait: where the
    // time went when processes wait for each other inside the operation (without a barrier
    // before each measurement, one slow process makes its neighbours' measurements slow too).
    std::vector<std::optional<double>> per_process_own;

    // What the filters found at an outlier of the box plot (box_outlier_causes).
    enum class OutlierCause { Caused, Propagated, Global, Unflagged };
    static constexpr int kOutlierCauses = 4;
};

// Per outlier of c's box plot (c.box.outliers, same order), what the robust methods' filters
// found at that measurement, counting only slow outliers: Caused when some process was slow
// by itself there (`locations`: those processes, ascending); else Global when it was slow on
// most processes at once (the whole run was disturbed); else Propagated when the processes
// flagged there were waiting for others; Unflagged when no filter dropped it.
struct BoxOutlierCause {
    CodeletAudit::OutlierCause cause = CodeletAudit::OutlierCause::Unflagged;
    std::vector<uint32_t> locations;
};
std::vector<BoxOutlierCause> box_outlier_causes(const CodeletAudit& c);

struct ProductionCheck {
    uint64_t executions = 0;
    double mean = 0;            // max over processes of the per-process mean duration
    double search_estimate = 0; // the codelet's consensus search estimate
    double ratio = 0;           // mean / search_estimate
    bool flagged = false;       // production is markedly slower than the search predicted
};

// ADCL's decision rule replayed on the measurements (adcl_rule.h), by codelet index.
struct AdclReplay {
    std::optional<int64_t> winner; // nullopt: basis None
    AdclBasis basis = AdclBasis::None;
    std::optional<int64_t> filtered_min, unfiltered_min; // the two candidates
    // Whether the replayed winner is the tuner's recorded decision; nullopt: no decision.
    std::optional<bool> matches_tuner;
};

enum class Verdict { Confirmed, Questionable, Wrong, Undecided };
const char* verdict_name(Verdict v); // "confirmed", ...

struct OperationAudit {
    std::string name;
    TimingTechnique timing = TimingTechnique::Unknown; // how the tuner timed its measurements
    std::vector<CodeletAudit> codelets;                // by index, the measured ones
    std::map<int64_t, std::string> codelet_names;      // every codelet the trace defines
    std::optional<int64_t> tuner_winner;
    std::array<std::optional<int64_t>, kMethods> method_winner;
    int agreeing_methods = 0;    // robust methods whose winner is the tuner's
    std::optional<int64_t> best; // the audit's winner: lowest consensus estimate
    double penalty_percent = 0;  // tuner's codelet vs best, consensus estimates
    double search_seconds = 0;   // sum over codelets and measurements of the samples
    double search_cost_seconds = 0;
    double search_share = 0, search_cost_share = 0; // of the run
    std::optional<ProductionCheck> production;
    Verdict verdict = Verdict::Undecided;
    std::string reason;
    std::vector<std::string> diagnostics;
    AdclReplay adcl;
    // The most measurements any process has of any codelet, before --measurements cuts.
    std::size_t available_measurements = 0;

    // nullptr when the operation has no such codelet.
    const CodeletAudit* codelet(int64_t index) const;
    const CodeletAudit* codelet_named(const std::string& name) const;
    std::string codelet_label(int64_t index) const; // "3 (sendrecv-pairwise)"
};

struct Audit {
    AuditParameters parameters;
    double run_seconds = 0;
    std::vector<OperationAudit> operations;

    const OperationAudit* operation(const std::string& name) const; // nullptr: none
};

// `ranks[location]` = the location's MPI rank, used in diagnostics. Throws
// std::invalid_argument for parameters out of range (b < 1, nomax outside [0, 1], nu <= 0,
// ADCL's outlier factor < 1 or outlier fraction outside [0, 100]).
Audit audit(const CodeletMeasurements& input, const AuditParameters& parameters,
            const std::vector<uint32_t>& ranks);

// The location with the largest heuristic estimate of `c` (the one that decides mu(c)), and
// `own`: another location whose own time (duration minus wait) is clearly larger, by more than
// kOwnTimeMargin, than that one's: the cause the others waited for. nullopt when no location
// has an estimate.
struct SlowestProcess {
    std::size_t location = 0;
    std::optional<std::size_t> own;
};
inline constexpr double kOwnTimeMargin = 1.1;
std::optional<SlowestProcess> slowest_process(const CodeletAudit& c);

// 1 for the codelet of `op` with the lowest consensus estimate; ties share a rank.
int consensus_rank(const OperationAudit& op, const CodeletAudit& c);

// Thresholds of the verdict (docs/audit.md, "Verdict").
inline constexpr double kPenaltyTolerancePercent = 5.0;
inline constexpr double kProductionRatioFlag = 1.25;

} // namespace topolens::patterns
