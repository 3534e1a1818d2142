// Runs a fuzz target without libFuzzer, for the sanitizer builds of tests/run.sh: each
// argument is an input file, a directory of input files (a corpus), or an input the target
// takes whole (a trace directory). `--write-seeds DIR` writes the target's seed corpus.
#include "tests/fuzz/fuzz_target.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <vector>

namespace fs = std::filesystem;

namespace {

void run_file(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
}

} // namespace

int main(int argc, char** argv) {
    if (argc == 3 && std::string(argv[1]) == "--write-seeds") {
        topolens::fuzz::write_seeds(argv[2]);
        return 0;
    }
    size_t runs = 0;
    for (int a = 1; a < argc; ++a) {
        const fs::path path(argv[a]);
        std::cerr << "replay: " << path.string() << "\n";
        if (topolens::fuzz::run_path(path.string())) {
            ++runs;
        } else if (fs::is_directory(path)) {
            std::vector<fs::path> files;
            for (const auto& entry : fs::directory_iterator(path))
                if (entry.is_regular_file()) files.push_back(entry.path());
            std::sort(files.begin(), files.end());
            for (const fs::path& f : files) run_file(f), ++runs;
        } else if (fs::is_regular_file(path)) {
            run_file(path);
            ++runs;
        } else {
            std::cerr << "replay: " << path.string() << ": no such input\n";
            return 1;
        }
    }
    std::cerr << "replay: " << runs << " inputs run\n";
    return 0;
}
