#include "patterns/wave_corners.h"

#include "analyzer/report/report_grid.h"

namespace topolens::patterns {

std::string corner_name(const Travel& travel) {
    std::string name;
    if (travel[1] != 0) name += travel[1] > 0 ? "S" : "N";
    if (travel[0] != 0) name += travel[0] > 0 ? "W" : "E";
    if (travel[2] != 0)
        name += std::string(name.empty() ? "" : "-") + (travel[2] > 0 ? "bottom" : "top");
    return name;
}

std::vector<size_t> wave_axes(const report::Report& report) {
    std::vector<size_t> axes;
    const report::CartTopology* grid = report::analysis_grid(report);
    if (!grid || grid->sizes.empty() || grid->sizes.size() > kMaxWaveAxes) return axes;
    for (size_t a = 0; a < grid->sizes.size(); ++a)
        if (grid->sizes[a] > 1) axes.push_back(a);
    return axes;
}

int corner_index(const Travel& travel, const std::vector<size_t>& axes) {
    int index = 0;
    for (size_t i = 0; i < axes.size(); ++i)
        if (travel[axes[i]] < 0) index |= 1 << i;
    return index;
}

std::vector<std::string> wavefront_corners(const report::Report& report) {
    const std::vector<size_t> axes = wave_axes(report);
    std::vector<std::string> corners;
    if (axes.empty()) return corners;
    // Corner k travels - along axis axes[i] where bit i of k is set (corner_index).
    for (size_t k = 0; k < (size_t{1} << axes.size()); ++k) {
        Travel travel{};
        for (size_t i = 0; i < axes.size(); ++i) travel[axes[i]] = (k >> i & 1) ? -1 : +1;
        corners.push_back(corner_name(travel));
    }
    return corners;
}

} // namespace topolens::patterns
