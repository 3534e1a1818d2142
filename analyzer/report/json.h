// JSON output for the command line and the report's JSON attributes: escaping, numbers
// that read back exactly, and a small writer that keeps commas and nesting right.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace topolens::json {

// Shortest text that reads back as the same double ("nan"/"inf" for non-finite values).
std::string shortest_number(double v);
// A JSON number, or null for NaN and infinities (JSON has no such numbers).
std::string number(double v);
// A quoted JSON string with '"', '\\' and control characters escaped.
std::string string(const std::string& s);

// Builds one JSON document. Objects and arrays are opened and closed explicitly; `key`
// names the next value inside an object. Nested containers are indented by two spaces;
// arrays of plain numbers stay on one line.
class Writer {
  public:
    Writer& begin_object();
    // An object written on one line, with everything nested in it (for the many small
    // records of large documents).
    Writer& begin_inline_object();
    Writer& end_object();
    Writer& begin_array();
    // An array of plain values on one line without spaces after its commas: [4,4].
    Writer& begin_packed_array();
    Writer& end_array();
    // Inside an inline object or array: the next key or value starts a new line, indented by
    // `indent` spaces (after the comma that separates it from the one before).
    Writer& line_break(int indent);
    Writer& key(const std::string& name);
    Writer& value(double v);
    Writer& value(long long v);
    Writer& value(int v) { return value(static_cast<long long>(v)); }
    Writer& value(unsigned long long v);
    Writer& value(unsigned long v) { return value(static_cast<unsigned long long>(v)); }
    Writer& value(unsigned v) { return value(static_cast<unsigned long long>(v)); }
    Writer& value(long v) { return value(static_cast<long long>(v)); }
    Writer& value(bool v);
    Writer& value(const std::string& v);
    Writer& value(const char* v) { return value(std::string(v)); }
    Writer& null();
    template <typename T> Writer& value(const std::optional<T>& v) {
        return v ? value(*v) : null();
    }
    // An array of numbers on one line; nullopt entries are null.
    Writer& numbers(const std::vector<double>& values);
    Writer& numbers(const std::vector<std::optional<double>>& values);
    const std::string& text() const { return out_; }

  private:
    void before_value();
    void newline();
    void close(char bracket);
    std::string out_;
    // One entry per open container: true once it holds a value.
    std::vector<bool> has_value_;
    bool after_key_ = false;
    int inline_depth_ = 0;         // > 0 inside an inline object: no line breaks
    std::size_t packed_depth_ = 0; // the open packed array's depth, 0 without one
    int line_break_ = -1;          // the next value's indentation after line_break, else -1
};

} // namespace topolens::json
