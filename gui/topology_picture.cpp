#include "gui/topology_picture.h"

#include "analyzer/report/report_grid.h"
#include "gui/codelet_audit.h"

#include <algorithm>

namespace topolens::gui {

namespace {

std::vector<std::string> location_names(const report::Report& report) {
    std::vector<std::string> names;
    for (const report::Location& l : report.locations)
        names.push_back("rank " + std::to_string(l.rank) +
                        (l.thread != 0 ? " thread " + std::to_string(l.thread) : "") +
                        (l.host.empty() ? "" : " on " + l.host));
    return names;
}

} // namespace

int default_topology(const report::Report& report) {
    if (const report::CartTopology* grid = report::analysis_grid(report))
        return static_cast<int>(grid - report.topologies.data());
    return report.topologies.empty() ? -1 : 0;
}

std::string callpath_label(const report::Report& report, const CallChoice& calls) {
    if (calls.whole_program) return "whole program";
    std::string label;
    for (size_t i = 0; i < calls.callpaths.size(); ++i) {
        if (i == 3) {
            label += ", ... (" + std::to_string(calls.callpaths.size()) + " call paths)";
            break;
        }
        if (i) label += ", ";
        label += report.callpath_name(calls.callpaths[i]);
    }
    return label + (calls.inclusive ? " (with callees)" : " (own time only)");
}

TopologyPicture metric_picture(const report::Report& report, int topology,
                               const MetricChoice& metric, const CallChoice& calls,
                               bool high_resolution) {
    TopologyPicture picture;
    if (topology >= 0 && topology < static_cast<int>(report.topologies.size()))
        picture.topology = &report.topologies[topology];
    picture.values = location_values(report, metric, calls);
    picture.location_names = location_names(report);
    picture.ranks = report.location_ranks();
    picture.high_resolution = high_resolution;
    picture.low_resolution_max = whole_program_location_max(report, metric);
    if (metric.metric >= 0) {
        const report::Metric& m = report.metrics[metric.metric];
        picture.title =
            m.display_name + (metric.inclusive || m.children.empty() ? "" : " (own part)");
        picture.unit = display_unit(m);
    }
    picture.callpath = callpath_label(report, calls);
    picture.subtitle = "call path: " + picture.callpath;
    return picture;
}

TopologyPicture codelet_picture(const report::Report& report, int topology,
                                const OperationAudit& operation, const CodeletAudit& codelet,
                                bool high_resolution) {
    TopologyPicture picture;
    if (topology >= 0 && topology < static_cast<int>(report.topologies.size()))
        picture.topology = &report.topologies[topology];
    picture.values.assign(report.locations.size(), 0.0);
    picture.location_names = location_names(report);
    picture.ranks = report.location_ranks();
    for (size_t l = 0; l < codelet.per_process_mean.size() && l < picture.values.size(); ++l)
        picture.values[l] = codelet.per_process_mean[l].value_or(0.0);
    for (const CodeletAudit& other : operation.codelets)
        for (const auto& mean : other.per_process_mean)
            if (mean) picture.low_resolution_max = std::max(picture.low_resolution_max, *mean);
    picture.low_resolution_meaning = "up to the largest mean of any codelet on any process";
    picture.high_resolution = high_resolution;
    picture.title = "Codelet mean time " + operation.name + " / " + codelet.name;
    picture.subtitle = "search phase, per process";
    picture.callpath = "search phase of " + operation.name + " (codelet " + codelet.name + ")";
    picture.unit = "s";
    return picture;
}

} // namespace topolens::gui
