// The filter-file parser (trace/region_filter.h): Score-P's syntax, wildcards, the last
// matching rule, file rules, and errors with their exact line and column.
#include "trace/region_filter.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

namespace {

using topolens::trace::FilterSyntaxError;
using topolens::trace::RegionFilter;
using topolens::trace::wildcard_match;

// Excluded by name alone (no mangled name, no source file).
bool drops(const RegionFilter& filter, std::string_view name) {
    return filter.excludes(name, "", "");
}

// The error `text` raises, as "LINE:COLUMN: message" without the origin.
std::string error_of(std::string_view text) {
    try {
        RegionFilter::parse(text, "f.filt");
    } catch (const FilterSyntaxError& error) {
        const std::string what = error.what();
        const std::string prefix =
            "f.filt:" + std::to_string(error.line) + ":" + std::to_string(error.column) + ": ";
        EXPECT_TRUE(what.starts_with(prefix)) << what;
        return what.substr(std::string("f.filt:").size());
    }
    return "no error";
}

TEST(WildcardMatch, StarQuestionAndLiterals) {
    EXPECT_TRUE(wildcard_match("foo", "foo"));
    EXPECT_FALSE(wildcard_match("foo", "foobar"));
    EXPECT_FALSE(wildcard_match("foo", "fo"));
    EXPECT_TRUE(wildcard_match("*", ""));
    EXPECT_TRUE(wildcard_match("*", "anything/at/all"));
    EXPECT_TRUE(wildcard_match("foo*", "foo"));
    EXPECT_TRUE(wildcard_match("foo*", "foobar"));
    EXPECT_FALSE(wildcard_match("foo*", "xfoo"));
    EXPECT_TRUE(wildcard_match("*bar", "foobar"));
    EXPECT_TRUE(wildcard_match("*o*a*", "foobar"));
    EXPECT_FALSE(wildcard_match("*o*x*", "foobar"));
    EXPECT_TRUE(wildcard_match("a*b*c", "aXbYbZc"));
    EXPECT_FALSE(wildcard_match("a*b*c", "aXbYbZ"));
    EXPECT_TRUE(wildcard_match("f?o", "foo"));
    EXPECT_FALSE(wildcard_match("f?o", "fo"));
    EXPECT_FALSE(wildcard_match("f?o", "fooo"));
    EXPECT_TRUE(wildcard_match("std::vector<*>::*", "std::vector<int>::push_back(int const&)"));
}

TEST(WildcardMatch, Sets) {
    EXPECT_TRUE(wildcard_match("[abc]x", "bx"));
    EXPECT_FALSE(wildcard_match("[abc]x", "dx"));
    EXPECT_TRUE(wildcard_match("v[0-9]", "v7"));
    EXPECT_FALSE(wildcard_match("v[0-9]", "va"));
    EXPECT_TRUE(wildcard_match("v[!0-9]", "va"));
    EXPECT_FALSE(wildcard_match("v[!0-9]", "v7"));
    EXPECT_TRUE(wildcard_match("v[^0-9]", "va"));
    EXPECT_TRUE(wildcard_match("[]]", "]"));
    EXPECT_TRUE(wildcard_match("[!]]", "a"));
    EXPECT_FALSE(wildcard_match("[!]]", "]"));
    EXPECT_TRUE(wildcard_match("[a-]", "-"));
    EXPECT_TRUE(wildcard_match("[-a]", "-"));
    EXPECT_TRUE(wildcard_match("x[a-cx-z]*", "xyz"));
    EXPECT_FALSE(wildcard_match("x[a-cx-z]*", "xdz"));
}

TEST(WildcardMatch, Escapes) {
    EXPECT_TRUE(wildcard_match("a\\*b", "a*b"));
    EXPECT_FALSE(wildcard_match("a\\*b", "aXb"));
    EXPECT_TRUE(wildcard_match("a\\?", "a?"));
    EXPECT_FALSE(wildcard_match("a\\?", "ab"));
    EXPECT_TRUE(wildcard_match("\\[x\\]", "[x]"));
    EXPECT_FALSE(wildcard_match("\\[x\\]", "x"));
    EXPECT_TRUE(wildcard_match("a\\\\b", "a\\b"));
    EXPECT_TRUE(wildcard_match("[\\]]", "]"));
}

TEST(RegionFilter, EmptyTextAndCommentsHaveNoRules) {
    EXPECT_TRUE(RegionFilter::parse("").empty());
    EXPECT_TRUE(RegionFilter::parse("\n\n# only a comment\n   # another\n").empty());
    RegionFilter filter =
        RegionFilter::parse("SCOREP_REGION_NAMES_BEGIN\nSCOREP_REGION_NAMES_END\n");
    EXPECT_TRUE(filter.empty());
    EXPECT_FALSE(drops(filter, "foo"));
}

TEST(RegionFilter, ExcludeAndIncludeTheLastMatchWins) {
    RegionFilter filter = RegionFilter::parse(R"(
# drop the helpers, but keep the one we want
SCOREP_REGION_NAMES_BEGIN
  EXCLUDE helper_* tiny
  INCLUDE helper_keep
SCOREP_REGION_NAMES_END
)");
    EXPECT_FALSE(filter.empty());
    EXPECT_TRUE(drops(filter, "helper_a"));
    EXPECT_TRUE(drops(filter, "tiny"));
    EXPECT_FALSE(drops(filter, "tiny2"));
    EXPECT_FALSE(drops(filter, "helper_keep"));
    EXPECT_FALSE(drops(filter, "main"));

    // The same rules the other way round: the EXCLUDE comes last and wins.
    RegionFilter reversed = RegionFilter::parse("SCOREP_REGION_NAMES_BEGIN\n"
                                                "INCLUDE helper_keep\n"
                                                "EXCLUDE helper_*\n"
                                                "SCOREP_REGION_NAMES_END\n");
    EXPECT_TRUE(drops(reversed, "helper_keep"));
}

TEST(RegionFilter, IncludeAllThenExcludeSome) {
    RegionFilter filter = RegionFilter::parse("SCOREP_REGION_NAMES_BEGIN EXCLUDE * INCLUDE main "
                                              "solve_* SCOREP_REGION_NAMES_END");
    EXPECT_TRUE(drops(filter, "anything"));
    EXPECT_FALSE(drops(filter, "main"));
    EXPECT_FALSE(drops(filter, "solve_cg"));
}

TEST(RegionFilter, PatternsContinueOnTheNextLines) {
    RegionFilter filter = RegionFilter::parse("SCOREP_REGION_NAMES_BEGIN\n"
                                              "  EXCLUDE\n"
                                              "    alpha\n"
                                              "    beta # trailing comment\n"
                                              "  INCLUDE\n"
                                              "    gamma\n"
                                              "SCOREP_REGION_NAMES_END\n");
    EXPECT_TRUE(drops(filter, "alpha"));
    EXPECT_TRUE(drops(filter, "beta"));
    EXPECT_FALSE(drops(filter, "gamma"));
    EXPECT_FALSE(drops(filter, "#"));
}

TEST(RegionFilter, MangledRulesMatchTheMangledName) {
    RegionFilter filter = RegionFilter::parse("SCOREP_REGION_NAMES_BEGIN\n"
                                              "EXCLUDE MANGLED _ZN3foo*\n"
                                              "EXCLUDE bar(int)\n"
                                              "SCOREP_REGION_NAMES_END\n");
    EXPECT_TRUE(filter.excludes("foo::run()", "_ZN3foo3runEv", ""));
    // With no mangled name the name stands for it.
    EXPECT_TRUE(filter.excludes("_ZN3foo3runEv", "", ""));
    // A plain rule reads the demangled name, not the mangled one.
    EXPECT_TRUE(filter.excludes("bar(int)", "_Z3bari", ""));
    EXPECT_FALSE(filter.excludes("baz(int)", "bar(int)", ""));
    // A MANGLED rule does not read the demangled name.
    EXPECT_FALSE(filter.excludes("_ZN3foo3runEv", "_ZN3qux3runEv", ""));
}

TEST(RegionFilter, IncludeMangled) {
    RegionFilter filter = RegionFilter::parse("SCOREP_REGION_NAMES_BEGIN\n"
                                              "EXCLUDE *\n"
                                              "INCLUDE MANGLED _Z4main*\n"
                                              "SCOREP_REGION_NAMES_END\n");
    EXPECT_FALSE(filter.excludes("main(int, char**)", "_Z4mainiPPc", ""));
    EXPECT_TRUE(filter.excludes("other()", "_Z5otherv", ""));
}

TEST(RegionFilter, EscapesInPatterns) {
    RegionFilter filter = RegionFilter::parse("SCOREP_REGION_NAMES_BEGIN\n"
                                              "EXCLUDE operator\\* hash\\#tag a\\ b\n"
                                              "SCOREP_REGION_NAMES_END\n");
    EXPECT_TRUE(drops(filter, "operator*"));
    EXPECT_FALSE(drops(filter, "operator+"));
    EXPECT_TRUE(drops(filter, "hash#tag"));
    EXPECT_TRUE(drops(filter, "a b"));
    EXPECT_FALSE(drops(filter, "a"));
}

TEST(RegionFilter, FileRules) {
    RegionFilter filter = RegionFilter::parse("SCOREP_FILE_NAMES_BEGIN\n"
                                              "  EXCLUDE */include/c++/* /usr/*\n"
                                              "  INCLUDE /usr/src/mine/*\n"
                                              "SCOREP_FILE_NAMES_END\n");
    EXPECT_TRUE(filter.excludes("std::swap", "", "/usr/include/c++/13/bits/move.h"));
    EXPECT_TRUE(filter.excludes("f", "", "/usr/lib/x.c"));
    EXPECT_FALSE(filter.excludes("g", "", "/usr/src/mine/g.c"));
    EXPECT_FALSE(filter.excludes("h", "", "/home/me/h.c"));
    // No source file: file rules cannot exclude it, and names are not file names.
    EXPECT_FALSE(filter.excludes("/usr/x", "", ""));
}

TEST(RegionFilter, ExcludedFileOrExcludedName) {
    RegionFilter filter = RegionFilter::parse("SCOREP_REGION_NAMES_BEGIN\n"
                                              "  EXCLUDE tiny_*\n"
                                              "SCOREP_REGION_NAMES_END\n"
                                              "SCOREP_FILE_NAMES_BEGIN\n"
                                              "  EXCLUDE *.h\n"
                                              "SCOREP_FILE_NAMES_END\n"
                                              "SCOREP_REGION_NAMES_BEGIN\n"
                                              "  INCLUDE tiny_keep\n"
                                              "SCOREP_REGION_NAMES_END\n");
    EXPECT_TRUE(filter.excludes("tiny_a", "", "main.c"));
    EXPECT_TRUE(filter.excludes("big", "", "util.h"));
    // A later block's INCLUDE wins for the name, but the file still excludes it.
    EXPECT_FALSE(filter.excludes("tiny_keep", "", "main.c"));
    EXPECT_TRUE(filter.excludes("tiny_keep", "", "util.h"));
    EXPECT_FALSE(filter.excludes("big", "", "main.c"));
}

TEST(RegionFilter, WindowsLineEndings) {
    RegionFilter filter = RegionFilter::parse(
        "SCOREP_REGION_NAMES_BEGIN\r\nEXCLUDE foo\r\nSCOREP_REGION_NAMES_END\r\n");
    EXPECT_TRUE(drops(filter, "foo"));
}

TEST(RegionFilterErrors, UnknownKeyword) {
    EXPECT_EQ(error_of("\n  SCOREP_REGION_NAME_BEGIN\n"),
              "2:3: unknown keyword 'SCOREP_REGION_NAME_BEGIN' (expected "
              "SCOREP_REGION_NAMES_BEGIN or SCOREP_FILE_NAMES_BEGIN)");
    EXPECT_EQ(error_of("SCOREP_REGION_NAMES_BEGIN\n EXCLUDE a\n SCOREP_REGION_NAME_END\n"),
              "3:2: unknown keyword 'SCOREP_REGION_NAME_END'");
    EXPECT_EQ(error_of("SCOREP_FILE_NAMES_BEGIN\nEXCLUDE a SCOREP_REGION_NAMES_END\n"),
              "2:11: SCOREP_REGION_NAMES_END inside a block (SCOREP_FILE_NAMES_END first)");
}

TEST(RegionFilterErrors, RuleOutsideABlock) {
    EXPECT_EQ(error_of("# comment\nEXCLUDE foo\n"),
              "2:1: EXCLUDE outside a block (SCOREP_REGION_NAMES_BEGIN or "
              "SCOREP_FILE_NAMES_BEGIN first)");
    EXPECT_EQ(error_of("SCOREP_REGION_NAMES_BEGIN EXCLUDE a SCOREP_REGION_NAMES_END\n\tINCLUDE b"),
              "2:2: INCLUDE outside a block (SCOREP_REGION_NAMES_BEGIN or "
              "SCOREP_FILE_NAMES_BEGIN first)");
    EXPECT_EQ(error_of("SCOREP_REGION_NAMES_BEGIN\n   foo\nSCOREP_REGION_NAMES_END\n"),
              "2:4: pattern 'foo' before EXCLUDE or INCLUDE");
}

TEST(RegionFilterErrors, UnterminatedBlock) {
    EXPECT_EQ(error_of("\n SCOREP_REGION_NAMES_BEGIN\nEXCLUDE foo\n"),
              "2:2: SCOREP_REGION_NAMES_BEGIN without SCOREP_REGION_NAMES_END");
    EXPECT_EQ(error_of("SCOREP_FILE_NAMES_BEGIN\nEXCLUDE foo\nSCOREP_REGION_NAMES_BEGIN\n"),
              "3:1: SCOREP_REGION_NAMES_BEGIN inside a block (SCOREP_FILE_NAMES_END first)");
}

TEST(RegionFilterErrors, EndWithoutBegin) {
    EXPECT_EQ(error_of("\n\n    SCOREP_FILE_NAMES_END\n"),
              "3:5: SCOREP_FILE_NAMES_END without SCOREP_FILE_NAMES_BEGIN");
    EXPECT_EQ(error_of("SCOREP_FILE_NAMES_BEGIN EXCLUDE a SCOREP_FILE_NAMES_END "
                       "SCOREP_REGION_NAMES_END"),
              "1:57: SCOREP_REGION_NAMES_END without SCOREP_REGION_NAMES_BEGIN");
}

TEST(RegionFilterErrors, MissingPattern) {
    EXPECT_EQ(error_of("SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE\nSCOREP_REGION_NAMES_END\n"),
              "2:3: EXCLUDE without a pattern");
    EXPECT_EQ(error_of("SCOREP_REGION_NAMES_BEGIN\n  INCLUDE MANGLED # none\n  EXCLUDE x\n"
                       "SCOREP_REGION_NAMES_END\n"),
              "2:3: INCLUDE without a pattern");
}

TEST(RegionFilterErrors, UnterminatedSet) {
    EXPECT_EQ(error_of("SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE ok foo[ab\nSCOREP_REGION_NAMES_END\n"),
              "2:17: '[' without ']' in pattern 'foo[ab'");
    // An escaped '[' needs no ']'.
    EXPECT_EQ(error_of("SCOREP_REGION_NAMES_BEGIN EXCLUDE a\\[b SCOREP_REGION_NAMES_END"),
              "no error");
}

TEST(RegionFilterErrors, MangledMisplaced) {
    EXPECT_EQ(error_of("SCOREP_FILE_NAMES_BEGIN\nEXCLUDE MANGLED x\nSCOREP_FILE_NAMES_END\n"),
              "2:9: MANGLED applies to region names only");
    EXPECT_EQ(error_of("SCOREP_REGION_NAMES_BEGIN\nEXCLUDE x MANGLED\nSCOREP_REGION_NAMES_END\n"),
              "2:11: MANGLED must follow EXCLUDE or INCLUDE directly");
}

TEST(RegionFilterErrors, BackslashAtEndOfLine) {
    EXPECT_EQ(error_of("SCOREP_REGION_NAMES_BEGIN\nEXCLUDE foo\\\nSCOREP_REGION_NAMES_END\n"),
              "2:12: a backslash at the end of a line escapes nothing");
}

TEST(RegionFilterLoad, ReadsAFileAndNamesItInErrors) {
    const auto dir =
        std::filesystem::temp_directory_path() / ("topolens_filter_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const auto good = dir / "good.filt";
    std::ofstream(good) << "SCOREP_REGION_NAMES_BEGIN EXCLUDE foo SCOREP_REGION_NAMES_END\n";
    EXPECT_TRUE(drops(RegionFilter::load(good), "foo"));

    const auto bad = dir / "bad.filt";
    std::ofstream(bad) << "EXCLUDE foo\n";
    try {
        RegionFilter::load(bad);
        ADD_FAILURE() << "no error";
    } catch (const FilterSyntaxError& error) {
        EXPECT_EQ(std::string(error.what()),
                  bad.string() + ":1:1: EXCLUDE outside a block (SCOREP_REGION_NAMES_BEGIN or "
                                 "SCOREP_FILE_NAMES_BEGIN first)");
    }
    EXPECT_THROW(RegionFilter::load(dir / "missing.filt"), std::runtime_error);
    EXPECT_THROW(RegionFilter::load(dir), std::runtime_error);
    std::filesystem::remove_all(dir);
}

} // namespace
