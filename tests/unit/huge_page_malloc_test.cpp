// `topolens analyze` starts itself again with glibc's malloc on transparent huge pages
// (analyzer/cli/huge_page_malloc.h): which tunables, when not, and that the faults fall.
#include "analyzer/cli/huge_page_malloc.h"
#include "test_paths.h"
#include "test_util.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <sys/resource.h>

using topolens::cli::huge_page_tunables;
using topolens::cli::kernel_thp_mode;

namespace {

constexpr const char* kMadvise = "always [madvise] never\n";
constexpr const char* kBoth = "glibc.malloc.hugetlb=1:glibc.malloc.arena_max=1";

// Minor page faults of every command this process has run and waited for (their children too).
long child_faults() {
    rusage usage{};
    getrusage(RUSAGE_CHILDREN, &usage);
    return usage.ru_minflt;
}

} // namespace

TEST(HugePageMalloc, AsksForHugePagesAndOneArena) {
    EXPECT_EQ(huge_page_tunables(nullptr, nullptr, kMadvise), kBoth);
    EXPECT_EQ(huge_page_tunables("", nullptr, kMadvise), kBoth);
    EXPECT_EQ(huge_page_tunables(nullptr, nullptr, "[always] madvise never\n"), kBoth);
}

TEST(HugePageMalloc, KeepsTheUsersTunables) {
    EXPECT_EQ(huge_page_tunables("glibc.malloc.tcache_count=0", nullptr, kMadvise),
              std::string("glibc.malloc.tcache_count=0:") + kBoth);
    // The user's arena count stands.
    EXPECT_EQ(huge_page_tunables("glibc.malloc.arena_max=4", nullptr, kMadvise),
              "glibc.malloc.arena_max=4:glibc.malloc.hugetlb=1");
    // So does the user's huge-page choice, either way (and the restarted process stops here).
    EXPECT_EQ(huge_page_tunables("glibc.malloc.hugetlb=0", nullptr, kMadvise), std::nullopt);
    EXPECT_EQ(huge_page_tunables(kBoth, nullptr, kMadvise), std::nullopt);
}

TEST(HugePageMalloc, NotWhenTheKernelGivesNoneOrTheUserSaysNo) {
    EXPECT_EQ(huge_page_tunables(nullptr, nullptr, "always madvise [never]\n"), std::nullopt);
    EXPECT_EQ(huge_page_tunables(nullptr, nullptr, ""), std::nullopt); // no such file
    EXPECT_EQ(huge_page_tunables(nullptr, "0", kMadvise), std::nullopt);
    EXPECT_EQ(huge_page_tunables(nullptr, "1", kMadvise), kBoth);
    EXPECT_EQ(huge_page_tunables(nullptr, "", kMadvise), kBoth);
}

// A value that is neither 0 nor 1 is an error that names the variable, before any analysis
// (a misspelt "off" would otherwise be taken as on).
TEST(HugePageMalloc, AnyOtherValueIsRefusedByName) {
    for (const char* bad : {"off", "2", " 0", "yes"}) {
        SCOPED_TRACE(bad);
        try {
            huge_page_tunables(nullptr, bad, kMadvise);
            ADD_FAILURE() << "accepted";
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find("TOPOLENS_HUGE_PAGES"), std::string::npos);
            EXPECT_NE(std::string(e.what()).find(std::string("'") + bad + "'"), std::string::npos)
                << e.what();
        }
    }
    const auto r =
        topolens::test::run_command({topolens::test::topolens_bin(), "analyze", "/nonexistent"},
                                    {{"TOPOLENS_HUGE_PAGES", "off"}});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.err, "topolens: error: TOPOLENS_HUGE_PAGES must be 0 (off) or 1 (on), not 'off'\n");
}

// The point of it: the analysis of a trace of a million events takes far fewer page faults
// than with TOPOLENS_HUGE_PAGES=0 (about 24,000 then; a tenth of that with huge pages).
// Only where the kernel gives huge pages on request alone: with "always" both runs get them.
TEST(HugePageMalloc, TheAnalysisTakesFewerPageFaults) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    GTEST_SKIP() << "a sanitized topolens keeps the sanitizer's malloc";
#endif
    if (kernel_thp_mode().find("[madvise]") == std::string::npos)
        GTEST_SKIP() << "transparent huge pages are not in madvise mode here";
    topolens::test::ScratchDir scratch;
    const std::string bin = topolens::test::topolens_bin();
    const auto synth = topolens::test::run_command(
        {bin, "synth", "-o", (scratch / "t").string(), "--ranks", "16", "--pattern", "mixed",
         "--iterations", "500", "--blocks", "2", "--seed", "1"});
    ASSERT_EQ(synth.exit_code, 0) << synth.err;
    auto faults_of_analysis = [&](const char* huge_pages) {
        const long before = child_faults();
        const auto r = topolens::test::run_command(
            {bin, "analyze", "--quiet", (scratch / "t").string(), "-o",
             (scratch / "r.cubex").string()},
            {{"TOPOLENS_HUGE_PAGES", huge_pages}, {"GLIBC_TUNABLES", ""}, {"LD_PRELOAD", ""}});
        EXPECT_EQ(r.exit_code, 0) << r.err;
        return child_faults() - before;
    };
    const long plain = faults_of_analysis("0");
    const long huge = faults_of_analysis("1");
    EXPECT_GT(plain, 10000);
    EXPECT_LT(huge, plain / 2) << "4 KiB pages: " << plain << " faults";
}
