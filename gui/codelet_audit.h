// The codelet audit as the GUI shows it: the JSON document the analysis stores in the
// report's attribute "topolens.audit" (schema: patterns/audit/AUDIT_FORMAT.md), read by the
// audit's own reader (patterns/audit/codelet_audit_json.h, verification_json.h) into the
// audit's structs, and the verdict, search cost and verification runs in words.
#pragma once

#include "analyzer/report/report.h"
#include "patterns/audit/codelet_audit.h"
#include "patterns/audit/verification.h"

#include <optional>
#include <string>

namespace topolens::gui {

using patterns::Audit;
using patterns::CodeletAudit;
using patterns::OperationAudit;
using AuditCodelet = patterns::CodeletAudit; // the name gui_test uses

// nullopt when the report has no audit. Throws std::runtime_error for a document that is
// not JSON or does not follow the schema (the reader's message: where and what is wrong, after
// "codelet audit (report attribute topolens.audit): "). search_seconds, search_share,
// search_cost_seconds and search_cost_share that the document leaves out (or gives as null,
// as json::number writes NaN) read as NaN.
std::optional<Audit> read_audit(const report::Report& report);
Audit parse_audit(const std::string& json);

// The object "verification" of each operation (AUDIT_FORMAT.md, "Verification runs"), parallel
// to the document's operations (an operation without one gets an empty OperationVerification
// of its name); nullopt when no operation has one. Throws std::runtime_error like parse_audit.
std::optional<patterns::Verification> parse_verification(const std::string& json);

// The verdict in words: "halo3d: the tuner's choice sendrecv is confirmed: <reason>".
std::string verdict_sentence(const OperationAudit& operation);
// Search cost and production check in words, e.g. "Search phase 3.86 s (88.6 % of the run),
// 2.03 s (46.5 %) beyond running the chosen codelet throughout. Production: 160 executions,
// 1.04 x the search estimate (not flagged)."; leaves out the numbers that are NaN, empty when
// the document has none of it.
std::string search_sentence(const OperationAudit& operation);
// What the verification runs say, for the verdict: "Verification runs (3): the best verified
// codelet is sendrecv-pairwise (mean 1.1 ms over 1 run); the tuner's choice put-fence costs
// 172.7 % more than it."; empty when no run ran the operation.
std::string verification_sentence(const patterns::OperationVerification& verification);

} // namespace topolens::gui
