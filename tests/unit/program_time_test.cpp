// The whole program's time (issue 21): the program region (OTF2 ProgramBegin/ProgramEnd, as
// Score-P records it) and Scalasca's Time -> Execution -> Computation / MPI, Overhead, on
// exact synthetic traces (1 tick = 1 ns), with and without the program region, and through
// writing and reading OTF2.
#include "pattern_test_util.h"
#include "test_util.h"

#include "patterns/metric_names.h"
#include "trace/program_encoding.h"
#include "trace/reader.h"
#include "trace/writer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace topolens;
using namespace topolens::test;
namespace metric = patterns::metric;
using trace::EventKind;

namespace {

const std::vector<std::string> kArguments = {"-n", "4"};

// Two ranks. Rank 0: Init [10, 20], region "solver" [30, 100] holding MPI_Send [40, 50] to
// rank 1, a buffer flush [110, 130] outside every call, Finalize [200, 210]. Rank 1: Init
// [10, 20], MPI_Recv [30, 60] (the send began at 40: Late Sender 10) with a buffer flush
// [35, 45] inside it, Finalize [200, 210]. With `program`, the program region spans rank 0
// from 0 to 215 (exit status 3) and rank 1 from 2 to 212.
trace::TraceBuilder run_of(bool program) {
    trace::TraceBuilder b(2);
    if (program) {
        b.program("/opt/app/ssor", kArguments);
        b.program_begin(0, 0);
        b.program_begin(1, 2);
    }
    b.mpi_init(0, 10, 20);
    b.mpi_init(1, 10, 20);
    const auto solver = b.region("solver");
    b.enter(0, 30, solver);
    b.mpi_send(0, 40, 50, 1, b.world(), 0, 8);
    b.leave(0, 100, solver);
    b.buffer_flush(0, 110, 130);
    const auto recv = b.mpi_region("MPI_Recv");
    b.enter(1, 30, recv);
    b.buffer_flush(1, 35, 45);
    b.recv(1, 60, 0, b.world(), 0, 8);
    b.leave(1, 60, recv);
    b.mpi_finalize(0, 200, 210);
    b.mpi_finalize(1, 200, 210);
    if (program) {
        b.program_end(0, 215, 3);
        b.program_end(1, 212);
    }
    return b;
}

// Metric-inclusive and call-path-exclusive: the call path's own part of the metric's tree.
// An unknown metric or call path fails the test, as value() does.
double own(const analysis::AnalysisResult& r, const char* metric_name, const std::string& path,
           uint32_t location) {
    const auto m = r.report.find_metric(metric_name);
    const auto cp = r.report.find_callpath(path);
    if (!m) ADD_FAILURE() << "no metric " << metric_name;
    if (!cp) ADD_FAILURE() << "no call path " << path;
    if (!m || !cp) return 0.0;
    return r.report.metric_inclusive(*m, *cp, static_cast<int>(location));
}

} // namespace

TEST(ProgramTime, TheProgramRegionIsTheRootAndTimeCoversTheRun) {
    const auto r = run(run_of(true));
    // The root call path is the program region, named after the executable.
    const report::Region& root = r.report.regions[r.report.callpaths[0].region];
    EXPECT_EQ(root.name, "ssor");
    EXPECT_EQ(root.canonical_name, "/opt/app/ssor -n 4");
    EXPECT_EQ(root.paradigm, "measurement");
    EXPECT_EQ(root.role, "artificial");
    EXPECT_EQ(r.report.callpath_name(*r.report.find_callpath("ssor/solver/MPI_Send")),
              "ssor/solver/MPI_Send");
    // "program/..." still names the root's call paths.
    EXPECT_EQ(r.report.find_callpath("program/solver/MPI_Send"),
              r.report.find_callpath("ssor/solver/MPI_Send"));
    EXPECT_EQ(r.report.find_callpath("program/MPI_Recv"), r.report.find_callpath("ssor/MPI_Recv"));

    // Rank 0: the whole run 0..215; the flush 20 is Overhead; MPI: Init, Send, Finalize 10
    // each; Computation: the program's own 105 (215 - Init - solver - flush - Finalize) and
    // solver's own 60.
    EXPECT_DOUBLE_EQ(total(r, metric::kTime, 0), 215 * kTick);
    EXPECT_DOUBLE_EQ(total(r, metric::kOverhead, 0), 20 * kTick);
    EXPECT_DOUBLE_EQ(total(r, metric::kExecution, 0), 195 * kTick);
    EXPECT_DOUBLE_EQ(total(r, metric::kMpi, 0), 30 * kTick);
    EXPECT_DOUBLE_EQ(total(r, metric::kComputation, 0), 165 * kTick);
    EXPECT_DOUBLE_EQ(total(r, metric::kOutsideRegions, 0), 0.0);
    EXPECT_DOUBLE_EQ(own(r, metric::kComputation, "ssor", 0), 105 * kTick);
    EXPECT_DOUBLE_EQ(own(r, metric::kOverhead, "ssor", 0), 20 * kTick);
    EXPECT_DOUBLE_EQ(own(r, metric::kTime, "ssor", 0), 125 * kTick); // 105 + the flush
    EXPECT_DOUBLE_EQ(own(r, metric::kComputation, "ssor/solver", 0), 60 * kTick);
    EXPECT_DOUBLE_EQ(own(r, metric::kMpi, "ssor/solver/MPI_Send", 0), 10 * kTick);
    EXPECT_DOUBLE_EQ(own(r, metric::kComputation, "ssor/solver/MPI_Send", 0), 0.0);
    // Visits: the program region once, Init, solver, Send, Finalize.
    EXPECT_DOUBLE_EQ(own(r, metric::kVisits, "ssor", 0), 1.0);
    EXPECT_DOUBLE_EQ(total(r, metric::kVisits, 0), 5.0);

    // Rank 1: 2..212; the flush inside MPI_Recv is Overhead, not MPI (Scalasca takes it for
    // a region of its own), and stays in the Time of MPI_Recv's call path.
    EXPECT_DOUBLE_EQ(total(r, metric::kTime, 1), 210 * kTick);
    EXPECT_DOUBLE_EQ(total(r, metric::kOverhead, 1), 10 * kTick);
    EXPECT_DOUBLE_EQ(total(r, metric::kMpi, 1), 40 * kTick); // 10 + (30 - 10) + 10
    EXPECT_DOUBLE_EQ(total(r, metric::kComputation, 1), 160 * kTick);
    EXPECT_DOUBLE_EQ(own(r, metric::kTime, "ssor/MPI_Recv", 1), 30 * kTick);
    EXPECT_DOUBLE_EQ(own(r, metric::kMpi, "ssor/MPI_Recv", 1), 20 * kTick);
    EXPECT_DOUBLE_EQ(own(r, metric::kPointToPoint, "ssor/MPI_Recv", 1), 20 * kTick);
    EXPECT_DOUBLE_EQ(own(r, metric::kOverhead, "ssor/MPI_Recv", 1), 10 * kTick);
    EXPECT_DOUBLE_EQ(own(r, metric::kLateSender, "ssor/MPI_Recv", 1), 10 * kTick);
    EXPECT_DOUBLE_EQ(total(r, metric::kOutsideRegions, 1), 0.0);
}

TEST(ProgramTime, WithoutTheProgramRegionTheRestIsOutsideRegions) {
    const auto r = run(run_of(false));
    EXPECT_EQ(r.report.regions[r.report.callpaths[0].region].name, "program");
    // Rank 0 runs from 10 to 210: Init 10 + solver 70 + Finalize 10 and the flush 20 are
    // Time; the other 90 ticks are Outside regions.
    EXPECT_DOUBLE_EQ(total(r, metric::kTime, 0), 110 * kTick);
    EXPECT_DOUBLE_EQ(total(r, metric::kOutsideRegions, 0), 90 * kTick);
    EXPECT_DOUBLE_EQ(total(r, metric::kOverhead, 0), 20 * kTick);
    EXPECT_DOUBLE_EQ(own(r, metric::kOverhead, "program", 0), 20 * kTick);
    EXPECT_DOUBLE_EQ(total(r, metric::kExecution, 0), 90 * kTick);
    EXPECT_DOUBLE_EQ(total(r, metric::kMpi, 0), 30 * kTick);
    EXPECT_DOUBLE_EQ(total(r, metric::kComputation, 0), 60 * kTick); // solver's own
    EXPECT_DOUBLE_EQ(own(r, metric::kVisits, "program", 0), 0.0);
    // Rank 1: Init 10 + Recv 30 + Finalize 10, 150 ticks outside.
    EXPECT_DOUBLE_EQ(total(r, metric::kTime, 1), 50 * kTick);
    EXPECT_DOUBLE_EQ(total(r, metric::kOutsideRegions, 1), 150 * kTick);
    EXPECT_DOUBLE_EQ(total(r, metric::kMpi, 1), 40 * kTick);
    EXPECT_DOUBLE_EQ(total(r, metric::kComputation, 1), 0.0);
    EXPECT_DOUBLE_EQ(own(r, metric::kLateSender, "program/MPI_Recv", 1), 10 * kTick);
}

// A rank that died leaves the program region open: it is not timed (as every region never
// left), and covers nothing, so the time outside its calls stays Outside regions.
TEST(ProgramTime, AProgramRegionNeverLeftIsNotTimed) {
    trace::TraceBuilder b(1);
    b.program("/opt/app/ssor");
    b.program_begin(0, 0);
    b.mpi_init(0, 10, 20);
    b.mpi_send(0, 40, 50, 0, b.self(), 0, 8);
    b.enter(0, 60, b.mpi_region("MPI_Abort"));
    const auto r = run(b);
    EXPECT_DOUBLE_EQ(total(r, metric::kTime, 0), 20 * kTick);           // Init, Send
    EXPECT_DOUBLE_EQ(total(r, metric::kOutsideRegions, 0), 40 * kTick); // 0..60 minus them
    EXPECT_DOUBLE_EQ(total(r, metric::kComputation, 0), 0.0);
}

TEST(ProgramTime, ProgramBeginAndEndSurviveWritingAndReading) {
    ScratchDir dir;
    trace::TraceBuilder b = run_of(true);
    const trace::Trace t = trace::read_trace(b.write(dir.path().string()));
    const trace::Program& program = t.defs.program;
    ASSERT_NE(program.region, trace::kNone);
    EXPECT_EQ(program.name, "/opt/app/ssor");
    EXPECT_EQ(program.arguments, kArguments);
    const trace::Region& region = t.defs.regions[program.region];
    EXPECT_EQ(region.name, "ssor");
    EXPECT_EQ(region.canonical_name, "/opt/app/ssor -n 4");
    EXPECT_EQ(region.role, trace::RegionRole::Artificial);
    EXPECT_EQ(region.paradigm, trace::Paradigm::Measurement);
    for (uint32_t l = 0; l < 2; ++l) {
        const auto& events = t.locations[l].events;
        ASSERT_GE(events.size(), 2u);
        EXPECT_EQ(events.front().kind, EventKind::Enter);
        EXPECT_EQ(events.front().region(), program.region);
        EXPECT_EQ(events.back().kind, EventKind::Leave);
        EXPECT_EQ(events.back().region(), program.region);
        EXPECT_EQ(events.size(), b.trace().locations[l].events.size());
    }
    EXPECT_EQ(t.locations[0].events.front().time, 0u);
    EXPECT_EQ(t.locations[0].events.back().time, 215u);
    EXPECT_EQ(t.locations[0].events.back().value, 3); // the exit status
    // The same analysis as the trace in memory.
    const auto written = run(b);
    const auto read = analysis::analyze(t, patterns::all_patterns());
    for (const char* m : {metric::kTime, metric::kExecution, metric::kComputation, metric::kMpi,
                          metric::kOverhead, metric::kOutsideRegions})
        for (uint32_t l = 0; l < 2; ++l)
            EXPECT_DOUBLE_EQ(total(read, m, l), total(written, m, l)) << m << " " << l;
}

// Scalasca's reader finds the region a ProgramBegin enters by role, paradigm, name and
// canonical name; without such a region the records read as a trace without a program.
TEST(ProgramTime, AProgramBeginWithoutItsRegionReadsAsNoProgram) {
    ScratchDir dir;
    trace::Trace t = run_of(true).trace();
    t.defs.regions[t.defs.program.region].canonical_name = "/opt/app/ssor -n 5";
    const trace::Trace read = trace::read_trace(trace::write_otf2(t, dir.path().string()));
    EXPECT_EQ(read.defs.program.region, trace::kNone);
    EXPECT_EQ(read.locations[0].events.front().kind, EventKind::Other);
    EXPECT_EQ(read.locations[0].events.back().kind, EventKind::Other);
    const auto r = analysis::analyze(read, patterns::all_patterns());
    EXPECT_EQ(r.report.regions[r.report.callpaths[0].region].name, "program");
    EXPECT_DOUBLE_EQ(total(r, metric::kTime, 0), 110 * kTick);
}

TEST(ProgramTime, TheRegionIsNamedAsScalascaLooksItUp) {
    EXPECT_EQ(trace::program_region_name("/opt/app/ssor"), "ssor");
    EXPECT_EQ(trace::program_region_name("ssor"), "ssor");
    EXPECT_EQ(trace::program_canonical_name("/opt/app/ssor", {"-n", "4"}), "/opt/app/ssor -n 4");
    EXPECT_EQ(trace::program_canonical_name("/opt/app/ssor", {}), "/opt/app/ssor");
}

// A program that begins again after it ended on the same location (the reader remembers the
// last ProgramBegin's strings): each ProgramBegin enters the region and each ProgramEnd
// leaves the one open, so the location stays balanced. A ProgramBegin inside the open
// program is no Enter of the model.
TEST(ProgramTime, AProgramBegunAgainReadsAsTwoInstancesOfItsRegion) {
    ScratchDir dir;
    trace::TraceBuilder b(1);
    b.program("/opt/app/ssor", kArguments);
    b.program_begin(0, 0);
    b.mpi_init(0, 10, 20);
    b.program_end(0, 30);
    b.program_begin(0, 40);
    b.program_begin(0, 45);
    b.mpi_finalize(0, 50, 60);
    b.program_end(0, 70);
    b.program_end(0, 80);
    const trace::Trace t = trace::read_trace(b.write(dir.path().string()));
    const trace::Ref region = t.defs.program.region;
    ASSERT_NE(region, trace::kNone);
    std::vector<std::pair<EventKind, trace::Time>> program_events;
    for (const trace::Event& e : t.locations[0].events)
        if (e.kind == EventKind::Other ||
            ((e.kind == EventKind::Enter || e.kind == EventKind::Leave) && e.region() == region))
            program_events.emplace_back(e.kind, e.time);
    using Events = std::vector<std::pair<EventKind, trace::Time>>;
    EXPECT_EQ(program_events, (Events{{EventKind::Enter, 0},
                                      {EventKind::Leave, 30},
                                      {EventKind::Enter, 40},
                                      {EventKind::Other, 45},
                                      {EventKind::Leave, 70},
                                      {EventKind::Other, 80}}));
}
