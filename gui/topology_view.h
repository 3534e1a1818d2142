// The topology pane: the VTK scene in its OpenGL widget, the view's controls (orientation
// presets, low/high resolution, cell size, plane distance, slice) and a line describing the
// picked cell. Picking a cell emits locationPicked; the window selects that location in the system
// pane, which calls set_highlight back.
#pragma once

#include "gui/topology_scene.h"

#include <QImage>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;
class QSlider;
class QSpinBox;

namespace topolens::gui {

class VtkGlWidget;

class TopologyView : public QWidget {
    Q_OBJECT
  public:
    explicit TopologyView(QWidget* parent = nullptr);
    ~TopologyView() override;

    // Shows a new picture; its resolution flag is replaced by the view's own setting.
    void set_picture(TopologyPicture picture);
    void set_high_resolution(bool high);
    bool high_resolution() const;
    void set_orientation(Orientation orientation);
    void set_cell_size(double share);
    void set_plane_distance(double pitch);
    // Draws only the processes whose coordinate along slice.dimension is in from..to (-1:
    // all); values beyond the grid's size are clamped.
    void set_slice(const GridSlice& slice);
    GridSlice slice() const { return controls_.slice; }
    void set_highlight(int location);
    // Who made whom wait (the open report's, wait_arrows.h): drawn as arrows when the "Root
    // causes" box is checked, and a clicked process's line says what it caused.
    void set_root_causes(RootCauseArrows causes);
    void set_arrows_shown(bool shown);
    bool arrows_shown() const;
    // Arrows of at least this share (0..1) of the largest are drawn (the slider, in percent).
    void set_arrow_threshold(double share);
    double arrow_threshold() const;
    // Acts as a click at a VTK display position (device pixels from the bottom-left).
    void pick_at(double display_x, double display_y);

    TopologyScene& scene() { return scene_; }
    const TopologyPicture& picture() const { return picture_; }
    VtkGlWidget* gl_widget() const { return gl_; }
    QImage grab_picture();
    QString info_text() const;

  signals:
    void locationPicked(int location);

  private:
    void refresh();
    void describe(int location);
    void update_slice_controls(); // the choices fit the grid's dimensions and sizes
    void slice_controls_changed();

    TopologyScene scene_;
    TopologyPicture picture_;
    SceneControls controls_;
    VtkGlWidget* gl_;
    QCheckBox* high_resolution_;
    QSlider* cell_size_;
    QSlider* plane_distance_;
    QComboBox* slice_dimension_;
    QSpinBox* slice_from_;
    QSpinBox* slice_to_;
    RootCauseArrows root_causes_;
    QCheckBox* arrows_shown_;
    QSlider* arrow_threshold_;
    QLabel* arrow_threshold_text_;
    bool updating_slice_ = false; // set while the controls are filled in from the code
    QLabel* info_;
};

} // namespace topolens::gui
