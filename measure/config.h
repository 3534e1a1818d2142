// Measurement configuration from environment variables (documented in docs/recording.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace topolens::measure {

struct Config {
    bool enabled = true;
    std::string trace_dir;            // empty: a default name is chosen by rank 0
    uint64_t buffer_bytes = 16 << 20; // per-process event buffer
    std::string report_path_file;     // where rank 0 writes the final archive path
    bool verbose = false;
    // TOPOLENS_MODE: what the run writes. An OTF2 trace, a CUBE4 call-path profile at
    // MPI_Finalize (measure/profile.h), or both ("trace,profile", as Score-P's
    // SCOREP_ENABLE_TRACING and SCOREP_ENABLE_PROFILING together).
    bool trace = true;
    bool profile = false;
};

inline constexpr uint64_t kMinBufferBytes = 256 << 10; // one OTF2 chunk
inline constexpr uint64_t kMaxBufferBytes = 64ULL << 30;

// Reads TOPOLENS_* variables. Bad values fall back to defaults (or switch measurement
// off, for TOPOLENS_ENABLE) and add a message to `problems`.
Config read_config(std::vector<std::string>& problems);

// TOPOLENS_FILTER: the filter file for instrumented functions (empty: none). Read apart
// from read_config because the first instrumented call comes before MPI_Init.
std::string filter_file();

// "16M", "512K", "1G", "1048576" -> bytes; nullopt-like: returns false on bad input.
bool parse_size(const std::string& text, uint64_t& bytes);

} // namespace topolens::measure
