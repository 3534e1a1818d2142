// topolens: dispatches to the subcommand named by the first argument.
#include "analyzer/cli/commands.h"
#include "analyzer/cli/huge_page_malloc.h"

#include <cstring>
#include <iostream>
#include <stdexcept>

namespace {

using topolens::cli::Command;

const Command kCommands[] = {
    {"info", "summarize a trace: ranks, regions, communicators, topologies, tuned operations",
     topolens::cli::info_main, topolens::cli::info_usage},
    {"run", "run an MPI program under mpirun with the measurement library preloaded",
     topolens::cli::run_main, topolens::cli::run_usage},
    {"analyze", "find the wait states of a trace and write a CUBE4 report",
     topolens::cli::analyze_main, topolens::cli::analyze_usage},
    {"summary", "summarize a CUBE4 report: metric tree, where wait states happened, violations",
     topolens::cli::summary_main, topolens::cli::summary_usage},
    {"values", "per-location values of one metric from a CUBE4 report, as CSV or JSON",
     topolens::cli::values_main, topolens::cli::values_usage},
    {"synth", "write a synthetic trace with known wait states (benchmarks, exact tests)",
     topolens::cli::synth_main, topolens::cli::synth_usage},
    {"audit", "audit an autotuner's decisions: estimates, outliers, verdict, search cost",
     topolens::cli::audit_main, topolens::cli::audit_usage},
    {"score", "what each region costs in a trace (visits, time, bytes), filter savings",
     topolens::cli::score_main, topolens::cli::score_usage},
    {"render", "draw the GUI's topology or codelet view of a report into a PNG (needs X)",
     topolens::cli::render_main, topolens::cli::render_usage},
};

void usage(std::ostream& out) {
    out << "usage: topolens <command> [arguments]\n"
           "       topolens help [command]\n"
           "       topolens help metrics [--markdown]\n"
           "       topolens --version\n\n"
           "commands:\n";
    for (const Command& c : kCommands)
        out << "  " << c.name << std::string(10 - std::strlen(c.name), ' ') << c.summary << "\n";
}

const Command* find(const std::string& name) {
    for (const Command& c : kCommands)
        if (name == c.name) return &c;
    return nullptr;
}

} // namespace

int main(int argc, char** argv) {
    using namespace topolens::cli;
    if (argc < 2) {
        usage(std::cerr);
        return kExitUsage;
    }
    const std::string first = argv[1];
    if (first == "--version" || first == "-V") {
        std::cout << "topolens " << TOPOLENS_VERSION << "\n";
        return kExitOk;
    }
    if (first == "help" || first == "--help" || first == "-h") {
        if (argc > 2) {
            if (std::string(argv[2]) == "metrics")
                return metrics_main(std::vector<std::string>(argv + 3, argv + argc));
            if (const Command* c = find(argv[2])) {
                c->usage(std::cout);
                return kExitOk;
            }
            print_error("unknown command '" + std::string(argv[2]) + "'");
            usage(std::cerr);
            return kExitUsage;
        }
        usage(std::cout);
        return kExitOk;
    }
    const Command* command = find(first);
    if (!command) {
        print_error("unknown command '" + first + "'");
        usage(std::cerr);
        return kExitUsage;
    }
    // Only the analysis (not `run`, whose environment the traced program inherits).
    if (command->run == analyze_main) {
        try {
            rerun_with_huge_page_malloc(argv);
        } catch (const std::invalid_argument& e) {
            print_error(e.what());
            return kExitUsage;
        }
    }
    return command->run(std::vector<std::string>(argv + 2, argv + argc));
}

void topolens::cli::print_error(const std::string& message) {
    std::cerr << (std::string(kErrorPrefix) + message + "\n"); // one write: see note_warnings
}
