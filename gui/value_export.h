// File > Export values as CSV: the values the topology view shows, one row per process.
#pragma once

#include "gui/topology_scene.h"

#include <ostream>

namespace topolens::gui {

// Writes the picture's values as CSV: three comment lines naming the metric (its title), the
// call path (picture.callpath, with inclusive or exclusive) and the unit, then a header
// `location,rank,d0,d1,...,value` and one row per process on the grid, in location order,
// with the value printed exactly (17 significant digits). The whole grid, also when the
// view draws only a slice of it.
void write_shown_values_csv(const TopologyPicture& picture, std::ostream& out);

} // namespace topolens::gui
