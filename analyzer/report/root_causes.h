// The processes whose delays cost the most waiting time, read from a report's delay costs
// (Scalasca's root-cause analysis, docs/root-causes.md) and wait edges: what `topolens
// summary` lists under "root causes" and the GUI will point at.
#pragma once

#include "analyzer/report/report.h"

#include <optional>
#include <vector>

namespace topolens::report {

struct RootCause {
    int location = 0;
    double delay = 0.0;     // short- and long-term delay costs on it, seconds
    int callpath = -1;      // where most of them are
    double at_callpath = 0; // seconds there
    // Its direct victims (wait edges from it) and how long they waited for it.
    int waited_directly = 0;
    double direct_wait = 0.0;
    // Every process its waits reached, directly or through processes that waited for it and
    // made others wait in turn (along the wait edges), and the farthest of them on the grid.
    int reached = 0;
    std::optional<int> hops; // grid distance (periodic dimensions wrap); none without a grid
};

struct RootCauses {
    double wait = 0.0;             // every wait state the delay costs explain, seconds
    double delay = 0.0;            // every delay cost
    std::vector<RootCause> causes; // by delay, largest first; only processes with a delay
};

// Empty (wait and delay 0, no causes) for a report without delay costs.
RootCauses root_causes(const Report& report);

// Steps between two processes on a Cartesian grid (periodic dimensions wrap around).
int grid_hops(const CartTopology& grid, int from, int to);

} // namespace topolens::report
