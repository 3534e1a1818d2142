// What each fuzz target (otf2_fuzzer.cpp, cube4_fuzzer.cpp) provides besides libFuzzer's
// entry point: its seed inputs, and a run on a whole input that is not a byte string.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace topolens::fuzz {

// Writes the target's seed inputs (made from a genuine input built here) into `dir`.
void write_seeds(const std::string& dir);

// Runs the target on `path` as a whole (a trace directory for the OTF2 target), as the
// command would; false when the target takes `path` as an ordinary input file instead.
bool run_path(const std::string& path);

} // namespace topolens::fuzz
