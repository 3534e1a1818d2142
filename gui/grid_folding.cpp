#include "gui/grid_folding.h"

#include <algorithm>

namespace topolens::gui {

GridFolding fold_grid(const std::vector<uint32_t>& sizes) {
    GridFolding folding;
    folding.view_dims = static_cast<int>(std::min<size_t>(3, sizes.size()));
    for (size_t d = 0; d < sizes.size(); ++d) {
        const int size = static_cast<int>(std::max<uint32_t>(1, sizes[d]));
        if (d < 3) {
            folding.view_axis.push_back(static_cast<int>(d));
            folding.stride.push_back(1);
            folding.extent[d] = size;
            continue;
        }
        const int axis = static_cast<int>((d - 3) % 3);
        const int stride = folding.extent[axis] + 1; // one empty pitch between blocks
        folding.view_axis.push_back(axis);
        folding.stride.push_back(stride);
        folding.extent[axis] = stride * size - 1;
    }
    return folding;
}

std::array<int, 3> GridFolding::position(const std::vector<uint32_t>& coords) const {
    std::array<int, 3> p{0, 0, 0};
    for (size_t d = 0; d < coords.size() && d < view_axis.size(); ++d)
        p[view_axis[d]] += static_cast<int>(coords[d]) * stride[d];
    return p;
}

std::string GridFolding::axis_dimensions(int axis) const {
    std::string text;
    for (size_t d = 0; d < view_axis.size(); ++d)
        if (view_axis[d] == axis) text += (text.empty() ? "" : "\u00b7") + std::to_string(d);
    return text;
}

std::string GridFolding::description() const {
    if (!folded()) return "";
    static const char* names[3] = {"x", "y", "z"};
    std::string text = std::to_string(view_axis.size()) + "D grid folded into 3D:";
    for (size_t d = 3; d < view_axis.size(); ++d)
        text += std::string(d > 3 ? "," : "") + " dimension " + std::to_string(d) +
                " as blocks along axis " + std::to_string(view_axis[d]);
    text += " (";
    bool first = true;
    for (int axis = 0; axis < 3; ++axis) {
        std::string formula;
        for (size_t d = 0; d < view_axis.size(); ++d) {
            if (view_axis[d] != axis || d < 3) continue;
            formula += " + " + std::to_string(stride[d]) + "\u00b7d" + std::to_string(d);
        }
        if (formula.empty()) continue;
        text +=
            std::string(first ? "" : ", ") + names[axis] + " = d" + std::to_string(axis) + formula;
        first = false;
    }
    return text + ")";
}

} // namespace topolens::gui
