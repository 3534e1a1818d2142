// Profile mode without MPI: the call-path tree (measure/profile.h) with exact timestamps,
// its report (measure/profile_report.h) from synthetic processes, written and read back
// through the CUBE4 writer, and the profile's MPI categories against the trace analysis'.
#include "config.h"
#include "mpi_functions.h"
#include "profile.h"
#include "profile_report.h"

#include "analyzer/engine/mpi_calls.h"
#include "analyzer/report/cube4.h"
#include "analyzer/report/report_grid.h"
#include "patterns/metric_catalogue.h"
#include "trace/global_defs.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>

using namespace topolens::measure;
namespace rp = topolens::report;

namespace {

constexpr Timestamp kSecond = kTicksPerSecond;

// The value of `metric` (with its sub-metrics) at call path `path` and location `loc`;
// fails the test on an unknown metric or call path.
double value(const rp::Report& r, const std::string& metric, const std::string& path, int loc) {
    const auto m = r.find_metric(metric);
    const auto c = r.find_callpath(path);
    if (!m || r.metrics[*m].unique_name != metric) throw std::runtime_error("no metric " + metric);
    if (!c) throw std::runtime_error("no call path " + path);
    return r.metric_inclusive(*m, *c, loc);
}

RegionDefinition region(const std::string& name, bool mpi,
                        OTF2_RegionRole role = OTF2_REGION_ROLE_FUNCTION) {
    RegionDefinition d;
    d.name = name;
    d.canonical_name = name;
    if (mpi) {
        d.source_file = "MPI";
        d.paradigm = OTF2_PARADIGM_MPI;
    }
    d.role = role;
    return d;
}

// The program region, as measure/recorder.cpp defines it.
RegionDefinition program_region() {
    RegionDefinition d = region("prog", false, OTF2_REGION_ROLE_ARTIFICIAL);
    d.paradigm = OTF2_PARADIGM_MEASUREMENT_SYSTEM;
    return d;
}

} // namespace

// ---------------------------------------------------------------- configuration

TEST(ProfileConfig, ModeWords) {
    const struct {
        const char* text;
        bool trace, profile;
    } cases[] = {{"trace", true, false},
                 {"profile", false, true},
                 {"trace,profile", true, true},
                 {"PROFILE,trace", true, true}};
    for (const auto& c : cases) {
        setenv("TOPOLENS_MODE", c.text, 1);
        std::vector<std::string> problems;
        const Config config = read_config(problems);
        EXPECT_TRUE(problems.empty()) << c.text;
        EXPECT_EQ(config.trace, c.trace) << c.text;
        EXPECT_EQ(config.profile, c.profile) << c.text;
    }
    unsetenv("TOPOLENS_MODE");
    std::vector<std::string> problems;
    const Config config = read_config(problems);
    EXPECT_TRUE(config.trace);
    EXPECT_FALSE(config.profile);
}

TEST(ProfileConfig, BadModeIsOneLineAndTracesOnly) {
    for (const char* text : {"bogus", "profile,", "trace,profil"}) {
        setenv("TOPOLENS_MODE", text, 1);
        std::vector<std::string> problems;
        const Config config = read_config(problems);
        ASSERT_EQ(problems.size(), 1u) << text;
        EXPECT_EQ(problems[0], std::string("TOPOLENS_MODE='") + text +
                                   "' is not trace, profile or trace,profile; tracing only");
        EXPECT_TRUE(config.trace);
        EXPECT_FALSE(config.profile);
    }
    unsetenv("TOPOLENS_MODE");
}

// ---------------------------------------------------------------- the call-path tree

TEST(CallTree, TimesVisitsAndCountersPerCallPath) {
    CallTree tree;
    tree.enter(0, 0); // program
    for (int i = 0; i < 3; ++i) {
        const Timestamp t = 10 + 100 * static_cast<Timestamp>(i);
        tree.enter(1, t);      // solver
        tree.enter(2, t + 20); // MPI_Send
        tree.sent(8);
        tree.leave(t + 50);
        tree.enter(3, t + 60); // MPI_Recv
        tree.received(0);
        tree.leave(t + 70);
        tree.leave(t + 90);
    }
    tree.enter(2, 400); // MPI_Send, directly below the program: another call path
    tree.sent(16);
    tree.collective(4, 0);
    tree.leave(405);
    tree.leave(500);
    EXPECT_EQ(tree.open_calls(), 0u);

    const auto& n = tree.nodes();
    ASSERT_EQ(n.size(), 6u); // root, program, solver, solver/send, solver/recv, program/send
    EXPECT_EQ(n[1].region, 0u);
    EXPECT_EQ(n[1].visits, 1u);
    EXPECT_EQ(n[1].inclusive, 500u);
    EXPECT_EQ(n[1].exclusive(), 500u - 3 * 90 - 5);
    EXPECT_EQ(n[2].region, 1u);
    EXPECT_EQ(n[2].parent, 1u);
    EXPECT_EQ(n[2].visits, 3u);
    EXPECT_EQ(n[2].inclusive, 270u);
    EXPECT_EQ(n[2].exclusive(), 270u - 3 * 30 - 3 * 10);
    EXPECT_EQ(n[3].parent, 2u);
    EXPECT_EQ(n[3].inclusive, 90u);
    EXPECT_EQ(n[3].counters[size_t(Counter::BytesSent)], 24u);
    EXPECT_EQ(n[3].counters[size_t(Counter::SendsWithData)], 3u);
    EXPECT_EQ(n[4].counters[size_t(Counter::ReceivesEmpty)], 3u);
    EXPECT_EQ(n[4].counters[size_t(Counter::BytesReceived)], 0u);
    EXPECT_EQ(n[5].region, 2u);
    EXPECT_EQ(n[5].parent, 1u);
    EXPECT_EQ(n[5].counters[size_t(Counter::BytesSent)], 16u);
    EXPECT_EQ(n[5].counters[size_t(Counter::BytesCollectiveOut)], 4u);
    EXPECT_EQ(n[5].counters[size_t(Counter::CollectiveSource)], 1u);
}

// Memory grows with the distinct call paths, never with the visits.
TEST(CallTree, NodesPerCallPathNotPerVisit) {
    CallTree tree;
    tree.enter(0, 0);
    const auto visit = [&](Timestamp t) {
        tree.enter(1, t);
        tree.enter(2, t + 1);
        tree.leave(t + 2);
        tree.enter(3, t + 3);
        tree.leave(t + 4);
        tree.leave(t + 5);
    };
    visit(1);
    const size_t after_one = tree.nodes().size();
    for (Timestamp t = 10; t < 10 + 6 * 1000000; t += 6) visit(t);
    EXPECT_EQ(tree.nodes().size(), after_one);
    EXPECT_EQ(tree.nodes()[2].visits, 1000001u);
}

TEST(CallTree, LeaveWithoutEnterIsIgnored) {
    CallTree tree;
    tree.leave(5);
    tree.enter(7, 10);
    tree.leave(12);
    tree.leave(20);
    ASSERT_EQ(tree.nodes().size(), 2u);
    EXPECT_EQ(tree.nodes()[1].inclusive, 2u);
    EXPECT_EQ(tree.nodes()[0].children, 2u);
}

// ---------------------------------------------------------------- the report

namespace {

// Two processes; rank 1 has two threads. Regions are defined in different orders on the
// two processes, as they are at run time.
std::vector<ProcessProfile> two_processes() {
    std::vector<ProcessProfile> all(2);
    all[0].definitions.host = "node0";
    all[0].definitions.regions = {program_region(), region("MPI_Init", true),
                                  region("MPI_Send", true, OTF2_REGION_ROLE_POINT2POINT),
                                  region("MPI_Allreduce", true, OTF2_REGION_ROLE_COLL_ALL2ALL),
                                  region("solve", false)};
    all[1].definitions.host = "node1";
    all[1].definitions.regions = {program_region(), region("solve", false),
                                  region("MPI_Init", true),
                                  region("MPI_Barrier", true, OTF2_REGION_ROLE_BARRIER)};
    {
        CallTree t; // rank 0: prog 10 s { MPI_Init 1 s, solve 6 s { MPI_Send 2 s, Allreduce 1 s } }
        t.enter(0, 0);
        t.enter(1, 0);
        t.leave(1 * kSecond);
        t.enter(4, 2 * kSecond);
        t.enter(2, 3 * kSecond);
        t.sent(100);
        t.leave(5 * kSecond);
        t.enter(3, 6 * kSecond);
        t.collective(8, 8);
        t.leave(7 * kSecond);
        t.leave(8 * kSecond);
        t.leave(10 * kSecond);
        all[0].locations.push_back({0, t.nodes()});
    }
    {
        CallTree t; // rank 1: prog 10 s { MPI_Init 2 s, solve 4 s { MPI_Barrier 3 s } }
        t.enter(0, 0);
        t.enter(2, 0);
        t.leave(2 * kSecond);
        t.enter(1, 4 * kSecond);
        t.enter(3, 4 * kSecond);
        t.collective(0, 0);
        t.leave(7 * kSecond);
        t.leave(8 * kSecond);
        t.leave(10 * kSecond);
        all[1].locations.push_back({0, t.nodes()});
        CallTree thread; // rank 1, thread 1: solve twice, 1 s each
        thread.enter(1, 1 * kSecond);
        thread.leave(2 * kSecond);
        thread.enter(1, 3 * kSecond);
        thread.leave(4 * kSecond);
        all[1].locations.push_back({1, thread.nodes()});
    }
    TopologyRecord grid; // a 2x1 user topology, rank 1 at (1,0)
    grid.user_defined = true;
    grid.name = "grid";
    grid.dims = {2, 1};
    grid.periods = {0, 0};
    grid.rank = 0;
    grid.coords = {0, 0};
    all[0].definitions.topologies.push_back(grid);
    grid.rank = 1;
    grid.coords = {1, 0};
    all[1].definitions.topologies.push_back(grid);
    return all;
}

void expect_two_processes(const rp::Report& r) {
    ASSERT_EQ(r.locations.size(), 3u);
    EXPECT_EQ(r.locations[0].host, "node0");
    EXPECT_EQ(r.locations[2].rank, 1);
    EXPECT_EQ(r.locations[2].thread, 1);
    EXPECT_EQ(r.locations[2].name, "Thread 1");
    // One region per name across the processes.
    EXPECT_EQ(r.regions.size(), 6u);
    EXPECT_DOUBLE_EQ(value(r, "time", "prog", 0), 10.0 - 1 - 6);
    EXPECT_DOUBLE_EQ(value(r, "comp", "prog", 0), 3.0);
    EXPECT_DOUBLE_EQ(value(r, "mpi", "prog", 0), 0.0);
    EXPECT_DOUBLE_EQ(value(r, "time", "prog/MPI_Init", 0), 1.0);
    EXPECT_DOUBLE_EQ(value(r, "mpi_init_exit", "prog/MPI_Init", 0), 1.0);
    EXPECT_DOUBLE_EQ(value(r, "comp", "prog/MPI_Init", 0), 0.0);
    EXPECT_DOUBLE_EQ(value(r, "time", "prog/solve", 0), 3.0);
    EXPECT_DOUBLE_EQ(value(r, "mpi_point2point", "prog/solve/MPI_Send", 0), 2.0);
    EXPECT_DOUBLE_EQ(value(r, "mpi_communication", "prog/solve/MPI_Send", 0), 2.0);
    EXPECT_DOUBLE_EQ(value(r, "mpi_collective", "prog/solve/MPI_Allreduce", 0), 1.0);
    EXPECT_DOUBLE_EQ(value(r, "mpi_synchronization", "prog/solve/MPI_Barrier", 1), 3.0);
    EXPECT_DOUBLE_EQ(value(r, "mpi_init_exit", "prog/MPI_Init", 1), 2.0);
    EXPECT_DOUBLE_EQ(value(r, "visits", "prog/solve", 0), 1.0);
    EXPECT_DOUBLE_EQ(value(r, "bytes_sent", "prog/solve/MPI_Send", 0), 100.0);
    EXPECT_DOUBLE_EQ(value(r, "comms_send", "prog/solve/MPI_Send", 0), 1.0);
    EXPECT_DOUBLE_EQ(value(r, "bytes", "prog/solve/MPI_Allreduce", 0), 16.0);
    EXPECT_DOUBLE_EQ(value(r, "comms_cxch", "prog/solve/MPI_Allreduce", 0), 1.0);
    EXPECT_DOUBLE_EQ(value(r, "syncs_coll", "prog/solve/MPI_Barrier", 1), 1.0);
    // The thread's calls (no program region there) hang below the program's call path, as
    // the trace analysis puts them; the program has no visit and no time on the thread.
    EXPECT_EQ(r.callpaths.size(), 6u);
    EXPECT_DOUBLE_EQ(value(r, "visits", "prog/solve", 2), 2.0);
    EXPECT_DOUBLE_EQ(value(r, "comp", "prog/solve", 2), 2.0);
    EXPECT_DOUBLE_EQ(value(r, "visits", "prog", 2), 0.0);
    const auto time = r.find_metric("time");
    EXPECT_DOUBLE_EQ(r.total(*time, 0), 10.0);
    EXPECT_DOUBLE_EQ(r.total(*time, 1), 10.0);
    // The topology with each process's coordinates at its master thread.
    ASSERT_EQ(r.topologies.size(), 1u);
    EXPECT_EQ(r.topologies[0].name, "grid");
    EXPECT_EQ(r.topologies[0].sizes, (std::vector<uint32_t>{2, 1}));
    EXPECT_EQ(r.topologies[0].coords[1], (std::vector<uint32_t>{1, 0}));
    EXPECT_TRUE(r.topologies[0].coords[2].empty());
    EXPECT_EQ(rp::analysis_grid(r), &r.topologies[0]);
}

} // namespace

TEST(ProfileReport, ValuesPerCallPathAndLocation) {
    std::vector<std::string> warnings;
    const rp::Report r = profile_report(two_processes(), warnings);
    EXPECT_TRUE(warnings.empty());
    expect_two_processes(r);
}

TEST(ProfileReport, SurvivesGatheringAndTheCube4Writer) {
    std::vector<ProcessProfile> all;
    for (const ProcessProfile& p : two_processes()) {
        const std::vector<char> bytes = serialize_profile(p);
        all.push_back(deserialize_profile(bytes.data(), bytes.size()));
    }
    std::vector<std::string> warnings;
    const rp::Report written = profile_report(all, warnings);
    const std::string path =
        (std::filesystem::temp_directory_path() / "topolens_profile_test.cubex").string();
    rp::write_cube4(written, path);
    const rp::Report read = rp::read_cube4(path);
    std::filesystem::remove(path);
    expect_two_processes(read);
}

// The profile's metrics are the catalogue's rows, with every parent among them.
TEST(ProfileReport, MetricsAreTheCataloguesRows) {
    const auto& metrics = profile_metrics();
    ASSERT_FALSE(metrics.empty());
    for (const ProfileMetric& m : metrics) {
        const auto* entry = topolens::patterns::find_catalogue_entry(m.unique_name);
        ASSERT_NE(entry, nullptr) << m.unique_name;
        EXPECT_EQ(entry->display_name, m.display_name);
        EXPECT_EQ(entry->parent, m.parent);
        EXPECT_EQ(entry->unit, m.unit);
        EXPECT_EQ(entry->description, m.description);
        EXPECT_EQ(topolens::patterns::metric_url(*entry), m.url);
    }
}

// ---------------------------------------------------------------- MPI time categories

namespace {

// The metric the time pattern (patterns/time_pattern.cpp) adds a call's time to.
std::string analysis_category(topolens::analysis::MpiCallKind kind) {
    using topolens::analysis::MpiCallKind;
    switch (kind) {
    case MpiCallKind::NotMpi:
        return "comp";
    case MpiCallKind::InitFinalize:
        return "mpi_init_exit";
    case MpiCallKind::Barrier:
        return "mpi_synchronization";
    case MpiCallKind::Collective:
        return "mpi_collective";
    case MpiCallKind::Other:
        return "mpi";
    default:
        return "mpi_point2point";
    }
}

} // namespace

TEST(ProfileReport, MpiCategoriesAreTheAnalysis) {
    for (const MpiFunctionInfo& fn : kMpiFunctions) {
        const RegionDefinition def = region(fn.name, true, fn.role);
        topolens::trace::Region r;
        r.name = fn.name;
        r.source_file = "MPI";
        r.paradigm = topolens::trace::Paradigm::Mpi;
        r.role = topolens::trace::detail::role_of(fn.role);
        const char* mine = mpi_category(def);
        ASSERT_NE(mine, nullptr) << fn.name;
        EXPECT_EQ(mine, analysis_category(topolens::analysis::classify_mpi_call(r))) << fn.name;
    }
    EXPECT_EQ(mpi_category(region("solve", false)), nullptr);
}
