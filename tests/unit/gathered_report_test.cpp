// write_cube4_gathered with ranks as threads: each rank's report keeps its own locations, and
// the file rank 0 writes is byte for byte what write_cube4 writes of the whole report.
#include "analyzer/engine/gathered_report.h"
#include "analyzer/report/cube4.h"
#include "report_sample.h"
#include "test_util.h"
#include "trace/thread_exchange.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace topolens::test {
namespace {

using namespace topolens::report;

using Windows = std::vector<Report::LocationWindow>;

// The sample with what the writer must get right on top: a derived metric between a
// metric and a stored child, a metric without values, wait edges, and a -0.0 of a row
// whose child metric's row has values on other ranks only.
Report rich_report() {
    Report r = sample_report();
    Metric derived;
    derived.unique_name = "mpi_derived";
    derived.display_name = "Derived";
    derived.parent = 1; // mpi
    derived.derived_type = "POSTDERIVED";
    derived.cubepl = "metric::mpi()";
    const int d = r.add_metric(derived);
    Metric below;
    below.unique_name = "below_derived";
    below.display_name = "Below derived";
    below.parent = d;
    const int b = r.add_metric(below);
    r.add_value(b, 3, 0, 0.0625);
    r.add_value(b, 3, 3, 0.1875);
    Metric empty;
    empty.unique_name = "nothing";
    empty.display_name = "Nothing";
    r.add_metric(empty);
    // mpi at MPI_Recv: [.25, .5, -0, .75]; Late Sender there: [.5, 1, 0, 0].
    r.set_value(1, 4, 3, 0.75);
    r.set_value(1, 4, 2, 1.0);
    r.set_value(1, 4, 2, -0.0);
    r.wait_edges = {{"latesender", 1, 0, 0.5}, {"barrier", 3, 2, 0.25}};
    return r;
}

// Writes `whole` from ranks in threads, rank r keeping `windows[r]`.
void write_from_ranks(const Report& whole, const Windows& windows, const std::string& path) {
    trace::run_ranks_in_threads(static_cast<unsigned>(windows.size()), [&](trace::Exchange& e) {
        Report kept = whole;
        kept.keep_locations(windows[e.rank()].first, windows[e.rank()].last);
        if (e.rank() != 0) kept.wait_edges.clear(); // rank 0's are written
        analysis::write_cube4_gathered(kept, e, path);
    });
}

void expect_gathered_is_whole(const Report& whole, const std::vector<Windows>& tilings) {
    ScratchDir dir;
    write_cube4(whole, (dir / "whole.cubex").string());
    const std::string expected = read_file(dir / "whole.cubex");
    for (const Windows& windows : tilings) {
        std::string name = "ranks";
        for (const auto& w : windows) name += "_" + std::to_string(w.last);
        SCOPED_TRACE(name);
        const std::string path = (dir / (name + ".cubex")).string();
        write_from_ranks(whole, windows, path);
        EXPECT_TRUE(read_file(path) == expected) << "the files differ";
    }
}

const std::vector<Windows> kTilings = {
    {{0, 4}},
    {{0, 2}, {2, 4}},
    {{0, 1}, {1, 3}, {3, 4}},
    {{0, 1}, {1, 2}, {2, 3}, {3, 4}},
    {{0, 3}, {3, 3}, {3, 4}}, // a rank without locations
};

TEST(GatheredReport, TheSampleIsWrittenAsWholeFromAnyNumberOfRanks) {
    expect_gathered_is_whole(sample_report(), kTilings);
}

TEST(GatheredReport, DerivedEmptyAndOneRankMetricsAndWaitEdgesAreWrittenAsWhole) {
    const Report whole = rich_report();
    expect_gathered_is_whole(whole, kTilings);
    // What the file holds is the whole report's, read back.
    ScratchDir dir;
    write_from_ranks(whole, kTilings[2], (dir / "r.cubex").string());
    const Report back = read_cube4((dir / "r.cubex").string());
    // Read back, call paths are numbered depth-first.
    const int allreduce = *back.find_callpath("program/main/MPI_Allreduce");
    const int recv = *back.find_callpath("program/main/solver/MPI_Recv");
    EXPECT_EQ(back.value(*back.find_metric("below_derived"), allreduce, 3), 0.1875);
    EXPECT_EQ(back.value(*back.find_metric("clock_violations"), recv, 1), 2.0);
    EXPECT_EQ(back.value(*back.find_metric("mpi"), recv, 3), 0.75);
    EXPECT_TRUE(back.callpaths_with_values(*back.find_metric("nothing")).empty());
    EXPECT_EQ(back.wait_edges, whole.wait_edges);
}

TEST(GatheredReport, RanksThatDoNotKeepEveryLocationOnceAllFail) {
    ScratchDir dir;
    const std::string path = (dir / "r.cubex").string();
    for (const Windows& windows : std::vector<Windows>{{{0, 2}, {1, 4}}, {{0, 2}, {2, 3}}}) {
        std::vector<std::string> errors(windows.size());
        trace::run_ranks_in_threads(2, [&](trace::Exchange& e) {
            Report kept = sample_report();
            kept.keep_locations(windows[e.rank()].first, windows[e.rank()].last);
            try {
                analysis::write_cube4_gathered(kept, e, path);
            } catch (const ReportError& error) {
                errors[e.rank()] = error.what();
            }
        });
        EXPECT_TRUE(contains_words(errors[0], "do not keep every location once")) << errors[0];
        EXPECT_EQ(errors[1], errors[0]);
        EXPECT_FALSE(std::filesystem::exists(path));
    }
}

TEST(GatheredReport, AFileThatCannotBeCreatedStopsEveryRank) {
    ScratchDir dir;
    const std::string path = (dir / "missing" / "r.cubex").string();
    std::vector<std::string> errors(3);
    trace::run_ranks_in_threads(3, [&](trace::Exchange& e) {
        Report kept = sample_report();
        const int first = e.rank() == 0 ? 0 : static_cast<int>(e.rank()) + 1;
        kept.keep_locations(first, e.rank() == 0 ? 2 : first + 1);
        try {
            analysis::write_cube4_gathered(kept, e, path);
        } catch (const ReportError& error) {
            errors[e.rank()] = error.what();
        }
    });
    EXPECT_TRUE(contains_words(errors[0], "cannot write " + path)) << errors[0];
    for (unsigned r = 1; r < 3; ++r) EXPECT_EQ(errors[r], errors[0]);
}

TEST(GatheredReport, WriteCube4RefusesAReportKeepingAPart) {
    ScratchDir dir;
    Report kept = sample_report();
    kept.keep_locations(0, 2);
    EXPECT_THROW(write_cube4(kept, (dir / "r.cubex").string()), std::logic_error);
}

} // namespace
} // namespace topolens::test
