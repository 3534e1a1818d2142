// A field of /proc/self/status in kB (VmHWM: peak resident memory, VmRSS: resident now), 0 if
// absent: what the benchmarks report memory with.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

namespace topolens::bench {

inline uint64_t status_kb(const char* field) {
    std::ifstream in("/proc/self/status");
    const std::size_t len = std::strlen(field);
    for (std::string line; std::getline(in, line);)
        if (line.compare(0, len, field) == 0) return std::strtoull(line.c_str() + len, nullptr, 10);
    return 0;
}

} // namespace topolens::bench
