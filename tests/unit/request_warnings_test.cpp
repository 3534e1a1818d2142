// Warnings the matching gives about requests (never completed, completed but never issued)
// and about events outside the trace's ClockProperties range.
#include "test_util.h"

#include "test_paths.h"
#include "trace/builder.h"
#include "trace/clock_range.h"
#include "trace/matching.h"
#include "trace/reader.h"
#include "trace/synthetic.h"

#include <gtest/gtest.h>

namespace topolens::test {
namespace {

namespace fs = std::filesystem;
using namespace topolens::trace;

std::vector<std::string> warnings_with(const std::vector<std::string>& warnings,
                                       const std::string& part) {
    std::vector<std::string> found;
    for (const std::string& w : warnings)
        if (w.find(part) != std::string::npos) found.push_back(w);
    return found;
}

TEST(RequestWarnings, UnfinishedAndUnknownRequests) {
    TraceBuilder b(2);
    b.mpi_init(0, 0, 10);
    b.mpi_isend(0, 100, 110, 1, b.world(), 1, 8, 7); // event 3: never completed
    b.isend_complete(0, 200, 42);                    // event 5: request 42 never issued
    b.mpi_finalize(0, 300, 310);
    b.mpi_init(1, 0, 10);
    b.mpi_irecv(1, 100, 105, 9);             // event 3: never completed
    b.mpi_irecv(1, 120, 125, 50);            // cancelled: finished
    b.request_cancelled(1, 130, 50);         // event 8
    b.irecv(1, 150, 0, b.world(), 1, 8, 43); // event 9: request 43 never posted
    b.mpi_finalize(1, 300, 310);
    const Matching m = match(b.trace(), 1);
    const std::vector<std::string> expected = {
        "location 0 (rank 0), event 5: MPI_Isend completion of request 42 at tick 200, a "
        "request never issued on this location",
        "location 0 (rank 0), event 3: MPI_Isend request 7 issued at tick 100 never completed "
        "in the trace (no completion or cancellation record)",
        "location 1 (rank 1), event 9: MPI_Irecv completion of request 43 at tick 150, a "
        "request never issued on this location",
        "location 1 (rank 1), event 3: MPI_Irecv request 9 issued at tick 100 never completed "
        "in the trace (no completion or cancellation record)",
    };
    EXPECT_EQ(warnings_with(m.warnings, "request"), expected);
    // The same with more threads.
    EXPECT_EQ(warnings_with(match(b.trace(), 4).warnings, "request"), expected);
}

TEST(RequestWarnings, ReusedIdOfAnOpenRequest) {
    TraceBuilder b(2);
    b.mpi_isend(0, 100, 110, 1, b.world(), 1, 8, 7); // event 1
    b.mpi_isend(0, 200, 210, 1, b.world(), 1, 8, 7); // event 4, completed below
    b.mpi_wait_send(0, 300, 310, 7);
    b.mpi_recv(1, 100, 400, 0, b.world(), 1, 8);
    b.mpi_recv(1, 400, 500, 0, b.world(), 1, 8);
    const Matching m = match(b.trace(), 1);
    EXPECT_EQ(warnings_with(m.warnings, "request"),
              std::vector<std::string>{
                  "location 0 (rank 0), event 1: MPI_Isend request 7 issued at tick 100 never "
                  "completed in the trace (no completion or cancellation record)"});
}

TEST(RequestWarnings, SendToABadPeerIsNoUnknownRequest) {
    TraceBuilder b(2);
    b.mpi_isend(0, 100, 110, 1, b.world(), 1, 8, 7); // event 1
    b.mpi_wait_send(0, 200, 210, 7);
    Trace t = b.trace();
    Event& isend = t.locations[0].events[1];
    ASSERT_EQ(isend.kind, EventKind::MpiIsend);
    isend.set_message(5, isend.comm(), isend.tag(), isend.bytes); // rank 5: outside the trace
    const Matching m = match(t, 1);
    EXPECT_EQ(m.warnings, std::vector<std::string>{"location 0 (rank 0), event 1: send to a rank "
                                                   "outside the trace"});
}

TEST(RequestWarnings, CompleteNonblockingTrafficHasNone) {
    SynthOptions options;
    options.ranks = 4;
    options.pattern = SynthPattern::Halo;
    options.variant = SynthVariant::Nonblocking;
    options.iterations = 2;
    const Synthetic s = synthesize(options);
    const Matching m = match(s.builder.trace(), 2);
    EXPECT_TRUE(m.warnings.empty()) << m.warnings.front();
}

TEST(ClockRange, LocationsOutsideTheRangeAreNamed) {
    TraceBuilder b(3);
    b.set_clock_properties(1000, 500);
    b.mpi_init(0, 1000, 1100);
    b.mpi_finalize(0, 1400, 1500); // inside, up to the end
    b.mpi_init(1, 5000, 5100);     // all outside (another run's file)
    b.mpi_finalize(1, 5900, 6000);
    b.mpi_init(2, 900, 1100); // begins before the range
    b.mpi_finalize(2, 1400, 1500);
    const std::vector<std::string> expected = {
        "location 1 (rank 1): events from tick 5000 to 6000 lie outside the trace's time range "
        "(ClockProperties: ticks 1000 to 1500); the event file may come from another run; its "
        "events are taken as recorded",
        "location 2 (rank 2): events from tick 900 to 1500 lie outside the trace's time range "
        "(ClockProperties: ticks 1000 to 1500); the event file may come from another run; its "
        "events are taken as recorded"};
    EXPECT_EQ(clock_range_warnings(b.trace()), expected);
    EXPECT_EQ(warnings_with(match(b.trace(), 2).warnings, "outside the trace's time range"),
              expected);

    // Read back from the files: the same.
    ScratchDir dir;
    b.write((dir / "t").string());
    EXPECT_EQ(clock_range_warnings(read_trace((dir / "t").string())), expected);

    // Without a recorded range (trace_length 0) nothing is said; inside it neither.
    TraceBuilder none(1);
    none.mpi_init(0, 5000, 5100);
    EXPECT_TRUE(clock_range_warnings(none.trace()).empty());
    TraceBuilder inside(1);
    inside.mpi_init(0, 5000, 5100);
    ScratchDir dir2;
    inside.write((dir2 / "t").string()); // the range is derived from the events
    EXPECT_TRUE(clock_range_warnings(read_trace((dir2 / "t").string())).empty());
}

// The reproducer: one .evt of another run of the same program.
TEST(ClockRange, ForeignEventFileIsWarnedAbout) {
    const fs::path dir = fs::path(topolens::test::robustness_dir()) / "foreign_evt_same_program";
    if (!fs::exists(dir / "traces.otf2")) GTEST_SKIP() << dir << " missing";
    const auto warnings = clock_range_warnings(read_trace(dir.string()));
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_NE(warnings[0].find("lie outside the trace's time range"), std::string::npos);
    const CommandResult info = run_command({topolens::test::topolens_bin(), "info", dir.string()});
    EXPECT_EQ(info.exit_code, 0) << info.err;
    EXPECT_EQ(info.err, "topolens: warning: " + warnings[0] + "\n");
    ScratchDir scratch;
    const CommandResult analyze = run_command({topolens::test::topolens_bin(), "analyze",
                                               dir.string(), "-o", (scratch / "r.cubex").string()});
    EXPECT_EQ(analyze.exit_code, 0) << analyze.err;
    EXPECT_NE(analyze.err.find("topolens: warning: " + warnings[0]), std::string::npos)
        << analyze.err;
}

} // namespace
} // namespace topolens::test
