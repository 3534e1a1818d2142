// Reading JSON, beside the writer (json.h): a strict RFC 8259 parser into a small document
// tree. Documents the project writes are read back with it (the codelet audit, tests).
// Violations throw json::ParseError naming the offset and what is wrong (trailing commas,
// bare NaN, control characters in strings, duplicate keys, trailing text, truncation, ...).
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace topolens::json {

class ParseError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

struct Value {
    enum Kind { Null, Bool, Number, String, Array, Object };
    Kind kind = Null;
    bool boolean = false;
    double number = 0;
    std::string string;
    std::vector<Value> array;
    std::vector<std::pair<std::string, Value>> object; // in document order

    bool is_null() const { return kind == Null; }
    bool has(const std::string& key) const { return find(key) != nullptr; }
    // The member `key` of an object; nullptr when this is no object or has no such member.
    const Value* find(const std::string& key) const;
    // Throw std::runtime_error when the value is not of that kind or the key/index is missing.
    const Value& operator[](const std::string& key) const;
    const Value& operator[](std::size_t i) const;
    const Value& operator[](int i) const { return (*this)[static_cast<std::size_t>(i)]; }
    double num() const;
    const std::string& str() const;
    bool boolean_value() const;
    std::size_t size() const { return kind == Array ? array.size() : object.size(); }
};

// "null", "a boolean", "a number", "a string", "an array", "an object": for messages.
const char* kind_name(Value::Kind kind);

// The whole of `text` as one JSON value. Throws ParseError("invalid JSON at offset N: ...").
Value parse(const std::string& text);

} // namespace topolens::json
