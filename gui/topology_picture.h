// From a selection in the report (metric, call path, topology, resolution) to what the
// topology scene draws: values per location, colour range and the title words. Used by the
// window and by `--render`, so both say the same.
#pragma once

#include "gui/topology_scene.h"
#include "gui/value_model.h"

#include <string>

namespace topolens::gui {

// The topology a report is best shown on: the analysis grid (attribute topolens.grid),
// else the first topology; -1 when there is none.
int default_topology(const report::Report& report);

std::string callpath_label(const report::Report& report, const CallChoice& calls);

TopologyPicture metric_picture(const report::Report& report, int topology,
                               const MetricChoice& metric, const CallChoice& calls,
                               bool high_resolution);

} // namespace topolens::gui

namespace topolens::patterns {
struct OperationAudit;
struct CodeletAudit;
} // namespace topolens::patterns

namespace topolens::gui {

// The grid coloured by one codelet's mean search-phase time per process. Low resolution:
// 0 .. the largest mean of any codelet of the operation on any process, so codelets compare.
TopologyPicture codelet_picture(const report::Report& report, int topology,
                                const patterns::OperationAudit& operation,
                                const patterns::CodeletAudit& codelet, bool high_resolution);

} // namespace topolens::gui
