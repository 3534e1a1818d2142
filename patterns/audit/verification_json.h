// Verification runs in the audit JSON: each operation of the document `topolens audit --format
// json` prints gets an object "verification" (schema: patterns/audit/AUDIT_FORMAT.md).
#pragma once

#include "patterns/audit/verification.h"

#include <string>

namespace topolens::patterns {

// The object "verification" of one operation, as a JSON document of its own.
std::string to_json(const OperationVerification& v);

// `audit_json` (to_json(audit, ranks) of the audit that `v` verified) with the object
// "verification" added as the last member of each operation, the i-th operation getting
// v.operations[i]. Throws std::invalid_argument when the document's operations do not match.
std::string with_verification(const std::string& audit_json, const Verification& v);

} // namespace topolens::patterns
