// `topolens-gui --render`: one view of a report drawn into a PNG file, with the same scene
// code as the window (topology_scene.h, codelet_view.h).
#pragma once

#include "gui/render_options.h"

#include <ostream>
#include <string>

class QWidget;

namespace topolens::gui {

class TopologyScene;

// Draws the scene in an off-screen VTK window of the given size and writes it as PNG.
// Throws std::runtime_error when the file cannot be written.
void write_scene_png(TopologyScene& scene, int width, int height, const std::string& path,
                     const std::optional<Orientation>& orientation);
// Any Qt widget (the codelet view) as PNG, at the given size.
void write_widget_png(QWidget& widget, int width, int height, const std::string& path);

// Returns the process exit code; messages go to `err`. Needs a QApplication.
int render_picture(const RenderOptions& options, std::ostream& err);

} // namespace topolens::gui
