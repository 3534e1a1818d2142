// `topolens audit TUNED VERIFY...`: the verification runs (patterns/audit/verification.h),
// read from traces or reports and printed as text.
#pragma once

#include "patterns/audit/codelet_audit.h"
#include "patterns/audit/codelet_measurements.h"
#include "patterns/audit/verification.h"

#include <iosfwd>
#include <string>
#include <vector>

namespace topolens::cli {

// Reads every verification run (a trace is analyzed, a report read) and verifies `audit`, the
// audit of the tuned run's `tuned` measurements, against them. Throws
// patterns::VerificationError with one line naming the run and the problem (unreadable, no
// tuned operation, another program or codelet set, several codelets, a search).
patterns::Verification verify_against(const patterns::CodeletMeasurements& tuned,
                                      const patterns::Audit& audit,
                                      const std::vector<std::string>& paths);

// What the verification runs say about one operation: a table of the verified codelets, the
// best and worst, the tuner's penalty, the codelets left unverified and the ranking error.
void print_verification(std::ostream& out, const patterns::OperationVerification& v);

} // namespace topolens::cli
