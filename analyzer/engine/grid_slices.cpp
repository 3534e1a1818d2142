// Means per row, column or plane of a grid (grid_slices.h).
#include "analyzer/engine/grid_slices.h"

#include <map>

namespace topolens::analysis {

std::vector<SliceStatistics> slice_statistics(const report::Report& report,
                                              const std::vector<double>& by_location,
                                              const report::CartTopology& grid) {
    size_t axes = 0;
    for (uint32_t size : grid.sizes) axes += size > 1;
    if (axes < 2) return {};
    // Per process (rank): coordinates and value; ordered so that sums do not depend on hashing.
    std::map<int, std::pair<const std::vector<uint32_t>*, double>> processes;
    for (size_t l = 0; l < report.locations.size() && l < grid.coords.size(); ++l) {
        const auto& coords = grid.coords[l];
        if (coords.size() != grid.sizes.size()) continue;
        bool inside = true;
        for (size_t d = 0; d < coords.size(); ++d) inside = inside && coords[d] < grid.sizes[d];
        if (inside) processes.try_emplace(report.locations[l].rank, &coords, 0.0);
    }
    for (size_t l = 0; l < report.locations.size() && l < by_location.size(); ++l) {
        auto p = processes.find(report.locations[l].rank);
        if (p != processes.end()) p->second.second += by_location[l];
    }
    double total = 0.0;
    for (const auto& [rank, entry] : processes) total += entry.second;

    std::vector<SliceStatistics> result;
    for (size_t axis = 0; axis < grid.sizes.size(); ++axis) {
        if (grid.sizes[axis] <= 1) continue;
        SliceStatistics s;
        s.axis = axis;
        s.processes.assign(grid.sizes[axis], 0);
        std::vector<double> sums(grid.sizes[axis], 0.0);
        for (const auto& [rank, entry] : processes) {
            const uint32_t c = (*entry.first)[axis];
            ++s.processes[c];
            sums[c] += entry.second;
        }
        s.means.assign(sums.size(), 0.0);
        bool any = false;
        for (size_t c = 0; c < sums.size(); ++c) {
            if (s.processes[c] == 0) continue;
            s.means[c] = sums[c] / static_cast<double>(s.processes[c]);
            if (!any || s.means[c] < s.means[s.least]) s.least = c;
            if (!any || s.means[c] > s.means[s.most]) s.most = c;
            any = true;
        }
        if (!any) continue;
        const auto vs_others = [&](size_t c) -> std::optional<double> {
            const size_t others = processes.size() - s.processes[c];
            if (others == 0) return std::nullopt;
            const double mean = (total - sums[c]) / static_cast<double>(others);
            if (!(mean > 0.0)) return std::nullopt;
            return s.means[c] / mean;
        };
        s.least_vs_others = vs_others(s.least);
        s.most_vs_others = vs_others(s.most);
        result.push_back(std::move(s));
    }
    return result;
}

} // namespace topolens::analysis
