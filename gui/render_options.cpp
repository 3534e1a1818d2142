#include "gui/render_options.h"

#include <cstdio>

namespace topolens::gui {

void render_usage(std::ostream& out) {
    out << "usage: topolens-gui [REPORT|TRACE [--verify RUN...]]\n"
           "       topolens-gui --render REPORT --png FILE [--metric NAME] [--callpath PATH]\n"
           "                    [--view topology|codelets|series] [--orientation top|front|iso]\n"
           "                    [--high-resolution] [--size WxH] [--topology NAME]\n"
           "                    [--operation NAME] [--codelet NAME] [--verify RUN...]\n"
           "                    [--slice DIM=FROM[:TO]] [--edges [--edge-threshold PCT]]\n"
           "       topolens-gui --bench-frames [FRAMES [PNG_DIR]]\n\n"
           "Without --render: opens the browser (with REPORT, a .cubex report, or TRACE, an\n"
           "OTF2 trace directory or anchor: its report.cubex, written first when it is missing\n"
           "or older than the trace, saying so on stderr). --verify RUN...: verification runs of "
           "the\n"
           "tuned run (traces or reports of runs with one fixed codelet each), shown in the\n"
           "codelet view beside the search's boxes (also File > Add verification runs).\n\n"
           "--render draws one view into a PNG file without opening a window (VTK still\n"
           "needs an X display: on a machine without one use `xvfb-run -a`):\n"
           "  --view topology   (default) the process grid coloured by --metric (unique or\n"
           "                    display name, default the first metric) at --callpath (a\n"
           "                    path like program/main/MPI_Recv, default the whole program,\n"
           "                    inclusive); --orientation top (default for 1D/2D grids),\n"
           "                    front or iso (default for 3D); --high-resolution spreads the\n"
           "                    colours over the grid's smallest..largest value instead of\n"
           "                    0..the largest value of any process over the whole program;\n"
           "                    --topology NAME another of the report's topologies;\n"
           "                    --operation OP --codelet NAME colours the grid by that\n"
           "                    codelet's mean time per process (from the codelet audit);\n"
           "                    --slice DIM=FROM[:TO] draws only the processes whose\n"
           "                    coordinate along grid dimension DIM (0, 1, ... or x, y, z)\n"
           "                    is FROM..TO, e.g. --slice z=3 or --slice 2=2:5;\n"
           "                    --edges draws the root causes: an arrow from each process\n"
           "                    that made another wait to the one that waited (the report's\n"
           "                    wait edges), those of at least --edge-threshold PCT (default\n"
           "                    5) percent of the largest\n"
           "  --view codelets   the box plots of the tuned operation --operation (default\n"
           "                    the first) from the report's codelet audit, and beside them\n"
           "                    each codelet's time per measurement; --codelet NAME chooses\n"
           "                    a codelet (its band down to the fastest process); --verify\n"
           "                    RUN... adds verification runs' ranges beside the boxes\n"
           "  --view series     the codelet view with only the time per measurement\n"
           "  --size WxH        picture size in pixels (default 1000x760)\n\n"
           "--bench-frames prints the topology view's frame times (open: scene and first\n"
           "picture; still and rotating frames, median of FRAMES, default 20) for synthetic\n"
           "8x8, 16x16x16, 32x32x32 and 64x64x64 grids in a 900x700 window; with PNG_DIR it\n"
           "also writes their pictures.\n";
}

std::optional<GridSlice> parse_slice(const std::string& text) {
    const size_t equals = text.find('=');
    if (equals == std::string::npos || equals == 0) return std::nullopt;
    const std::string dimension = text.substr(0, equals);
    GridSlice slice;
    if (dimension == "x" || dimension == "y" || dimension == "z") {
        slice.dimension = dimension[0] - 'x';
    } else {
        char rest = 0;
        if (std::sscanf(dimension.c_str(), "%d%c", &slice.dimension, &rest) != 1 ||
            slice.dimension < 0)
            return std::nullopt;
    }
    const std::string range = text.substr(equals + 1);
    unsigned from = 0, to = 0;
    char rest = 0;
    const int fields = std::sscanf(range.c_str(), "%u:%u%c", &from, &to, &rest);
    if (fields == 1 && range.find(':') == std::string::npos &&
        range.find_first_not_of("0123456789") == std::string::npos)
        to = from;
    else if (fields != 2 || range.find_first_not_of("0123456789:") != std::string::npos ||
             to < from)
        return std::nullopt;
    slice.from = from;
    slice.to = to;
    return slice;
}

std::optional<std::string> parse_render_options(const std::vector<std::string>& args,
                                                RenderOptions& options) {
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        auto value = [&](std::string& into) -> bool {
            if (i + 1 >= args.size()) return false;
            into = args[++i];
            return true;
        };
        std::string text;
        if (arg == "--png") {
            if (!value(options.png)) return "--png needs a file name";
        } else if (arg == "--metric") {
            if (!value(options.metric)) return "--metric needs a metric name";
        } else if (arg == "--callpath") {
            if (!value(options.callpath)) return "--callpath needs a call path";
        } else if (arg == "--view") {
            if (!value(options.view)) return "--view needs topology, codelets or series";
            if (options.view != "topology" && options.view != "codelets" &&
                options.view != "series")
                return "--view must be topology, codelets or series, not '" + options.view + "'";
        } else if (arg == "--orientation") {
            if (!value(text)) return "--orientation needs top, front or iso";
            options.orientation = parse_orientation(text);
            if (!options.orientation)
                return "--orientation must be top, front or iso, not '" + text + "'";
        } else if (arg == "--high-resolution") {
            options.high_resolution = true;
        } else if (arg == "--size") {
            if (!value(text)) return "--size needs WxH";
            int w = 0, h = 0;
            char rest = 0;
            if (std::sscanf(text.c_str(), "%dx%d%c", &w, &h, &rest) != 2 || w < 100 || h < 100 ||
                w > 8000 || h > 8000)
                return "--size must be WxH with 100..8000 pixels each, not '" + text + "'";
            options.width = w;
            options.height = h;
        } else if (arg == "--operation") {
            if (!value(options.operation)) return "--operation needs a tuned operation's name";
        } else if (arg == "--codelet") {
            if (!value(options.codelet)) return "--codelet needs a codelet name";
        } else if (arg == "--verify") {
            const std::size_t before = options.verify.size();
            while (i + 1 < args.size() && !args[i + 1].empty() && args[i + 1][0] != '-')
                options.verify.push_back(args[++i]);
            if (options.verify.size() == before) return "--verify needs one or more runs";
        } else if (arg == "--slice") {
            if (!value(text)) return "--slice needs DIM=FROM[:TO]";
            const auto slice = parse_slice(text);
            if (!slice)
                return "--slice must be DIM=FROM[:TO] (DIM 0, 1, ... or x, y, z; FROM <= TO), "
                       "not '" +
                       text + "'";
            options.slice = *slice;
        } else if (arg == "--edges") {
            options.edges = true;
        } else if (arg == "--edge-threshold") {
            double percent = -1;
            char rest = 0;
            if (!value(text) || std::sscanf(text.c_str(), "%lf%c", &percent, &rest) != 1 ||
                !(percent >= 0 && percent <= 100))
                return "--edge-threshold needs a percentage 0..100";
            options.edge_threshold = percent / 100.0;
        } else if (arg == "--topology") {
            if (!value(options.topology)) return "--topology needs a topology name";
        } else if (!arg.empty() && arg[0] == '-') {
            return "unknown option '" + arg + "'";
        } else if (options.input.empty()) {
            options.input = arg;
        } else {
            return "more than one report given ('" + options.input + "', '" + arg + "')";
        }
    }
    if (options.input.empty()) return "no report given";
    if (options.png.empty()) return "--png FILE is required";
    if (options.slice.dimension >= 0 && options.view != "topology")
        return "--slice needs --view topology";
    if (options.edges && options.view != "topology") return "--edges needs --view topology";
    if (!options.verify.empty() && options.view == "topology")
        return "--verify needs --view codelets or series";
    return std::nullopt;
}

std::optional<std::string> parse_browser_options(const std::vector<std::string>& args,
                                                 BrowserOptions& options) {
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        if (arg == "--verify") {
            const std::size_t before = options.verify.size();
            while (i + 1 < args.size() && !args[i + 1].empty() && args[i + 1][0] != '-')
                options.verify.push_back(args[++i]);
            if (options.verify.size() == before) return "--verify needs one or more runs";
        } else if (!arg.empty() && arg[0] == '-') {
            return "unknown option '" + arg + "'";
        } else if (options.input.empty()) {
            options.input = arg;
        } else {
            return "expected at most one report or trace ('" + options.input + "', '" + arg + "')";
        }
    }
    if (!options.verify.empty() && options.input.empty())
        return "--verify needs the tuned run's report or trace";
    return std::nullopt;
}

} // namespace topolens::gui
