// `topolens summary` and `topolens values` on a written sample report, run as the real binary
// (numbers from report_sample.h).
#include "report_sample.h"
#include "test_util.h"

#include "analyzer/report/cube4.h"
#include "test_paths.h"

#include <gtest/gtest.h>

#include <sstream>

#include <sys/stat.h>

namespace topolens::test {
namespace {

CommandResult topolens(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {topolens::test::topolens_bin()};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_command(argv);
}

std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
}

// The line starting with `start`, and the `count` lines after it.
std::vector<std::string> block(const std::string& text, const std::string& start,
                               std::size_t count) {
    const std::vector<std::string> all = lines(text);
    for (std::size_t i = 0; i < all.size(); ++i)
        if (all[i].rfind(start, 0) == 0)
            return std::vector<std::string>(all.begin() + i,
                                            all.begin() + std::min(all.size(), i + count + 1));
    return {};
}

class ReportCommands : public ::testing::Test {
  protected:
    ScratchDir dir;
    std::string path = (dir / "sample.cubex").string();
    void SetUp() override { report::write_cube4(sample_report(), path); }
};

TEST_F(ReportCommands, SummaryShowsTheMetricTreeWithTotalsAndShares) {
    const CommandResult r = topolens({"summary", path});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err, "");
    EXPECT_EQ(block(r.out, "report:", 4),
              (std::vector<std::string>{
                  "report:       " + path,
                  "locations:    4 (4 ranks on 2 hosts)",
                  "call paths:   6",
                  "topologies:   grid 2x2, periodic yes,no (coordinates below)",
                  "              line 4, periodic no",
              }));
    EXPECT_EQ(block(r.out, "metrics", 9),
              (std::vector<std::string>{
                  "metrics",
                  "  metric                              total  unit  % of time  % of parent",
                  "  Time                            17.500000  sec      100.00",
                  "    MPI                            5.500000  sec       31.43        31.43",
                  "      Late Sender                  1.750000  sec       10.00        31.82",
                  "        Late Sender, wrong order   0.250000  sec        1.43        14.29",
                  "      Collective                   0.750000  sec        4.29        13.64",
                  "        Wait at NxN                0.750000  sec        4.29       100.00",
                  "  Visits                                 44  occ",
                  "  Clock condition violations              2  occ",
              }));
}

// Each sub-metric's share of its parent, counts too; none for roots, derived metrics or a
// parent that is 0. The wave metrics, a part of Late Sender in a tree of their own, show
// their share of Late Sender, as Bhatia reports them.
TEST_F(ReportCommands, SummaryShowsEachMetricsShareOfItsParent) {
    report::Report r = sample_report();
    auto add = [&](const char* parent, const char* unique, const char* display, const char* unit,
                   const char* derived = "") {
        report::Metric m;
        m.unique_name = unique;
        m.display_name = display;
        m.unit = unit;
        m.parent = *parent ? *r.find_metric(parent) : -1;
        m.derived_type = derived;
        if (*derived) m.cubepl = "metric::time() - metric::mpi()";
        return r.add_metric(m);
    };
    add("", "mpi_wavefront", "Wavefront", "sec");
    const int sw = add("mpi_wavefront", "mpi_wavefront_sw", "Wavefront from SW", "sec");
    const int ne = add("mpi_wavefront", "mpi_wavefront_ne", "Wavefront from NE", "sec");
    for (const char* part : {"mpi_wavefront", "mpi_wavefront_sw", "mpi_wavefront_ne"})
        r.set_part_of(part, "mpi_latesender"); // as the engine records the catalogue's rows
    const int mpi_visits = add("visits", "mpi_visits", "MPI visits", "occ");
    const int sync = add("mpi", "mpi_synchronization", "Synchronization", "sec");
    add("mpi_synchronization", "mpi_barrier_wait", "Wait at Barrier", "sec");
    add("time", "comp", "Computation", "sec", "POSTDERIVED");
    const int recv = 4; // program/main/solver/MPI_Recv
    ASSERT_EQ(r.callpath_name(recv), "program/main/solver/MPI_Recv");
    r.set_value(sw, recv, 0, 0.25);
    r.set_value(sw, recv, 1, 0.125);
    r.set_value(ne, recv, 1, 0.5);
    for (int l = 0; l < 4; ++l) r.set_value(mpi_visits, recv, l, 5);
    r.set_value(sync, recv, 2, 0.0);
    report::write_cube4(r, path);

    const CommandResult out = topolens({"summary", path});
    ASSERT_EQ(out.exit_code, 0) << out.err;
    // Late Sender: 1.5 own + 0.25 wrong order = 1.75 of MPI's 5.5; the wave metrics, a part of
    // it in a tree of their own, 0.875 = 50% of it (SW 0.375: 21.43%, NE 0.5: 28.57%).
    EXPECT_EQ(block(out.out, "metrics", 17),
              (std::vector<std::string>{
                  "metrics",
                  "  metric                              total  unit  % of time  % of parent",
                  "  Time                            17.500000  sec      100.00",
                  "    MPI                            5.500000  sec       31.43        31.43",
                  "      Late Sender                  1.750000  sec       10.00        31.82",
                  "        Late Sender, wrong order   0.250000  sec        1.43        14.29",
                  "      Collective                   0.750000  sec        4.29        13.64",
                  "        Wait at NxN                0.750000  sec        4.29       100.00",
                  "      Synchronization              0.000000  sec        0.00         0.00",
                  "        Wait at Barrier            0.000000  sec        0.00",
                  "    Computation                     derived  sec",
                  "  Visits                                 64  occ",
                  "    MPI visits                           20  occ                    31.25",
                  "  Clock condition violations              2  occ",
                  "  Wavefront                        0.875000  sec        5.00        50.00",
                  "    Wavefront from SW              0.375000  sec        2.14        21.43",
                  "    Wavefront from NE              0.500000  sec        2.86        28.57",
                  "  % of parent of Wavefront and below: % of Late Sender (a part of it in a tree "
                  "of its own)",
              }))
        << out.out;
    EXPECT_EQ(block(out.out, "Wavefront (", 0),
              std::vector<std::string>{"Wavefront (mpi_wavefront): 0.875000 sec, 5.00% of time, "
                                       "50.00% of Late Sender"});
    EXPECT_EQ(block(out.out, "Wavefront from SW (", 0),
              std::vector<std::string>{"Wavefront from SW (mpi_wavefront_sw): 0.375000 sec, 2.14% "
                                       "of time, 21.43% of Late Sender"});
    EXPECT_EQ(block(out.out, "Wavefront from NE (", 0),
              std::vector<std::string>{"Wavefront from NE (mpi_wavefront_ne): 0.500000 sec, 2.86% "
                                       "of time, 28.57% of Late Sender"});
    EXPECT_EQ(block(out.out, "Late Sender (", 0),
              std::vector<std::string>{
                  "Late Sender (mpi_latesender): 1.750000 sec, 10.00% of time, 31.82% of MPI"});
}

TEST_F(ReportCommands, SummaryShowsWhereEachWaitStateHappened) {
    const CommandResult r = topolens({"summary", path});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    // The sample's grid is periodic in x and 2 high: every process is on a (y) edge.
    EXPECT_EQ(block(r.out, "Late Sender (", 12),
              (std::vector<std::string>{
                  "Late Sender (mpi_latesender): 1.750000 sec, 10.00% of time, 31.82% of MPI",
                  "  top call paths (1 of 1)",
                  "    call path                        value       %",
                  "    program/main/solver/MPI_Recv  1.750000  100.00",
                  "  top locations (2 of 2)",
                  "    location  rank  host   coords     value      %",
                  "    1            1  nodeA  1 0     1.250000  71.43",
                  "    0            0  nodeA  0 0     0.500000  28.57",
                  "  by grid role (mean per process, sec)",
                  "    role  processes      mean",
                  "    edge          4  0.437500",
                  "    every process is an edge: nothing to compare",
                  "",
              }));
    EXPECT_EQ(block(r.out, "Late Sender, wrong order (", 0),
              std::vector<std::string>{
                  "Late Sender, wrong order (mpi_latesender_wo): 0.250000 sec, 1.43% of time, "
                  "14.29% of Late Sender"});
    EXPECT_EQ(block(r.out, "Wait at NxN (", 8),
              (std::vector<std::string>{
                  "Wait at NxN (mpi_wait_nxn): 0.750000 sec, 4.29% of time, 100.00% of Collective",
                  "  top call paths (1 of 1)",
                  "    call path                      value       %",
                  "    program/main/MPI_Allreduce  0.750000  100.00",
                  "  top locations (3 of 3)",
                  "    location  rank  host   coords     value      %",
                  "    3            3  nodeB  1 1     0.375000  50.00",
                  "    2            2  nodeB  0 1     0.250000  33.33",
                  "    1            1  nodeA  1 0     0.125000  16.67",
              }));
    // Time categories are not wait states.
    EXPECT_TRUE(block(r.out, "MPI (", 0).empty());
    EXPECT_TRUE(block(r.out, "Collective (", 0).empty());
    EXPECT_TRUE(block(r.out, "Time (", 0).empty());
}

TEST_F(ReportCommands, SummaryShowsViolationsAndTopolensAttributes) {
    const CommandResult r = topolens({"summary", path});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(block(r.out, "clock condition violations:", 2),
              (std::vector<std::string>{"clock condition violations: 2",
                                        "  location  rank  host   coords  count",
                                        "  1            1  nodeA  1 0         2"}));
    EXPECT_EQ(block(r.out, "attributes", 2),
              (std::vector<std::string>{"attributes", "  topolens.topology_source  MPI_Cart_create",
                                        "  topolens.trace            /data/run1/traces.otf2"}));
    EXPECT_EQ(r.out.find("note"), std::string::npos); // not a topolens attribute
}

TEST_F(ReportCommands, SummaryTopLimitsTheLists) {
    const CommandResult r = topolens({"summary", path, "--top", "2"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto nxn = block(r.out, "Wait at NxN (", 8);
    ASSERT_EQ(nxn.size(), 9u);
    EXPECT_EQ(nxn[4], "  top locations (2 of 3)");
    EXPECT_EQ(nxn[6], "    3            3  nodeB  1 1     0.375000  50.00");
    EXPECT_EQ(nxn[7], "    2            2  nodeB  0 1     0.250000  33.33");
    EXPECT_EQ(nxn[8], "  by grid role (mean per process, sec)");

    EXPECT_EQ(topolens({"summary", path, "--top", "0"}).exit_code, 2);
    EXPECT_EQ(topolens({"summary", path, "--top"}).exit_code, 2);
    EXPECT_EQ(topolens({"summary", path, "--bogus"}).exit_code, 2);
    EXPECT_EQ(topolens({"summary"}).exit_code, 2);
    const CommandResult missing = topolens({"summary", (dir / "none.cubex").string()});
    EXPECT_EQ(missing.exit_code, 1);
    EXPECT_NE(missing.err.find("topolens: error: " + (dir / "none.cubex").string()),
              std::string::npos)
        << missing.err;
}

TEST_F(ReportCommands, ValuesCsvPerLocationWithCoordinates) {
    // display name in another case; metric-inclusive (wrong order counts into Late Sender)
    const CommandResult r = topolens({"values", path, "--metric", "late sender"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "location,rank,thread,host,coords,value,role\n"
                     "0,0,0,nodeA,0 0,0.5,edge\n"
                     "1,1,0,nodeA,1 0,1.25,edge\n"
                     "2,2,0,nodeB,0 1,0,edge\n"
                     "3,3,0,nodeB,1 1,0,edge\n");

    // call-path inclusive below solver; the second topology leaves two locations without
    const CommandResult t = topolens({"values", path, "--metric", "time", "--callpath",
                                      "program/main/solver", "--topology", "line"});
    ASSERT_EQ(t.exit_code, 0) << t.err;
    EXPECT_EQ(t.out, "location,rank,thread,host,coords,value,role\n"
                     "0,0,0,nodeA,0,2.875,corner\n"
                     "1,1,0,nodeA,,3.75,\n"
                     "2,2,0,nodeB,,2,\n"
                     "3,3,0,nodeB,3,2.125,corner\n");
    // the same call path without its root, and as a region name
    EXPECT_EQ(topolens({"values", path, "--metric", "time", "--callpath", "main/solver",
                        "--topology", "line"})
                  .out,
              t.out);
    EXPECT_EQ(
        topolens({"values", path, "--metric=time", "--callpath=solver", "--topology=line"}).out,
        t.out);
}

TEST_F(ReportCommands, ValuesJson) {
    const CommandResult r = topolens(
        {"values", path, "--metric", "MPI", "--callpath", "MPI_Allreduce", "--format", "json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "{\"report\": \"" + path +
                         "\", \"metric\": \"mpi\", \"metric_name\": \"MPI\", \"unit\": \"sec\", "
                         "\"callpath\": \"MPI_Allreduce\", \"callpaths\": "
                         "[\"program/main/MPI_Allreduce\"],\n"
                         " \"topology\": {\"name\": \"grid\", \"dims\": [2,2], \"periodic\": "
                         "[true,false]}, \"grid_source\": \"unknown\",\n"
                         " \"roles\": [{\"role\": \"edge\", \"processes\": 4, \"mean\": 0.6875, "
                         "\"vs_interior\": null, \"vs_rest\": null}],\n"
                         " \"locations\": [\n"
                         "  {\"location\": 0, \"rank\": 0, \"thread\": 0, \"host\": \"nodeA\", "
                         "\"coords\": [0,0], \"role\": \"edge\", \"boundary\": [0,-1], "
                         "\"value\": 0.5},\n"
                         "  {\"location\": 1, \"rank\": 1, \"thread\": 0, \"host\": \"nodeA\", "
                         "\"coords\": [1,0], \"role\": \"edge\", \"boundary\": [0,-1], "
                         "\"value\": 0.625},\n"
                         "  {\"location\": 2, \"rank\": 2, \"thread\": 0, \"host\": \"nodeB\", "
                         "\"coords\": [0,1], \"role\": \"edge\", \"boundary\": [0,1], "
                         "\"value\": 0.75},\n"
                         "  {\"location\": 3, \"rank\": 3, \"thread\": 0, \"host\": \"nodeB\", "
                         "\"coords\": [1,1], \"role\": \"edge\", \"boundary\": [0,1], "
                         "\"value\": 0.875}],\n"
                         " \"total\": 2.75}\n");

    // Without --callpath: the whole call tree, "callpath": null; a topology-less location
    // gets "coords": null and no role.
    const CommandResult all =
        topolens({"values", path, "--metric", "visits", "--format", "json", "--topology", "line"});
    ASSERT_EQ(all.exit_code, 0) << all.err;
    EXPECT_NE(all.out.find("\"callpath\": null, \"callpaths\": []"), std::string::npos);
    EXPECT_NE(all.out.find("\"coords\": null, \"role\": null, \"boundary\": null, \"value\": 6}"),
              std::string::npos)
        << all.out;
    EXPECT_NE(all.out.find("\"total\": 44}"), std::string::npos);
}

TEST_F(ReportCommands, DerivedMetricsAreShownButNotEvaluated) {
    report::Report r = sample_report();
    report::Metric comp;
    comp.unique_name = "comp";
    comp.display_name = "Computation";
    comp.parent = 0;
    comp.derived_type = "POSTDERIVED";
    comp.cubepl = "metric::time() - metric::mpi()";
    r.add_metric(comp);
    report::write_cube4(r, path);
    const CommandResult summary = topolens({"summary", path});
    ASSERT_EQ(summary.exit_code, 0) << summary.err;
    EXPECT_EQ(block(summary.out, "    Computation", 0),
              std::vector<std::string>{"    Computation                     derived  sec"});
    const CommandResult values = topolens({"values", path, "--metric", "Computation"});
    EXPECT_EQ(values.exit_code, 1);
    EXPECT_EQ(values.err, "topolens: error: metric 'Computation' is derived (POSTDERIVED): Cube "
                          "computes it from the CubePL expression 'metric::time() - "
                          "metric::mpi()', which topolens does not evaluate\n");
}

TEST_F(ReportCommands, ValuesErrors) {
    const CommandResult unknown = topolens({"values", path, "--metric", "late sendr"});
    EXPECT_EQ(unknown.exit_code, 1);
    EXPECT_EQ(unknown.out, "");
    EXPECT_EQ(unknown.err, "topolens: error: unknown metric 'late sendr'; close names: "
                           "Late Sender (mpi_latesender)\n");
    // a part of a name finds every metric containing it
    const CommandResult part = topolens({"values", path, "--metric", "sender"});
    EXPECT_EQ(part.exit_code, 1);
    EXPECT_EQ(part.err, "topolens: error: unknown metric 'sender'; close names: Late Sender "
                        "(mpi_latesender), Late Sender, wrong order (mpi_latesender_wo)\n");
    const CommandResult nothing_close = topolens({"values", path, "--metric", "xyzzy"});
    EXPECT_EQ(nothing_close.exit_code, 1);
    EXPECT_NE(nothing_close.err.find("metrics in this report: time, mpi, mpi_latesender"),
              std::string::npos)
        << nothing_close.err;

    const CommandResult path_error =
        topolens({"values", path, "--metric", "time", "--callpath", "program/main/solvr"});
    EXPECT_EQ(path_error.exit_code, 1);
    EXPECT_NE(path_error.err.find("unknown call path 'program/main/solvr'; close names: "
                                  "program/main/solver"),
              std::string::npos)
        << path_error.err;
    const CommandResult region_error =
        topolens({"values", path, "--metric", "time", "--callpath", "MPI_Recvv"});
    EXPECT_EQ(region_error.exit_code, 1);
    EXPECT_NE(region_error.err.find("no call path of a region named 'MPI_Recvv'; close names: "
                                    "MPI_Recv"),
              std::string::npos)
        << region_error.err;
    const CommandResult topology_error =
        topolens({"values", path, "--metric", "time", "--topology", "ring"});
    EXPECT_EQ(topology_error.exit_code, 1);
    EXPECT_NE(topology_error.err.find("no topology named 'ring'; the report has 'grid', 'line'"),
              std::string::npos)
        << topology_error.err;

    EXPECT_EQ(topolens({"values", path}).exit_code, 2); // no --metric
    EXPECT_EQ(topolens({"values", path, "--metric", "time", "--format", "xml"}).exit_code, 2);
    EXPECT_EQ(topolens({"values", path, "--metric"}).exit_code, 2);
    const std::string text = (dir / "notes.txt").string();
    write_file(text, "not a report\n");
    const CommandResult not_report = topolens({"values", text, "--metric", "time"});
    EXPECT_EQ(not_report.exit_code, 1);
    EXPECT_EQ(not_report.err,
              "topolens: error: " + text + ": not a tar archive (shorter than one tar header)\n");
}

TEST_F(ReportCommands, AFifoAsReportIsRefusedNotWaitedOn) {
    // Opening a FIFO would wait for a writer forever: each reading command refuses it at once.
    const std::string fifo = (dir / "report.cubex").string();
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    const std::vector<std::vector<std::string>> commands = {
        {"summary", fifo}, {"values", fifo, "--metric", "time"}, {"audit", fifo}};
    for (const std::vector<std::string>& args : commands) {
        SCOPED_TRACE(args.front());
        const CommandResult r = topolens(args);
        EXPECT_EQ(r.exit_code, 1);
        EXPECT_NE(r.err.find(fifo + ": not a regular file (a FIFO)"), std::string::npos) << r.err;
    }
}

} // namespace
} // namespace topolens::test
