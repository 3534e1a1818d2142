// The VTK scene of the topology view: one cell per process of a Cartesian grid (grids of
// more than three dimensions folded into 3D, grid_folding.h), coloured by a value per location,
// with a legend, a title, compass-labelled axes and the origin marked. Built here once for both the
// window (topology_view.cpp, through vtk_gl_widget.cpp) and `--render` (picture_render.cpp), so
// both show the same picture.
//
// Cells are drawn by two vtkGlyph3DMapper (one instanced cube per cell with a value, one
// instanced outline per cell without), so 64x64x64 grids stay fluid.
#pragma once

#include "analyzer/report/report.h"
#include "gui/grid_folding.h"
#include "gui/wait_arrows.h"

#include <array>
#include <optional>
#include <string>
#include <vector>

#include <vtkNew.h>
#include <vtkSmartPointer.h>

class vtkActor;
class vtkActor2D;
class vtkBillboardTextActor3D;
class vtkGlyph3DMapper;
class vtkLookupTable;
class vtkOutlineSource;
class vtkPolyData;
class vtkPolyDataMapper;
class vtkProp;
class vtkRenderWindow;
class vtkRenderer;
class vtkScalarBarActor;
class vtkTextActor;

namespace topolens::gui {

// Camera presets: looking down from the top (north up, east right), from the south
// (east right, top up), or obliquely from the south-east above.
enum class Orientation { Top, Front, Iso };
std::optional<Orientation> parse_orientation(const std::string& name);
std::string orientation_name(Orientation orientation);

// What to draw.
struct TopologyPicture {
    const report::CartTopology* topology = nullptr;
    std::vector<double> values; // by location (report location id)
    // Colour range. Low resolution: 0 .. the whole-program maximum (value_model.h);
    // high resolution: the smallest .. the largest value on the grid.
    bool high_resolution = false;
    double low_resolution_max = 0.0;
    std::string low_resolution_meaning = "up to the largest value of any process over the "
                                         "whole program";
    std::string title;                       // e.g. "Wavefront from SW"
    std::string subtitle;                    // e.g. "call path: program (inclusive)"
    std::string callpath;                    // what the values are of, e.g. "whole program"
    std::string unit;                        // e.g. "s"
    std::vector<std::string> location_names; // by location, e.g. "rank 3" (picking info)
    std::vector<uint32_t> ranks;             // by location: its MPI rank (CSV export)
};

// One plane or a range of planes of the grid: only processes whose coordinate along grid
// dimension `dimension` lies in from..to (inclusive) are drawn; dimension -1: all.
struct GridSlice {
    int dimension = -1;
    uint32_t from = 0, to = 0;
    bool contains(const std::vector<uint32_t>& coords) const {
        return dimension < 0 || (static_cast<size_t>(dimension) < coords.size() &&
                                 coords[dimension] >= from && coords[dimension] <= to);
    }
};

// How to draw it (the view's controls).
struct SceneControls {
    double cell_size = 0.8;      // share of the grid pitch a cell fills, 0.1..1
    double plane_distance = 2.0; // pitch between planes along axis 2, in cell pitches, 1..10
    GridSlice slice;
    // Grids of more than kCullCubesAbove cells with a value, seen obliquely from outside:
    // cubes hidden behind the others (more than twice shell_depth() from every side of the
    // grid the camera sees) are not drawn. Off: every cube (the reference picture).
    bool hide_inner_cubes = true;
};
constexpr int kCullCubesAbove = 100000;
// The most wait arrows drawn (the largest): more hide the grid and slow large grids down.
constexpr size_t kMaxWaitArrows = 2000;

// The box a label's text covers on the screen (display pixels: left, bottom, right, top),
// estimated from its text, font size and justification when anchored at `at`, widened by
// `margin`.
std::array<double, 4> label_box(vtkBillboardTextActor3D* label, const std::array<double, 2>& at,
                                double margin);

// While the camera is dragged only the cells near the surface of what is drawn are drawn
// (a flat square each): those within depth[a] steps of an empty place or the grid's border
// along view axis a, on the sides of the grid the camera is outside of. The depth grows with the
// gaps between cells, through which an oblique camera sees inner cells (cell size 0.8, plane
// distance 2: 4 along axes 0 and 1, 2 along axis 2).
std::array<int, 3> shell_depth(const SceneControls& controls, int view_dims);

class TopologyScene {
  public:
    TopologyScene();
    ~TopologyScene();
    TopologyScene(const TopologyScene&) = delete;
    TopologyScene& operator=(const TopologyScene&) = delete;

    // Adds the scene's two renderers (2D overlay below, 3D grid on top) to `window`.
    void attach(vtkRenderWindow* window);
    // Rebuilds cells, colours, legend and labels. Keeps the camera unless the grid's shape
    // changed (then the grid's default orientation is applied).
    void show(const TopologyPicture& picture, const SceneControls& controls);
    void set_orientation(Orientation orientation);
    // While the user drags the camera: a cheaper representation of the cells (see .cpp);
    // false again on release draws full quality.
    void set_interactive(bool interactive);
    bool interactive() const { return interactive_; }
    // Arrows from the causing to the waiting process's cell (straight, also between cells that
    // are not neighbours), drawn over the cells; the shaft is the wider the more seconds (the
    // first, largest, arrow widest). Only arrows whose both cells are drawn (slices), at most
    // kMaxWaitArrows. Call after show() (which places the cells and removes the arrows).
    void show_arrows(const std::vector<WaitArrow>& arrows);
    const std::vector<WaitArrow>& drawn_arrows() const { return drawn_arrows_; }
    // One point per drawn arrow (where it starts), with the arrays "direction" (start to
    // head) and "scale" (length, width, width), as the arrows' glyph mapper draws them.
    vtkPolyData* arrow_glyphs() const;
    // Outlines one location's cell (-1: none).
    void set_highlight(int location);
    int highlight() const { return highlighted_; }

    // The location whose cell is under the display point (VTK display coordinates: pixels
    // from the bottom-left corner), nearest to the camera; cells without a value count too.
    std::optional<int> pick(double display_x, double display_y) const;
    // Where the centre of a location's cell appears (VTK display coordinates), if it has one.
    std::optional<std::array<double, 2>> display_position(int location) const;

    vtkRenderer* grid_renderer() const;
    vtkLookupTable* lookup_table() const;
    vtkScalarBarActor* legend() const;
    double range_low() const { return range_low_; }
    double range_high() const { return range_high_; }
    // The line under the title that states the colour range and how it was chosen.
    std::string scale_text() const { return scale_text_; }
    std::string title_text() const;
    // Cell centre in world coordinates; none for a process not drawn (outside the slice).
    std::optional<std::array<double, 3>> cell_center(int location) const;
    // How a grid of more than three dimensions was folded and which slice is drawn (the
    // caption above the notes); empty when neither applies.
    std::string caption_text() const;
    const GridFolding& folding() const { return folding_; }
    // Cells drawn (with and without a value; those outside the slice are not).
    long long drawn_cells() const;
    // Cubes drawn in the last still frame (the cells with a value; large grids: those not
    // hidden, SceneControls::hide_inner_cubes).
    long long drawn_cubes() const;
    // Cells drawn while rotating (the outer shell of the drawn cells with a value).
    long long interactive_cells() const;
    // The axis and compass labels (drawn over the grid; hidden when outside the view).
    std::vector<vtkBillboardTextActor3D*> labels() const;

  private:
    void build_axes();
    void sort_cells();
    double decoration_unit() const; // world size of axes' and labels' spacing
    void before_frame();            // the grid renderer's StartEvent
    void place_sliding_labels();
    void hide_labels_outside_view();
    void update_highlight();
    std::array<double, 6> grid_bounds() const;

    vtkNew<vtkRenderer> overlay_; // background, title, legend, notes
    vtkNew<vtkRenderer> grid_;    // the 3D grid and its axes
    vtkNew<vtkRenderer> labels_;  // axis and compass labels, drawn over the grid
    vtkNew<vtkLookupTable> lut_;
    vtkNew<vtkScalarBarActor> legend_;
    vtkNew<vtkTextActor> title_;
    vtkNew<vtkTextActor> scale_;
    vtkNew<vtkTextActor> notes_;
    vtkNew<vtkTextActor> caption_;
    vtkNew<vtkPolyData> filled_points_;
    vtkNew<vtkPolyData> empty_points_;
    vtkNew<vtkGlyph3DMapper> filled_mapper_;
    vtkNew<vtkGlyph3DMapper> empty_mapper_;
    vtkNew<vtkActor> filled_actor_;
    vtkNew<vtkPolyData> lod_points_; // the filled cells as vertices (interactive frames)
    vtkNew<vtkPolyDataMapper> lod_mapper_;
    vtkNew<vtkActor> lod_actor_;
    vtkNew<vtkActor> empty_actor_;
    vtkNew<vtkPolyData> arrow_points_; // one glyph per wait arrow
    vtkNew<vtkGlyph3DMapper> arrow_mapper_;
    vtkNew<vtkActor> arrow_actor_;
    std::vector<WaitArrow> drawn_arrows_;
    vtkNew<vtkOutlineSource> highlight_source_;
    vtkNew<vtkActor> highlight_actor_;
    std::vector<vtkSmartPointer<vtkProp>> axis_props_;
    struct SlidingLabel {
        vtkSmartPointer<vtkBillboardTextActor3D> actor;
        std::array<double, 3> home, direction; // world position and the axis to slide along
    };
    std::vector<SlidingLabel> sliding_labels_;
    std::vector<vtkSmartPointer<vtkBillboardTextActor3D>> axis_labels_[3]; // by axis

    std::array<int, 3> dims_{0, 0, 0}; // cells along each view axis (folded)
    int ndims_ = 0;                    // view axes: 1, 2 or 3
    GridFolding folding_;
    SceneControls controls_;
    std::vector<std::optional<std::array<double, 3>>> centers_; // by location
    int highlighted_ = -1;
    double range_low_ = 0.0, range_high_ = 0.0;
    std::string scale_text_;
    bool camera_set_ = false;
    bool interactive_ = false;
    struct Cell {
        std::array<double, 3> center;
        std::array<unsigned char, 3> rgb;
        // Bit 2a (2a + 1): within shell_depth() steps of an empty place or the border
        // towards -a (+a) along view axis a: drawn while rotating when that side is seen.
        unsigned char near_surface;
        unsigned char near_surface_still; // the same, twice as deep: cubes of large grids
    };
    std::vector<Cell> filled_cells_; // cells with a value, in location order
    std::vector<int> order_;         // filled_cells_ indices, front to back
    int sorted_octant_ = -1;         // the octant of the view direction order_ is for
    int filled_key_ = -1;            // ... (and sides seen) the cubes' arrays are for
    int lod_key_ = -1;               // ... and sides seen the rotating squares are for
};

} // namespace topolens::gui
