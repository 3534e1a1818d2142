#include "gui/value_export.h"

#include <cstdio>

namespace topolens::gui {

namespace {

// Comment lines hold free text: a line break would start a row.
std::string one_line(std::string text) {
    for (char& c : text)
        if (c == '\n' || c == '\r') c = ' ';
    return text;
}

} // namespace

void write_shown_values_csv(const TopologyPicture& picture, std::ostream& out) {
    out << "# metric: " << one_line(picture.title) << "\n";
    out << "# call path: " << one_line(picture.callpath) << "\n";
    out << "# unit: " << one_line(picture.unit) << "\n";
    out << "location,rank";
    const size_t ndims = picture.topology ? picture.topology->sizes.size() : 0;
    for (size_t d = 0; d < ndims; ++d) out << ",d" << d;
    out << ",value\n";
    if (!picture.topology) return;
    const auto& coords = picture.topology->coords;
    for (size_t l = 0; l < picture.values.size() && l < coords.size(); ++l) {
        if (coords[l].empty()) continue; // not on the grid
        out << l << ",";
        if (l < picture.ranks.size()) out << picture.ranks[l];
        for (uint32_t c : coords[l]) out << "," << c;
        char value[32];
        std::snprintf(value, sizeof value, "%.17g", picture.values[l]);
        out << "," << value << "\n";
    }
}

} // namespace topolens::gui
