// The command line of `topolens-gui --render` (and of `topolens render`, which execs it).
#pragma once

#include "gui/topology_scene.h"

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace topolens::gui {

struct RenderOptions {
    std::string input; // report or trace
    std::string png;
    std::string metric;                     // unique or display name; empty: the first metric
    std::string callpath;                   // empty: the whole program
    std::string view = "topology";          // or "codelets", "series"
    std::optional<Orientation> orientation; // empty: the grid's default
    bool high_resolution = false;
    int width = 1000, height = 760;
    std::string operation;           // codelet view: tuned operation (empty: the first)
    std::string codelet;             // topology coloured by this codelet's per-process mean
    std::string topology;            // topology name (empty: the analysis grid)
    std::vector<std::string> verify; // codelet views: verification runs (traces or reports)
    GridSlice slice;                 // topology view: the planes drawn (default all)
    bool edges = false;              // topology view: the wait arrows (root causes)
    double edge_threshold = 0.05;    // ... of at least this share of the largest
};

// --slice DIM=FROM[:TO]: DIM is a grid dimension (0, 1, ...) or x, y, z for 0, 1, 2.
std::optional<GridSlice> parse_slice(const std::string& text);

// Parses the arguments after --render. Returns an error message or nothing.
std::optional<std::string> parse_render_options(const std::vector<std::string>& args,
                                                RenderOptions& options);
void render_usage(std::ostream& out);

// The browser's command line: [REPORT|TRACE [--verify RUN...]]. Returns an error message or
// nothing.
struct BrowserOptions {
    std::string input;
    std::vector<std::string> verify;
};
std::optional<std::string> parse_browser_options(const std::vector<std::string>& args,
                                                 BrowserOptions& options);

} // namespace topolens::gui
