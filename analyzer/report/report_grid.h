// Which process grid an analysis explained its wait states with, as the report's
// attributes record it. The one place those attributes are spelled.
#pragma once

#include "analyzer/report/report.h"

#include <string>

namespace topolens::report {

// Attribute keys: the grid topology's name, where it came from ("recorded", "declared",
// "communicators", "inferred" or "none") and why it was chosen.
inline constexpr const char* kGridAttribute = "topolens.grid";
inline constexpr const char* kGridSourceAttribute = "topolens.grid_source";
inline constexpr const char* kGridExplanationAttribute = "topolens.grid_explanation";

// The grid a report's analysis used. Reports without the attributes (older ones,
// Scalasca's): the first topology with source "unknown", or none. A named grid that is
// missing (an edited report): the first topology, where the analysis put its grid.
struct ReportGrid {
    const CartTopology* grid = nullptr;
    std::string source; // "recorded", "declared", "communicators", "inferred", "none", "unknown"
    std::string explanation; // empty when the report does not say
};
ReportGrid report_grid(const Report& report);

// report_grid(report).grid: nullptr if there is none or the analysis found none.
inline const CartTopology* analysis_grid(const Report& report) {
    return report_grid(report).grid;
}

} // namespace topolens::report
