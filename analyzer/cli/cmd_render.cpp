// topolens render: the GUI's pictures without a window. The pictures are drawn by VTK and
// Qt, which live in topolens-gui; this command hands its arguments to
// `topolens-gui --render` so that the analysis command line itself needs no GUI libraries.
#include "analyzer/cli/commands.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <unistd.h>

namespace topolens::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kGuiName = "topolens-gui";

// TOPOLENS_GUI, else next to this executable, else found in PATH by execvp.
std::string gui_program() {
    if (const char* env = std::getenv("TOPOLENS_GUI"); env && *env) return env;
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        const fs::path sibling = exe.parent_path() / kGuiName;
        if (fs::is_regular_file(sibling)) return sibling.string();
    }
    return kGuiName;
}

} // namespace

void render_usage(std::ostream& out) {
    out << "usage: topolens render REPORT --png FILE [--metric NAME] [--callpath PATH]\n"
           "                       [--view topology|codelets|series] [--orientation "
           "front|top|iso]\n"
           "                       [--high-resolution] [--operation NAME] [--codelet NAME]\n"
           "                       [--verify RUN...] [--size WxH] [--topology NAME]\n"
           "                       [--slice DIM=FROM[:TO]] [--edges [--edge-threshold PCT]]\n\n"
           "Draws the GUI's topology view or codelet view of REPORT (a .cubex report or a\n"
           "trace, which is analyzed first) into a PNG file, without opening a window.\n"
           "--view series draws only the codelets' time per measurement; --verify RUN...\n"
           "adds verification runs (each ran one fixed codelet) to the codelet view.\n"
           "--slice DIM=FROM[:TO] draws only the processes whose coordinate along grid\n"
           "dimension DIM (0, 1, ... or x, y, z) is FROM..TO, e.g. --slice z=3.\n"
           "--edges draws the root causes: arrows from the processes that made others wait\n"
           "to those that waited (of at least --edge-threshold PCT, default 5, percent of the\n"
           "largest).\n"
           "VTK needs an X display to draw, also here: on a machine without one run it as\n"
           "`xvfb-run -a topolens render ...`.\n\n"
           "See `topolens-gui --help` for every option. The work is done by topolens-gui\n"
           "(found next to topolens, or named by TOPOLENS_GUI).\n";
}

int render_main(const std::vector<std::string>& args) {
    if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
        render_usage(std::cout);
        return kExitOk;
    }
    const std::string program = gui_program();
    std::vector<std::string> argv_strings = {program, "--render"};
    argv_strings.insert(argv_strings.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& s : argv_strings) argv.push_back(s.data());
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    const int err = errno;
    print_error(
        "cannot start " + program + ": " + std::strerror(err) +
        (err == ENOENT ? " (was topolens built with the GUI? set TOPOLENS_GUI to its path)" : ""));
    return kExitFailure;
}

} // namespace topolens::cli
