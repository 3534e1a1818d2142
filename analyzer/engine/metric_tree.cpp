#include "analyzer/engine/metric_tree.h"

#include <cmath>
#include <stdexcept>

namespace topolens::analysis {
namespace {

constexpr const char* kDocumentationMirror = TOPOLENS_DOC_MIRROR;

} // namespace

int define_metric(report::Report& report, const MetricDefinition& definition) {
    report::Metric metric;
    metric.unique_name = definition.unique_name;
    metric.display_name = definition.display_name;
    metric.description = definition.description;
    metric.unit = definition.unit;
    metric.url = definition.url;
    // The url's "@mirror@" resolves against the report's mirrors, as in Scalasca's reports.
    if (report.mirrors.empty()) report.mirrors.push_back(kDocumentationMirror);
    if (!definition.parent.empty()) {
        const auto found = report.find_metric(definition.parent);
        if (!found)
            throw std::logic_error("metric " + definition.unique_name + ": parent " +
                                   definition.parent + " undefined");
        metric.parent = *found;
    }
    if (!definition.part_of.empty()) report.set_part_of(definition.unique_name, definition.part_of);
    return report.add_metric(std::move(metric));
}

int define_metric(report::Report& report, const std::string& parent, const std::string& unique,
                  const std::string& display, const std::string& description,
                  const std::string& unit) {
    return define_metric(report,
                         MetricDefinition{unique, parent, display, unit, description, "", ""});
}

void make_metrics_exclusive(report::Report& report) {
    // Rows hold the kept locations, from this one on.
    const int first = report.kept_locations().first;
    // Parents before children: when a parent is made exclusive its children still hold
    // inclusive values. Ids grow from parent to child (parents are defined first).
    for (int metric = 0; metric < static_cast<int>(report.metrics.size()); ++metric) {
        const auto& children = report.metrics[metric].children;
        if (children.empty()) continue;
        for (int child : children)
            for (int callpath : report.callpaths_with_values(child)) {
                const std::vector<double>* row = report.row(child, callpath);
                for (size_t loc = 0; row && loc < row->size(); ++loc)
                    if ((*row)[loc] != 0.0)
                        report.add_value(metric, callpath, first + static_cast<int>(loc),
                                         -(*row)[loc]);
            }
        // Rounding leaves tiny negative remainders where a parent equals its children.
        for (int callpath : report.callpaths_with_values(metric)) {
            const std::vector<double>* row = report.row(metric, callpath);
            for (size_t loc = 0; row && loc < row->size(); ++loc)
                if ((*row)[loc] < 0.0 && std::fabs((*row)[loc]) < 1e-12)
                    report.set_value(metric, callpath, first + static_cast<int>(loc), 0.0);
        }
    }
}

} // namespace topolens::analysis
