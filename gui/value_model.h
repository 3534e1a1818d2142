// What the browser shows, computed from the report model (analyzer/report/report.h) alone: sums of
// the stored exclusive severities over the chosen metrics, call paths and locations. No
// analysis happens here, only the bookkeeping of CUBE's three-pane selection:
//   - a metric node shows its inclusive value (itself and its sub-metrics) when collapsed
//     and its own (exclusive) value when expanded; the same choice decides which values the
//     panes to its right show;
//   - likewise a call path: collapsed = with its callees, expanded = its own part;
//   - in the flat region profile a region stands for all its call paths, own parts only.
#pragma once

#include "analyzer/report/report.h"

#include <string>
#include <vector>

namespace topolens::gui {

struct MetricChoice {
    int metric = -1;
    bool inclusive = true; // collapsed node: the metric with its sub-metrics
};

struct CallChoice {
    bool whole_program = true; // nothing chosen: every call path
    std::vector<int> callpaths;
    bool inclusive = true; // with every call path below the chosen ones
};

// The metrics a choice sums: the subtree or the metric alone.
std::vector<int> chosen_metrics(const report::Report& report, const MetricChoice& choice);
// mask[c] != 0 for every call path the choice covers.
std::vector<char> chosen_callpaths(const report::Report& report, const CallChoice& choice);

// Sum over every call path and location (the metric pane's value).
double metric_value(const report::Report& report, const MetricChoice& choice);
// Per call path, summed over locations: own value (exclusive) and with callees (inclusive).
struct CallpathValues {
    std::vector<double> exclusive, inclusive;
};
CallpathValues callpath_values(const report::Report& report, const MetricChoice& choice);
// Per region, its call paths' own values summed (the flat profile).
std::vector<double> region_values(const report::Report& report, const MetricChoice& choice);
// Per location, summed over the chosen call paths (the system pane and the topology).
std::vector<double> location_values(const report::Report& report, const MetricChoice& metric,
                                    const CallChoice& calls);
// The low-resolution scale of the topology: the largest value any location has for the
// chosen metric over the whole program (every call path). A call path's value never
// exceeds it (severities are not negative), so colours stay comparable between call paths.
double whole_program_location_max(const report::Report& report, const MetricChoice& metric);

// The roots of the call tree and the metric forest, in id order.
std::vector<int> callpath_roots(const report::Report& report);
std::vector<int> metric_roots(const report::Report& report);
int metric_root_of(const report::Report& report, int metric);

// Unit shown to people: "s" for "sec", "occ" for occurrences, else the report's word.
std::string display_unit(const report::Metric& metric);

// How the panes print values (View menu).
enum class ValueMode {
    Absolute,        // the value in the metric's unit
    Percent,         // percent of the whole: the root metric's total (e.g. all of Time)
    RelativePercent, // percent of the selection in the pane to the left (metric pane: root)
};
// `whole`: the reference of the mode (root total or the selection to the left).
std::string format_value(double value, ValueMode mode, double whole, const std::string& unit);
std::string format_number(double value);

} // namespace topolens::gui
