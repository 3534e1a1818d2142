// Building the metric tree of a report and turning pattern results into CUBE's form.
#pragma once

#include "analyzer/report/report.h"

#include <string>

namespace topolens::analysis {

// One metric as a report gets it: a row of the metric catalogue (patterns/metric_catalogue.h)
// for one report. `url` is "@mirror@docs/metrics.md#metric-<anchor>", in the "@mirror@" form
// Scalasca's reports use ("@mirror@scalasca_patterns.html#mpi_latesender").
struct MetricDefinition {
    std::string unique_name;
    std::string parent; // unique name; "" for a root
    std::string display_name;
    std::string unit = "sec";
    std::string description;
    std::string url;
    // The metric it is a part of when that is not its parent (unique name; "" for most):
    // recorded in the report (report::Report::part_of) for `summary` and the GUI.
    std::string part_of;
};

// Adds a metric below its parent, and the documentation mirror (where docs/ lives: the
// source tree unless configured with -DTOPOLENS_DOC_MIRROR=https://.../) to the report if it
// has none; returns its id. Throws std::logic_error if the parent does not exist (parents are
// defined first: ids grow from parent to child).
int define_metric(report::Report& report, const MetricDefinition& metric);

// The same for a metric outside the catalogue (a test's), without url.
int define_metric(report::Report& report, const std::string& parent, const std::string& unique,
                  const std::string& display, const std::string& description,
                  const std::string& unit = "sec");

// Patterns add metric-inclusive values (a parent's value includes its children's);
// CUBE stores metric-exclusive ones. Subtracts every metric's children from it.
void make_metrics_exclusive(report::Report& report);

} // namespace topolens::analysis
