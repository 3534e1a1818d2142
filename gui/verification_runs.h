// Verification runs for the codelet view: runs of the program that each used one fixed codelet
// (traces are analyzed, reports read, as the GUI opens them), checked against the open report's
// tuned run by patterns/audit/verification.h. The GUI computes nothing of its own here.
#pragma once

#include "analyzer/report/report.h"
#include "gui/codelet_audit.h"
#include "patterns/audit/verification.h"

#include <functional>
#include <string>
#include <vector>

namespace topolens::gui {

// Verifies `audit` (the audit of `tuned`, as the codelet view shows it) against the runs at
// `paths`. Throws patterns::VerificationError with one line naming the run and the problem:
// unreadable, no tuned operation, another program or codelet set, several codelets, a
// search; or the tuned report without codelet measurements. `progress` receives the
// analysis' progress lines of traces (may be empty).
patterns::Verification verify_runs(const report::Report& tuned, const Audit& audit,
                                   const std::vector<std::string>& paths,
                                   const std::function<void(const std::string&)>& progress = {});

} // namespace topolens::gui
