// topolens analyze TRACE [-o REPORT.cubex] [--cart SPEC]: reads an OTF2 trace, runs every
// pattern, writes the severity report as CUBE4.
#include "analyzer/cli/analyze_on_ranks.h"
#include "analyzer/cli/commands.h"
#include "analyzer/cli/cut_short.h"
#include "analyzer/cli/mpirun.h"
#include "analyzer/cli/options.h"

#include "analyzer/engine/grid.h"
#include "analyzer/report/cube4.h"
#include "patterns/analyze_file.h"
#include "patterns/trace_report.h"

#include <chrono>
#include <filesystem>
#include <iostream>
#include <optional>

namespace topolens::cli {

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

} // namespace

void analyze_usage(std::ostream& out) {
    out << "usage: topolens analyze TRACE [-o REPORT.cubex] [--cart SPEC] [--no-root-causes]\n"
           "                        [--quiet] [--ranks N | --mpi]\n\n"
           "Reads the OTF2 trace TRACE (archive directory or .otf2 anchor), finds its wait\n"
           "states (Late Sender, Late Receiver, Wait at NxN, Wait at Barrier, Late Broadcast,\n"
           "Early Reduce, ...) and writes a CUBE4 report, by default report.cubex in the\n"
           "trace's directory. Progress goes to stderr unless --quiet.\n\n"
           "Wait states are explained by the process grid: the first Cartesian topology\n"
           "recorded in the trace that covers every process; else the one declared with\n"
           "--cart; else one inferred from who exchanges point-to-point messages (1D, 2D or\n"
           "3D, numbered first coordinate fastest). The report says which was used.\n"
           "  --cart DIMS[:periodic=F,...][:order=row|col]\n"
           "      DIMS: 1 to 3 sizes joined by 'x' (16, 8x8, 4x2x2) whose product is the\n"
           "      number of MPI processes; periodic: one 0/1 flag per dimension (default all\n"
           "      0); order=row (default): the last coordinate varies fastest, as\n"
           "      MPI_Cart_create numbers ranks; order=col: the first varies fastest\n"
           "      (rank = i + npe_i*j, as in Sweep3D). A malformed SPEC is a usage error\n"
           "      (exit 2); dimensions that do not match the trace's processes an error\n"
           "      (exit 1).\n\n"
           "--no-root-causes leaves out the root-cause analysis (delay costs, wait propagation,\n"
           "the critical path and who made whom wait; docs/root-causes.md), its costliest part.\n\n"
           "The trace is read, matched and replayed in TOPOLENS_THREADS threads (1 to 256;\n"
           "default: the machine's cores); the report does not depend on the number.\n\n"
           "Across processes (traces larger than one analyzer process holds):\n"
           "  --ranks N   starts `mpirun -np N topolens analyze TRACE --mpi ...` (N at most the\n"
           "              trace's processes)\n"
           "  --mpi       this is one rank of such a run, started by mpirun (on one machine or\n"
           "              with a hostfile across nodes): each rank reads and replays its share\n"
           "              of the locations, rank 0 writes the report, the same report as in one\n"
           "              process.\n";
}

int analyze_main(const std::vector<std::string>& args) {
    std::string trace_path, report_path, cart_spec;
    bool quiet = false, root_causes = true, mpi = false;
    int ranks = 0;
    std::optional<analysis::CartDeclaration> cart;
    const auto set_cart = [&](const std::string& spec) {
        try {
            cart = analysis::parse_cart_declaration(spec);
            cart_spec = spec;
        } catch (const analysis::GridError& e) {
            throw UsageError{e.what(), false};
        }
    };
    if (const auto exit =
            OptionParser()
                .help()
                .option({"-o", "--output"}, [&](const std::string& v) { report_path = v; })
                .option({"--cart"}, set_cart, {true, "--cart needs a grid, e.g. --cart 8x8", false})
                .flag({"--quiet", "-q"}, [&] { quiet = true; })
                .flag({"--no-root-causes"}, [&] { root_causes = false; })
                .flag({"--mpi"}, [&] { mpi = true; })
                .option({"--ranks"},
                        [&](const std::string& v) { ranks = parse_process_count("--ranks", v); })
                .positional(OptionParser::single(trace_path, "trace", false))
                .run(args, "analyze: ", analyze_usage, [&] {
                    if (trace_path.empty()) throw UsageError{};
                    if (mpi && ranks > 0)
                        throw UsageError{"--ranks starts the ranks that --mpi runs in: give one"};
                }))
        return *exit;
    // Cube opens reports only by their .cubex name (it derives the file name from it).
    if (!report_path.empty() && std::filesystem::path(report_path).extension() != ".cubex") {
        print_error("analyze: -o " + report_path +
                    ": a CUBE4 report's name must end in .cubex (Cube opens no other)");
        return kExitUsage;
    }
    if (ranks > 0) try {
            // The ranks are told what this run was: every option but --ranks.
            std::vector<std::string> options;
            if (!report_path.empty()) options.insert(options.end(), {"-o", report_path});
            if (cart) options.insert(options.end(), {"--cart", cart_spec});
            if (quiet) options.push_back("--quiet");
            if (!root_causes) options.push_back("--no-root-causes");
            return start_analysis_on_ranks(ranks, trace_path, options);
        } catch (const std::exception& e) {
            print_error(e.what());
            return kExitFailure;
        }
    if (mpi) {
        RankedAnalysis job{trace_path, report_path, {}, root_causes, quiet};
        job.options.declared_grid = cart;
        return analyze_on_ranks(std::move(job));
    }
    std::ostream* progress = quiet ? nullptr : &std::cerr;
    try {
        const auto start = std::chrono::steady_clock::now();
        if (progress) *progress << "topolens: reading " << trace_path << "\n";
        analysis::AnalysisOptions options;
        options.progress = progress;
        options.declared_grid = cart;
        complete_if_cut_short(trace_path);
        const patterns::FileAnalysis file =
            patterns::analyze_file(trace_path, options, root_causes);
        if (!file.cut_short.empty()) std::cerr << "topolens: " << file.cut_short << "\n";
        const analysis::AnalysisResult& result = file.result;
        const double read_seconds = file.read_seconds;

        if (report_path.empty()) report_path = patterns::default_report_path(file.anchor);
        report::write_cube4(result.report, report_path);

        patterns::note_warnings(result, std::cerr);
        if (progress)
            *progress << "topolens: " << result.events << " events read in " << read_seconds
                      << " s, analyzed in " << seconds_since(start) - read_seconds << " s\n";
        std::cout << "topolens: report written to " << report_path << "\n";
    } catch (const std::exception& e) {
        print_error(e.what());
        return kExitFailure;
    }
    return kExitOk;
}

} // namespace topolens::cli
