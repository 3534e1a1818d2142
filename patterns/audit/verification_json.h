// Verification runs in the audit JSON: each operation of the document `topolens audit --format
// json` prints gets an object "verification" (schema: patterns/audit/AUDIT_FORMAT.md).
#pragma once

#include "patterns/audit/verification.h"

#include <cstdint>
#include <string>
#include <vector>

namespace topolens::patterns {

// The object "verification" of one operation, as a JSON document of its own.
std::string to_json(const OperationVerification& v);

// The audit's document (to_json(audit, ranks), codelet_audit_json.h) with the object
// "verification" as the last member of each operation, the i-th operation getting
// v.operations[i]. Throws std::invalid_argument when the operations do not match.
std::string with_verification(const Audit& audit, const std::vector<uint32_t>& ranks,
                              const Verification& v);

} // namespace topolens::patterns
