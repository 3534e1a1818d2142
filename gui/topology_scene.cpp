#include "gui/topology_scene.h"

#include "gui/color_scale.h"
#include "gui/value_model.h"

#include <vtkActor.h>
#include <vtkArrowSource.h>
#include <vtkBillboardTextActor3D.h>
#include <vtkCallbackCommand.h>
#include <vtkCamera.h>
#include <vtkCellArray.h>
#include <vtkCommand.h>
#include <vtkConeSource.h>
#include <vtkCubeSource.h>
#include <vtkDoubleArray.h>
#include <vtkGlyph3DMapper.h>
#include <vtkLineSource.h>
#include <vtkLookupTable.h>
#include <vtkOutlineSource.h>
#include <vtkPointData.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkPolyDataMapper.h>
#include <vtkProperty.h>
#include <vtkRenderWindow.h>
#include <vtkRenderer.h>
#include <vtkScalarBarActor.h>
#include <vtkSphereSource.h>
#include <vtkTextActor.h>
#include <vtkTextProperty.h>
#include <vtkUnsignedCharArray.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace topolens::gui {

namespace {

constexpr Rgb kText{0.0, 0.0, 0.0};
constexpr Rgb kEmptyCellOutline{0.72, 0.72, 0.72};
constexpr Rgb kHighlight{1.0, 0.0, 1.0}; // magenta: on no part of the scale
// Wait arrows: the shaft's radius (in grid pitches) spans these for the smallest .. largest
// arrow; the head ends this far before the waiting cell's centre, and an arrow runs this far
// to the side of the line between the centres, so that A -> B and B -> A stay apart.
constexpr double kArrowThinnest = 0.015, kArrowThickest = 0.07;
constexpr double kArrowHeadGap = 0.15, kArrowSideStep = 0.1;
// Where the 3D grid is drawn inside the window (the rest holds title and legend).
constexpr double kGridViewport[4] = {0.0, 0.0, 0.84, 0.84};

unsigned char to_byte(double channel) {
    return static_cast<unsigned char>(std::lround(std::clamp(channel, 0.0, 1.0) * 255.0));
}

void set_text_style(vtkTextProperty* text, int size, bool bold) {
    text->SetFontSize(size);
    text->SetBold(bold);
    text->SetColor(kText.r, kText.g, kText.b);
    text->SetFontFamilyToArial();
}

vtkSmartPointer<vtkActor> line_actor(const std::array<double, 3>& from,
                                     const std::array<double, 3>& to, double /*unit*/) {
    vtkNew<vtkLineSource> line;
    line->SetPoint1(from.data());
    line->SetPoint2(to.data());
    vtkNew<vtkPolyDataMapper> mapper;
    mapper->SetInputConnection(line->GetOutputPort());
    auto actor = vtkSmartPointer<vtkActor>::New();
    actor->SetMapper(mapper);
    actor->GetProperty()->SetColor(kText.r, kText.g, kText.b);
    actor->GetProperty()->SetLineWidth(2.0);
    return actor;
}

vtkSmartPointer<vtkActor> cone_actor(const std::array<double, 3>& tip,
                                     const std::array<double, 3>& direction, double unit) {
    vtkNew<vtkConeSource> cone;
    cone->SetHeight(0.35 * unit);
    cone->SetRadius(0.12 * unit);
    cone->SetResolution(16);
    cone->SetDirection(direction.data());
    const double back = 0.175 * unit;
    cone->SetCenter(tip[0] - back * direction[0], tip[1] - back * direction[1],
                    tip[2] - back * direction[2]);
    vtkNew<vtkPolyDataMapper> mapper;
    mapper->SetInputConnection(cone->GetOutputPort());
    auto actor = vtkSmartPointer<vtkActor>::New();
    actor->SetMapper(mapper);
    actor->GetProperty()->SetColor(kText.r, kText.g, kText.b);
    return actor;
}

vtkSmartPointer<vtkBillboardTextActor3D>
label_actor(const std::string& text, const std::array<double, 3>& at, int size, bool bold) {
    auto label = vtkSmartPointer<vtkBillboardTextActor3D>::New();
    label->SetInput(text.c_str());
    label->SetPosition(at[0], at[1], at[2]);
    set_text_style(label->GetTextProperty(), size, bold);
    label->GetTextProperty()->SetJustificationToCentered();
    label->GetTextProperty()->SetVerticalJustificationToCentered();
    return label;
}

} // namespace

std::array<double, 4> label_box(vtkBillboardTextActor3D* label, const std::array<double, 2>& at,
                                double margin) {
    vtkTextProperty* text = label->GetTextProperty();
    const double size = text->GetFontSize();
    const char* input = label->GetInput();
    const double width = 0.62 * size * (input ? std::strlen(input) : 0) + margin;
    const double height = 1.2 * size + margin;
    const int justification = text->GetJustification();
    const double left = justification == VTK_TEXT_RIGHT      ? at[0] - width
                        : justification == VTK_TEXT_CENTERED ? at[0] - width / 2
                                                             : at[0];
    return {left, at[1] - height / 2, left + width, at[1] + height / 2};
}

std::array<int, 3> shell_depth(const SceneControls& controls, int view_dims) {
    // Through the gaps between cells (1 - cell size across axes 0 and 1, plane distance -
    // cell size across axis 2) an oblique camera sees about two gap widths deep.
    const double gap_xy = 1.0 - controls.cell_size;
    const double gap_z = view_dims >= 3 ? controls.plane_distance - controls.cell_size : gap_xy;
    const auto deep = [](double gap) { return std::clamp(1 + int(std::ceil(2.0 * gap)), 1, 16); };
    const int across = deep(std::max(gap_xy, gap_z));
    return {across, across, deep(gap_xy)};
}

std::optional<Orientation> parse_orientation(const std::string& name) {
    if (name == "top") return Orientation::Top;
    if (name == "front") return Orientation::Front;
    if (name == "iso") return Orientation::Iso;
    return std::nullopt;
}

std::string orientation_name(Orientation orientation) {
    switch (orientation) {
    case Orientation::Top:
        return "top";
    case Orientation::Front:
        return "front";
    case Orientation::Iso:
        return "iso";
    }
    return "top";
}

TopologyScene::TopologyScene() {
    overlay_->SetBackground(kBackground.r, kBackground.g, kBackground.b);
    overlay_->SetLayer(0);
    grid_->SetLayer(1);
    grid_->SetViewport(kGridViewport);
    grid_->SetPreserveColorBuffer(1); // drawn over the overlay's white background
    // Labels on a layer of their own with the grid's camera: cells never hide them.
    labels_->SetLayer(2);
    labels_->SetViewport(kGridViewport);
    labels_->SetPreserveColorBuffer(1);
    labels_->SetActiveCamera(grid_->GetActiveCamera());
    labels_->InteractiveOff();

    // The scale as a 256-entry table, so that the legend shows exactly the cells' colours.
    lut_->SetNumberOfTableValues(256);
    for (int i = 0; i < 256; ++i) {
        const Rgb c = scale_color(i / 255.0);
        lut_->SetTableValue(i, c.r, c.g, c.b, 1.0);
    }
    lut_->SetRange(0.0, 1.0);

    legend_->SetLookupTable(lut_);
    legend_->SetNumberOfLabels(5);
    legend_->SetLabelFormat("%-#.3g");
    legend_->SetPosition(0.86, 0.08);
    legend_->SetPosition2(0.13, 0.72);
    legend_->SetMaximumWidthInPixels(120);
    legend_->UnconstrainedFontSizeOn();
    set_text_style(legend_->GetTitleTextProperty(), 15, true);
    set_text_style(legend_->GetLabelTextProperty(), 13, false);
    legend_->GetTitleTextProperty()->SetJustificationToLeft();
    overlay_->AddActor2D(legend_);

    title_->GetPositionCoordinate()->SetCoordinateSystemToNormalizedViewport();
    title_->SetPosition(0.015, 0.9);
    set_text_style(title_->GetTextProperty(), 20, true);
    overlay_->AddActor2D(title_);
    scale_->GetPositionCoordinate()->SetCoordinateSystemToNormalizedViewport();
    scale_->SetPosition(0.015, 0.855);
    set_text_style(scale_->GetTextProperty(), 14, false);
    overlay_->AddActor2D(scale_);
    notes_->GetPositionCoordinate()->SetCoordinateSystemToNormalizedViewport();
    notes_->SetPosition(0.015, 0.015);
    set_text_style(notes_->GetTextProperty(), 12, false);
    notes_->SetInput("empty cell = 0    dark grey cell = near 0 (below 0.5 % of the scale's top)");
    overlay_->AddActor2D(notes_);
    caption_->GetPositionCoordinate()->SetCoordinateSystemToNormalizedViewport();
    caption_->SetPosition(0.015, 0.045);
    set_text_style(caption_->GetTextProperty(), 13, false);
    overlay_->AddActor2D(caption_);

    vtkNew<vtkCubeSource> cube;
    filled_mapper_->SetInputData(filled_points_);
    filled_mapper_->SetSourceConnection(cube->GetOutputPort());
    filled_mapper_->SetScaleModeToNoDataScaling();
    filled_mapper_->SetColorModeToDirectScalars();
    filled_mapper_->SetScalarModeToUsePointFieldData();
    filled_mapper_->SelectColorArray("colors");
    filled_mapper_->ScalarVisibilityOn();
    filled_actor_->SetMapper(filled_mapper_);
    // Mostly ambient light: a face seen head-on shows the scale's colour exactly, the
    // sides of a tilted grid are shaded a little for depth.
    filled_actor_->GetProperty()->SetAmbient(0.75);
    filled_actor_->GetProperty()->SetDiffuse(0.25);
    filled_actor_->GetProperty()->SetSpecular(0.0);
    // A closed cube's back faces are always behind its front faces: not drawing them
    // halves the triangles the rasterizer sets up and the fragments it tests.
    filled_actor_->GetProperty()->BackfaceCullingOn();

    // While the camera is dragged: one flat square point per cell, in the cell's colour and
    // about its size on the screen (set per frame in before_frame()); full cubes again on
    // release.
    lod_mapper_->SetInputData(lod_points_);
    lod_mapper_->SetColorModeToDirectScalars();
    lod_mapper_->SetScalarModeToUsePointFieldData();
    lod_mapper_->SelectColorArray("colors");
    lod_mapper_->ScalarVisibilityOn();
    lod_actor_->SetMapper(lod_mapper_);
    lod_actor_->GetProperty()->SetLighting(false);
    lod_actor_->GetProperty()->SetRepresentationToPoints();
    lod_actor_->VisibilityOff();

    vtkNew<vtkOutlineSource> outline;
    outline->SetBounds(-0.5, 0.5, -0.5, 0.5, -0.5, 0.5);
    empty_mapper_->SetInputData(empty_points_);
    empty_mapper_->SetSourceConnection(outline->GetOutputPort());
    empty_mapper_->SetScaleModeToNoDataScaling();
    empty_mapper_->ScalarVisibilityOff();
    empty_actor_->SetMapper(empty_mapper_);
    empty_actor_->GetProperty()->SetColor(kEmptyCellOutline.r, kEmptyCellOutline.g,
                                          kEmptyCellOutline.b);
    empty_actor_->GetProperty()->SetLighting(false);

    vtkNew<vtkPolyDataMapper> highlight_mapper;
    highlight_mapper->SetInputConnection(highlight_source_->GetOutputPort());
    highlight_actor_->SetMapper(highlight_mapper);
    highlight_actor_->GetProperty()->SetColor(kHighlight.r, kHighlight.g, kHighlight.b);
    highlight_actor_->GetProperty()->SetLineWidth(4.0);
    highlight_actor_->GetProperty()->SetLighting(false);
    highlight_actor_->VisibilityOff();

    // Wait arrows: one instanced arrow per edge, scaled (length, width, width) and turned
    // along its direction by the glyph mapper: one actor however many arrows.
    vtkNew<vtkArrowSource> arrow;
    arrow->SetTipLength(0.25);
    arrow->SetTipRadius(0.1 * 2.2);
    arrow->SetShaftRadius(0.1);
    arrow->SetTipResolution(12);
    arrow->SetShaftResolution(8);
    arrow_mapper_->SetInputData(arrow_points_);
    arrow_mapper_->SetSourceConnection(arrow->GetOutputPort());
    arrow_mapper_->SetOrientationArray("direction");
    arrow_mapper_->SetOrientationModeToDirection();
    arrow_mapper_->SetScaleArray("scale");
    arrow_mapper_->SetScaleModeToScaleByVectorComponents();
    arrow_mapper_->ScalarVisibilityOff();
    arrow_actor_->SetMapper(arrow_mapper_);
    arrow_actor_->GetProperty()->SetColor(kWaitArrow.r, kWaitArrow.g, kWaitArrow.b);
    arrow_actor_->GetProperty()->SetLighting(false); // the same violet all over
    arrow_actor_->VisibilityOff();
    // Over the cells (the labels' layer): an arrow inside a 3D grid stays visible.
    labels_->AddActor(arrow_actor_);

    vtkNew<vtkCallbackCommand> before_frame;
    before_frame->SetClientData(this);
    before_frame->SetCallback([](vtkObject*, unsigned long, void* client, void*) {
        static_cast<TopologyScene*>(client)->before_frame();
    });
    grid_->AddObserver(vtkCommand::StartEvent, before_frame);

    grid_->AddActor(filled_actor_);
    grid_->AddActor(lod_actor_);
    grid_->AddActor(empty_actor_);
    grid_->AddActor(highlight_actor_);
}

TopologyScene::~TopologyScene() = default;

void TopologyScene::attach(vtkRenderWindow* window) {
    window->SetNumberOfLayers(3);
    window->AddRenderer(overlay_);
    window->AddRenderer(grid_);
    window->AddRenderer(labels_);
}

vtkRenderer* TopologyScene::grid_renderer() const {
    return grid_.Get();
}
vtkLookupTable* TopologyScene::lookup_table() const {
    return lut_.Get();
}
vtkScalarBarActor* TopologyScene::legend() const {
    return legend_.Get();
}
std::string TopologyScene::caption_text() const {
    std::string text = folding_.description();
    const GridSlice& slice = controls_.slice;
    if (slice.dimension >= 0 && ndims_ > 0) {
        if (!text.empty()) text += "    ";
        text += "slice: dimension " + std::to_string(slice.dimension) + " = " +
                std::to_string(slice.from) +
                (slice.to != slice.from ? ".." + std::to_string(slice.to) : "") +
                " (other processes not drawn)";
    }
    return text;
}

long long TopologyScene::drawn_cells() const {
    return static_cast<long long>(filled_cells_.size()) + empty_points_->GetNumberOfPoints();
}

long long TopologyScene::drawn_cubes() const {
    return filled_points_->GetNumberOfPoints();
}

long long TopologyScene::interactive_cells() const {
    return lod_points_->GetNumberOfPoints();
}

std::vector<vtkBillboardTextActor3D*> TopologyScene::labels() const {
    std::vector<vtkBillboardTextActor3D*> labels;
    for (const auto& prop : axis_props_)
        if (auto* label = vtkBillboardTextActor3D::SafeDownCast(prop)) labels.push_back(label);
    return labels;
}

std::string TopologyScene::title_text() const {
    const char* text = title_->GetInput();
    return text ? text : "";
}

void TopologyScene::show(const TopologyPicture& picture, const SceneControls& controls) {
    controls_ = controls;
    controls_.cell_size = std::clamp(controls_.cell_size, 0.1, 1.0);
    controls_.plane_distance = std::clamp(controls_.plane_distance, 1.0, 10.0);

    folding_ = picture.topology ? fold_grid(picture.topology->sizes) : GridFolding{};
    const int ndims = picture.topology ? folding_.view_dims : 0;
    const std::array<int, 3> dims = ndims > 0 ? folding_.extent : std::array<int, 3>{1, 1, 1};
    const bool shape_changed = dims != dims_ || ndims != ndims_;
    dims_ = dims;
    ndims_ = ndims;

    // Cell centres: axis 0 east, axis 1 north, axis 2 up; planes along axis 2 spread apart.
    // Processes outside the slice get none: they are neither drawn nor picked.
    centers_.assign(picture.values.size(), std::nullopt);
    std::vector<std::array<int, 3>> positions(picture.values.size());
    std::vector<unsigned char> occupied; // by view cell: a drawn process sits there
    const auto cell_index = [&dims](const std::array<int, 3>& p) {
        return (static_cast<size_t>(p[2]) * dims[1] + p[1]) * dims[0] + p[0];
    };
    double grid_min = std::numeric_limits<double>::infinity(), grid_max = -grid_min;
    if (picture.topology) {
        occupied.assign(static_cast<size_t>(dims[0]) * dims[1] * dims[2], 0);
        const auto& coords = picture.topology->coords;
        for (size_t l = 0; l < picture.values.size() && l < coords.size(); ++l) {
            if (coords[l].empty()) continue;
            grid_min = std::min(grid_min, picture.values[l]);
            grid_max = std::max(grid_max, picture.values[l]);
            if (!controls_.slice.contains(coords[l])) continue;
            const std::array<int, 3> p = folding_.position(coords[l]);
            if (p[0] >= dims[0] || p[1] >= dims[1] || p[2] >= dims[2]) continue;
            positions[l] = p;
            occupied[cell_index(p)] = 1;
            centers_[l] =
                std::array<double, 3>{static_cast<double>(p[0]), static_cast<double>(p[1]),
                                      p[2] * controls_.plane_distance};
        }
    }
    // The shell drawn while rotating: the cells within shell_depth() steps of an empty
    // place or the grid's border along some axis; deeper ones are hidden behind them.
    // Still frames of large grids: twice as deep.
    const std::array<int, 3> depth = shell_depth(controls_, ndims);
    const std::array<int, 3> still_depth{2 * depth[0], 2 * depth[1], 2 * depth[2]};
    // Bit 2a (2a + 1): an empty place or the border lies within depth[a] steps towards
    // -a (+a).
    const auto near_surface = [&](const std::array<int, 3>& p, const std::array<int, 3>& depth) {
        unsigned char sides = 0;
        for (int a = 0; a < 3; ++a)
            for (int side = 0; side < 2; ++side)
                for (int k = 1; k <= depth[a]; ++k) {
                    std::array<int, 3> q = p;
                    q[a] += side ? k : -k;
                    if (q[a] < 0 || q[a] >= dims[a] || !occupied[cell_index(q)]) {
                        sides |= static_cast<unsigned char>(1u << (2 * a + side));
                        break;
                    }
                }
        return sides;
    };
    if (!(grid_min <= grid_max)) grid_min = grid_max = 0.0;

    if (picture.high_resolution) {
        range_low_ = grid_min;
        range_high_ = grid_max;
        scale_text_ = "colour scale " + format_number(range_low_) + " .. " +
                      format_number(range_high_) + " " + picture.unit +
                      "  (high resolution: smallest .. largest value on the grid)";
    } else {
        range_low_ = 0.0;
        range_high_ = picture.low_resolution_max;
        scale_text_ = "colour scale 0 .. " + format_number(range_high_) + " " + picture.unit +
                      "  (low resolution: " + picture.low_resolution_meaning + ")";
    }
    if (!picture.topology)
        scale_text_ = "this report has no Cartesian topology: there is no process grid to draw "
                      "(the panes show the values)";
    // VTK needs a non-empty range; an empty one still shows its single value at both ends.
    const double lut_high = range_high_ > range_low_
                                ? range_high_
                                : range_low_ + std::max(1e-12, std::abs(range_low_) * 1e-9);
    lut_->SetRange(range_low_, lut_high);
    lut_->Build();
    const double scale_top = std::max(std::abs(range_low_), std::abs(range_high_));

    vtkNew<vtkPoints> empty;
    filled_cells_.clear();
    for (size_t l = 0; l < centers_.size(); ++l) {
        if (!centers_[l]) continue;
        const double v = picture.values[l];
        const ValueClass cls = classify(v, scale_top);
        if (cls == ValueClass::Zero) {
            empty->InsertNextPoint(centers_[l]->data());
            continue;
        }
        const Rgb c = cls == ValueClass::NearZero
                          ? kNearZero
                          : scale_color(scale_fraction(v, range_low_, range_high_));
        filled_cells_.push_back({*centers_[l],
                                 {to_byte(c.r), to_byte(c.g), to_byte(c.b)},
                                 near_surface(positions[l], depth),
                                 near_surface(positions[l], still_depth)});
    }
    sorted_octant_ = filled_key_ = lod_key_ = -1; // sort_cells() below orders them
    empty_points_->Initialize();
    empty_points_->SetPoints(empty);
    empty_points_->Modified();
    const double s = controls_.cell_size;
    filled_actor_->SetScale(1.0); // glyph size via the source below
    vtkNew<vtkCubeSource> cube;
    cube->SetXLength(s);
    cube->SetYLength(s);
    cube->SetZLength(ndims >= 3 ? s : std::min(s, 0.25));
    filled_mapper_->SetSourceConnection(cube->GetOutputPort());
    vtkNew<vtkOutlineSource> outline;
    const double hz = (ndims >= 3 ? s : std::min(s, 0.25)) / 2;
    outline->SetBounds(-s / 2, s / 2, -s / 2, s / 2, -hz, hz);
    empty_mapper_->SetSourceConnection(outline->GetOutputPort());

    // The metric is in the title; the legend names the unit.
    const std::string legend_title = picture.unit == "s"     ? "seconds"
                                     : picture.unit == "occ" ? "occurrences"
                                                             : picture.unit;
    legend_->SetTitle(legend_title.c_str());
    std::string title = picture.title;
    if (!picture.subtitle.empty()) title += "    " + picture.subtitle;
    title_->SetInput(title.c_str());
    scale_->SetInput(scale_text_.c_str());
    caption_->SetInput(caption_text().c_str());

    build_axes();
    update_highlight();
    show_arrows({}); // they point at the cells placed before
    if (shape_changed || !camera_set_)
        set_orientation(ndims >= 3 ? Orientation::Iso : Orientation::Top);
    sort_cells(); // after the camera is set: sorted once, not again for the first frame
}

void TopologyScene::sort_cells() {
    // Front to back as seen by the camera: llvmpipe (and any GPU) skips shading what the
    // depth test rejects, so nearer cubes drawn first save most of a dense grid's
    // fragments. Re-sorted only when the viewing direction changes octant, so rotating
    // does not rebuild the instances every frame.
    vtkCamera* camera = grid_->GetActiveCamera();
    double dop[3];
    camera->GetDirectionOfProjection(dop);
    const int octant = (dop[0] < 0 ? 1 : 0) | (dop[1] < 0 ? 2 : 0) | (dop[2] < 0 ? 4 : 0);
    if (octant != sorted_octant_) {
        sorted_octant_ = octant;
        std::vector<std::pair<double, int>> order(filled_cells_.size());
        for (size_t i = 0; i < filled_cells_.size(); ++i) {
            const auto& c = filled_cells_[i].center;
            order[i] = {c[0] * dop[0] + c[1] * dop[1] + c[2] * dop[2], static_cast<int>(i)};
        }
        std::sort(order.begin(), order.end());
        order_.resize(order.size());
        for (size_t k = 0; k < order.size(); ++k) order_[k] = order[k].second;
    }
    const auto cell_arrays = [](vtkIdType count) {
        std::pair<vtkNew<vtkPoints>, vtkNew<vtkUnsignedCharArray>> arrays;
        arrays.first->SetNumberOfPoints(count);
        arrays.second->SetName("colors");
        arrays.second->SetNumberOfComponents(3);
        arrays.second->SetNumberOfTuples(count);
        return arrays;
    };
    // The sides of the grid the camera is outside of (eye beyond the grid's bounds along
    // that axis): inner cells and the far sides are hidden behind the cells near them.
    // Every side when the eye is inside the grid.
    double eye[3];
    camera->GetPosition(eye);
    const auto b = grid_bounds();
    int sides = 0;
    for (int a = 0; a < 3; ++a) {
        if (eye[a] < b[2 * a]) sides |= 1 << (2 * a);
        if (eye[a] > b[2 * a + 1]) sides |= 1 << (2 * a + 1);
    }
    if (sides == 0) sides = 0x3f; // (then not outside every axis)
    // The cubes: not while the camera is dragged (not drawn then), once it is released. In
    // a large grid only those near the sides seen (twice the rotating squares' depth).
    // Only when the camera is outside the grid along every axis and not looking along one:
    // from above the grid (or in front of it) the gaps between the cells are tunnels that
    // show cells deep inside near the middle of the picture.
    bool outside_every_axis = true;
    for (int a = 0; a < 3; ++a)
        outside_every_axis = outside_every_axis && (sides >> (2 * a) & 3) != 0 &&
                             std::abs(dop[a]) < 0.996; // 5 degrees off the axis
    const bool cull = controls_.hide_inner_cubes && outside_every_axis &&
                      filled_cells_.size() > static_cast<size_t>(kCullCubesAbove);
    const int filled_key = octant << 6 | (cull ? sides : 0);
    if (!interactive_ && filled_key_ != filled_key) {
        filled_key_ = filled_key;
        vtkIdType count = 0;
        for (int i : order_) count += !cull || (filled_cells_[i].near_surface_still & sides);
        auto [points, colors] = cell_arrays(count);
        vtkIdType k = 0;
        for (int i : order_) {
            const Cell& cell = filled_cells_[i];
            if (cull && !(cell.near_surface_still & sides)) continue;
            points->SetPoint(k, cell.center.data());
            colors->SetTypedTuple(k++, cell.rgb.data());
        }
        filled_points_->Initialize();
        filled_points_->SetPoints(points);
        filled_points_->GetPointData()->AddArray(colors);
        filled_points_->Modified();
    }
    // The squares drawn while rotating: the cells near the sides seen.
    const int key = octant << 6 | sides;
    if (key == lod_key_) return;
    lod_key_ = key;
    vtkIdType count = 0;
    for (int i : order_) count += (filled_cells_[i].near_surface & sides) != 0;
    auto [points, colors] = cell_arrays(count);
    vtkNew<vtkCellArray> vertices;
    vertices->AllocateExact(1, count);
    vertices->InsertNextCell(count);
    vtkIdType k = 0;
    for (int i : order_) {
        const Cell& cell = filled_cells_[i];
        if ((cell.near_surface & sides) == 0) continue;
        points->SetPoint(k, cell.center.data());
        colors->SetTypedTuple(k, cell.rgb.data());
        vertices->InsertCellPoint(k++);
    }
    lod_points_->Initialize();
    lod_points_->SetPoints(points);
    lod_points_->SetVerts(vertices);
    lod_points_->GetPointData()->AddArray(colors);
    lod_points_->Modified();
}

void TopologyScene::place_sliding_labels() {
    // A label at the far end of an axis that runs behind a 3D grid (axis 1 seen obliquely
    // from above) would sit on the cells: slide it along its axis until it is clear of the
    // grid's outline on the screen (the convex hull of the grid's corners, plus a margin).
    if (sliding_labels_.empty()) return;
    const auto b = grid_bounds();
    std::vector<std::array<double, 2>> corners;
    auto to_display = [this](const std::array<double, 3>& w) {
        grid_->SetWorldPoint(w[0], w[1], w[2], 1.0);
        grid_->WorldToDisplay();
        double d[3];
        grid_->GetDisplayPoint(d);
        return std::array<double, 2>{d[0], d[1]};
    };
    for (int i = 0; i < 8; ++i)
        corners.push_back(to_display({b[i & 1 ? 1 : 0], b[i & 2 ? 3 : 2], b[i & 4 ? 5 : 4]}));
    // Convex hull (monotone chain), counter-clockwise.
    std::sort(corners.begin(), corners.end());
    std::vector<std::array<double, 2>> hull(16);
    const auto cross = [](const std::array<double, 2>& o, const std::array<double, 2>& a,
                          const std::array<double, 2>& c) {
        return (a[0] - o[0]) * (c[1] - o[1]) - (a[1] - o[1]) * (c[0] - o[0]);
    };
    size_t k = 0;
    for (size_t i = 0; i < corners.size(); ++i) {
        while (k >= 2 && cross(hull[k - 2], hull[k - 1], corners[i]) <= 0) --k;
        hull[k++] = corners[i];
    }
    for (size_t i = corners.size() - 1, t = k + 1; i-- > 0;) {
        while (k >= t && cross(hull[k - 2], hull[k - 1], corners[i]) <= 0) --k;
        hull[k++] = corners[i];
    }
    hull.resize(k > 0 ? k - 1 : 0);
    const double margin = 6.0; // pixels between a label and the grid
    // The label's box on the screen (estimated from its text and font size), anchored as
    // justified, separated from the hull by one of their edges' normals (convex shapes).
    auto clear_of_grid = [&](const SlidingLabel& label, const std::array<double, 2>& p) {
        if (hull.size() < 3) return true;
        const auto [left, bottom, right, top] = label_box(label.actor, p, margin);
        const std::array<std::array<double, 2>, 4> box{
            {{left - margin, bottom}, {right, bottom}, {right, top}, {left - margin, top}}};
        double hx0 = hull[0][0], hx1 = hx0, hy0 = hull[0][1], hy1 = hy0;
        for (const auto& h : hull) {
            hx0 = std::min(hx0, h[0]), hx1 = std::max(hx1, h[0]);
            hy0 = std::min(hy0, h[1]), hy1 = std::max(hy1, h[1]);
        }
        if (box[1][0] < hx0 || box[0][0] > hx1 || box[2][1] < hy0 || box[0][1] > hy1) return true;
        for (size_t i = 0; i < hull.size(); ++i) { // hull counter-clockwise: outside is right
            const auto& a = hull[i];
            const auto& c = hull[(i + 1) % hull.size()];
            bool all_outside = true;
            for (const auto& corner : box) all_outside = all_outside && cross(a, c, corner) < 0;
            if (all_outside) return true;
        }
        return false;
    };
    const double step = 0.25 * decoration_unit();
    const double reach = 2.0 * std::max({b[1] - b[0], b[3] - b[2], b[5] - b[4]});
    for (auto& label : sliding_labels_) {
        std::array<double, 3> at = label.home;
        for (double moved = 0; moved <= reach && !clear_of_grid(label, to_display(at));
             moved += step)
            for (int i = 0; i < 3; ++i) at[i] += step * label.direction[i];
        label.actor->SetPosition(at.data());
    }
}

void TopologyScene::before_frame() {
    sort_cells();
    // An axis seen end-on (axis 2 from the top, axis 1 from the front) is a point on the
    // screen: its names would pile up on the origin, so they are left out.
    double dop[3];
    grid_->GetActiveCamera()->GetDirectionOfProjection(dop);
    for (vtkBillboardTextActor3D* label : labels()) label->VisibilityOn();
    for (int a = 0; a < 3; ++a)
        for (auto& label : axis_labels_[a]) label->SetVisibility(std::abs(dop[a]) < 0.9);
    place_sliding_labels();
    hide_labels_outside_view();
    filled_actor_->SetVisibility(!interactive_);
    lod_actor_->SetVisibility(interactive_);
    if (!interactive_) return;
    // A cell's size in pixels at the focal point.
    vtkCamera* camera = grid_->GetActiveCamera();
    const int* size = grid_->GetSize();
    double pixels_per_unit = 1.0;
    if (camera->GetParallelProjection())
        pixels_per_unit = size[1] / (2.0 * camera->GetParallelScale());
    else
        pixels_per_unit = size[1] / (2.0 * camera->GetDistance() *
                                     std::tan(camera->GetViewAngle() * std::acos(-1.0) / 360.0));
    lod_actor_->GetProperty()->SetPointSize(
        static_cast<float>(std::max(1.0, controls_.cell_size * pixels_per_unit)));
}

void TopologyScene::hide_labels_outside_view() {
    // Zoomed in, a label near the grid's edge would be cut by the viewport's border: a label
    // is drawn whole or not at all (its estimated box, label_box(), inside the viewport).
    const int* origin = grid_->GetOrigin();
    const int* size = grid_->GetSize();
    for (vtkBillboardTextActor3D* label : labels()) {
        if (!label->GetVisibility()) continue;
        const double* at = label->GetPosition();
        grid_->SetWorldPoint(at[0], at[1], at[2], 1.0);
        grid_->WorldToDisplay();
        double d[3];
        grid_->GetDisplayPoint(d);
        const auto [left, bottom, right, top] = label_box(label, {d[0], d[1]}, 0.0);
        const bool inside = d[2] >= 0.0 && d[2] <= 1.0 && left >= origin[0] &&
                            bottom >= origin[1] && right <= origin[0] + size[0] &&
                            top <= origin[1] + size[1];
        label->SetVisibility(inside);
    }
}

double TopologyScene::decoration_unit() const {
    const auto b = grid_bounds();
    const double extent = std::max({b[1] - b[0], b[3] - b[2], b[5] - b[4]});
    return std::max(1.0, extent / 6.0);
}

std::array<double, 6> TopologyScene::grid_bounds() const {
    const double zpitch = controls_.plane_distance;
    const double hz = ndims_ >= 3 ? 0.5 : 0.125;
    return {-0.5, dims_[0] - 0.5, -0.5, dims_[1] - 0.5, -hz, (dims_[2] - 1) * zpitch + hz};
}

void TopologyScene::build_axes() {
    for (auto& prop : axis_props_) {
        grid_->RemoveViewProp(prop);
        labels_->RemoveViewProp(prop);
    }
    axis_props_.clear();
    sliding_labels_.clear();
    for (auto& labels : axis_labels_) labels.clear();
    if (ndims_ == 0) return;
    const auto b = grid_bounds();
    // Decorations grow with the grid so that, fitted into the view, labels keep their
    // distance from the cells and from each other in pixels (u = 1 up to 4-5 cells).
    const double u = decoration_unit();
    const double gap = 0.45 * u; // axes run this far outside the cells
    const std::array<double, 3> origin{b[0] - gap, b[2] - gap, b[4]};
    const int label_size = 15, compass_size = 22;
    int axis = 0; // the axis whose labels are being added (-1: the origin's)
    auto add = [this, &axis](vtkSmartPointer<vtkProp> prop) {
        if (auto* label = vtkBillboardTextActor3D::SafeDownCast(prop); label && axis >= 0)
            axis_labels_[axis].push_back(label);
        if (vtkBillboardTextActor3D::SafeDownCast(prop))
            labels_->AddViewProp(prop);
        else
            grid_->AddViewProp(prop);
        axis_props_.push_back(prop);
    };
    auto justify = [](vtkSmartPointer<vtkBillboardTextActor3D> label, int horizontal) {
        if (horizontal < 0) label->GetTextProperty()->SetJustificationToRight();
        if (horizontal > 0) label->GetTextProperty()->SetJustificationToLeft();
        return label;
    };
    // Each axis: an arrow from the origin, its two compass names at its two ends (the
    // first one just before the origin, the second beyond the arrow's tip) and its title
    // beside the tip.
    // Axis 0: west -> east, along the south edge.
    const std::array<double, 3> east_end{b[1] + 0.8 * u, origin[1], origin[2]};
    add(line_actor(origin, east_end, u));
    add(cone_actor(east_end, {1, 0, 0}, u));
    add(label_actor("E", {east_end[0] + 0.55 * u, origin[1], origin[2]}, compass_size, true));
    add(label_actor("W", {origin[0] - 0.6 * u, origin[1], origin[2]}, compass_size, true));
    // Below axis 0 both seen from the top (south of it) and from the front (under it).
    const double drop = ndims_ >= 3 ? 0.55 * u : 0.0;
    add(justify(label_actor("axis " + folding_.axis_dimensions(0) + ": W -> E",
                            {east_end[0], origin[1] - 0.55 * u, origin[2] - drop}, label_size,
                            false),
                -1));
    if (ndims_ >= 2) {
        axis = 1;
        const std::array<double, 3> north_end{origin[0], b[3] + 0.8 * u, origin[2]};
        add(line_actor(origin, north_end, u));
        add(cone_actor(north_end, {0, 1, 0}, u));
        auto north =
            label_actor("N", {origin[0], north_end[1] + 0.6 * u, origin[2]}, compass_size, true);
        add(north);
        sliding_labels_.push_back(
            {north, {origin[0], north_end[1] + 0.6 * u, origin[2]}, {0, 1, 0}});
        add(label_actor("S", {origin[0], origin[1] - 0.6 * u, origin[2]}, compass_size, true));
        auto title1 =
            justify(label_actor("axis " + folding_.axis_dimensions(1) + ": S -> N",
                                {origin[0] - 0.35 * u, north_end[1], origin[2]}, label_size, false),
                    -1);
        add(title1);
        sliding_labels_.push_back(
            {title1, {origin[0] - 0.35 * u, north_end[1], origin[2]}, {0, 1, 0}});
    }
    if (ndims_ >= 3) {
        axis = 2;
        const std::array<double, 3> top_end{origin[0], origin[1], b[5] + 0.8 * u};
        add(line_actor(origin, top_end, u));
        add(cone_actor(top_end, {0, 0, 1}, u));
        add(label_actor("top", {origin[0], origin[1], top_end[2] + 0.6 * u}, compass_size - 4,
                        true));
        // Further below than W and S are beside: in oblique views S falls below the origin too.
        add(label_actor("bottom", {origin[0], origin[1], origin[2] - 1.1 * u}, compass_size - 4,
                        true));
        add(justify(label_actor("axis " + folding_.axis_dimensions(2) + ": bottom -> top",
                                {origin[0] - 0.35 * u, origin[1], top_end[2]}, label_size, false),
                    -1));
    }
    axis = -1;
    // The origin: coordinate 0 on every axis (west, south, bottom).
    vtkNew<vtkSphereSource> sphere;
    sphere->SetRadius(0.14 * u);
    sphere->SetThetaResolution(16);
    sphere->SetPhiResolution(16);
    sphere->SetCenter(origin.data());
    vtkNew<vtkPolyDataMapper> sphere_mapper;
    sphere_mapper->SetInputConnection(sphere->GetOutputPort());
    auto marker = vtkSmartPointer<vtkActor>::New();
    marker->SetMapper(sphere_mapper);
    marker->GetProperty()->SetColor(kText.r, kText.g, kText.b);
    add(marker);
    // Coordinate 0 in every dimension of the grid, folded ones too.
    std::string origin_label = "origin (";
    for (size_t d = 0; d < std::max<size_t>(1, folding_.view_axis.size()); ++d)
        origin_label += d ? ",0" : "0";
    origin_label += ")";
    // Below-left of the origin, away from the compass names W (left) and S (below); in 3D
    // also lowered, so that it stays below-left when seen from the front.
    add(justify(label_actor(origin_label,
                            {origin[0] - 0.45 * u, origin[1] - 0.75 * u,
                             origin[2] - (ndims_ >= 3 ? 0.6 * u : 0.0)},
                            13, true),
                -1));
}

void TopologyScene::set_orientation(Orientation orientation) {
    vtkCamera* camera = grid_->GetActiveCamera();
    const auto b = grid_bounds();
    const std::array<double, 3> center{(b[0] + b[1]) / 2, (b[2] + b[3]) / 2, (b[4] + b[5]) / 2};
    std::array<double, 3> direction{0, 0, 1}, up{0, 1, 0};
    switch (orientation) {
    case Orientation::Top:
        direction = {0, 0, 1}, up = {0, 1, 0};
        break;
    case Orientation::Front:
        direction = {0, -1, 0}, up = {0, 0, 1};
        break;
    case Orientation::Iso:
        direction = {0.45, -0.8, 0.6}, up = {0, 0, 1};
        break;
    }
    camera->SetFocalPoint(center.data());
    camera->SetPosition(center[0] + direction[0], center[1] + direction[1],
                        center[2] + direction[2]);
    camera->SetViewUp(up.data());
    // Fit the grid with its axes and labels around it.
    const double margin = 1.9 * decoration_unit();
    const double fit[6] = {b[0] - margin, b[1] + margin,       b[2] - margin,
                           b[3] + margin, b[4] - margin * 0.5, b[5] + margin * 0.8};
    grid_->ResetCamera(fit);
    camera_set_ = true;
}

void TopologyScene::set_interactive(bool interactive) {
    interactive_ = interactive;
    if (!interactive_) sort_cells(); // the cubes' order, if it was left while dragging
    filled_actor_->SetVisibility(!interactive_);
    lod_actor_->SetVisibility(interactive_);
}

vtkPolyData* TopologyScene::arrow_glyphs() const {
    return arrow_points_.Get();
}

void TopologyScene::show_arrows(const std::vector<WaitArrow>& arrows) {
    drawn_arrows_.clear();
    vtkNew<vtkPoints> starts;
    vtkNew<vtkDoubleArray> directions;
    directions->SetName("direction");
    directions->SetNumberOfComponents(3);
    vtkNew<vtkDoubleArray> scales;
    scales->SetName("scale");
    scales->SetNumberOfComponents(3);
    const double largest = arrows.empty() ? 0.0 : arrows.front().seconds;
    for (const WaitArrow& a : arrows) {
        if (drawn_arrows_.size() >= kMaxWaitArrows) break;
        const auto from = cell_center(a.causing), to = cell_center(a.waiting);
        if (!from || !to) continue;
        std::array<double, 3> d{(*to)[0] - (*from)[0], (*to)[1] - (*from)[1],
                                (*to)[2] - (*from)[2]};
        const double length = std::hypot(d[0], d[1], d[2]);
        if (!(length > kArrowHeadGap)) continue;
        for (double& c : d) c /= length;
        // Sideways: across the arrow in the grid's plane (up for arrows along axis 2).
        std::array<double, 3> side{d[1], -d[0], 0.0};
        const double side_length = std::hypot(side[0], side[1]);
        if (side_length < 1e-9)
            side = {0.0, 1.0, 0.0};
        else
            for (double& c : side) c /= side_length;
        starts->InsertNextPoint((*from)[0] + kArrowSideStep * side[0],
                                (*from)[1] + kArrowSideStep * side[1],
                                (*from)[2] + kArrowSideStep * side[2]);
        directions->InsertNextTuple(d.data());
        const double share = largest > 0 ? std::clamp(a.seconds / largest, 0.0, 1.0) : 1.0;
        // The source's shaft radius is 0.1: scale it to the radius wanted.
        const double width = (kArrowThinnest + share * (kArrowThickest - kArrowThinnest)) / 0.1;
        const double scale[3] = {length - kArrowHeadGap, width, width};
        scales->InsertNextTuple(scale);
        drawn_arrows_.push_back(a);
    }
    arrow_points_->Initialize();
    arrow_points_->SetPoints(starts);
    arrow_points_->GetPointData()->AddArray(directions);
    arrow_points_->GetPointData()->AddArray(scales);
    arrow_points_->Modified();
    arrow_actor_->SetVisibility(!drawn_arrows_.empty());
}

void TopologyScene::set_highlight(int location) {
    highlighted_ = location;
    update_highlight();
}

void TopologyScene::update_highlight() {
    const auto center = cell_center(highlighted_);
    if (!center) {
        highlight_actor_->VisibilityOff();
        return;
    }
    const double h = controls_.cell_size / 2 + 0.06;
    const double hz = (ndims_ >= 3 ? controls_.cell_size / 2 : 0.125) + 0.06;
    const auto& c = *center;
    highlight_source_->SetBounds(c[0] - h, c[0] + h, c[1] - h, c[1] + h, c[2] - hz, c[2] + hz);
    highlight_actor_->VisibilityOn();
}

std::optional<std::array<double, 3>> TopologyScene::cell_center(int location) const {
    if (location < 0 || location >= static_cast<int>(centers_.size())) return std::nullopt;
    return centers_[location];
}

std::optional<int> TopologyScene::pick(double display_x, double display_y) const {
    // The ray through the display point, intersected with every cell's box (slab test):
    // exact for instanced glyphs, whose boxes VTK's prop pickers cannot tell apart.
    double near_point[4], far_point[4];
    grid_->SetDisplayPoint(display_x, display_y, 0.0);
    grid_->DisplayToWorld();
    grid_->GetWorldPoint(near_point);
    grid_->SetDisplayPoint(display_x, display_y, 1.0);
    grid_->DisplayToWorld();
    grid_->GetWorldPoint(far_point);
    if (near_point[3] == 0.0 || far_point[3] == 0.0) return std::nullopt;
    std::array<double, 3> p0, dir;
    for (int i = 0; i < 3; ++i) {
        p0[i] = near_point[i] / near_point[3];
        dir[i] = far_point[i] / far_point[3] - p0[i];
    }
    const double h = controls_.cell_size / 2;
    const double hz = ndims_ >= 3 ? h : 0.125;
    std::optional<int> best;
    double best_t = std::numeric_limits<double>::infinity();
    for (size_t l = 0; l < centers_.size(); ++l) {
        if (!centers_[l]) continue;
        const auto& c = *centers_[l];
        const double half[3] = {h, h, hz};
        double t_enter = -std::numeric_limits<double>::infinity();
        double t_exit = std::numeric_limits<double>::infinity();
        bool hit = true;
        for (int i = 0; i < 3 && hit; ++i) {
            const double lo = c[i] - half[i], hi = c[i] + half[i];
            if (std::abs(dir[i]) < 1e-15) {
                hit = p0[i] >= lo && p0[i] <= hi;
            } else {
                double t1 = (lo - p0[i]) / dir[i], t2 = (hi - p0[i]) / dir[i];
                if (t1 > t2) std::swap(t1, t2);
                t_enter = std::max(t_enter, t1);
                t_exit = std::min(t_exit, t2);
                hit = t_enter <= t_exit;
            }
        }
        if (hit && t_exit >= 0.0 && t_enter < best_t) {
            best_t = t_enter;
            best = static_cast<int>(l);
        }
    }
    return best;
}

std::optional<std::array<double, 2>> TopologyScene::display_position(int location) const {
    const auto center = cell_center(location);
    if (!center) return std::nullopt;
    grid_->SetWorldPoint((*center)[0], (*center)[1], (*center)[2], 1.0);
    grid_->WorldToDisplay();
    double display[3];
    grid_->GetDisplayPoint(display);
    return std::array<double, 2>{display[0], display[1]};
}

} // namespace topolens::gui
