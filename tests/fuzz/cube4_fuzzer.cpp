// Fuzz target of the CUBE4 reader: the input is a .cubex, read and summed up as
// `topolens summary` does. A ReportError is the expected outcome for damaged input; a
// crash, a hang or a huge allocation is a bug.
#include "tests/fuzz/fuzz_target.h"

#include "analyzer/report/cube4.h"
#include "analyzer/report/report_grid.h"
#include "patterns/analyze_file.h"
#include "trace/synthetic.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <unistd.h>

namespace fs = std::filesystem;
namespace rp = topolens::report;
namespace tt = topolens::trace;

namespace {

std::string temp_path() {
    static const std::string path = [] {
        const char* tmp = std::getenv("TMPDIR");
        std::string name = std::string(tmp && *tmp ? tmp : "/tmp") + "/topolens-fuzz-cube4-XXXXXX";
        const int fd = mkstemp(name.data());
        if (fd < 0) std::abort();
        close(fd);
        return name;
    }();
    return path;
}

void write_file(const std::string& file, const char* data, size_t size) {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(data, static_cast<std::streamsize>(size));
}

void read_like_summary(const std::string& path) {
    try {
        const rp::Report report = rp::read_cube4(path);
        double sum = 0;
        for (std::size_t m = 0; m < report.metrics.size(); ++m)
            sum += report.total(static_cast<int>(m));
        for (std::size_t root = 0; root < report.metrics.size(); ++root)
            if (report.metrics[root].parent == -1)
                for (int m : report.metric_subtree(static_cast<int>(root))) (void)m;
        const rp::ReportGrid grid = rp::report_grid(report);
        (void)grid;
        (void)sum;
    } catch (const rp::ReportError&) {
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string path = temp_path();
    write_file(path, reinterpret_cast<const char*>(data), size);
    read_like_summary(path);
    std::remove(path.c_str()); // written again for the next input
    return 0;
}

namespace topolens::fuzz {

// The report of a small synthetic trace (every wait-state pattern), as `analyze` writes it.
void write_seeds(const std::string& dir) {
    fs::create_directories(dir);
    char name[] = "/tmp/topolens-fuzz-seed-XXXXXX";
    if (!mkdtemp(name)) std::abort();
    tt::SynthOptions options;
    options.ranks = 4;
    options.pattern = tt::SynthPattern::Mixed;
    options.iterations = 1;
    tt::synthesize(options).builder.write(name);
    const auto analysis = patterns::analyze_file(name);
    rp::write_cube4(analysis.result.report, (fs::path(dir) / "seed-mixed.cubex").string());
    fs::remove_all(name);
}

bool run_path(const std::string&) {
    return false;
}

} // namespace topolens::fuzz
