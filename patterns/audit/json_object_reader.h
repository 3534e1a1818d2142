// Typed access to the members of one JSON object of the audit's documents (AUDIT_FORMAT.md),
// for the readers beside the writers. Every mistake throws AuditFormatError naming where it
// is and what is wrong: a missing member, a member of the wrong type, a number that is no
// index. A member the document gives as null reads as NaN where a number is expected (the
// writer writes NaN as null, json::number).
#pragma once

#include "analyzer/report/json_read.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace topolens::patterns {

class AuditFormatError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

class JsonObjectReader {
  public:
    // `where` names the object in messages ("operation halo3d codelet 2").
    JsonObjectReader(const json::Value& value, std::string where);

    const std::string& where() const { return where_; }
    [[noreturn]] void fail(const std::string& what) const;
    bool has(const char* key) const; // present and not null

    const json::Value& member(const char* key) const; // throws when missing
    double number(const char* key) const;             // null: NaN
    double number(const char* key, double absent) const;
    std::optional<double> optional_number(const char* key) const; // absent or null: nullopt
    int64_t integer(const char* key) const;                       // a whole number
    std::optional<int64_t> optional_integer(const char* key) const;
    std::size_t count(const char* key) const; // a whole number >= 0
    std::size_t count(const char* key, std::size_t absent) const;
    bool boolean(const char* key) const;
    bool boolean(const char* key, bool absent) const;
    std::optional<bool> optional_boolean(const char* key) const;
    std::string string(const char* key) const;
    std::string string(const char* key, const std::string& absent) const;
    JsonObjectReader object(const char* key, const std::string& where) const;
    const std::vector<json::Value>& array(const char* key) const;
    const std::vector<json::Value>& array(const char* key, bool required) const; // {}: absent
    std::vector<double> numbers(const char* key) const;                          // null: NaN
    std::vector<std::optional<double>> optional_numbers(const char* key) const;
    std::vector<int64_t> integers(const char* key) const;

  private:
    const json::Value* find(const char* key) const; // nullptr: absent
    const json::Value& typed(const char* key, json::Value::Kind kind) const;
    const json::Value& value_;
    std::string where_;
};

// What messages call an object: its member "name" when that is a string, else `otherwise`
// (its position).
std::string name_or(const json::Value& object, const std::string& otherwise);

// The document `text`; throws AuditFormatError("not JSON: invalid JSON at offset ...") when it
// is no JSON.
json::Value parse_document(const std::string& text);

// The root object of a document of format `format` (field::kAuditFormat, ...): throws
// AuditFormatError when the text is not JSON ("not JSON: invalid JSON at offset ..."), not an
// object, of another format or of a version this reader does not know.
JsonObjectReader document_root(const json::Value& document, const char* format);

} // namespace topolens::patterns
