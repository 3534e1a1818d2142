// Where each process of a Cartesian grid sits in the 3D topology view. Axes 0, 1 and 2 run
// east, north and up. A grid with more than three dimensions is folded into 3D instead of
// dropping its higher coordinates (which would draw several processes on one cell):
// dimension 3 + k becomes blocks along view axis k % 3, one empty cell pitch apart, so
// dimension 3 repeats the x extent eastwards, dimension 4 the y extent northwards, dimension
// 5 the z extent upwards, dimension 6 the (already folded) x extent again, and so on:
//   stride(d) = extent(axis) + 1 before d is folded in,  extent(axis) = stride(d) * size(d) - 1,
//   position(axis) = coordinate(axis) + sum over d folded into axis of coordinate(d) * stride(d).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace topolens::gui {

struct GridFolding {
    int view_dims = 0;                  // 1, 2 or 3: axes the view draws
    std::array<int, 3> extent{1, 1, 1}; // cells along each view axis, with the gaps
    std::vector<int> view_axis;         // by grid dimension: the view axis it runs along
    std::vector<int> stride;            // by grid dimension: cell pitches per step

    bool folded() const { return view_axis.size() > 3; }
    // Integer cell position (cell pitches) along the view axes.
    std::array<int, 3> position(const std::vector<uint32_t>& coords) const;
    // The grid dimensions along view axis `axis`, e.g. "0" or "0·3" (axis 0 in blocks of 3).
    std::string axis_dimensions(int axis) const;
    // How the grid was folded, e.g. "4D grid folded into 3D: dimension 3 as blocks along axis
    // 0 (x = d0 + 3·d3)"; empty for grids of up to three dimensions.
    std::string description() const;
};

GridFolding fold_grid(const std::vector<uint32_t>& sizes);

} // namespace topolens::gui
