#include "analyzer/cli/huge_page_malloc.h"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <unistd.h>

namespace topolens::cli {

namespace {

constexpr const char* kHugePages = "glibc.malloc.hugetlb=1";
constexpr const char* kOneArena = "glibc.malloc.arena_max=1";

bool names(const std::string& tunables, const char* tunable) {
    return tunables.find(tunable) != std::string::npos;
}

} // namespace

std::string kernel_thp_mode() {
    std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

std::optional<std::string> huge_page_tunables(const char* present, const char* huge_pages,
                                              const std::string& thp_mode) {
    const std::string choice = huge_pages ? huge_pages : "";
    if (!choice.empty() && choice != "0" && choice != "1")
        throw std::invalid_argument("TOPOLENS_HUGE_PAGES must be 0 (off) or 1 (on), not '" +
                                    choice + "'");
    if (choice == "0") return std::nullopt;
    // "always [madvise] never": the bracketed word is the mode in force.
    if (!names(thp_mode, "[madvise]") && !names(thp_mode, "[always]")) return std::nullopt;
    const std::string tunables = present ? present : "";
    // The user's own choice of either stands (and ends the loop: the new process finds it).
    if (names(tunables, "glibc.malloc.hugetlb")) return std::nullopt;
    std::string wanted = tunables.empty() ? "" : tunables + ":";
    wanted += kHugePages;
    if (!names(tunables, "glibc.malloc.arena_max")) wanted += std::string(":") + kOneArena;
    return wanted;
}

bool malloc_on_huge_pages() {
    const char* tunables = std::getenv("GLIBC_TUNABLES");
    return tunables && names(tunables, kHugePages);
}

void rerun_with_huge_page_malloc(char** argv) {
    // The variable is checked in every build, so that a bad value is refused alike.
    const char* present = std::getenv("GLIBC_TUNABLES");
    const std::optional<std::string> tunables =
        huge_page_tunables(present, std::getenv("TOPOLENS_HUGE_PAGES"), kernel_thp_mode());
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    (void)argv;
#else
    if (!tunables) return;
    const char* preload = std::getenv("LD_PRELOAD");
    if (preload && std::strstr(preload, "vgpreload")) return; // under valgrind
    const std::string before = present ? present : "";
    setenv("GLIBC_TUNABLES", tunables->c_str(), 1);
    execv("/proc/self/exe", argv);
    // Still here: the exec failed; go on as before.
    if (present)
        setenv("GLIBC_TUNABLES", before.c_str(), 1);
    else
        unsetenv("GLIBC_TUNABLES");
#endif
}

} // namespace topolens::cli
