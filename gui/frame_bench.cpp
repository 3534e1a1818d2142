#include "gui/frame_bench.h"

#include "gui/topology_view.h"
#include "gui/vtk_gl_widget.h"

#include <QApplication>
#include <QElapsedTimer>

#include <vtkCamera.h>
#include <vtkRenderer.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include <time.h>

namespace topolens::gui {

namespace {

// CPU time of the whole process (with Mesa's rendering threads) in ms: unlike the wall
// time, it does not grow when other programs share the cores.
double process_cpu_ms() {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
}

// A grid of the given sizes whose values rise from the origin corner (x + y + z).
struct SyntheticGrid {
    report::CartTopology topology;
    TopologyPicture picture;

    explicit SyntheticGrid(std::vector<uint32_t> sizes) {
        topology.name = "bench";
        topology.sizes = sizes;
        topology.periodic.assign(sizes.size(), false);
        while (sizes.size() < 3) sizes.push_back(1);
        double top = 0.0;
        for (uint32_t z = 0; z < sizes[2]; ++z)
            for (uint32_t y = 0; y < sizes[1]; ++y)
                for (uint32_t x = 0; x < sizes[0]; ++x) {
                    std::vector<uint32_t> c{x, y, z};
                    c.resize(topology.sizes.size());
                    topology.coords.push_back(c);
                    picture.values.push_back(1.0 + x + y + z);
                    top = std::max(top, 1.0 + x + y + z);
                }
        picture.topology = &topology;
        picture.low_resolution_max = top;
        picture.title = "synthetic";
        picture.unit = "s";
    }
};

} // namespace

int run_frame_bench(int width, int height, int frames, const std::string& png_dir,
                    std::ostream& out) {
    char line[256];
    std::snprintf(line, sizeof line,
                  "topology view frame times, %dx%d window, median of %d frames (ms)\n", width,
                  height, frames);
    out << line;
    // open: the scene built from the grid's values and its first picture drawn.
    out << "grid            cells      open   still frame   rotating frame   rotating CPU\n";
    const std::vector<std::vector<uint32_t>> grids = {
        {8, 8}, {16, 16, 16}, {32, 32, 32}, {64, 64, 64}};
    for (const auto& sizes : grids) {
        SyntheticGrid grid(sizes);
        TopologyView view;
        view.resize(width, height);
        view.show();
        QApplication::processEvents();
        VtkGlWidget* gl = view.gl_widget();
        QElapsedTimer first;
        first.start();
        view.set_picture(grid.picture);
        gl->render_frame_now();
        const double first_ms = static_cast<double>(first.nsecsElapsed()) / 1e6;
        vtkCamera* camera = view.scene().grid_renderer()->GetActiveCamera();
        std::vector<double> still, rotating, rotating_cpu;
        // Still: full quality, the camera turned a little between frames (as after a drag).
        for (int i = 0; i < frames; ++i) {
            camera->Azimuth(360.0 / frames);
            still.push_back(gl->render_frame_now());
        }
        std::string name;
        for (size_t d = 0; d < sizes.size(); ++d) name += (d ? "x" : "") + std::to_string(sizes[d]);
        if (!png_dir.empty())
            view.grab_picture().save(QString::fromStdString(png_dir + "/" + name + "-still.png"));
        // Rotating: the frames drawn while the mouse drags (interactive representation).
        view.scene().set_interactive(true);
        for (int i = 0; i < frames; ++i) {
            camera->Azimuth(360.0 / frames);
            const double cpu_start = process_cpu_ms();
            rotating.push_back(gl->render_frame_now());
            rotating_cpu.push_back(process_cpu_ms() - cpu_start);
        }
        if (!png_dir.empty())
            view.grab_picture().save(
                QString::fromStdString(png_dir + "/" + name + "-rotating.png"));
        view.scene().set_interactive(false);
        std::snprintf(line, sizeof line, "%-12s %8zu %9.1f %13.1f %16.1f %14.1f\n", name.c_str(),
                      grid.topology.coords.size(), first_ms, median(still), median(rotating),
                      median(rotating_cpu));
        out << line;
        out.flush();
    }
    return 0;
}

} // namespace topolens::gui
