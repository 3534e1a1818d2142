// `topolens run` against a stand-in mpirun that records its arguments and plays the
// measurement library's part of writing the archive path into TOPOLENS_REPORT_PATH_FILE.
#include "test_paths.h"
#include "test_util.h"

#include <gtest/gtest.h>

#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace topolens::test {
namespace {

namespace fs = std::filesystem;

// A directory holding a fake `mpirun` (first on PATH) and a fake measurement library.
class FakeMpirun {
  public:
    FakeMpirun() {
        write_file(dir_ / "mpirun", R"(#!/bin/sh
: > "$FAKE_ARGS"
for a in "$@"; do printf '%s\n' "$a" >> "$FAKE_ARGS"; done
if [ -n "$FAKE_REPORT" ]; then
  for a in "$@"; do
    case "$a" in TOPOLENS_REPORT_PATH_FILE=*) printf '%s\n' "$FAKE_REPORT" > "${a#*=}";; esac
  done
fi
exit "${FAKE_EXIT:-0}"
)");
        chmod((dir_ / "mpirun").c_str(), 0755);
        write_file(library(), "not really a library");
    }
    fs::path library() const { return dir_ / "libtopolens-measure.so"; }
    fs::path args_file() const { return dir_ / "args"; }
    std::vector<std::string> args() const {
        std::istringstream in(read_file(args_file()));
        std::vector<std::string> out;
        for (std::string line; std::getline(in, line);) out.push_back(line);
        return out;
    }
    std::map<std::string, std::string> env(const std::string& report = "/traces/topolens-42",
                                           const std::string& exit_code = "0") const {
        return {{"PATH", dir_.path().string() + ":" + std::getenv("PATH")},
                {"TOPOLENS_MEASURE_LIB", library().string()},
                {"FAKE_ARGS", args_file().string()},
                {"FAKE_REPORT", report},
                {"FAKE_EXIT", exit_code},
                {"LD_PRELOAD", ""}};
    }

  private:
    ScratchDir dir_;
};

std::vector<std::string> expected_start() {
    std::vector<std::string> v;
    if (geteuid() == 0) v.push_back("--allow-run-as-root");
    v.push_back("--oversubscribe");
    return v;
}

// The value of `-x NAME=...` in an argument list ("" if absent).
std::string exported(const std::vector<std::string>& args, const std::string& name) {
    for (std::size_t i = 0; i + 1 < args.size(); ++i)
        if (args[i] == "-x" && args[i + 1].rfind(name + "=", 0) == 0)
            return args[i + 1].substr(name.size() + 1);
    return "";
}

TEST(RunCommand, BuildsTheMpirunCommandAndReportsTheTrace) {
    FakeMpirun fake;
    ScratchDir work;
    const CommandResult r = run_command({topolens::test::topolens_bin(), "run", "-np", "3",
                                         "--trace-dir", (work / "out").string(), "--mca", "btl",
                                         "self", "--", "./prog", "a b", "--flag"},
                                        fake.env("/traces/topolens-42", "3"));
    EXPECT_EQ(r.exit_code, 3); // mpirun's
    EXPECT_EQ(r.err, "topolens: trace written to /traces/topolens-42\n");
    const std::vector<std::string> args = fake.args();
    std::vector<std::string> want = expected_start();
    const std::string report_file = exported(args, "TOPOLENS_REPORT_PATH_FILE");
    ASSERT_FALSE(report_file.empty());
    for (const std::string& s :
         {std::string("-np"), std::string("3"), std::string("--mca"), std::string("btl"),
          std::string("self"), std::string("-x"), "LD_PRELOAD=" + fake.library().string(),
          std::string("-x"), "TOPOLENS_TRACE_DIR=" + (work / "out").string(), std::string("-x"),
          "TOPOLENS_REPORT_PATH_FILE=" + report_file, std::string("./prog"), std::string("a b"),
          std::string("--flag")})
        want.push_back(s);
    EXPECT_EQ(args, want);
    EXPECT_FALSE(fs::exists(report_file)); // the temporary file is cleaned up
}

// --filter hands the filter file, made absolute, to every rank.
TEST(RunCommand, FilterFileIsExported) {
    FakeMpirun fake;
    ScratchDir work;
    const fs::path filter = work / "functions.filter";
    const CommandResult r = run_command(
        {topolens::test::topolens_bin(), "run", "--filter", filter.string(), "--", "./prog"},
        fake.env());
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(exported(fake.args(), "TOPOLENS_FILTER"), filter.string());
    const CommandResult empty =
        run_command({topolens::test::topolens_bin(), "run", "--filter", "", "--", "p"}, fake.env());
    EXPECT_NE(empty.exit_code, 0);
    EXPECT_NE(empty.err.find("--filter needs a filter file"), std::string::npos) << empty.err;
}

TEST(RunCommand, DefaultsAndExistingPreload) {
    FakeMpirun fake;
    auto env = fake.env();
    env["LD_PRELOAD"] = "/lib/x86_64-linux-gnu/libm.so.6"; // harmless to preload anywhere
    const CommandResult r = run_command({topolens::test::topolens_bin(), "run", "--", "prog"}, env);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const std::vector<std::string> args = fake.args();
    std::vector<std::string> want = expected_start();
    want.insert(want.end(), {"-np", "4", "-x"});
    ASSERT_GE(args.size(), want.size());
    EXPECT_EQ(std::vector<std::string>(args.begin(), args.begin() + want.size()), want);
    EXPECT_EQ(exported(args, "LD_PRELOAD"),
              fake.library().string() + ":/lib/x86_64-linux-gnu/libm.so.6");
    EXPECT_EQ(exported(args, "TOPOLENS_TRACE_DIR"), ""); // the library picks its own name
    EXPECT_EQ(args.back(), "prog");
}

// --profile: the library writes DIR/profile.cubex instead of a trace (TOPOLENS_MODE).
TEST(RunCommand, ProfileModeSaysWhereTheProfileIs) {
    FakeMpirun fake;
    ScratchDir work;
    const fs::path dir = work / "run";
    CommandResult r = run_command(
        {topolens::test::topolens_bin(), "run", "--profile", "--", "prog"}, fake.env(dir.string()));
    EXPECT_EQ(exported(fake.args(), "TOPOLENS_MODE"), "profile");
    // The program succeeded but left no profile: as for an incomplete trace, status 3.
    EXPECT_EQ(r.exit_code, 3);
    EXPECT_NE(r.err.find("topolens: no profile was written"), std::string::npos) << r.err;
    fs::create_directories(dir);
    write_file(dir / "profile.cubex", "a profile");
    r = run_command({topolens::test::topolens_bin(), "run", "--profile", "--", "prog"},
                    fake.env(dir.string()));
    EXPECT_EQ(r.err, "topolens: profile written to " + (dir / "profile.cubex").string() + "\n");
    // Without --profile (TOPOLENS_MODE=trace,profile in the environment): both are named.
    write_file(dir / "traces.otf2", "a trace");
    r = run_command({topolens::test::topolens_bin(), "run", "--", "prog"},
                    fake.env(dir.string() + "\ncomplete"));
    EXPECT_EQ(exported(fake.args(), "TOPOLENS_MODE"), "");
    EXPECT_EQ(r.err, "topolens: profile written to " + (dir / "profile.cubex").string() +
                         "\ntopolens: trace written to " + dir.string() + "\n");
}

TEST(RunCommand, SaysSoWhenNoTraceWasReported) {
    FakeMpirun fake;
    const CommandResult r =
        run_command({topolens::test::topolens_bin(), "run", "--", "prog"}, fake.env(""));
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_NE(r.err.find("topolens: no trace was reported"), std::string::npos) << r.err;
}

// The library's status lines after the path (measure/write_outcome.h): an incomplete trace
// is reported with what is missing; a program that succeeded then exits 3, a failed one
// keeps its own status.
TEST(RunCommand, ReportsAnIncompleteTrace) {
    FakeMpirun fake;
    const std::string report = "/traces/t\nincomplete\nrank 1 stopped early, 2.0 s after "
                               "MPI_Init (No space left on device)\ndefinitions/anchor not "
                               "written (No space left on device)";
    CommandResult r =
        run_command({topolens::test::topolens_bin(), "run", "--", "prog"}, fake.env(report));
    EXPECT_EQ(r.exit_code, 3);
    EXPECT_EQ(r.err, "topolens: the trace in /traces/t is incomplete: rank 1 stopped early, 2.0 "
                     "s after MPI_Init (No space left on device); definitions/anchor not written "
                     "(No space left on device)\n");
    r = run_command({topolens::test::topolens_bin(), "run", "--", "prog"}, fake.env(report, "5"));
    EXPECT_EQ(r.exit_code, 5);
    r = run_command({topolens::test::topolens_bin(), "run", "--", "prog"},
                    fake.env("/traces/t\ncomplete"));
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_EQ(r.err, "topolens: trace written to /traces/t\n");
}

TEST(RunCommand, FindsTheLibraryNextToTheExecutable) {
    FakeMpirun fake;
    ScratchDir install;
    fs::create_directories(install / "bin");
    fs::create_directories(install / "lib");
    fs::copy_file(topolens::test::topolens_bin(), install / "bin" / "topolens");
    write_file(install / "lib" / "libtopolens-measure.so", "x");
    auto env = fake.env();
    env["TOPOLENS_MEASURE_LIB"] = "";
    const CommandResult r = run_command(
        {(install / "bin" / "topolens").string(), "run", "--dry-run", "--", "prog"}, env);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("LD_PRELOAD=" + (install / "lib" / "libtopolens-measure.so").string()),
              std::string::npos)
        << r.out;
    EXPECT_EQ(r.out.rfind("mpirun ", 0), 0u) << r.out;
}

TEST(RunCommand, MissingLibraryIsAClearError) {
    FakeMpirun fake;
    auto env = fake.env();
    env["TOPOLENS_MEASURE_LIB"] = "/nonexistent/libtopolens-measure.so";
    const CommandResult r = run_command({topolens::test::topolens_bin(), "run", "--", "prog"}, env);
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.err, "topolens: error: TOPOLENS_MEASURE_LIB names "
                     "'/nonexistent/libtopolens-measure.so', which is not a file\n");
    EXPECT_FALSE(fs::exists(fake.args_file())); // mpirun never started
}

TEST(RunCommand, MissingMpirunIsAClearError) {
    FakeMpirun fake;
    ScratchDir empty;
    auto env = fake.env();
    env["PATH"] = empty.path().string();
    // `env` itself is found by absolute path; topolens then searches the empty PATH.
    const CommandResult r = run_command({topolens::test::topolens_bin(), "run", "--", "prog"}, env);
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("topolens: error: cannot start mpirun"), std::string::npos) << r.err;
}

TEST(RunCommand, UsageErrors) {
    FakeMpirun fake;
    for (const std::vector<std::string>& args : {std::vector<std::string>{"run", "prog"},
                                                 {"run", "--"},
                                                 {"run", "-np", "zero", "--", "p"},
                                                 {"run", "-np", "0", "--", "p"},
                                                 {"run", "--trace-dir"}}) {
        std::vector<std::string> argv = {topolens::test::topolens_bin()};
        argv.insert(argv.end(), args.begin(), args.end());
        const CommandResult r = run_command(argv, fake.env());
        EXPECT_EQ(r.exit_code, 2) << args.back();
        EXPECT_EQ(r.err.rfind("topolens: error: ", 0), 0u) << r.err;
        EXPECT_NE(r.err.find("usage: topolens run"), std::string::npos);
    }
    EXPECT_FALSE(fs::exists(fake.args_file()));
}

} // namespace
} // namespace topolens::test
