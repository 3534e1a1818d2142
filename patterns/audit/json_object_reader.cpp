#include "patterns/audit/json_object_reader.h"

#include "patterns/audit/audit_json_fields.h"

#include <cmath>
#include <limits>

namespace topolens::patterns {

namespace {

// A whole number within [lo, hi] (a cast of NaN or 1e300 to an integer is undefined).
bool whole_in(double v, double lo, double hi) {
    return v >= lo && v <= hi && v == std::floor(v);
}

constexpr double kInt64Lo = -9007199254740992.0; // integers a double holds exactly: 2^53
constexpr double kInt64Hi = 9007199254740992.0;

} // namespace

JsonObjectReader::JsonObjectReader(const json::Value& value, std::string where)
    : value_(value), where_(std::move(where)) {
    if (value_.kind != json::Value::Object)
        fail(std::string("is ") + json::kind_name(value_.kind) + ", not an object");
}

void JsonObjectReader::fail(const std::string& what) const {
    throw AuditFormatError(where_ + ": " + what);
}

const json::Value* JsonObjectReader::find(const char* key) const {
    return value_.find(key);
}

bool JsonObjectReader::has(const char* key) const {
    const json::Value* v = find(key);
    return v && !v->is_null();
}

const json::Value& JsonObjectReader::member(const char* key) const {
    const json::Value* v = find(key);
    if (!v) fail(std::string("the member \"") + key + "\" is missing");
    return *v;
}

const json::Value& JsonObjectReader::typed(const char* key, json::Value::Kind kind) const {
    const json::Value& v = member(key);
    if (v.kind != kind)
        fail(std::string("\"") + key + "\" is " + json::kind_name(v.kind) + ", not " +
             json::kind_name(kind));
    return v;
}

double JsonObjectReader::number(const char* key) const {
    const json::Value& v = member(key);
    if (v.is_null()) return std::numeric_limits<double>::quiet_NaN();
    return typed(key, json::Value::Number).number;
}

double JsonObjectReader::number(const char* key, double absent) const {
    return find(key) ? number(key) : absent;
}

std::optional<double> JsonObjectReader::optional_number(const char* key) const {
    if (!has(key)) return std::nullopt;
    return typed(key, json::Value::Number).number;
}

int64_t JsonObjectReader::integer(const char* key) const {
    const double v = typed(key, json::Value::Number).number;
    if (!whole_in(v, kInt64Lo, kInt64Hi))
        fail(std::string("\"") + key + "\" is not a whole number");
    return static_cast<int64_t>(v);
}

std::optional<int64_t> JsonObjectReader::optional_integer(const char* key) const {
    if (!has(key)) return std::nullopt;
    return integer(key);
}

std::size_t JsonObjectReader::count(const char* key) const {
    const int64_t v = integer(key);
    if (v < 0) fail(std::string("\"") + key + "\" is negative");
    return static_cast<std::size_t>(v);
}

std::size_t JsonObjectReader::count(const char* key, std::size_t absent) const {
    return find(key) ? count(key) : absent;
}

bool JsonObjectReader::boolean(const char* key) const {
    return typed(key, json::Value::Bool).boolean;
}

bool JsonObjectReader::boolean(const char* key, bool absent) const {
    return find(key) ? boolean(key) : absent;
}

std::optional<bool> JsonObjectReader::optional_boolean(const char* key) const {
    if (!has(key)) return std::nullopt;
    return boolean(key);
}

std::string JsonObjectReader::string(const char* key) const {
    return typed(key, json::Value::String).string;
}

std::string JsonObjectReader::string(const char* key, const std::string& absent) const {
    return find(key) ? string(key) : absent;
}

JsonObjectReader JsonObjectReader::object(const char* key, const std::string& where) const {
    return JsonObjectReader(typed(key, json::Value::Object), where_ + " " + where);
}

const std::vector<json::Value>& JsonObjectReader::array(const char* key) const {
    return typed(key, json::Value::Array).array;
}

const std::vector<json::Value>& JsonObjectReader::array(const char* key, bool required) const {
    static const std::vector<json::Value> none;
    if (!required && !find(key)) return none;
    return array(key);
}

std::vector<double> JsonObjectReader::numbers(const char* key) const {
    std::vector<double> values;
    for (const json::Value& v : array(key)) {
        if (v.is_null()) {
            values.push_back(std::numeric_limits<double>::quiet_NaN());
            continue;
        }
        if (v.kind != json::Value::Number)
            fail(std::string("\"") + key + "\" holds " + json::kind_name(v.kind) +
                 ", not a number");
        values.push_back(v.number);
    }
    return values;
}

std::vector<std::optional<double>> JsonObjectReader::optional_numbers(const char* key) const {
    std::vector<std::optional<double>> values;
    for (const json::Value& v : array(key)) {
        if (v.is_null()) {
            values.emplace_back();
            continue;
        }
        if (v.kind != json::Value::Number)
            fail(std::string("\"") + key + "\" holds " + json::kind_name(v.kind) +
                 ", not a number");
        values.emplace_back(v.number);
    }
    return values;
}

std::vector<int64_t> JsonObjectReader::integers(const char* key) const {
    std::vector<int64_t> values;
    for (const json::Value& v : array(key)) {
        if (v.kind != json::Value::Number || !whole_in(v.number, kInt64Lo, kInt64Hi))
            fail(std::string("\"") + key + "\" holds a value that is no whole number");
        values.push_back(static_cast<int64_t>(v.number));
    }
    return values;
}

std::string name_or(const json::Value& object, const std::string& otherwise) {
    const json::Value* name = object.find("name");
    return name && name->kind == json::Value::String ? name->string : otherwise;
}

json::Value parse_document(const std::string& text) {
    try {
        return json::parse(text);
    } catch (const json::ParseError& e) {
        throw AuditFormatError(std::string("not JSON: ") + e.what());
    }
}

JsonObjectReader document_root(const json::Value& document, const char* format) {
    JsonObjectReader root(document, "the document");
    const std::string found = root.string(field::format);
    if (found != format) root.fail("\"format\" is \"" + found + "\", not \"" + format + "\"");
    if (root.has(field::version) && root.integer(field::version) != field::kVersion)
        root.fail("version " + std::to_string(root.integer(field::version)) +
                  " is not the version this reader knows (" + std::to_string(field::kVersion) +
                  ")");
    return root;
}

} // namespace topolens::patterns
