#include "trace/region_filter.h"

#include <fstream>
#include <optional>
#include <sstream>
#include <system_error>

namespace topolens::trace {

namespace {

constexpr std::string_view kRegionBegin = "SCOREP_REGION_NAMES_BEGIN";
constexpr std::string_view kRegionEnd = "SCOREP_REGION_NAMES_END";
constexpr std::string_view kFileBegin = "SCOREP_FILE_NAMES_BEGIN";
constexpr std::string_view kFileEnd = "SCOREP_FILE_NAMES_END";

std::string format_error(std::string_view origin, int line, int column, std::string_view message) {
    std::ostringstream out;
    out << origin << ':' << line << ':' << column << ": " << message;
    return out.str();
}

// The index of the `]` closing the set that opens at pattern[open] ('['), or npos. A `]`
// right after `[`, `[!` or `[^` belongs to the set.
std::size_t set_end(std::string_view pattern, std::size_t open) {
    std::size_t j = open + 1;
    if (j < pattern.size() && (pattern[j] == '!' || pattern[j] == '^')) ++j;
    if (j < pattern.size() && pattern[j] == ']') ++j;
    while (j < pattern.size() && pattern[j] != ']') j += (pattern[j] == '\\') ? 2 : 1;
    return j < pattern.size() ? j : std::string_view::npos;
}

// Whether `c` is in the set pattern(open, close) (brackets excluded).
bool in_set(std::string_view pattern, std::size_t open, std::size_t close, char c) {
    std::size_t j = open + 1;
    bool negated = pattern[j] == '!' || pattern[j] == '^';
    if (negated) ++j;
    bool found = false;
    bool first = true;
    while (j < close) {
        char low = pattern[j];
        if (low == '\\' && j + 1 < close) low = pattern[++j];
        ++j;
        char high = low;
        // "a-z" is a range; a '-' last (or first) is itself.
        if (j + 1 < close && pattern[j] == '-' && !(first && low == '-')) {
            high = pattern[j + 1];
            if (high == '\\' && j + 2 < close) {
                high = pattern[j + 2];
                ++j;
            }
            j += 2;
        }
        if (static_cast<unsigned char>(low) <= static_cast<unsigned char>(c) &&
            static_cast<unsigned char>(c) <= static_cast<unsigned char>(high))
            found = true;
        first = false;
    }
    return found != negated;
}

// Matches one pattern element (not '*') at pattern[p] against `c`; returns its length in
// the pattern when it matches.
std::optional<std::size_t> match_one(std::string_view pattern, std::size_t p, char c) {
    switch (pattern[p]) {
    case '?':
        return 1;
    case '\\':
        if (p + 1 < pattern.size())
            return c == pattern[p + 1] ? std::optional<std::size_t>(2) : std::nullopt;
        return c == '\\' ? std::optional<std::size_t>(1) : std::nullopt;
    case '[': {
        std::size_t close = set_end(pattern, p);
        if (close == std::string_view::npos)
            return c == '[' ? std::optional<std::size_t>(1) : std::nullopt;
        return in_set(pattern, p, close, c) ? std::optional<std::size_t>(close - p + 1)
                                            : std::nullopt;
    }
    default:
        return c == pattern[p] ? std::optional<std::size_t>(1) : std::nullopt;
    }
}

// True when rule `r` matches `text`; the last matching rule of `rules` decides, and no match
// keeps the region.
template <class Rules, class TextOf> bool last_match_excludes(const Rules& rules, TextOf text_of) {
    for (auto it = rules.rbegin(); it != rules.rend(); ++it)
        if (wildcard_match(it->pattern, text_of(*it))) return it->exclude;
    return false;
}

} // namespace

FilterSyntaxError::FilterSyntaxError(std::string_view origin, int line_, int column_,
                                     std::string_view message)
    : std::runtime_error(format_error(origin, line_, column_, message)), line(line_),
      column(column_) {}

bool wildcard_match(std::string_view pattern, std::string_view text) {
    // Greedy matching with one backtrack point: the last '*' seen takes one more character
    // whenever the rest fails.
    std::size_t p = 0, t = 0;
    std::size_t star_p = std::string_view::npos, star_t = 0;
    while (t < text.size()) {
        if (p < pattern.size() && pattern[p] == '*') {
            star_p = ++p;
            star_t = t;
            continue;
        }
        if (p < pattern.size()) {
            if (auto length = match_one(pattern, p, text[t])) {
                p += *length;
                ++t;
                continue;
            }
        }
        if (star_p == std::string_view::npos) return false;
        p = star_p;
        t = ++star_t;
    }
    while (p < pattern.size() && pattern[p] == '*') ++p;
    return p == pattern.size();
}

std::string escape_pattern(std::string_view literal) {
    std::string pattern;
    for (char c : literal) {
        if (std::string_view("*?[]\\# \t\r\f\v").find(c) != std::string_view::npos) pattern += '\\';
        pattern += c;
    }
    return pattern;
}

// Reads the filter text token by token, as Score-P does: EXCLUDE or INCLUDE (optionally
// followed by MANGLED) sets the mode for the patterns after it, on the same line or the next.
class FilterParser {
  public:
    FilterParser(std::string_view origin) : origin_(origin) {}

    RegionFilter parse(std::string_view text) {
        int line_number = 0;
        std::size_t start = 0;
        while (start <= text.size()) {
            std::size_t end = text.find('\n', start);
            if (end == std::string_view::npos) end = text.size();
            ++line_number;
            parse_line(text.substr(start, end - start), line_number);
            start = end + 1;
        }
        if (block_ != Block::None)
            fail(block_line_, block_column_,
                 std::string(block_ == Block::Regions ? kRegionBegin : kFileBegin) + " without " +
                     std::string(block_ == Block::Regions ? kRegionEnd : kFileEnd));
        return std::move(filter_);
    }

  private:
    enum class Block { None, Regions, Files };
    struct Token {
        std::string text; // escapes kept: the matcher reads them
        int column;
    };

    [[noreturn]] void fail(int line, int column, std::string_view message) const {
        throw FilterSyntaxError(origin_, line, column, message);
    }

    void parse_line(std::string_view line, int line_number) {
        std::size_t i = 0;
        while (i < line.size()) {
            char c = line[i];
            if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
                ++i;
                continue;
            }
            if (c == '#') return; // a comment to the end of the line
            Token token{{}, static_cast<int>(i) + 1};
            while (i < line.size()) {
                c = line[i];
                if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v' || c == '#') break;
                if (c == '\\') {
                    if (i + 1 >= line.size() || line[i + 1] == '\r')
                        fail(line_number, static_cast<int>(i) + 1,
                             "a backslash at the end of a line escapes nothing");
                    token.text += line.substr(i, 2);
                    i += 2;
                    continue;
                }
                token.text += c;
                ++i;
            }
            take(token, line_number);
        }
    }

    void take(const Token& token, int line_number) {
        const std::string& word = token.text;
        const int column = token.column;
        if (block_ == Block::None) {
            if (word == kRegionBegin || word == kFileBegin) {
                block_ = word == kRegionBegin ? Block::Regions : Block::Files;
                block_line_ = line_number;
                block_column_ = column;
            } else if (word == kRegionEnd || word == kFileEnd) {
                fail(line_number, column,
                     word + " without " +
                         std::string(word == kRegionEnd ? kRegionBegin : kFileBegin));
            } else if (word == "EXCLUDE" || word == "INCLUDE" || word == "MANGLED") {
                fail(line_number, column,
                     word + " outside a block (" + std::string(kRegionBegin) + " or " +
                         std::string(kFileBegin) + " first)");
            } else {
                fail(line_number, column,
                     "unknown keyword '" + word + "' (expected " + std::string(kRegionBegin) +
                         " or " + std::string(kFileBegin) + ")");
            }
            return;
        }
        const std::string_view end = block_ == Block::Regions ? kRegionEnd : kFileEnd;
        if (word == end) {
            close_rule();
            block_ = Block::None;
            return;
        }
        if (word == kRegionBegin || word == kFileBegin || word == kRegionEnd || word == kFileEnd)
            fail(line_number, column, word + " inside a block (" + std::string(end) + " first)");
        if (word.starts_with("SCOREP_") && (word.ends_with("_BEGIN") || word.ends_with("_END")))
            fail(line_number, column, "unknown keyword '" + word + "'");
        if (word == "EXCLUDE" || word == "INCLUDE") {
            close_rule();
            rule_ = OpenRule{word == "EXCLUDE", false, line_number, column, 0};
            return;
        }
        if (word == "MANGLED") {
            if (!rule_ || rule_->patterns > 0 || rule_->mangled)
                fail(line_number, column, "MANGLED must follow EXCLUDE or INCLUDE directly");
            if (block_ == Block::Files)
                fail(line_number, column, "MANGLED applies to region names only");
            rule_->mangled = true;
            return;
        }
        if (!rule_) fail(line_number, column, "pattern '" + word + "' before EXCLUDE or INCLUDE");
        check_sets(word, line_number, column);
        auto& rules = block_ == Block::Regions ? filter_.region_rules_ : filter_.file_rules_;
        rules.push_back({rule_->exclude, rule_->mangled, word});
        ++rule_->patterns;
    }

    // Every unescaped '[' needs its ']'.
    void check_sets(std::string_view pattern, int line_number, int column) const {
        for (std::size_t j = 0; j < pattern.size(); ++j) {
            if (pattern[j] == '\\') {
                ++j;
            } else if (pattern[j] == '[') {
                std::size_t close = set_end(pattern, j);
                if (close == std::string_view::npos)
                    fail(line_number, column + static_cast<int>(j),
                         "'[' without ']' in pattern '" + std::string(pattern) + "'");
                j = close;
            }
        }
    }

    void close_rule() {
        if (rule_ && rule_->patterns == 0)
            fail(rule_->line, rule_->column,
                 std::string(rule_->exclude ? "EXCLUDE" : "INCLUDE") + " without a pattern");
        rule_.reset();
    }

    struct OpenRule {
        bool exclude;
        bool mangled;
        int line;
        int column;
        int patterns;
    };

    std::string origin_;
    RegionFilter filter_;
    Block block_ = Block::None;
    int block_line_ = 0;
    int block_column_ = 0;
    std::optional<OpenRule> rule_;
};

RegionFilter RegionFilter::parse(std::string_view text, std::string_view origin) {
    return FilterParser(origin).parse(text);
}

RegionFilter RegionFilter::load(const std::filesystem::path& file) {
    std::error_code error;
    std::ifstream in(file, std::ios::binary);
    if (!in || std::filesystem::is_directory(file, error))
        throw std::runtime_error(file.string() + ": cannot read the filter file");
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) throw std::runtime_error(file.string() + ": cannot read the filter file");
    return parse(text.str(), file.string());
}

bool RegionFilter::excludes(std::string_view name, std::string_view mangled_name,
                            std::string_view source_file) const {
    if (!source_file.empty() &&
        last_match_excludes(file_rules_, [&](const Rule&) { return source_file; }))
        return true;
    if (mangled_name.empty()) mangled_name = name;
    return last_match_excludes(region_rules_,
                               [&](const Rule& r) { return r.mangled ? mangled_name : name; });
}

} // namespace topolens::trace
