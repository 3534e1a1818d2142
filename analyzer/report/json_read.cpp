#include "analyzer/report/json_read.h"

#include <charconv>
#include <string_view>

namespace topolens::json {

namespace {

class Reader {
  public:
    explicit Reader(const std::string& text) : s_(text) {}

    Value document() {
        Value v = value();
        space();
        if (i_ != s_.size()) fail("trailing text");
        return v;
    }

  private:
    [[noreturn]] void fail(const std::string& what) const {
        // Failing at the end: the document was cut short (a truncated file, a full disk).
        throw ParseError("invalid JSON at offset " + std::to_string(i_) + ": " + what +
                         (i_ >= s_.size() ? " (truncated)" : ""));
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

    // Arrays and objects nest at most this deep: deeper input is refused, not a stack overflow.
    static constexpr int kMaxDepth = 256;

    Value value() {
        space();
        if (i_ >= s_.size()) fail("unexpected end");
        if (depth_ >= kMaxDepth) fail("nested deeper than " + std::to_string(kMaxDepth));
        struct Nested {
            int& depth;
            explicit Nested(int& d) : depth(++d) {}
            ~Nested() { --depth; }
        } nested(depth_);
        Value v;
        const char c = s_[i_];
        if (c == '{') {
            ++i_;
            v.kind = Value::Object;
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
            v.kind = Value::Array;
            if (eat(']')) return v;
            do v.array.push_back(value());
            while (eat(','));
            expect(']');
        } else if (c == '"') {
            v.kind = Value::String;
            v.string = string();
        } else if (literal("null")) {
            v.kind = Value::Null;
        } else if (literal("true")) {
            v.kind = Value::Bool;
            v.boolean = true;
        } else if (literal("false")) {
            v.kind = Value::Bool;
        } else {
            v.kind = Value::Number;
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
            // A literal cut short ("nul") is a truncated document, not a wrong value.
            const std::string_view rest = std::string_view(s_).substr(i_);
            for (const std::string_view word : {"null", "true", "false"})
                if (word.starts_with(rest)) {
                    i_ = s_.size();
                    fail("unexpected end");
                }
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
    int depth_ = 0;
};

} // namespace

const Value* Value::find(const std::string& key) const {
    if (kind != Object) return nullptr;
    for (const auto& [k, v] : object)
        if (k == key) return &v;
    return nullptr;
}

const Value& Value::operator[](const std::string& key) const {
    if (kind != Object) throw std::runtime_error("not an object (looking for " + key + ")");
    if (const Value* v = find(key)) return *v;
    throw std::runtime_error("no key " + key);
}

const Value& Value::operator[](std::size_t i) const {
    if (kind != Array) throw std::runtime_error("not an array");
    if (i >= array.size()) throw std::runtime_error("index out of range");
    return array[i];
}

double Value::num() const {
    if (kind != Number) throw std::runtime_error("not a number");
    return number;
}

const std::string& Value::str() const {
    if (kind != String) throw std::runtime_error("not a string");
    return string;
}

bool Value::boolean_value() const {
    if (kind != Bool) throw std::runtime_error("not a boolean");
    return boolean;
}

const char* kind_name(Value::Kind kind) {
    switch (kind) {
    case Value::Null:
        return "null";
    case Value::Bool:
        return "a boolean";
    case Value::Number:
        return "a number";
    case Value::String:
        return "a string";
    case Value::Array:
        return "an array";
    case Value::Object:
        return "an object";
    }
    return "?";
}

Value parse(const std::string& text) {
    return Reader(text).document();
}

} // namespace topolens::json
