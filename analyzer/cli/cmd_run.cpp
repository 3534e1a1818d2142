// topolens run: starts an MPI program under mpirun with libtopolens-measure preloaded and
// says where the trace went.
#include "analyzer/cli/commands.h"
#include "analyzer/cli/cut_short.h"
#include "analyzer/cli/mpirun.h"
#include "analyzer/cli/options.h"
#include "analyzer/cli/text.h"

#include "trace/experiment_files.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <unistd.h>

namespace topolens::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kLibraryName = "libtopolens-measure.so";
// The program succeeded but its trace is incomplete (a failed program's status wins).
constexpr int kExitTraceIncomplete = 3;

struct RunOptions {
    int np = 4;
    std::optional<std::string> trace_dir;
    std::optional<std::string> filter; // TOPOLENS_FILTER: instrumented functions left out
    bool dry_run = false;
    bool profile = false;                    // a profile instead of a trace (TOPOLENS_MODE=profile)
    bool analyze = false;                    // then analyze the trace and print its summary
    std::vector<std::string> mpirun_options; // passed through in order
    std::vector<std::string> program;        // after "--"
};

RunOptions parse(const std::vector<std::string>& args) {
    RunOptions o;
    bool separator = false;
    const auto pass_through = [&](const std::string& a) { o.mpirun_options.push_back(a); };
    OptionParser()
        .option({"-np", "-n", "--np"},
                [&](const std::string& v) { o.np = parse_process_count("-np", v); })
        .option({"--trace-dir"}, [&](const std::string& v) { o.trace_dir = v; }, {true, "", true})
        .option({"--filter"}, [&](const std::string& v) { o.filter = v; }, {true, "", true})
        .flag({"--dry-run"}, [&] { o.dry_run = true; })
        .flag({"--profile"}, [&] { o.profile = true; })
        .flag({"--analyze"}, [&] { o.analyze = true; })
        .unknown(pass_through)
        .positional(pass_through)
        .separator([&](const std::vector<std::string>& program) {
            separator = true;
            o.program = program;
        })
        .parse(args);
    if (!separator) throw UsageError{"run needs '--' before the program"};
    if (o.program.empty()) throw UsageError{"run needs a program after '--'"};
    if (o.trace_dir && o.trace_dir->empty()) throw UsageError{"--trace-dir needs a directory"};
    if (o.filter && o.filter->empty()) throw UsageError{"--filter needs a filter file"};
    return o;
}

fs::path own_executable() {
    std::error_code ec;
    fs::path p = fs::read_symlink("/proc/self/exe", ec);
    return ec ? fs::path() : p;
}

// TOPOLENS_MEASURE_LIB, else relative to this executable (installed: bin/../lib or
// bin/../lib/<multiarch>, as configured; build tree: bin/../lib), else the configured install
// prefix. Throws std::runtime_error naming every place looked at.
std::string find_measure_library() {
    if (const char* env = std::getenv("TOPOLENS_MEASURE_LIB"); env && *env) {
        if (!fs::is_regular_file(env))
            throw std::runtime_error(std::string("TOPOLENS_MEASURE_LIB names '") + env +
                                     "', which is not a file");
        return fs::absolute(env).string();
    }
    std::vector<fs::path> candidates;
    const auto add = [&](const fs::path& c) {
        const fs::path normal = c.lexically_normal();
        if (std::find(candidates.begin(), candidates.end(), normal) == candidates.end())
            candidates.push_back(normal);
    };
    if (fs::path exe = own_executable(); !exe.empty()) {
        add(exe.parent_path() / TOPOLENS_LIBDIR_FROM_BINDIR / kLibraryName);
        add(exe.parent_path().parent_path() / "lib" / kLibraryName);
    }
    add(fs::path(TOPOLENS_INSTALL_LIBDIR) / kLibraryName);
    for (const fs::path& c : candidates)
        if (fs::is_regular_file(c)) return fs::absolute(c).lexically_normal().string();
    std::string looked;
    for (const fs::path& c : candidates) looked += (looked.empty() ? "" : ", ") + c.string();
    throw std::runtime_error(std::string("measurement library ") + kLibraryName +
                             " not found (looked at " + looked +
                             "); set TOPOLENS_MEASURE_LIB to its path");
}

// A file for the library to write the archive path into (rank 0, at MPI_Finalize).
std::string make_report_file() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/topolens-run-XXXXXX";
    std::vector<char> name(pattern.begin(), pattern.end());
    name.push_back('\0');
    const int fd = mkstemp(name.data());
    if (fd < 0) throw std::runtime_error("cannot create a temporary file in " + pattern);
    close(fd);
    return name.data();
}

std::vector<std::string> mpirun_command(const RunOptions& o, const std::string& library,
                                        const std::string& report_file) {
    std::vector<std::string> cmd = mpirun_prefix(o.np);
    cmd.insert(cmd.end(), o.mpirun_options.begin(), o.mpirun_options.end());
    std::string preload = library;
    if (const char* old = std::getenv("LD_PRELOAD"); old && *old) preload += std::string(":") + old;
    cmd.insert(cmd.end(), {"-x", "LD_PRELOAD=" + preload});
    if (o.trace_dir)
        cmd.insert(cmd.end(), {"-x", "TOPOLENS_TRACE_DIR=" + fs::absolute(*o.trace_dir).string()});
    if (o.filter)
        cmd.insert(cmd.end(), {"-x", "TOPOLENS_FILTER=" + fs::absolute(*o.filter).string()});
    cmd.insert(cmd.end(), {"-x", "TOPOLENS_REPORT_PATH_FILE=" + report_file});
    if (o.profile) cmd.insert(cmd.end(), {"-x", "TOPOLENS_MODE=profile"});
    cmd.insert(cmd.end(), o.program.begin(), o.program.end());
    return cmd;
}

std::string quoted(const std::string& s) {
    if (!s.empty() && s.find_first_of(" \t\n'\"\\$`*?;&|<>()") == std::string::npos) return s;
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

// What rank 0 wrote into TOPOLENS_REPORT_PATH_FILE: the trace directory, then "complete"
// or "incomplete" and one line per part that was not written (measure/write_outcome.h).
struct ReportedTrace {
    std::string path;
    bool complete = true;
    std::vector<std::string> missing;
};

ReportedTrace reported_trace(const std::string& report_file) {
    std::ifstream in(report_file);
    ReportedTrace trace;
    std::getline(in, trace.path);
    std::string state;
    if (std::getline(in, state) && state == "incomplete") trace.complete = false;
    for (std::string line; std::getline(in, line);)
        if (!line.empty()) trace.missing.push_back(line);
    return trace;
}

// --analyze: `topolens analyze TRACE`, then `topolens summary TRACE` (which reads the report
// just written). The program's failure wins over the analysis'.
int analyze_and_summarize(const std::string& trace, int run_status) {
    std::cout.flush();
    int status = analyze_main({trace});
    if (status == kExitOk) status = summary_main({trace});
    return run_status != kExitOk ? run_status : status;
}

} // namespace

void run_usage(std::ostream& out) {
    out << "usage: topolens run [-np N] [--trace-dir DIR] [--analyze] [--profile] [--filter FILE]\n"
           "                    [--dry-run] [mpirun options] -- PROGRAM [ARGS...]\n\n"
           "Runs PROGRAM under mpirun with N processes (default 4), the measurement library\n"
           "preloaded, and reports where the trace was written. Options other than these are\n"
           "passed to mpirun unchanged.\n\n"
           "Returns mpirun's exit status; 3 if that was 0 but the trace is incomplete (a\n"
           "write failed, e.g. a full disk: the message says what is missing) or a --profile\n"
           "run wrote no profile. The trace of\n"
           "a run that ended before MPI_Finalize is completed (topolens-complete) and said\n"
           "to be cut short. With --analyze, a complete or completed trace is then analyzed\n"
           "as `topolens analyze TRACE` does (report.cubex in the trace directory) and its\n"
           "summary printed as `topolens summary` does; a failed analysis is status 1 when\n"
           "the program itself succeeded. With --profile too, the profile's summary is printed.\n\n"
           "  -np N            number of MPI processes (also -n, --np)\n"
           "  --trace-dir DIR  write the trace archive to DIR (default: the library's choice)\n"
           "  --analyze        analyze the trace and print its summary (as scalasca -analyze)\n"
           "  --filter FILE    leave out the instrumented functions a Score-P filter file\n"
           "                   excludes (TOPOLENS_FILTER; docs/instrumentation.md)\n"
           "  --profile        write a call-path profile (DIR/profile.cubex) at the end\n"
           "                   instead of a trace (TOPOLENS_MODE=profile; see docs/profile.md)\n"
           "  --dry-run        print the mpirun command instead of running it\n\n"
           "environment:\n"
           "  TOPOLENS_MEASURE_LIB  path of libtopolens-measure.so (default: the library\n"
           "                        directory beside the topolens executable's bin, e.g.\n"
           "                        ../lib, then the install prefix)\n";
}

int run_main(const std::vector<std::string>& args) {
    if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
        run_usage(std::cout);
        return kExitOk;
    }
    RunOptions options;
    try {
        options = parse(args);
    } catch (const UsageError& e) {
        return report_usage_error(e, "", run_usage);
    }
    std::string report_file;
    try {
        const std::string library = find_measure_library();
        if (options.dry_run) {
            std::vector<std::string> words;
            for (const std::string& s : mpirun_command(options, library, "<report file>"))
                words.push_back(quoted(s));
            std::cout << join(words, " ") << "\n";
            return kExitOk;
        }
        report_file = make_report_file();
        // Open MPI gives the other processes of a dying job 1 s between SIGTERM and SIGKILL;
        // on a busy machine that is too short for them to write their events.
        setenv("OMPI_MCA_odls_base_sigkill_timeout", "5", 0);
        const int status = run_and_wait(mpirun_command(options, library, report_file));
        const ReportedTrace trace = reported_trace(report_file);
        std::remove(report_file.c_str());
        if (trace.path.empty()) {
            std::cerr << "topolens: no trace was reported (did the program call MPI_Init "
                         "with measurement enabled?)\n";
            return status;
        }
        // Profile mode (--profile, or TOPOLENS_MODE with "profile"): written at MPI_Finalize.
        const fs::path profile = fs::path(trace.path) / trace::kProfileName;
        const bool profile_only =
            options.profile ||
            (fs::is_regular_file(profile) && !fs::exists(fs::path(trace.path) / "traces.otf2"));
        if (profile_only) {
            if (!fs::is_regular_file(profile)) {
                std::cerr << "topolens: no profile was written (the run ended before "
                             "MPI_Finalize?)\n";
                return status != kExitOk ? status : kExitTraceIncomplete;
            }
            std::cerr << "topolens: profile written to " << profile.string() << "\n";
            // A profile is a report already: --analyze prints its summary.
            if (!options.analyze) return status;
            std::cout.flush();
            const int summarized = summary_main({profile.string()});
            return status != kExitOk ? status : summarized;
        }
        if (fs::is_regular_file(profile))
            std::cerr << "topolens: profile written to " << profile.string() << "\n";
        if (needs_completion(trace.path)) {
            // The run died before MPI_Finalize: its ranks left their events and records.
            if (!run_completion(trace.path)) {
                std::cerr << "topolens: the run ended before MPI_Finalize and its trace in "
                          << trace.path << " could not be completed\n";
                return status != kExitOk ? status : kExitTraceIncomplete;
            }
            std::cerr << "topolens: the run ended before MPI_Finalize; its trace, cut "
                         "short, is in "
                      << trace.path << "\n";
            const int run_status = status != kExitOk ? status : kExitTraceIncomplete;
            return options.analyze ? analyze_and_summarize(trace.path, run_status) : run_status;
        }
        if (!trace.complete) {
            std::cerr << "topolens: the trace in " << trace.path
                      << " is incomplete: " << join(trace.missing, "; ") << "\n";
            return status != kExitOk ? status : kExitTraceIncomplete;
        }
        std::cerr << "topolens: trace written to " << trace.path << "\n";
        return options.analyze ? analyze_and_summarize(trace.path, status) : status;
    } catch (const std::exception& e) {
        if (!report_file.empty()) std::remove(report_file.c_str());
        print_error(e.what());
        return kExitFailure;
    }
}

} // namespace topolens::cli
