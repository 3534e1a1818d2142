// Filter files in Score-P's syntax: which regions a measurement leaves out, by region name
// (demangled or mangled) and by source file, with shell wildcards. Used by the measurement
// at run time and by `topolens score` to predict what a filter saves.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace topolens::trace {

// A syntax error in a filter file: 1-based line and column, and what is wrong.
// what() is "ORIGIN:LINE:COLUMN: message", one line.
struct FilterSyntaxError : std::runtime_error {
    FilterSyntaxError(std::string_view origin, int line, int column, std::string_view message);
    int line;
    int column;
};

// True when `text` matches the shell wildcard `pattern`: `*` any run of characters (also
// '/'), `?` one character, `[abc]`, `[a-z]`, `[!a-z]` or `[^a-z]` one character of (not of)
// the set, and a backslash takes the next character literally. A `[` without its `]`
// matches itself (RegionFilter::parse rejects such patterns before they get here).
bool wildcard_match(std::string_view pattern, std::string_view text);

// `literal` as a pattern that matches exactly it: a backslash before each wildcard character,
// backslash, '#' and white space.
std::string escape_pattern(std::string_view literal);

class RegionFilter {
  public:
    // Parses a filter file's text; `origin` names it in error messages. Throws
    // FilterSyntaxError.
    static RegionFilter parse(std::string_view text, std::string_view origin = "filter");
    // Reads and parses `file`. Throws FilterSyntaxError, or std::runtime_error when the
    // file cannot be read.
    static RegionFilter load(const std::filesystem::path& file);

    // True when a region with this (demangled) name, mangled name and source file is
    // filtered out: its source file is excluded, or its name is. An empty mangled name
    // stands for the name; an empty source file is never excluded by file rules. MPI
    // functions are the caller's business (they are never filtered).
    bool excludes(std::string_view name, std::string_view mangled_name,
                  std::string_view source_file) const;
    bool empty() const { return region_rules_.empty() && file_rules_.empty(); }
    // Whether source files matter: without file rules, excludes() ignores them.
    bool has_file_rules() const { return !file_rules_.empty(); }

  private:
    struct Rule {
        bool exclude;
        bool mangled; // match the mangled name (region rules only)
        std::string pattern;
    };
    friend class FilterParser;
    std::vector<Rule> region_rules_; // in file order: the last match wins
    std::vector<Rule> file_rules_;
};

} // namespace topolens::trace
