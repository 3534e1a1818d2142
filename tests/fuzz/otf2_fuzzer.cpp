// Fuzz target of the OTF2 reader: the input replaces one file of a genuine small trace
// (its first byte chooses which: the anchor, the global definitions, or a location's event
// or local definitions file); the trace is then read and matched as `topolens info` and
// `topolens analyze` do. A TraceError is the expected outcome for damaged input; a crash, a
// hang or a huge allocation is a bug.
#include "tests/fuzz/fuzz_target.h"

#include "trace/clock_range.h"
#include "trace/matching.h"
#include "trace/summary.h"
#include "trace/synthetic.h"

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

namespace fs = std::filesystem;
namespace tt = topolens::trace;

namespace {

// A 4-rank halo exchange with MPI_Isend/MPI_Irecv/MPI_Waitall and collectives, written once
// per process into a private directory; the files of the archive in a fixed order.
struct GenuineTrace {
    fs::path dir;
    std::vector<fs::path> files;
    std::vector<std::string> contents; // parallel to files

    GenuineTrace() {
        // Under $TMPDIR: fuzz.sh gives each run its own (libFuzzer may end without the
        // destructor that removes this directory).
        const char* tmp = std::getenv("TMPDIR");
        std::string name = std::string(tmp && *tmp ? tmp : "/tmp") + "/topolens-fuzz-otf2-XXXXXX";
        if (!mkdtemp(name.data())) std::abort();
        dir = name;
        tt::SynthOptions options;
        options.ranks = 4;
        options.pattern = tt::SynthPattern::Halo;
        options.variant = tt::SynthVariant::Nonblocking;
        options.iterations = 2;
        tt::Synthetic synthetic = tt::synthesize(options);
        synthetic.builder.write(dir.string());
        files.push_back(dir / "traces.otf2");
        files.push_back(dir / "traces.def");
        std::vector<fs::path> local;
        for (const auto& entry : fs::directory_iterator(dir / "traces"))
            local.push_back(entry.path());
        std::sort(local.begin(), local.end());
        files.insert(files.end(), local.begin(), local.end());
        for (const fs::path& f : files) {
            std::ifstream in(f, std::ios::binary);
            contents.emplace_back(std::istreambuf_iterator<char>(in),
                                  std::istreambuf_iterator<char>());
        }
    }
    ~GenuineTrace() {
        std::error_code ec;
        fs::remove_all(dir, ec);
    }
};

GenuineTrace& genuine() {
    static GenuineTrace trace;
    return trace;
}

void write_file(const fs::path& file, const char* data, size_t size) {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(data, static_cast<std::streamsize>(size));
}

// What info and analyze do with a trace before the replay; errors are expected.
void read_like_the_commands(const std::string& path) {
    try {
        auto [trace, matching] = tt::read_and_match(path, 1);
        const tt::TraceSummary summary = tt::summarize(trace);
        const auto warnings = tt::clock_range_warnings(trace);
        if (summary.events > 0 && summary.span_seconds() < 0) std::abort();
        (void)warnings;
        (void)matching;
    } catch (const tt::TraceError&) {
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    GenuineTrace& g = genuine();
    const size_t which = data[0] % g.files.size();
    write_file(g.files[which], reinterpret_cast<const char*>(data + 1), size - 1);
    read_like_the_commands(g.dir.string());
    const std::string& original = g.contents[which];
    write_file(g.files[which], original.data(), original.size());
    return 0;
}

namespace topolens::fuzz {

void write_seeds(const std::string& dir) {
    GenuineTrace& g = genuine();
    fs::create_directories(dir);
    for (size_t k = 0; k < g.files.size(); ++k) {
        std::string seed(1, static_cast<char>(k));
        seed += g.contents[k];
        const std::string name =
            "seed-" + std::to_string(k) + "-" + g.files[k].filename().string() + ".bin";
        write_file(fs::path(dir) / name, seed.data(), seed.size());
    }
}

bool run_path(const std::string& path) {
    std::error_code ec;
    if (!fs::is_directory(path, ec)) return false;
    bool anchor = false;
    for (const auto& entry : fs::directory_iterator(path, ec))
        anchor = anchor || entry.path().extension() == ".otf2";
    if (!anchor) return false; // a corpus directory
    read_like_the_commands(path);
    return true;
}

} // namespace topolens::fuzz
