// Command-line pieces the MPI samples share (cg3d, halo2d): every rank parses the same
// arguments, so every rank reaches the same verdict.
#pragma once

#include <cstdlib>
#include <cstring>
#include <string>

namespace topolens::samples {

// Parses an integer in [min, 1e8] into `out` (1e8 us: 100 s; sums of them stay in range);
// returns false when it is not one.
inline bool parse_int(const char* text, int min, int& out) {
    char* end = nullptr;
    const long v = std::strtol(text, &end, 10);
    if (*text == '\0' || *end != '\0' || v < min || v > 100000000) return false;
    out = static_cast<int>(v);
    return true;
}

// `--compute busy|sleep`: spin until each deadline, or sleep until it. Returns an error
// message, empty when `value` is one of the two.
inline std::string parse_compute(const char* value, bool& sleep) {
    if (!value) return "--compute needs a value";
    if (std::strcmp(value, "busy") != 0 && std::strcmp(value, "sleep") != 0)
        return std::string("--compute: bad value '") + value + "' (busy or sleep)";
    sleep = std::strcmp(value, "sleep") == 0;
    return {};
}

} // namespace topolens::samples
