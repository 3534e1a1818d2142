#include "analyzer/engine/metric_tree.h"

#include <cmath>
#include <stdexcept>

namespace topolens::analysis {
namespace {

constexpr const char* kDocumentationMirror = TOPOLENS_DOC_MIRROR;

} // namespace

std::string metric_url(const std::string& unique_name) {
    // The wavefront metrics share one row of README's metric table.
    const std::string anchor =
        unique_name.rfind("mpi_wavefront_", 0) == 0 ? "mpi_wavefront" : unique_name;
    return "@mirror@README.md#metric-" + anchor;
}

int define_metric(report::Report& report, const std::string& parent, const std::string& unique,
                  const std::string& display, const std::string& description,
                  const std::string& unit) {
    report::Metric metric;
    metric.unique_name = unique;
    metric.display_name = display;
    metric.description = description;
    metric.unit = unit;
    metric.url = metric_url(unique);
    // The url's "@mirror@" resolves against the report's mirrors, as in Scalasca's reports.
    if (report.mirrors.empty()) report.mirrors.push_back(kDocumentationMirror);
    if (!parent.empty()) {
        const auto found = report.find_metric(parent);
        if (!found)
            throw std::logic_error("metric " + unique + ": parent " + parent + " undefined");
        metric.parent = *found;
    }
    return report.add_metric(std::move(metric));
}

void make_metrics_exclusive(report::Report& report) {
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
                        report.add_value(metric, callpath, static_cast<int>(loc), -(*row)[loc]);
            }
        // Rounding leaves tiny negative remainders where a parent equals its children.
        for (int callpath : report.callpaths_with_values(metric)) {
            const std::vector<double>* row = report.row(metric, callpath);
            for (size_t loc = 0; row && loc < row->size(); ++loc)
                if ((*row)[loc] < 0.0 && std::fabs((*row)[loc]) < 1e-12)
                    report.set_value(metric, callpath, static_cast<int>(loc), 0.0);
        }
    }
}

} // namespace topolens::analysis
