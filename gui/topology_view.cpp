#include "gui/topology_view.h"

#include "gui/value_model.h"
#include "gui/vtk_gl_widget.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSlider>
#include <QVBoxLayout>

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

    info_ =
        new QLabel(tr("Click a cell for its process and value. Drag to rotate, wheel to zoom."));
    info_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(info_);

    connect(gl_, &VtkGlWidget::clicked, this, [this](double x, double y) { pick_at(x, y); });
    // Dragging draws each cell as a flat square (fast at 32x32x32 on a software renderer);
    // releasing draws the cubes again.
    connect(gl_, &VtkGlWidget::interactionStarted, this, [this] { scene_.set_interactive(true); });
    connect(gl_, &VtkGlWidget::interactionFinished, this, [this] {
        scene_.set_interactive(false);
        gl_->update();
    });
}

TopologyView::~TopologyView() = default;

void TopologyView::set_picture(TopologyPicture picture) {
    picture_ = std::move(picture);
    refresh();
}

void TopologyView::refresh() {
    picture_.high_resolution = high_resolution_->isChecked();
    scene_.show(picture_, controls_);
    describe(scene_.highlight());
    gl_->update();
}

void TopologyView::set_high_resolution(bool high) {
    high_resolution_->setChecked(high);
}
bool TopologyView::high_resolution() const {
    return high_resolution_->isChecked();
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
    info_->setText(tr("%1  at (%2)  %3: %4")
                       .arg(name, coords, QString::fromStdString(picture_.title),
                            QString::fromStdString(format_number(picture_.values[location]) + " " +
                                                   picture_.unit)));
}

QString TopologyView::info_text() const {
    return info_->text();
}

QImage TopologyView::grab_picture() {
    return gl_->grabFramebuffer();
}

} // namespace topolens::gui
