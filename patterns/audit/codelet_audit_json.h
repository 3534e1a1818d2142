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

// The measurement sweep (`topolens audit --sweep --format json`, AUDIT_FORMAT.md).
std::string to_json(const std::vector<OperationSweep>& sweeps, const AuditParameters& parameters);

} // namespace topolens::patterns
