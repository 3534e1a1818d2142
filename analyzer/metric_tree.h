// Building the metric tree of a report and turning pattern results into CUBE's form.
#pragma once

#include "analyzer/report.h"

#include <string>

namespace topolens::analysis {

// Adds a metric below the one with unique name `parent` ("" for a root); returns its id.
// Throws std::logic_error if the parent does not exist (patterns registered out of order).
int define_metric(report::Report& report, const std::string& parent, const std::string& unique,
                  const std::string& display, const std::string& description,
                  const std::string& unit = "sec");

// Patterns add metric-inclusive values (a parent's value includes its children's);
// CUBE stores metric-exclusive ones. Subtracts every metric's children from it.
void make_metrics_exclusive(report::Report& report);

} // namespace topolens::analysis
