#include "analyzer/report/json.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace topolens::json {

std::string shortest_number(double v) {
    char buffer[64];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, v);
    return std::string(buffer, result.ptr);
}

std::string number(double v) {
    return std::isfinite(v) ? shortest_number(v) : "null";
}

std::string string(const std::string& s) {
    std::string out = "\"";
    for (unsigned char c : s) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += static_cast<char>(c);
        } else if (c < 0x20) {
            char buffer[8];
            std::snprintf(buffer, sizeof buffer, "\\u%04x", c);
            out += buffer;
        } else {
            out += static_cast<char>(c);
        }
    }
    return out + "\"";
}

void Writer::newline() {
    out_ += '\n';
    out_.append(2 * has_value_.size(), ' ');
}

void Writer::before_value() {
    if (after_key_) {
        after_key_ = false;
        return;
    }
    if (has_value_.empty()) return;
    const bool spaced = inline_depth_ && line_break_ < 0 && has_value_.size() != packed_depth_;
    if (has_value_.back()) out_ += spaced ? ", " : ",";
    has_value_.back() = true;
    if (line_break_ >= 0) {
        out_ += '\n';
        out_.append(static_cast<std::size_t>(line_break_), ' ');
        line_break_ = -1;
    } else if (!inline_depth_) {
        newline();
    }
}

Writer& Writer::begin_object() {
    before_value();
    out_ += '{';
    has_value_.push_back(false);
    if (inline_depth_) ++inline_depth_;
    return *this;
}

Writer& Writer::begin_inline_object() {
    before_value();
    out_ += '{';
    has_value_.push_back(false);
    ++inline_depth_;
    return *this;
}

void Writer::close(char bracket) {
    if (has_value_.size() == packed_depth_) packed_depth_ = 0;
    const bool any = has_value_.back();
    has_value_.pop_back();
    if (inline_depth_)
        --inline_depth_;
    else if (any)
        newline();
    out_ += bracket;
}

Writer& Writer::end_object() {
    close('}');
    return *this;
}

Writer& Writer::begin_array() {
    before_value();
    out_ += '[';
    has_value_.push_back(false);
    if (inline_depth_) ++inline_depth_;
    return *this;
}

Writer& Writer::begin_packed_array() {
    before_value();
    out_ += '[';
    has_value_.push_back(false);
    ++inline_depth_;
    packed_depth_ = has_value_.size();
    return *this;
}

Writer& Writer::line_break(int indent) {
    line_break_ = indent;
    return *this;
}

Writer& Writer::end_array() {
    close(']');
    return *this;
}

Writer& Writer::key(const std::string& name) {
    before_value();
    out_ += string(name) + ": ";
    after_key_ = true;
    return *this;
}

Writer& Writer::value(double v) {
    before_value();
    out_ += number(v);
    return *this;
}

Writer& Writer::value(long long v) {
    before_value();
    out_ += std::to_string(v);
    return *this;
}

Writer& Writer::value(unsigned long long v) {
    before_value();
    out_ += std::to_string(v);
    return *this;
}

Writer& Writer::value(bool v) {
    before_value();
    out_ += v ? "true" : "false";
    return *this;
}

Writer& Writer::value(const std::string& v) {
    before_value();
    out_ += string(v);
    return *this;
}

Writer& Writer::null() {
    before_value();
    out_ += "null";
    return *this;
}

Writer& Writer::numbers(const std::vector<double>& values) {
    before_value();
    out_ += '[';
    for (std::size_t i = 0; i < values.size(); ++i) out_ += (i ? ", " : "") + number(values[i]);
    out_ += ']';
    return *this;
}

Writer& Writer::numbers(const std::vector<std::optional<double>>& values) {
    before_value();
    out_ += '[';
    for (std::size_t i = 0; i < values.size(); ++i)
        out_ += (i ? ", " : "") + (values[i] ? number(*values[i]) : std::string("null"));
    out_ += ']';
    return *this;
}

} // namespace topolens::json
