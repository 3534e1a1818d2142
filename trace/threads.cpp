#include "trace/threads.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <exception>
#include <sched.h>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace topolens::trace {

unsigned worker_threads() {
    constexpr unsigned long kMax = 256;
    if (const char* set = std::getenv("TOPOLENS_THREADS"); set && *set) {
        char* end = nullptr;
        const unsigned long n = std::strtoul(set, &end, 10);
        if (*end != '\0' || set[0] == '-' || n < 1 || n > kMax)
            throw std::invalid_argument("TOPOLENS_THREADS='" + std::string(set) +
                                        "': expected a number of threads from 1 to " +
                                        std::to_string(kMax));
        return static_cast<unsigned>(n);
    }
    // The cores this process may run on (a container's cpuset), else all of them.
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return static_cast<unsigned>(std::min<int>(CPU_COUNT(&set), kMax));
    return std::max(1u, std::thread::hardware_concurrency());
}

void parallel_for(std::size_t n, unsigned threads,
                  const std::function<void(std::size_t, unsigned)>& work) {
    threads = static_cast<unsigned>(std::clamp<std::size_t>(n, 1, std::max(1u, threads)));
    if (threads == 1) {
        for (std::size_t i = 0; i < n; ++i) work(i, 0);
        return;
    }
    std::atomic<std::size_t> next{0};
    std::vector<std::exception_ptr> errors(n);
    auto loop = [&](unsigned thread) {
        for (std::size_t i; (i = next++) < n;) {
            try {
                work(i, thread);
            } catch (...) {
                errors[i] = std::current_exception();
            }
        }
    };
    {
        std::vector<std::jthread> pool; // joined when left, also when starting one throws
        for (unsigned t = 1; t < threads; ++t) pool.emplace_back(loop, t);
        loop(0);
    }
    for (const std::exception_ptr& e : errors)
        if (e) std::rethrow_exception(e);
}

} // namespace topolens::trace
