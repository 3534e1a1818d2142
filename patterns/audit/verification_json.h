// Verification runs in the audit JSON: each operation of the document `topolens audit --format
// json` prints gets an object "verification" (schema: patterns/audit/AUDIT_FORMAT.md).
#pragma once

#include "patterns/audit/verification.h"

#include <cstdint>
#include <optional>
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

// The reader beside the writer (verification_json_read.cpp): the objects "verification" of a
// document of with_verification, parallel to its operations (an operation without one gets an
// empty OperationVerification of its name); Verification::runs are the operations' runs in
// the order they first appear. nullopt when no operation has one. Throws AuditFormatError
// (json_object_reader.h) like audit_from_json.
std::optional<Verification> verification_from_json(const std::string& text);

} // namespace topolens::patterns
