// A report with a codelet audit written by hand after patterns/audit/AUDIT_FORMAT.md, for the
// codelet view's tests (independent of the analysis that will produce such reports).
#pragma once

#include "analyzer/report/report.h"

#include <cstdint>
#include <vector>

namespace topolens::gui::test {

// 8 processes on a 4x2 grid; tuned operation "halo3d" with three codelets:
//   0 isend-irecv        4 samples, box outliers: sample 3
//   1 sendrecv-pairwise  4 samples, the audit's winner (best = 1)
//   2 put-fence          4 samples, the tuner's choice; verdict "wrong"
// per_process_mean of sendrecv-pairwise rises with the rank (0.001 + 0.0001 * rank) and
// is null for rank 5. samples_min: samples - 0.0002 (isend-irecv's last: 0.0021); the worst
// set: put-fence. The tuned run's codelet measurements (kMeasurementsAttribute): the samples
// on location 0, samples_min on location 1, all three codelets named, decision put-fence.
report::Report audited_report();
// The same with the object "verification" (AUDIT_FORMAT.md) in halo3d: three runs;
// isend-irecv runs 0 and 2, times 0.0041 and 0.0043 (mean 0.0042, the worst, worst set);
// put-fence run 1, 0.0031 (the best, the tuner's choice, penalty 0); sendrecv-pairwise
// unverified.
report::Report audited_report_with_verification();
// A verification run of halo3d with one fixed codelet: on location l ten production
// executions of mean means[l]; no audit.
report::Report verification_run(int64_t codelet, const std::vector<double>& means);
inline constexpr const char* kAuditReason = "sendrecv-pairwise is faster by every method.";

} // namespace topolens::gui::test
