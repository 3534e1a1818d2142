#include "trace/threads.h"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <thread>

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
    return std::max(1u, std::thread::hardware_concurrency());
}

} // namespace topolens::trace
