// Where a metric's values lie along each axis of a process grid: the mean per process of
// each slice, the processes that share one coordinate (2D: row i = coordinate 0 equal to i,
// column j = coordinate 1 equal to j; 3D: planes). A row that computes longer than the others
// makes the processes of every column wait for it in a collective on the columns, and itself
// waits least: its row is then the slice with the lowest mean.
#pragma once

#include "analyzer/report/report.h"

#include <cstddef>
#include <optional>
#include <vector>

namespace topolens::analysis {

struct SliceStatistics {
    size_t axis = 0;
    std::vector<size_t> processes; // per coordinate along the axis
    std::vector<double> means;     // per coordinate: mean per process (0 without processes)
    size_t least = 0, most = 0;    // coordinates of the lowest and highest mean (first on ties)
    // The slice's mean over the mean of all processes outside it, when that is > 0.
    std::optional<double> least_vs_others, most_vs_others;
};

// Per axis of size > 1, for any values per location (a process's value is the sum over its
// locations; it lies where its first location with coordinates lies); empty for a grid with
// fewer than two axes of size > 1, where slices are single processes or the whole grid.
std::vector<SliceStatistics> slice_statistics(const report::Report& report,
                                              const std::vector<double>& by_location,
                                              const report::CartTopology& grid);

} // namespace topolens::analysis
