#include "gui/topology_view.h"

#include "gui/value_model.h"
#include "gui/vtk_gl_widget.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QVBoxLayout>

#include <cmath>

#include <vtkGenericOpenGLRenderWindow.h>

namespace topolens::gui {

TopologyView::TopologyView(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    gl_ = new VtkGlWidget;
    gl_->setMinimumSize(320, 240);
    scene_.attach(gl_->render_window());
    layout->addWidget(gl_, 1);

    auto* controls = new QHBoxLayout;
    for (Orientation o : {Orientation::Top, Orientation::Front, Orientation::Iso}) {
        auto* button = new QPushButton(QString::fromStdString(orientation_name(o)));
        button->setToolTip(
            o == Orientation::Top     ? tr("Look down from the top: north up, east right")
            : o == Orientation::Front ? tr("Look from the south: east right, top up")
                                      : tr("Oblique view from the south-east above"));
        connect(button, &QPushButton::clicked, this, [this, o] { set_orientation(o); });
        controls->addWidget(button);
    }
    high_resolution_ = new QCheckBox(tr("High resolution"));
    high_resolution_->setToolTip(
        tr("Off: colours span 0 .. the largest value of any process over the whole program.\n"
           "On: colours span the smallest .. largest value on the grid."));
    connect(high_resolution_, &QCheckBox::toggled, this, [this](bool) { refresh(); });
    controls->addWidget(high_resolution_);
    controls->addWidget(new QLabel(tr("Cell size")));
    cell_size_ = new QSlider(Qt::Horizontal);
    cell_size_->setRange(10, 100);
    cell_size_->setValue(static_cast<int>(controls_.cell_size * 100));
    cell_size_->setToolTip(tr("Share of the grid pitch a cell fills"));
    connect(cell_size_, &QSlider::valueChanged, this, [this](int v) {
        controls_.cell_size = v / 100.0;
        refresh();
    });
    controls->addWidget(cell_size_);
    controls->addWidget(new QLabel(tr("Plane distance")));
    plane_distance_ = new QSlider(Qt::Horizontal);
    plane_distance_->setRange(10, 60);
    plane_distance_->setValue(static_cast<int>(controls_.plane_distance * 10));
    plane_distance_->setToolTip(tr("Distance between the planes along axis 2 (3D grids)"));
    connect(plane_distance_, &QSlider::valueChanged, this, [this](int v) {
        controls_.plane_distance = v / 10.0;
        refresh();
    });
    controls->addWidget(plane_distance_);
    layout->addLayout(controls);

    // The slice: the inside of a large 3D grid, one plane or a range of planes at a time.
    auto* slicing = new QHBoxLayout;
    slicing->addWidget(new QLabel(tr("Slice")));
    slice_dimension_ = new QComboBox;
    slice_dimension_->setObjectName("slice_dimension");
    slice_dimension_->setToolTip(tr("Draw only the processes whose coordinate along this grid "
                                    "dimension lies in the range to the right"));
    slicing->addWidget(slice_dimension_);
    slicing->addWidget(new QLabel(tr("from")));
    slice_from_ = new QSpinBox;
    slice_from_->setObjectName("slice_from");
    slicing->addWidget(slice_from_);
    slicing->addWidget(new QLabel(tr("to")));
    slice_to_ = new QSpinBox;
    slice_to_->setObjectName("slice_to");
    slicing->addWidget(slice_to_);
    slicing->addSpacing(20);
    // Root causes: an arrow from each process that made another wait to the one that waited.
    arrows_shown_ = new QCheckBox(tr("Root causes"));
    arrows_shown_->setObjectName("root_causes");
    arrows_shown_->setToolTip(tr("Arrows from the process that caused a wait to the process "
                                 "that waited, the wider the more seconds (wait states summed "
                                 "over their kinds; the report's wait edges)"));
    arrows_shown_->setEnabled(false); // until a report with wait edges is open
    slicing->addWidget(arrows_shown_);
    slicing->addWidget(new QLabel(tr("at least")));
    arrow_threshold_ = new QSlider(Qt::Horizontal);
    arrow_threshold_->setObjectName("root_cause_threshold");
    arrow_threshold_->setRange(0, 100);
    arrow_threshold_->setValue(5);
    arrow_threshold_->setToolTip(tr("Draw only the arrows of at least this share of the largest"));
    slicing->addWidget(arrow_threshold_);
    arrow_threshold_text_ = new QLabel;
    slicing->addWidget(arrow_threshold_text_);
    slicing->addStretch(1);
    layout->addLayout(slicing);
    connect(arrows_shown_, &QCheckBox::toggled, this, [this](bool) { refresh(); });
    connect(arrow_threshold_, &QSlider::valueChanged, this, [this](int) { refresh(); });
    connect(slice_dimension_, &QComboBox::currentIndexChanged, this,
            [this](int) { slice_controls_changed(); });
    connect(slice_from_, &QSpinBox::valueChanged, this, [this](int) { slice_controls_changed(); });
    connect(slice_to_, &QSpinBox::valueChanged, this, [this](int) { slice_controls_changed(); });
    update_slice_controls();

    info_ =
        new QLabel(tr("Click a cell for its process and value. Drag to rotate, wheel to zoom."));
    info_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(info_);

    connect(gl_, &VtkGlWidget::clicked, this, [this](double x, double y) { pick_at(x, y); });
    // Dragging draws the cells near the surface as flat squares (fast at 64x64x64 on a
    // software renderer, shell_depth()); releasing draws the cubes again.
    connect(gl_, &VtkGlWidget::interactionStarted, this, [this] { scene_.set_interactive(true); });
    connect(gl_, &VtkGlWidget::interactionFinished, this, [this] {
        scene_.set_interactive(false);
        gl_->update();
    });
}

TopologyView::~TopologyView() = default;

void TopologyView::set_picture(TopologyPicture picture) {
    picture_ = std::move(picture);
    update_slice_controls();
    refresh();
}

void TopologyView::update_slice_controls() {
    const std::vector<uint32_t> sizes =
        picture_.topology ? picture_.topology->sizes : std::vector<uint32_t>{};
    updating_slice_ = true;
    const QSignalBlocker block_dimension(slice_dimension_);
    if (slice_dimension_->count() != static_cast<int>(sizes.size()) + 1) {
        slice_dimension_->clear();
        slice_dimension_->addItem(tr("none"));
        static const char* view_axis[3] = {"x", "y", "z"};
        const GridFolding folding = fold_grid(sizes);
        for (size_t d = 0; d < sizes.size(); ++d)
            slice_dimension_->addItem(
                tr("dimension %1 (%2)").arg(d).arg(view_axis[folding.view_axis[d]]));
    }
    GridSlice& slice = controls_.slice;
    if (slice.dimension >= static_cast<int>(sizes.size())) slice = GridSlice{};
    const int top = slice.dimension >= 0 ? static_cast<int>(sizes[slice.dimension]) - 1 : 0;
    slice.from = std::min<uint32_t>(slice.from, std::max(top, 0));
    slice.to = std::clamp<uint32_t>(slice.to, slice.from, std::max(top, 0));
    slice_dimension_->setCurrentIndex(slice.dimension + 1);
    for (QSpinBox* box : {slice_from_, slice_to_}) {
        const QSignalBlocker block(box);
        box->setRange(0, std::max(top, 0));
        box->setEnabled(slice.dimension >= 0);
    }
    slice_from_->setValue(static_cast<int>(slice.from));
    slice_to_->setValue(static_cast<int>(slice.to));
    updating_slice_ = false;
}

void TopologyView::slice_controls_changed() {
    if (updating_slice_) return;
    GridSlice slice;
    slice.dimension = slice_dimension_->currentIndex() - 1;
    slice.from = static_cast<uint32_t>(std::max(0, slice_from_->value()));
    slice.to = static_cast<uint32_t>(std::max(slice_from_->value(), slice_to_->value()));
    // Choosing a dimension starts with its first plane.
    if (slice.dimension != controls_.slice.dimension) slice.from = slice.to = 0;
    set_slice(slice);
}

void TopologyView::set_slice(const GridSlice& slice) {
    controls_.slice = slice;
    update_slice_controls();
    refresh();
}

void TopologyView::refresh() {
    picture_.high_resolution = high_resolution_->isChecked();
    scene_.show(picture_, controls_);
    arrow_threshold_text_->setText(tr("%1 % of the largest").arg(arrow_threshold_->value()));
    arrow_threshold_->setEnabled(arrows_shown_->isChecked());
    if (arrows_shown_->isChecked())
        scene_.show_arrows(arrows_at_or_above(root_causes_.arrows, arrow_threshold()));
    describe(scene_.highlight());
    gl_->update();
}

void TopologyView::set_high_resolution(bool high) {
    high_resolution_->setChecked(high);
}
bool TopologyView::high_resolution() const {
    return high_resolution_->isChecked();
}

void TopologyView::set_root_causes(RootCauseArrows causes) {
    root_causes_ = std::move(causes);
    arrows_shown_->setEnabled(!root_causes_.arrows.empty());
    refresh();
}

void TopologyView::set_arrows_shown(bool shown) {
    arrows_shown_->setChecked(shown);
}
bool TopologyView::arrows_shown() const {
    return arrows_shown_->isChecked();
}

void TopologyView::set_arrow_threshold(double share) {
    arrow_threshold_->setValue(static_cast<int>(std::lround(share * 100)));
}
double TopologyView::arrow_threshold() const {
    return arrow_threshold_->value() / 100.0;
}

void TopologyView::set_orientation(Orientation orientation) {
    scene_.set_orientation(orientation);
    gl_->update();
}

void TopologyView::set_cell_size(double share) {
    cell_size_->setValue(static_cast<int>(share * 100));
}
void TopologyView::set_plane_distance(double pitch) {
    plane_distance_->setValue(static_cast<int>(pitch * 10));
}

void TopologyView::set_highlight(int location) {
    scene_.set_highlight(location);
    describe(location);
    gl_->update();
}

void TopologyView::pick_at(double display_x, double display_y) {
    if (const auto location = scene_.pick(display_x, display_y)) {
        set_highlight(*location);
        emit locationPicked(*location);
    }
}

void TopologyView::describe(int location) {
    const auto center = scene_.cell_center(location);
    if (!center || !picture_.topology || location >= static_cast<int>(picture_.values.size())) {
        info_->setText(
            tr("Click a cell for its process and value. Drag to rotate, wheel to zoom."));
        return;
    }
    QString coords;
    for (uint32_t c : picture_.topology->coords[location])
        coords += (coords.isEmpty() ? "" : ",") + QString::number(c);
    const QString name = location < static_cast<int>(picture_.location_names.size())
                             ? QString::fromStdString(picture_.location_names[location])
                             : tr("location %1").arg(location);
    const std::string causes = cause_text(root_causes_, location);
    info_->setText(tr("%1  at (%2)  %3: %4")
                       .arg(name, coords, QString::fromStdString(picture_.title),
                            QString::fromStdString(format_number(picture_.values[location]) + " " +
                                                   picture_.unit)) +
                   QString::fromStdString(causes.empty() ? "" : "\n" + causes));
}

QString TopologyView::info_text() const {
    return info_->text();
}

QImage TopologyView::grab_picture() {
    return gl_->grabFramebuffer();
}

} // namespace topolens::gui
