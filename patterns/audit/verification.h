// Verification runs (Benkert 2011, §5.3.3.1, §6.3): runs of the program that each used one
// fixed codelet of a tuned operation, no search. Their times say which codelet really is the
// fastest, how far apart the codelets really are (overlap and instability, docs/audit.md "Overlap
// and instability"), what the tuner's choice really costs, and how well the tuned run's
// search ranked the codelets (the ranking error of §6.3.2). Computed from codelet
// measurements alone, like the audit.
#pragma once

#include "patterns/audit/codelet_audit.h"
#include "patterns/audit/codelet_measurements.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace topolens::patterns {

// One verification run as read: where it came from (a trace or a report) and its codelet
// measurements.
struct VerificationInput {
    std::string path;
    CodeletMeasurements measurements;
};

// A verification run that cannot verify the tuned run: of another program or operation,
// with another codelet set, with several codelets (or a search), or without executions. The
// message is one line naming the run and what is wrong.
class VerificationError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// What one verification run says about one operation: the codelet it ran and its time
// t_v^i(c). The time is the mean execution time of the operation over every execution of it
// in the run (a fixed-codelet run's production phase, and a search phase of that one codelet
// if it had one), per process; the run's time is the slowest process's mean, as the
// operation waits for its slowest process.
struct RunTime {
    int64_t codelet = -1;
    double time = 0;         // seconds
    uint64_t executions = 0; // summed over processes
};

// The run time of `op` in a verification run. Throws VerificationError (the message names
// `path`) when the run used several codelets, was itself a tuned search (several codelets
// searched), or has no executions of the operation.
RunTime verification_run_time(const OperationMeasurements& op, const std::string& path);

struct VerifiedCodelet {
    int64_t index = -1;
    std::string name;
    std::vector<std::size_t> runs; // indices into OperationVerification::runs
    std::vector<double> times;     // t_v^i(c) of those runs, same order
    double lo = 0, hi = 0;         // range: t_v^min(c), t_v^max(c) (eqns. 5.9, 5.10)
    double mean = 0;               // t_v^avg(c) (eqn. 5.8)
    std::vector<int64_t> overlaps; // codelets d with o(c, d) = 1 (eqn. 5.11)
    double instability = 0;        // I(c) = Σ_{d≠c} o(c,d) / (n_c − 1) over verified codelets
    std::string stability;         // class of Table 6.1: "very stable" ... "very unstable"
    bool winner_set = false;       // the best (lowest t_v^avg) or overlapping it
    bool worst_set = false;        // the worst (highest t_v^avg) or overlapping it
};

// Two codelets the search ranked the other way round from the verification runs although
// their verification ranges do not overlap (a false ordering, Benkert §6.3.2, eqn. 6.1), and
// how much the error weighs: the loss in percent of the fastest verified codelet, from the
// verification runs' averages (e_avg), least (e_min) and largest (e_max).
struct FalseOrdering {
    int64_t faster = -1; // faster by the verification runs, ranked slower by the search
    int64_t slower = -1;
    double e_min = 0, e_avg = 0, e_max = 0; // percent
};

// The ranking error of the tuned run's search against the verification runs (§6.3.2), over
// the codelets that were both searched and verified. The search ranks by each codelet's
// consensus estimate (CodeletAudit::consensus, the median of the four robust estimates), so
// outliers the filters remove do not count against the timing technique.
struct RankingError {
    std::vector<int64_t> codelets;              // compared, ascending
    std::vector<FalseOrdering> false_orderings; // by faster, then slower
    std::size_t flips = 0; // pairs ranked the other way round whose ranges overlap: acceptable
    double max_avg = 0;    // max_{c,d} e_avg(c,d) (fig. 6.7)
    double sum_avg = 0;    // Σ_{c,d} e_avg(c,d) (fig. 6.8)
    double max_min = 0, max_max = 0; // max_{c,d} e_min(c,d), e_max(c,d)
};

// The ranking error of `search` (estimate per codelet, same order as `verified`) against the
// verified codelets, literally after §6.3.2: percentages P relative to the fastest, switches by
// eqn. (6.1), weights w_min, w_avg, w_max, errors e = max(0, w) where (6.1) holds.
RankingError ranking_error(const std::vector<VerifiedCodelet>& verified,
                           const std::vector<double>& search);

struct OperationVerification {
    std::string name;
    std::vector<std::string> runs;         // paths of the runs that ran this operation
    std::vector<VerifiedCodelet> codelets; // by index, the verified ones
    std::optional<int64_t> best, worst;    // lowest and highest t_v^avg (ties: lowest index)
    std::optional<int64_t> tuner_choice;   // OperationAudit::tuner_winner
    // (t_v^avg(choice) − t_v^avg(best)) / t_v^avg(best) · 100 (the "avg. overhead" of
    // Benkert's Table 5.3); nullopt without a choice or when the choice was not verified.
    std::optional<double> tuner_penalty_percent;
    std::vector<int64_t> unverified; // searched by the tuner, run by no verification run
    // How the tuned run's search was timed (OperationMeasurements::technique): the timing
    // technique whose ranking the ranking error judges (Benkert §6.3.2).
    TimingTechnique technique = TimingTechnique::Unknown;
    // With at least two codelets both searched and verified.
    std::optional<RankingError> ranking_error;

    const VerifiedCodelet* codelet(int64_t index) const; // nullptr: not verified
};

struct Verification {
    std::vector<std::string> runs;                 // every verification run, as given
    std::vector<OperationVerification> operations; // parallel to Audit::operations
};

// Checks every run against the tuned run (`tuned`, audited as `audit`) and verifies each tuned
// operation. A run's codelet is the tuned run's with the same index and name, else the one
// with its name (ADCL numbers a fixed run's codelet 0); indices in the result are the tuned
// run's. Throws VerificationError for a run with an operation the tuned run does not tune
// (another program), with a codelet name the tuned run lacks or has twice, that used several
// codelets or searched, or without any operation.
Verification verify(const CodeletMeasurements& tuned, const Audit& audit,
                    const std::vector<VerificationInput>& runs);

} // namespace topolens::patterns
