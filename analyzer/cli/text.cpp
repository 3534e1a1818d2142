#include "analyzer/cli/text.h"

#include <algorithm>
#include <cstdio>

namespace topolens::cli {

std::string Table::render(int indent) const {
    std::vector<std::size_t> width;
    auto measure = [&](const std::vector<std::string>& cells) {
        if (cells.size() > width.size()) width.resize(cells.size(), 0);
        for (std::size_t i = 0; i < cells.size(); ++i)
            width[i] = std::max(width[i], cells[i].size());
    };
    if (!header_.empty()) measure(header_);
    for (const auto& r : rows_) measure(r);
    std::string out;
    auto emit = [&](const std::vector<std::string>& cells) {
        std::string line(static_cast<std::size_t>(indent), ' ');
        for (std::size_t i = 0; i < cells.size(); ++i) {
            const std::size_t pad = width[i] - cells[i].size();
            const bool right = i < right_.size() && right_[i];
            if (right) line.append(pad, ' ');
            line += cells[i];
            if (!right && i + 1 < cells.size()) line.append(pad, ' ');
            if (i + 1 < cells.size()) line += "  ";
        }
        while (!line.empty() && line.back() == ' ') line.pop_back();
        out += line + "\n";
    };
    if (!header_.empty()) emit(header_);
    for (const auto& r : rows_) emit(r);
    return out;
}

std::string join(const std::vector<std::string>& items, const std::string& separator) {
    std::string out;
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (i) out += separator;
        out += items[i];
    }
    return out;
}

std::string fixed(double value, int decimals) {
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", decimals, value);
    return text;
}

std::string wrap(const std::string& text, std::size_t width, std::size_t indent,
                 std::size_t hanging, const std::string& separator) {
    // What of the separator stays at the end of a piece: "," of ", ", nothing of " ".
    const std::size_t kept = separator.find_last_not_of(' ') + 1;
    std::string out, line(indent, ' ');
    bool line_empty = true;
    for (std::size_t start = 0; start < text.size();) {
        const std::size_t cut = text.find(separator, start);
        const std::size_t end = cut == std::string::npos ? text.size() : cut + kept;
        const std::string piece = text.substr(start, end - start);
        if (!line_empty && line.size() + 1 + piece.size() > width) {
            out += line + "\n";
            line.assign(hanging, ' ');
            line_empty = true;
        }
        if (!line_empty) line += ' ';
        line += piece;
        line_empty = false;
        start = cut == std::string::npos ? text.size() : cut + separator.size();
    }
    return out + line + "\n";
}

std::string grouped(uint64_t value) {
    std::string digits = std::to_string(value);
    std::string out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

} // namespace topolens::cli
