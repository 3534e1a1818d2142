// patterns::open_report: a trace directory (or anchor) stands for its report.cubex, made
// first when missing or older than any file of the trace, read as it is otherwise.
#include "analyzer/report/cube4.h"
#include "patterns/metric_names.h"
#include "patterns/trace_report.h"
#include "test_util.h"
#include "trace/builder.h"
#include "trace/synthetic.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <sstream>

using namespace topolens;
using test::ScratchDir;
using namespace std::chrono_literals;

namespace {

namespace fs = std::filesystem;

// Two ranks: rank 1 waits 60 ticks (ns) for a late sender.
std::string write_trace(const fs::path& dir) {
    trace::TraceBuilder b(2);
    b.mpi_init(0, 0, 5);
    b.mpi_init(1, 0, 5);
    b.mpi_send(0, 100, 110, 1, b.world(), 7, 64);
    b.mpi_recv(1, 40, 120, 0, b.world(), 7, 64);
    b.mpi_finalize(0, 300, 305);
    b.mpi_finalize(1, 300, 305);
    return b.write(dir.string());
}

double late_sender(const report::Report& r) {
    return r.total(*r.find_metric(patterns::metric::kLateSender));
}

} // namespace

TEST(TraceReport, WrittenFirstThenReadAsItIs) {
    ScratchDir scratch;
    const fs::path dir = scratch / "t";
    write_trace(dir);
    const std::string report = (dir / "report.cubex").string();

    std::ostringstream notes;
    const report::Report first = patterns::open_report(dir.string(), notes);
    EXPECT_EQ(notes.str(), "topolens: analyzing " + dir.string() +
                               " first: it has no report yet (" + report +
                               ")\ntopolens: report written to " + report + "\n");
    EXPECT_DOUBLE_EQ(late_sender(first), 60e-9);
    EXPECT_DOUBLE_EQ(late_sender(report::read_cube4(report)), 60e-9);

    // Up to date: read, not written again, nothing said.
    const auto written = fs::last_write_time(report);
    std::ostringstream again;
    EXPECT_DOUBLE_EQ(late_sender(patterns::open_report(dir.string(), again)), 60e-9);
    EXPECT_EQ(again.str(), "");
    EXPECT_EQ(fs::last_write_time(report), written);
}

TEST(TraceReport, ReportOlderThanAnyTraceFileIsMadeAgain) {
    ScratchDir scratch;
    const fs::path dir = scratch / "t";
    const std::string anchor = write_trace(dir);
    std::ostringstream ignored;
    patterns::open_report(dir.string(), ignored);
    const std::string report = (dir / "report.cubex").string();
    // Any file of the archive counts: the anchor, the global definitions, a location's events.
    // Each in turn is the one file modified after the report.
    const auto now = fs::file_time_type::clock::now();
    for (const fs::path& file : {fs::path(anchor), dir / "traces.def", dir / "traces" / "0.evt"}) {
        SCOPED_TRACE(file.string());
        ASSERT_TRUE(fs::exists(file));
        for (const auto& entry : fs::recursive_directory_iterator(dir))
            if (entry.is_regular_file()) fs::last_write_time(entry.path(), now - 100s);
        fs::last_write_time(report, now - 50s);
        std::ostringstream none;
        patterns::open_report(dir.string(), none);
        EXPECT_EQ(none.str(), ""); // the report is newer than every file of the trace

        fs::last_write_time(file, now - 10s);
        // Given as the anchor, the same report.
        std::ostringstream notes;
        EXPECT_DOUBLE_EQ(late_sender(patterns::open_report(anchor, notes)), 60e-9);
        EXPECT_EQ(notes.str(), "topolens: analyzing " + anchor + " first: " + report +
                                   " is older than the trace\ntopolens: report written to " +
                                   report + "\n");
        EXPECT_GT(fs::last_write_time(report), now - 10s);
    }
}

TEST(TraceReport, ADirectoryWithAReportOnlyOrWithNeither) {
    ScratchDir scratch;
    const fs::path source = scratch / "t";
    write_trace(source);
    std::ostringstream ignored;
    patterns::open_report(source.string(), ignored);
    const fs::path only = scratch / "only-report";
    fs::create_directories(only);
    fs::copy_file(source / "report.cubex", only / "report.cubex");
    std::ostringstream notes;
    EXPECT_DOUBLE_EQ(late_sender(patterns::open_report(only.string(), notes)), 60e-9);
    EXPECT_EQ(notes.str(), "");

    const fs::path empty = scratch / "empty";
    fs::create_directories(empty);
    try {
        patterns::open_report(empty.string(), notes);
        FAIL() << "no error for an empty directory";
    } catch (const std::runtime_error& e) {
        EXPECT_EQ(std::string(e.what()),
                  empty.string() + ": neither a trace (no .otf2 anchor) nor a report (no " +
                      "report.cubex, no profile.cubex) is in this directory");
    }
    EXPECT_FALSE(fs::exists(empty / "report.cubex"));
}

TEST(TraceReport, ADirectoryOfProfileModeStandsForItsProfile) {
    ScratchDir scratch;
    const fs::path source = scratch / "t";
    write_trace(source);
    std::ostringstream ignored;
    patterns::open_report(source.string(), ignored);
    // What TOPOLENS_MODE=profile leaves: profile.cubex and no trace (a report stands in).
    const fs::path profile = scratch / "profile-run";
    fs::create_directories(profile);
    fs::copy_file(source / "report.cubex", profile / "profile.cubex");
    std::ostringstream notes;
    EXPECT_DOUBLE_EQ(late_sender(patterns::open_report(profile.string(), notes)), 60e-9);
    EXPECT_EQ(notes.str(), "");
    EXPECT_FALSE(fs::exists(profile / "report.cubex"));
}

TEST(TraceReport, AReportFileIsReadAsItIs) {
    ScratchDir scratch;
    write_trace(scratch / "t");
    std::ostringstream notes;
    patterns::open_report((scratch / "t").string(), notes);
    std::ostringstream none;
    const std::string report = (scratch / "t" / "report.cubex").string();
    EXPECT_DOUBLE_EQ(late_sender(patterns::open_report(report, none)), 60e-9);
    EXPECT_EQ(none.str(), "");
}

// The report made first is returned as the file holds it: Cube's files store each metric with
// its children and number call paths in their own order, and taking that apart again can
// round a last digit differently from the analysis' own values (and sums over call paths
// add in another order); every command on the directory must show the same values.
TEST(TraceReport, TheReportMadeFirstIsTheOneLaterCommandsRead) {
    ScratchDir scratch;
    const fs::path dir = scratch / "t";
    trace::SynthOptions o;
    o.grid = {4, 3};
    o.iterations = 6;
    trace::synthesize(o).builder.write(dir.string());
    std::ostringstream notes;
    const report::Report made = patterns::open_report(dir.string(), notes);
    const report::Report read = report::read_cube4((dir / "report.cubex").string());
    ASSERT_EQ(made.metrics.size(), read.metrics.size());
    ASSERT_EQ(made.callpaths.size(), read.callpaths.size());
    size_t values = 0;
    for (int m = 0; m < static_cast<int>(made.metrics.size()); ++m)
        for (int c = 0; c < static_cast<int>(made.callpaths.size()); ++c) {
            // The same call path in both (same regions from the root), whatever its number.
            ASSERT_EQ(made.callpaths[c].region, read.callpaths[c].region) << "call path " << c;
            ASSERT_EQ(made.callpaths[c].parent, read.callpaths[c].parent) << "call path " << c;
            for (int l = 0; l < static_cast<int>(made.locations.size()); ++l) {
                values += made.value(m, c, l) != 0.0;
                ASSERT_EQ(made.value(m, c, l), read.value(m, c, l))
                    << made.metrics[m].unique_name << " call path " << c << " location " << l;
            }
        }
    EXPECT_GT(values, 100u);
}
