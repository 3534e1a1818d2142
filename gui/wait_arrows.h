// Who made whom wait, as the topology view draws it: the report's wait edges summed over
// their kinds into one arrow per causing -> waiting pair, and the words for a clicked process
// (what it caused, what caused its waits). Reads report::Report::wait_edges and the report's
// root causes (analyzer/report/root_causes.h) only; the analysis is done before.
#pragma once

#include "analyzer/report/report.h"

#include <cstddef>
#include <string>
#include <vector>

namespace topolens::gui {

struct WaitArrow {
    int causing = 0; // location index
    int waiting = 0; // location index
    double seconds = 0.0;
    bool operator==(const WaitArrow&) const = default;
};

struct RootCauseArrows {
    std::vector<WaitArrow> arrows; // summed over kinds, largest first (ties: by locations)
    std::vector<int> reached;      // by location: processes its waits reached; -1: no delay cost
};

RootCauseArrows root_cause_arrows(const report::Report& report);

// The arrows of at least `share` (0..1) of the largest one, largest first.
std::vector<WaitArrow> arrows_at_or_above(const std::vector<WaitArrow>& arrows, double share);

// E.g. "made 3 processes wait 2.71 s directly; reached 11; waited 0.01 s for 2 processes";
// empty when the location has no arrow to or from it.
std::string cause_text(const RootCauseArrows& causes, int location);

} // namespace topolens::gui
