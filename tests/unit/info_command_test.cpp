// `topolens info`, `help`, `--version` and dispatch errors, run as the real binary.
#include "sample_trace.h"
#include "test_paths.h"
#include "test_util.h"

#include <gtest/gtest.h>

#include <regex>
#include <sstream>

namespace topolens::test {
namespace {

using namespace topolens::trace;

CommandResult topolens(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {topolens::test::topolens_bin()};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_command(argv);
}

// One line of the output, found by its start; "" if there is none.
std::string line_starting(const std::string& text, const std::string& start) {
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        if (line.rfind(start, 0) == 0) return line;
    return "";
}

TEST(InfoCommand, DescribesTheSampleTrace) {
    ScratchDir dir;
    TraceBuilder b = sample_trace();
    const std::string anchor = b.write((dir / "t").string());
    const CommandResult r = topolens({"info", (dir / "t").string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err, "");
    const std::string& o = r.out;
    EXPECT_EQ(line_starting(o, "trace:"), "trace:          " + anchor);
    EXPECT_EQ(line_starting(o, "creator:"), "creator:        topolens trace builder");
    EXPECT_EQ(line_starting(o, "time span:"), "time span:      0.000001 s (1,003 ticks)");
    EXPECT_EQ(line_starting(o, "timer:"), "timer:          1,000,000,000 ticks/s");
    EXPECT_EQ(line_starting(o, "clock offsets:"),
              "clock offsets:  on 4 of 4 locations, 2 offsets each (timestamps corrected)");
    EXPECT_EQ(line_starting(o, "ranks:"), "ranks:          4 ranks on 2 hosts");
    EXPECT_EQ(line_starting(o, "  nodeA"), "  nodeA  0-1");
    EXPECT_EQ(line_starting(o, "  nodeB"), "  nodeB  2-3");
    // MPI_Init, _Finalize, _Send, _Recv, _Irecv, _Cancel, _Isend, _Wait, _Test, _Allreduce,
    // _Bcast; user: main, halo3d, pack, derived.
    EXPECT_EQ(line_starting(o, "regions:"), "regions:        15 (11 MPI, 4 user)");
    EXPECT_EQ(line_starting(o, "  user regions:"), "  user regions: main, halo3d, pack, derived");
    EXPECT_EQ(line_starting(o, "communicators:"), "communicators:  3");
    EXPECT_EQ(line_starting(o, "  MPI_COMM_WORLD"), "  MPI_COMM_WORLD     4  -");
    EXPECT_EQ(line_starting(o, "  MPI_COMM_SELF"),
              "  MPI_COMM_SELF      1  MPI_COMM_WORLD  (self: each rank alone)");
    EXPECT_EQ(line_starting(o, "  pair"), "  pair               2  MPI_COMM_WORLD");
    EXPECT_EQ(line_starting(o, "topologies:"), "topologies:     2 Cartesian");
    EXPECT_EQ(line_starting(o, "  grid"), "  grid  2x2   yes,no    MPI_COMM_WORLD  all 4 ranks");
    EXPECT_EQ(line_starting(o, "  line"), "  line  2     no        pair            1 of 2 ranks");
    EXPECT_EQ(line_starting(o, "tuned ops:"), "tuned ops:      1");
    EXPECT_EQ(line_starting(o, "  halo3d"), "  halo3d");
    EXPECT_EQ(line_starting(o, "    codelets"), "    codelets    0: pack, 1: derived");
    EXPECT_EQ(line_starting(o, "    phases"), "    phases      search, decision, production");
    EXPECT_EQ(line_starting(o, "    decision"), "    decision    1 (derived) on all locations");
    EXPECT_EQ(line_starting(o, "    executions"), "    executions  12 (search 8, production 4)");
    EXPECT_EQ(line_starting(o, "events:"), "events:         " + std::to_string([&] {
                                               std::size_t n = 0;
                                               for (const auto& l : b.trace().locations)
                                                   n += l.events.size();
                                               return n;
                                           }()));
    EXPECT_EQ(line_starting(o, "  kind"),
              "  kind                 total  min/location  max/location");
    EXPECT_EQ(line_starting(o, "  MpiSend "),
              "  MpiSend                  1             0             1");
    EXPECT_EQ(line_starting(o, "  MpiCollectiveEnd"),
              "  MpiCollectiveEnd         6             1             2");
    EXPECT_EQ(line_starting(o, "  BufferFlush"),
              "  BufferFlush              1             0             1");
    EXPECT_EQ(line_starting(o, "  Other"), ""); // kinds that never occur are left out
}

TEST(InfoCommand, UndecidedAndNoTopologyNoOffsets) {
    ScratchDir dir;
    TraceBuilder b(2);
    const auto op = b.tuned_op("sweep");
    b.codelet_switch(0, 1, op, 0, "a");
    b.tuned_begin(0, 2, op);
    b.tuned_end(0, 3, op);
    b.mpi_init(1, 0, 4);
    b.write(dir.path().string());
    const CommandResult r = topolens({"info", (dir / "traces.otf2").string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(line_starting(r.out, "clock offsets:"), "clock offsets:  none");
    EXPECT_EQ(line_starting(r.out, "topologies:"), "topologies:     0 Cartesian");
    EXPECT_EQ(line_starting(r.out, "    phases"), "    phases      none recorded");
    EXPECT_EQ(line_starting(r.out, "    decision"), "    decision    undecided");
    EXPECT_EQ(line_starting(r.out, "    executions"), "    executions  1 (search 1)");
}

// Long region lists wrap at 100 columns and lose no name.
TEST(InfoCommand, LongRegionListsWrap) {
    ScratchDir dir;
    TraceBuilder b(1);
    std::vector<std::string> names;
    for (int i = 0; i < 40; ++i) {
        names.push_back("user_function_" + std::to_string(i));
        const Ref r = b.region(names.back());
        b.enter(0, 2 * i, r);
        b.leave(0, 2 * i + 1, r);
    }
    b.write(dir.path().string());
    const CommandResult r = topolens({"info", dir.path().string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::size_t begin = r.out.find("  user regions: ");
    const std::size_t end = r.out.find("\n  entered: ", begin);
    ASSERT_NE(begin, std::string::npos);
    const std::string block = r.out.substr(begin, end - begin);
    std::istringstream lines(block);
    std::size_t count = 0;
    for (std::string line; std::getline(lines, line); ++count) {
        EXPECT_LE(line.size(), 100u) << line;
        if (count > 0) {
            EXPECT_EQ(line.rfind(std::string(16, ' ') + "user_function_", 0), 0u) << line;
        }
    }
    EXPECT_GT(count, 1u);
    // Which regions the run entered, after the definitions.
    EXPECT_NE(r.out.find("\n  entered: 40 (user_function_0, user_function_1, "), std::string::npos)
        << r.out;
    for (const std::string& n : names)
        EXPECT_NE(block.find(n + (n == names.back() ? "" : ",")), std::string::npos) << n;
}

TEST(InfoCommand, MissingPathIsOneErrorLine) {
    const CommandResult r = topolens({"info", "/nonexistent/trace/dir"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, "topolens: error: /nonexistent/trace/dir: no such file or directory\n");
}

TEST(InfoCommand, DamagedTraceIsOneErrorLine) {
    ScratchDir dir;
    write_file(dir / "traces.otf2", "garbage");
    const CommandResult r = topolens({"info", dir.path().string()});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.out, "");
    EXPECT_TRUE(std::regex_match(r.err, std::regex("topolens: error: .*traces\\.otf2: not a "
                                                   "readable OTF2 anchor file.*\n")))
        << r.err;
}

TEST(InfoCommand, NeedsExactlyOneTrace) {
    const CommandResult none = topolens({"info"});
    EXPECT_EQ(none.exit_code, 2);
    EXPECT_EQ(line_starting(none.err, "topolens: error:"), "topolens: error: info needs a trace");
    EXPECT_NE(none.err.find("usage: topolens info TRACE"), std::string::npos);
    EXPECT_EQ(topolens({"info", "a", "b"}).exit_code, 2);
    const CommandResult help = topolens({"info", "--help"});
    EXPECT_EQ(help.exit_code, 0);
    EXPECT_EQ(help.out.rfind("usage: topolens info TRACE", 0), 0u);
}

TEST(Dispatch, VersionHelpAndUnknownCommands) {
    const CommandResult version = topolens({"--version"});
    EXPECT_EQ(version.exit_code, 0);
    EXPECT_TRUE(std::regex_match(version.out, std::regex("topolens [0-9]+\\.[0-9]+\\.[0-9]+\n")))
        << version.out;

    const CommandResult help = topolens({"help"});
    EXPECT_EQ(help.exit_code, 0);
    EXPECT_NE(line_starting(help.out, "  info").find("summarize a trace"), std::string::npos);
    EXPECT_NE(line_starting(help.out, "  run").find("mpirun"), std::string::npos);
    EXPECT_EQ(topolens({"help", "run"}).out.rfind("usage: topolens run", 0), 0u);

    const CommandResult unknown = topolens({"frobnicate"});
    EXPECT_EQ(unknown.exit_code, 2);
    EXPECT_EQ(unknown.out, "");
    EXPECT_EQ(line_starting(unknown.err, "topolens: error:"),
              "topolens: error: unknown command 'frobnicate'");
    EXPECT_NE(unknown.err.find("usage: topolens <command>"), std::string::npos);

    const CommandResult nothing = topolens({});
    EXPECT_EQ(nothing.exit_code, 2);
    EXPECT_NE(nothing.err.find("usage: topolens <command>"), std::string::npos);
}

} // namespace
} // namespace topolens::test
