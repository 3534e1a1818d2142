// Small text-formatting helpers for the command line's human-readable output.
#pragma once

#include "analyzer/report/rank_ranges.h"

#include <cstdint>
#include <string>
#include <vector>

namespace topolens::cli {

// Left-aligned columns separated by two spaces; columns listed in `right` are right-aligned
// (numbers). Every row is indented by `indent` spaces.
class Table {
  public:
    explicit Table(std::vector<std::string> header = {}, std::vector<bool> right = {})
        : header_(std::move(header)), right_(std::move(right)) {}
    void row(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }
    bool empty() const { return rows_.empty(); }
    std::string render(int indent = 2) const;

  private:
    std::vector<std::string> header_;
    std::vector<bool> right_;
    std::vector<std::vector<std::string>> rows_;
};

using analysis::rank_ranges; // "0-3,6,8-9
std::string join(const std::vector<std::string>& items, const std::string& separator);
// Fixed-point with `decimals` digits, e.g. seconds(0.0012345, 6) = "0.001235".
std::string fixed(double value, int decimals);
// `text` broken at `separator` (", " keeps the comma at the line's end; " " breaks between
// words) into lines of at most `width` characters; the first line is indented by `indent`,
// the following ones by `hanging`. Ends with a newline.
std::string wrap(const std::string& text, std::size_t width, std::size_t indent,
                 std::size_t hanging, const std::string& separator = ", ");
// Thousands grouped: 1234567 -> "1,234,567".
std::string grouped(uint64_t value);

} // namespace topolens::cli
