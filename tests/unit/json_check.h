// A strict, minimal JSON reader for tests (RFC 8259): checks that a document the project
// writes is valid JSON and gives access to its values. Throws std::runtime_error naming the
// offset of the first violation (trailing commas, bare NaN, control characters in strings,
// duplicate keys, trailing text, ...).
#pragma once

#include <charconv>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace topolens::test {

struct JsonValue {
    enum Kind { Null, Bool, Number, String, Array, Object };
    Kind kind = Null;
    bool boolean = false;
    double number = 0;
    std::string string;
    std::vector<JsonValue> array;
    std::vector<std::pair<std::string, JsonValue>> object; // in document order

    bool is_null() const { return kind == Null; }
    bool has(const std::string& key) const {
        for (const auto& [k, v] : object)
            if (k == key) return true;
        return false;
    }
    const JsonValue& operator[](const std::string& key) const {
        if (kind != Object) throw std::runtime_error("not an object (looking for " + key + ")");
        for (const auto& [k, v] : object)
            if (k == key) return v;
        throw std::runtime_error("no key " + key);
    }
    const JsonValue& operator[](std::size_t i) const {
        if (kind != Array) throw std::runtime_error("not an array");
        if (i >= array.size()) throw std::runtime_error("index out of range");
        return array[i];
    }
    const JsonValue& operator[](int i) const { return (*this)[static_cast<std::size_t>(i)]; }
    double num() const {
        if (kind != Number) throw std::runtime_error("not a number");
        return number;
    }
    const std::string& str() const {
        if (kind != String) throw std::runtime_error("not a string");
        return string;
    }
    bool boolean_value() const {
        if (kind != Bool) throw std::runtime_error("not a boolean");
        return boolean;
    }
    std::size_t size() const { return kind == Array ? array.size() : object.size(); }
};

class JsonReader {
  public:
    explicit JsonReader(const std::string& text) : s_(text) {}

    JsonValue document() {
        JsonValue v = value();
        space();
        if (i_ != s_.size()) fail("trailing text");
        return v;
    }

  private:
    [[noreturn]] void fail(const std::string& what) const {
        throw std::runtime_error("invalid JSON at offset " + std::to_string(i_) + ": " + what);
    }
    void space() {
        while (i_ < s_.size() &&
               (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r'))
            ++i_;
    }
    bool eat(char c) {
        space();
        if (i_ < s_.size() && s_[i_] == c) {
            ++i_;
            return true;
        }
        return false;
    }
    void expect(char c) {
        if (!eat(c)) fail(std::string("expected '") + c + "'");
    }
    bool literal(const char* word) {
        const std::string w(word);
        if (s_.compare(i_, w.size(), w) != 0) return false;
        i_ += w.size();
        return true;
    }

    JsonValue value() {
        space();
        if (i_ >= s_.size()) fail("unexpected end");
        JsonValue v;
        const char c = s_[i_];
        if (c == '{') {
            ++i_;
            v.kind = JsonValue::Object;
            if (eat('}')) return v;
            do {
                space();
                if (i_ >= s_.size() || s_[i_] != '"') fail("expected a key");
                std::string key = string();
                if (v.has(key)) fail("duplicate key " + key);
                expect(':');
                v.object.emplace_back(std::move(key), value());
            } while (eat(','));
            expect('}');
        } else if (c == '[') {
            ++i_;
            v.kind = JsonValue::Array;
            if (eat(']')) return v;
            do v.array.push_back(value());
            while (eat(','));
            expect(']');
        } else if (c == '"') {
            v.kind = JsonValue::String;
            v.string = string();
        } else if (literal("null")) {
            v.kind = JsonValue::Null;
        } else if (literal("true")) {
            v.kind = JsonValue::Bool;
            v.boolean = true;
        } else if (literal("false")) {
            v.kind = JsonValue::Bool;
        } else {
            v.kind = JsonValue::Number;
            v.number = number();
        }
        return v;
    }

    static bool digit(char c) { return c >= '0' && c <= '9'; }

    // -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
    double number() {
        const std::size_t begin = i_;
        auto at = [&](std::size_t k) { return k < s_.size() ? s_[k] : '\0'; };
        if (at(i_) == '-') ++i_;
        if (at(i_) == '0') {
            ++i_;
        } else if (digit(at(i_)) && at(i_) != '0') {
            while (digit(at(i_))) ++i_;
        } else {
            fail("not a value");
        }
        if (at(i_) == '.') {
            ++i_;
            if (!digit(at(i_))) fail("digits expected after '.'");
            while (digit(at(i_))) ++i_;
        }
        if (at(i_) == 'e' || at(i_) == 'E') {
            ++i_;
            if (at(i_) == '+' || at(i_) == '-') ++i_;
            if (!digit(at(i_))) fail("digits expected in exponent");
            while (digit(at(i_))) ++i_;
        }
        double v = 0;
        const auto [end, ec] = std::from_chars(s_.data() + begin, s_.data() + i_, v);
        if (ec != std::errc() || end != s_.data() + i_) fail("bad number");
        return v;
    }

    static void append_utf8(std::string& out, unsigned cp) {
        if (cp < 0x80) {
            out += static_cast<char>(cp);
        } else if (cp < 0x800) {
            out += static_cast<char>(0xC0 | (cp >> 6));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        } else {
            out += static_cast<char>(0xE0 | (cp >> 12));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        }
    }

    std::string string() {
        ++i_; // opening quote
        std::string out;
        for (;;) {
            if (i_ >= s_.size()) fail("unterminated string");
            const unsigned char c = static_cast<unsigned char>(s_[i_++]);
            if (c == '"') return out;
            if (c < 0x20) fail("control character in a string");
            if (c != '\\') {
                out += static_cast<char>(c);
                continue;
            }
            if (i_ >= s_.size()) fail("unterminated escape");
            const char e = s_[i_++];
            switch (e) {
            case '"':
                out += '"';
                break;
            case '\\':
                out += '\\';
                break;
            case '/':
                out += '/';
                break;
            case 'b':
                out += '\b';
                break;
            case 'f':
                out += '\f';
                break;
            case 'n':
                out += '\n';
                break;
            case 'r':
                out += '\r';
                break;
            case 't':
                out += '\t';
                break;
            case 'u': {
                if (i_ + 4 > s_.size()) fail("short \\u escape");
                unsigned cp = 0;
                const auto [end, ec] = std::from_chars(s_.data() + i_, s_.data() + i_ + 4, cp, 16);
                if (ec != std::errc() || end != s_.data() + i_ + 4) fail("bad \\u escape");
                i_ += 4;
                append_utf8(out, cp);
                break;
            }
            default:
                fail(std::string("bad escape \\") + e);
            }
        }
    }

    const std::string& s_;
    std::size_t i_ = 0;
};

inline JsonValue parse_json(const std::string& text) {
    return JsonReader(text).document();
}

} // namespace topolens::test
