// The codelet audit as JSON: what `topolens audit --format json` prints and what the report
// keeps in attribute "topolens.audit" for the GUI (schema: patterns/audit/AUDIT_FORMAT.md).
#pragma once

#include "patterns/audit/codelet_audit.h"

#include <string>
#include <vector>

namespace topolens::patterns {

// `ranks[location]` gives each location's MPI rank.
std::string to_json(const Audit& audit, const std::vector<uint32_t>& ranks);

} // namespace topolens::patterns
