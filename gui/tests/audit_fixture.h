// A report with a codelet audit written by hand after patterns/audit/AUDIT_FORMAT.md, for the
// codelet view's tests (independent of the analysis that will produce such reports).
#pragma once

#include "analyzer/report/report.h"

namespace topolens::gui::test {

// 8 processes on a 4x2 grid; tuned operation "halo3d" with three codelets:
//   0 isend-irecv        4 samples, box outliers: sample 3
//   1 sendrecv-pairwise  4 samples, the audit's winner (best = 1)
//   2 put-fence          4 samples, the tuner's choice; verdict "wrong"
// per_process_mean of sendrecv-pairwise rises with the rank (0.001 + 0.0001 * rank) and
// is null for rank 5.
report::Report audited_report();
inline constexpr const char* kAuditReason = "sendrecv-pairwise is faster by every method.";

} // namespace topolens::gui::test
