// The corners of the analysis grid a pipelined wave can come from, and their names: a fact
// of the grid that the metric catalogue (one "Wavefront from <corner>" metric per corner)
// and the wavefront pattern (which corner a refill wait belongs to) both need.
#pragma once

#include "analyzer/report/report.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace topolens::patterns {

inline constexpr size_t kMaxWaveAxes = 3;        // 1D, 2D and 3D grids
using Travel = std::array<int8_t, kMaxWaveAxes>; // per axis: +1, -1 (0: no direction)

// "SW", "NE-top", "W": the corner a wave travelling in `travel` comes from (+x comes from
// the west, -y from the north, +z from the bottom).
std::string corner_name(const Travel& travel);

// The axes of the report's analysis grid of size > 1; none without a grid of 1 to 3 axes.
std::vector<size_t> wave_axes(const report::Report& report);

// The index of the corner a wave travelling in `travel` comes from among wavefront_corners:
// bit i is set when the wave travels - along axes[i].
int corner_index(const Travel& travel, const std::vector<size_t>& axes);

// The corners of the report's analysis grid a wave can come from, in the order of the axes'
// signs (+ first): "SW", "SE", "NW", "NE" on a 2D grid; none without a grid of one to three
// axes of size > 1.
std::vector<std::string> wavefront_corners(const report::Report& report);

} // namespace topolens::patterns
