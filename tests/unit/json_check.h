// A strict, minimal JSON reader for tests (RFC 8259): checks that a document the project
// writes is valid JSON and gives access to its values. The project's reader
// (analyzer/report/json_read.h) under the names the tests use; it throws std::runtime_error
// (json::ParseError) naming the offset of the first violation.
#pragma once

#include "analyzer/report/json_read.h"

#include <string>

namespace topolens::test {

using JsonValue = json::Value;

inline JsonValue parse_json(const std::string& text) {
    return json::parse(text);
}

} // namespace topolens::test
