// `topolens analyze` holds hundreds of megabytes (the model, the matching, the root causes'
// arrays), touched once each, mostly in small and middle-sized blocks. With 4 KiB pages every
// first touch is a page fault and every random look-up a likely TLB miss; in virtual machines
// that trap each fault (~10 µs) the faults were half of the whole analysis. glibc's malloc
// puts its memory on transparent huge pages when asked by a tunable (glibc 2.35 and later:
// glibc.malloc.hugetlb=1; with one arena, so that the threads' blocks live there too), and
// tunables are read only when a process starts: so the analysis starts itself again with them.
#pragma once

#include <optional>
#include <string>

namespace topolens::cli {

// The kernel's transparent-huge-page mode: the text of
// /sys/kernel/mm/transparent_hugepage/enabled ("always [madvise] never"), empty if unreadable.
std::string kernel_thp_mode();

// The GLIBC_TUNABLES to run the analysis with, given their present value and that of
// TOPOLENS_HUGE_PAGES (null: unset) and the kernel's mode; nothing if it should run as it
// is: the user chose the tunables already, the kernel gives no huge pages, or
// TOPOLENS_HUGE_PAGES=0. Any value of it but 0 and 1 is refused (std::invalid_argument,
// naming the variable).
std::optional<std::string> huge_page_tunables(const char* present, const char* huge_pages,
                                              const std::string& thp_mode);

// Whether this process's malloc runs on huge pages: its GLIBC_TUNABLES ask for them.
bool malloc_on_huge_pages();

// Replaces this process by itself (same arguments, same pid) with the tunables above, unless
// there are none, the build is sanitized (the sanitizers bring their own malloc) or it runs
// under valgrind (which would let the new process run natively). Returns only if it did not
// (or the exec failed, which changes nothing); throws as huge_page_tunables.
void rerun_with_huge_page_malloc(char** argv);

} // namespace topolens::cli
