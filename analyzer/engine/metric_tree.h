// Building the metric tree of a report and turning pattern results into CUBE's form.
#pragma once

#include "analyzer/report/report.h"

#include <string>

namespace topolens::analysis {

// The description of a metric: "@mirror@README.md#metric-<unique name>", the anchor of its
// row in README's metric table ("metric-mpi_wavefront" for every Wavefront from X), in the
// "@mirror@" form Scalasca's reports use ("@mirror@scalasca_patterns.html#mpi_latesender").
std::string metric_url(const std::string& unique_name);

// Adds a metric below the one with unique name `parent` ("" for a root), with its url, and
// the documentation mirror (where README.md lives: the source tree unless configured with
// -DTOPOLENS_DOC_MIRROR=https://.../) to the report if it has none; returns its id.
// Throws std::logic_error if the parent does not exist (patterns registered out of order).
int define_metric(report::Report& report, const std::string& parent, const std::string& unique,
                  const std::string& display, const std::string& description,
                  const std::string& unit = "sec");

// Patterns add metric-inclusive values (a parent's value includes its children's);
// CUBE stores metric-exclusive ones. Subtracts every metric's children from it.
void make_metrics_exclusive(report::Report& report);

} // namespace topolens::analysis
