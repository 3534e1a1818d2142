// topolens-gui --bench-frames: measured frame times of the topology view (a program that
// prints figures, for docs/performance.md; not a test).
#pragma once

#include <ostream>
#include <string>

namespace topolens::gui {

// Draws synthetic grids (8x8, 16x16x16, 32x32x32, 64x64x64) in a TopologyView window of
// width x height and prints, per grid, the open time (scene built from the values, first
// picture) and the median still and rotating frame times (rotating also in CPU time). With png_dir,
// also writes the last still and rotating frame of each grid there (<grid>-still.png,
// <grid>-rotating.png). Needs an X display (xvfb-run -a).
int run_frame_bench(int width, int height, int frames, const std::string& png_dir,
                    std::ostream& out);

} // namespace topolens::gui
