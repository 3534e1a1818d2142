// The codelet audit as JSON: what `topolens audit --format json` prints and what the report
// keeps in attribute "topolens.audit" for the GUI (schema: patterns/audit/AUDIT_FORMAT.md).
#pragma once

#include "patterns/audit/codelet_audit.h"
#include "patterns/audit/measurement_sweep.h"

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace topolens::json {
class Writer;
}

namespace topolens::patterns {

// `ranks[location]` gives each location's MPI rank.
std::string to_json(const Audit& audit, const std::vector<uint32_t>& ranks);

// The same document with more members at the end of each operation: `more(w, k)` writes
// operation k's (the verification runs' object, verification_json.h).
using OperationMembers = std::function<void(json::Writer&, std::size_t)>;
std::string to_json(const Audit& audit, const std::vector<uint32_t>& ranks,
                    const OperationMembers& more);

// The reader beside the writer: a document of to_json(audit, ranks) read back into the audit
// it was written from (codelet_audit_json_read.cpp), field for field, except that
// OperationAudit::codelet_names holds only the names the document gives (the measured
// codelets', the tuner's and ADCL's winner's), OutlierAt has no rank (the writer's `ranks`
// only) and per_process_estimate[Raw] is per_process_mean (the writer leaves it out). Members
// that older documents lack read as the structs' defaults (search_* as NaN); a missing
// "format", "operations", operation "name", "verdict" or "codelets", codelet "index", "name",
// "samples" or "box", a member of the wrong type, a document that is not JSON or is cut short
// throw AuditFormatError (json_object_reader.h) naming where and what is wrong.
Audit audit_from_json(const std::string& text);

// The measurement sweep (`topolens audit --sweep --format json`, AUDIT_FORMAT.md).
std::string to_json(const std::vector<OperationSweep>& sweeps, const AuditParameters& parameters);

} // namespace topolens::patterns
