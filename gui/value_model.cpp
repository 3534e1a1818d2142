#include "gui/value_model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace topolens::gui {

std::vector<int> chosen_metrics(const report::Report& report, const MetricChoice& choice) {
    if (choice.metric < 0 || choice.metric >= static_cast<int>(report.metrics.size())) return {};
    if (choice.inclusive) return report.metric_subtree(choice.metric);
    return {choice.metric};
}

std::vector<char> chosen_callpaths(const report::Report& report, const CallChoice& choice) {
    std::vector<char> mask(report.callpaths.size(), choice.whole_program ? 1 : 0);
    if (choice.whole_program) return mask;
    std::vector<int> stack(choice.callpaths.begin(), choice.callpaths.end());
    while (!stack.empty()) {
        const int c = stack.back();
        stack.pop_back();
        if (c < 0 || c >= static_cast<int>(mask.size()) || mask[c]) continue;
        mask[c] = 1;
        if (choice.inclusive)
            for (int child : report.callpaths[c].children) stack.push_back(child);
    }
    return mask;
}

namespace {

// Calls `add(callpath, location, value)` for every stored value of the chosen metrics.
template <typename Add>
void for_each_value(const report::Report& report, const MetricChoice& choice, Add add) {
    for (int m : chosen_metrics(report, choice)) {
        for (int c = 0; c < static_cast<int>(report.callpaths.size()); ++c) {
            const std::vector<double>* row = report.row(m, c);
            if (!row) continue;
            for (size_t l = 0; l < row->size(); ++l) add(c, static_cast<int>(l), (*row)[l]);
        }
    }
}

} // namespace

double metric_value(const report::Report& report, const MetricChoice& choice) {
    double sum = 0.0;
    for_each_value(report, choice, [&](int, int, double v) { sum += v; });
    return sum;
}

CallpathValues callpath_values(const report::Report& report, const MetricChoice& choice) {
    CallpathValues result;
    result.exclusive.assign(report.callpaths.size(), 0.0);
    for_each_value(report, choice, [&](int c, int, double v) { result.exclusive[c] += v; });
    result.inclusive = report.callpath_subtree_sums(result.exclusive);
    return result;
}

std::vector<double> region_values(const report::Report& report, const MetricChoice& choice) {
    std::vector<double> result(report.regions.size(), 0.0);
    for_each_value(report, choice, [&](int c, int, double v) {
        const int region = report.callpaths[c].region;
        if (region >= 0 && region < static_cast<int>(result.size())) result[region] += v;
    });
    return result;
}

std::vector<double> location_values(const report::Report& report, const MetricChoice& metric,
                                    const CallChoice& calls) {
    std::vector<double> result(report.locations.size(), 0.0);
    const std::vector<char> mask = chosen_callpaths(report, calls);
    for_each_value(report, metric, [&](int c, int l, double v) {
        if (mask[c] && l < static_cast<int>(result.size())) result[l] += v;
    });
    return result;
}

double whole_program_location_max(const report::Report& report, const MetricChoice& metric) {
    const std::vector<double> values = location_values(report, metric, CallChoice{});
    double max = 0.0;
    for (double v : values) max = std::max(max, std::abs(v));
    return max;
}

std::vector<int> callpath_roots(const report::Report& report) {
    std::vector<int> roots;
    for (int c = 0; c < static_cast<int>(report.callpaths.size()); ++c)
        if (report.callpaths[c].parent < 0) roots.push_back(c);
    return roots;
}

std::vector<int> metric_roots(const report::Report& report) {
    std::vector<int> roots;
    for (int m = 0; m < static_cast<int>(report.metrics.size()); ++m)
        if (report.metrics[m].parent < 0) roots.push_back(m);
    return roots;
}

int metric_root_of(const report::Report& report, int metric) {
    int guard = 0;
    while (metric >= 0 && report.metrics[metric].parent >= 0 &&
           guard++ < static_cast<int>(report.metrics.size()))
        metric = report.metrics[metric].parent;
    return metric;
}

std::string display_unit(const report::Metric& metric) {
    if (metric.unit == "sec") return "s";
    return metric.unit;
}

std::string format_number(double value) {
    char buffer[64];
    const double magnitude = std::abs(value);
    if (value == 0.0)
        return "0";
    else if (magnitude >= 1e-3 && magnitude < 1e6)
        std::snprintf(buffer, sizeof buffer, "%.4g", value);
    else
        std::snprintf(buffer, sizeof buffer, "%.3e", value);
    return buffer;
}

std::string format_value(double value, ValueMode mode, double whole, const std::string& unit) {
    if (mode == ValueMode::Absolute) return format_number(value) + (unit.empty() ? "" : " " + unit);
    if (whole == 0.0) return value == 0.0 ? "0 %" : "-";
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.2f %%", 100.0 * value / whole);
    return buffer;
}

} // namespace topolens::gui
