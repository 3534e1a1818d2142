// GUI tests (run under xvfb-run, one test function per ctest): the wavefront sample's
// report in the real window — topology pixels, legend ranges, picking, panes — the codelet
// view on a hand-written audit, damaged files and `--render`.
#include "audit_fixture.h"

#include "analyzer/report/cube4.h"
#include "gui/browser_panes.h"
#include "gui/codelet_view.h"
#include "gui/color_scale.h"
#include "gui/main_window.h"
#include "gui/render_options.h"
#include "gui/time_axis.h"
#include "gui/topology_picture.h"
#include "gui/topology_scene.h"
#include "gui/topology_view.h"
#include "gui/value_tree.h"
#include "gui/vtk_gl_widget.h"
#include "gui/wait_arrows.h"
#include "trace/synthetic.h"

#include <QAction>
#include <QApplication>
#include <QAreaSeries>
#include <QBoxPlotSeries>
#include <QBoxSet>
#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QComboBox>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QMenuBar>
#include <QMessageBox>
#include <QProcess>
#include <QScatterSeries>
#include <QScrollBar>
#include <QSlider>
#include <QSpinBox>
#include <QTabWidget>
#include <QTimer>
#include <QValueAxis>
#include <QtTest>

#include <vtkBillboardTextActor3D.h>
#include <vtkCamera.h>
#include <vtkDataArray.h>
#include <vtkLookupTable.h>
#include <vtkPointData.h>
#include <vtkPolyData.h>
#include <vtkRenderWindow.h>
#include <vtkRenderer.h>
#include <vtkScalarBarActor.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <time.h>

using namespace topolens;
using namespace topolens::gui;

namespace {

// CPU time of the whole process (all threads, e.g. Mesa's rendering threads) in ms.
double process_cpu_ms() {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

QString env(const char* name) {
    return qEnvironmentVariable(name);
}

QString work_dir() {
    const QString dir = env("TOPOLENS_GUI_TEST_WORK") + "/gui-tests";
    std::filesystem::create_directories(dir.toStdString());
    return dir;
}

// The location at the given grid coordinates.
int location_at(const report::CartTopology& grid, std::vector<uint32_t> coords) {
    for (size_t l = 0; l < grid.coords.size(); ++l)
        if (grid.coords[l] == coords) return static_cast<int>(l);
    return -1;
}

QColor pixel_at(const QImage& image, const std::array<double, 2>& display) {
    // VTK counts rows from the bottom, QImage from the top.
    return image.pixelColor(static_cast<int>(std::lround(display[0])),
                            image.height() - 1 - static_cast<int>(std::lround(display[1])));
}

bool close_to(const QColor& c, int r, int g, int b, int tolerance) {
    return std::abs(c.red() - r) <= tolerance && std::abs(c.green() - g) <= tolerance &&
           std::abs(c.blue() - b) <= tolerance;
}

// The range of the lookup table the legend shows.
void legend_range(TopologyScene& scene, double range[2]) {
    const double* r = scene.legend()->GetLookupTable()->GetRange();
    range[0] = r[0];
    range[1] = r[1];
}

// Pixels of `image` within `tolerance` of the colour, per channel.
int count_pixels(const QImage& image, const QColor& colour, int tolerance) {
    int count = 0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x)
            count += close_to(image.pixelColor(x, y), colour.red(), colour.green(), colour.blue(),
                              tolerance);
    return count;
}

// A real mouse click on a chart at a value of one of its series.
void click_chart(QChartView* view, QAbstractSeries* series, const QPointF& value) {
    const QPoint at = view->mapFromScene(view->chart()->mapToPosition(value, series));
    QTest::mouseClick(view->viewport(), Qt::LeftButton, Qt::NoModifier, at);
}

QString describe(const QColor& c) {
    return QString("(%1,%2,%3)").arg(c.red()).arg(c.green()).arg(c.blue());
}

// A synthetic grid of the given sizes; value of a process: 1 + the sum of its coordinates.
struct SyntheticGrid {
    report::CartTopology topology;
    TopologyPicture picture;
    explicit SyntheticGrid(const std::vector<uint32_t>& sizes) {
        topology.name = "synthetic";
        topology.sizes = sizes;
        topology.periodic.assign(sizes.size(), false);
        size_t n = 1;
        for (uint32_t s : sizes) n *= s;
        for (size_t l = 0; l < n; ++l) {
            std::vector<uint32_t> c(sizes.size());
            size_t rest = l;
            double sum = 1.0;
            for (size_t d = 0; d < sizes.size(); ++d) {
                c[d] = static_cast<uint32_t>(rest % sizes[d]);
                rest /= sizes[d];
                sum += c[d];
            }
            topology.coords.push_back(c);
            picture.values.push_back(sum);
            picture.low_resolution_max = std::max(picture.low_resolution_max, sum);
        }
        picture.topology = &topology;
        picture.title = "synthetic";
        picture.unit = "s";
    }
};

} // namespace

class GuiTest : public QObject {
    Q_OBJECT

  private:
    std::unique_ptr<MainWindow> window_;

    // The window with the wavefront report open, shown and drawn once.
    MainWindow& open_wavefront() {
        window_ = std::make_unique<MainWindow>();
        window_->resize(1200, 950);
        window_->show();
        if (!QTest::qWaitForWindowExposed(window_.get())) qFatal("window not exposed");
        const QString report = env("TOPOLENS_GUI_TEST_REPORT");
        if (!QFile::exists(report)) qFatal("no wavefront report at %s", qPrintable(report));
        if (!window_->open_file(report)) qFatal("cannot open %s", qPrintable(report));
        QApplication::processEvents();
        return *window_;
    }

    const report::CartTopology& grid() {
        return window_->report()->topologies.at(window_->current_topology());
    }

    int metric(const char* name) {
        const auto m = window_->report()->find_metric(name);
        if (!m) qFatal("no metric %s", name);
        return *m;
    }

    // The leaf call path holding most of `metric` (an MPI_Recv of the sweeps).
    int busiest_leaf_callpath(int m) {
        const report::Report& r = *window_->report();
        const std::vector<double> own = r.callpath_totals(m, false);
        int best = -1;
        for (int c = 0; c < static_cast<int>(own.size()); ++c)
            if (r.callpaths[c].children.empty() && (best < 0 || own[c] > own[best])) best = c;
        return best;
    }

    QImage grab() {
        QApplication::processEvents();
        return window_->topology_view()->grab_picture();
    }

    // A synthetic trace on a 4x3 grid (2 iterations), written and opened in the window (which
    // analyzes it): its wait edges and delay costs are the analysis's.
    trace::Synthetic open_synthetic(trace::SynthOptions options, const char* name) {
        namespace fs = std::filesystem;
        const fs::path dir = work_dir().toStdString() + "/" + name;
        fs::remove_all(dir);
        options.grid = {4, 3};
        options.iterations = 2;
        trace::Synthetic synth = trace::synthesize(options);
        synth.builder.write(dir.string());
        window_ = std::make_unique<MainWindow>();
        window_->resize(1200, 950);
        window_->show();
        if (!QTest::qWaitForWindowExposed(window_.get())) qFatal("window not exposed");
        if (!window_->open_file(QString::fromStdString(dir.string())))
            qFatal("cannot open %s", dir.c_str());
        QApplication::processEvents();
        return synth;
    }

    int location_of_rank(uint32_t rank) {
        const auto& locations = window_->report()->locations;
        for (size_t l = 0; l < locations.size(); ++l)
            if (locations[l].rank == static_cast<int>(rank)) return static_cast<int>(l);
        qFatal("no location of rank %u", rank);
    }

    // The generator's wait edges summed over their kinds: (causing, waiting) location ->
    // seconds.
    std::map<std::pair<int, int>, double> expected_arrows(const trace::Synthetic& synth) {
        std::map<std::pair<int, int>, double> arrows;
        for (const trace::SynthEdge& e : synth.expected.root_causes.edges)
            arrows[{location_of_rank(e.causing), location_of_rank(e.waiting)}] +=
                static_cast<double>(e.ticks) / static_cast<double>(trace::kSynthResolution);
        return arrows;
    }

    // A real mouse click on a location's cell.
    void click_cell(int location) {
        TopologyView& view = *window_->topology_view();
        grab();
        const auto pos = view.scene().display_position(location);
        if (!pos) qFatal("location %d has no cell", location);
        VtkGlWidget* gl = view.gl_widget();
        const double ratio = gl->devicePixelRatioF();
        const QPoint click(static_cast<int>(std::lround((*pos)[0] / ratio)),
                           static_cast<int>(std::lround(gl->height() - 1 - (*pos)[1] / ratio)));
        QTest::mouseClick(gl, Qt::LeftButton, Qt::NoModifier, click);
    }

  private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void cleanup() { window_.reset(); }

    void wavefront_sw_origin_is_zero_ne_is_hottest() {
        MainWindow& window = open_wavefront();
        const int sw_metric = metric("Wavefront from SW");
        QVERIFY(window.panes()->select_metric(sw_metric));
        TopologyView& view = *window.topology_view();
        QVERIFY(QString::fromStdString(view.scene().title_text()).startsWith("Wavefront from SW"));
        const int sw = location_at(grid(), {0, 0});
        const int ne = location_at(grid(), {grid().sizes[0] - 1, grid().sizes[1] - 1});
        QVERIFY(sw >= 0 && ne >= 0);
        // The facts the picture must show, from the report itself.
        const std::vector<double> values = window.report()->inclusive_by_location(sw_metric, -1);
        QCOMPARE(values[sw], 0.0);
        QCOMPARE(values[ne], *std::max_element(values.begin(), values.end()));

        const QImage image = grab();
        const auto sw_pos = view.scene().display_position(sw);
        const auto ne_pos = view.scene().display_position(ne);
        QVERIFY(sw_pos && ne_pos);
        const QColor sw_color = pixel_at(image, *sw_pos);
        const QColor ne_color = pixel_at(image, *ne_pos);
        QVERIFY2(close_to(sw_color, 255, 255, 255, 3),
                 qPrintable("SW cell should show the background (zero): " + describe(sw_color)));
        QVERIFY2(ne_color.red() >= 235 && ne_color.green() <= 25 && ne_color.blue() <= 25,
                 qPrintable("NE cell should be the hottest colour (red): " + describe(ne_color)));
        // And a cell in between is on the scale: neither background nor red.
        const int middle = location_at(grid(), {1, 2});
        const QColor mid_color = pixel_at(image, *view.scene().display_position(middle));
        QVERIFY2(!close_to(mid_color, 255, 255, 255, 10) && !close_to(mid_color, 255, 0, 0, 40),
                 qPrintable("interior cell colour " + describe(mid_color)));
    }

    // Issue 21: the browser opened on Time's own part, 0 s on every process of a trace of MPI
    // calls (Time's value lies in its sub-metrics), so the grid was empty and its scale ran
    // from 0 to 1e-12 s. The first view now shows Time with everything below it: a value and
    // a colour on every cell.
    void first_view_shows_values_on_every_cell() {
        MainWindow& window = open_wavefront();
        const report::Report& r = *window.report();
        const int time_metric = metric("time");
        QCOMPARE(window.panes()->metric_choice().metric, time_metric);
        QVERIFY(window.panes()->metric_choice().inclusive);
        TopologyView& view = *window.topology_view();
        QVERIFY(QString::fromStdString(view.scene().title_text()).startsWith("Time"));
        const std::vector<double> values = r.inclusive_by_location(time_metric, -1);
        const double smallest = *std::min_element(values.begin(), values.end());
        QVERIFY2(smallest > 0.1, qPrintable(QString("Time at a process: %1 s").arg(smallest)));
        QVERIFY2(!QString::fromStdString(view.scene().scale_text()).contains("e-12"),
                 qPrintable(QString::fromStdString(view.scene().scale_text())));
        const QImage image = grab();
        for (int loc = 0; loc < static_cast<int>(r.locations.size()); ++loc) {
            const auto pos = view.scene().display_position(loc);
            QVERIFY(pos);
            const QColor colour = pixel_at(image, *pos);
            QVERIFY2(!close_to(colour, 255, 255, 255, 10) && !close_to(colour, 64, 64, 64, 10),
                     qPrintable(QString("location %1: cell colour %2 is background or near zero")
                                    .arg(loc)
                                    .arg(describe(colour))));
        }
        // The wave metrics, a part of Late Sender in a tree of their own, show their share of it.
        QTreeWidgetItem* sw = window.panes()->metric_tree()->find_node(metric("Wavefront from SW"),
                                                                       BrowserPanes::kMetric);
        QVERIFY(sw);
        QVERIFY2(sw->text(0).contains("% of Late Sender)"), qPrintable(sw->text(0)));
    }

    void high_resolution_legend_is_grid_min_max() {
        MainWindow& window = open_wavefront();
        const report::Report& r = *window.report();
        TopologyView& view = *window.topology_view();
        // Time (collapsed: with all its sub-metrics) at the call path that holds most of it:
        // the time elsewhere makes the whole-program maximum larger than this call path's.
        const int time_metric = metric("time");
        window.panes()
            ->metric_tree()
            ->find_node(time_metric, BrowserPanes::kMetric)
            ->setExpanded(false);
        const int callpath = busiest_leaf_callpath(time_metric);
        QVERIFY(callpath >= 0);
        QVERIFY(window.panes()->select_metric(time_metric));
        QVERIFY(window.panes()->select_callpath(callpath));
        QVERIFY(window.panes()->metric_choice().inclusive);

        const std::vector<double> whole = r.inclusive_by_location(time_metric, -1);
        const std::vector<double> here = r.inclusive_by_location(time_metric, callpath);
        double whole_max = 0.0, here_min = INFINITY, here_max = -INFINITY;
        for (size_t l = 0; l < here.size(); ++l) {
            if (grid().coords[l].empty()) continue;
            whole_max = std::max(whole_max, whole[l]);
            here_min = std::min(here_min, here[l]);
            here_max = std::max(here_max, here[l]);
        }
        QVERIFY(here_max < whole_max); // else the switch could not show a difference
        double range[2];
        // Low resolution: 0 .. the largest whole-program value of any process.
        QVERIFY(!view.high_resolution());
        legend_range(view.scene(), range);
        QCOMPARE(range[0], 0.0);
        QVERIFY(std::abs(range[1] - whole_max) <= 1e-12 * whole_max);
        QVERIFY(QString::fromStdString(view.scene().scale_text())
                    .startsWith("colour scale 0 .. " +
                                QString::fromStdString(format_number(whole_max))));

        view.set_high_resolution(true);
        grab();
        legend_range(view.scene(), range);
        QVERIFY2(std::abs(range[0] - here_min) <= 1e-12 &&
                     std::abs(range[1] - here_max) <= 1e-12 * here_max,
                 qPrintable(QString("legend %1..%2, grid %3..%4")
                                .arg(range[0])
                                .arg(range[1])
                                .arg(here_min)
                                .arg(here_max)));
        const QString text = QString::fromStdString(view.scene().scale_text());
        QVERIFY2(text.startsWith("colour scale " + QString::fromStdString(format_number(here_min)) +
                                 " .. " + QString::fromStdString(format_number(here_max)) + " s"),
                 qPrintable(text));
        QVERIFY(text.contains("high resolution"));

        QVERIFY(here_min > 0.0); // every process spends time there: the range starts above 0
        // The whole program selected: its high-resolution range is the grid's min..max.
        window.panes()->call_tree()->clearSelection();
        grab();
        const std::vector<double> time = r.inclusive_by_location(metric("time"), -1);
        const double time_min = *std::min_element(time.begin(), time.end());
        legend_range(view.scene(), range);
        QVERIFY(time_min > 0.0);
        QVERIFY(std::abs(range[0] - time_min) <= 1e-12 * time_min);
        view.set_high_resolution(false);
        legend_range(view.scene(), range);
        QCOMPARE(range[0], 0.0);
    }

    void picking_selects_location_and_pane_highlights_cell() {
        MainWindow& window = open_wavefront();
        QVERIFY(window.panes()->select_metric(metric("Wavefront from SW")));
        TopologyView& view = *window.topology_view();
        grab();
        const int target = location_at(grid(), {2, 1});
        const auto pos = view.scene().display_position(target);
        QVERIFY(pos);
        VtkGlWidget* gl = view.gl_widget();
        const double ratio = gl->devicePixelRatioF();
        const QPoint click(static_cast<int>(std::lround((*pos)[0] / ratio)),
                           static_cast<int>(std::lround(gl->height() - 1 - (*pos)[1] / ratio)));
        QTest::mouseClick(gl, Qt::LeftButton, Qt::NoModifier, click);
        QCOMPARE(window.panes()->selected_location(), target);
        QCOMPARE(view.scene().highlight(), target);
        const int rank = window.report()->locations[target].rank;
        QVERIFY2(view.info_text().startsWith(QString("rank %1 ").arg(rank)),
                 qPrintable(view.info_text()));
        QVERIFY(view.info_text().contains("at (2,1)"));
        // A click on empty space picks nothing and keeps the selection.
        QTest::mouseClick(gl, Qt::LeftButton, Qt::NoModifier, QPoint(5, 5));
        QCOMPARE(window.panes()->selected_location(), target);

        // The other way: selecting in the system pane outlines that cell (magenta).
        const int other = location_at(grid(), {3, 3});
        QVERIFY(window.panes()->select_location(other));
        QCOMPARE(view.scene().highlight(), other);
        const QImage image = grab();
        const auto other_pos = *view.scene().display_position(other);
        const auto target_pos = *view.scene().display_position(target);
        const double pitch =
            std::hypot(other_pos[0] - target_pos[0], other_pos[1] - target_pos[1]) /
            std::hypot(1.0, 2.0); // cells (2,1) and (3,3) are sqrt(5) apart
        int magenta = 0;
        double sx = 0, sy = 0;
        for (int y = 0; y < image.height(); ++y)
            for (int x = 0; x < image.width(); ++x)
                if (close_to(image.pixelColor(x, y), 255, 0, 255, 40)) {
                    ++magenta;
                    sx += x;
                    sy += image.height() - 1 - y;
                }
        QVERIFY2(magenta > 20, qPrintable(QString("%1 magenta pixels").arg(magenta)));
        QVERIFY(std::hypot(sx / magenta - other_pos[0], sy / magenta - other_pos[1]) < pitch / 4);
    }

    void panes_narrow_and_switch_inclusive_exclusive() {
        MainWindow& window = open_wavefront();
        const report::Report& r = *window.report();
        BrowserPanes& panes = *window.panes();
        const int time = metric("time");
        QTreeWidgetItem* time_item = panes.metric_tree()->find_node(time, BrowserPanes::kMetric);
        QVERIFY(time_item && time_item->childCount() > 0);
        // Expanded: own part; collapsed: everything below.
        time_item->setExpanded(true);
        QCOMPARE(
            ValueTree::node_value(time_item), r.total(time) - [&] {
                double children = 0;
                for (int c : r.metrics[time].children) children += r.total(c);
                return children;
            }());
        time_item->setExpanded(false);
        QVERIFY(std::abs(ValueTree::node_value(time_item) - r.total(time)) <= 1e-9 * r.total(time));

        // Late Sender selected: the call pane shows Late Sender per call path.
        const int ls = metric("mpi_latesender");
        QVERIFY(panes.select_metric(ls));
        QTreeWidgetItem* ls_item = panes.metric_tree()->find_node(ls, BrowserPanes::kMetric);
        ls_item->setExpanded(false);
        const std::vector<double> incl = r.callpath_totals(ls, true);
        const std::vector<double> excl = r.callpath_totals(ls, false);
        QTreeWidgetItemIterator it(panes.call_tree());
        int checked = 0;
        for (; *it; ++it) {
            const int c = ValueTree::node_id(*it);
            const double expected = ValueTree::shows_inclusive(*it) ? incl[c] : excl[c];
            QVERIFY(std::abs(ValueTree::node_value(*it) - expected) <=
                    1e-12 + 1e-9 * std::abs(expected));
            ++checked;
        }
        QCOMPARE(checked, static_cast<int>(r.callpaths.size()));
        // A call path selected: the system pane shows Late Sender there, per process.
        const int callpath = busiest_leaf_callpath(ls);
        QVERIFY(panes.select_callpath(callpath));
        const std::vector<double> per_location = r.inclusive_by_location(ls, callpath);
        for (int l = 0; l < static_cast<int>(r.locations.size()); ++l) {
            QTreeWidgetItem* item = panes.system_tree()->find_node(l, BrowserPanes::kLocation);
            QVERIFY(std::abs(ValueTree::node_value(item) - per_location[l]) <= 1e-12);
        }
        QVERIFY(QString::fromStdString(window.topology_view()->scene().title_text())
                    .contains(QString::fromStdString(r.callpath_name(callpath))));

        // Keyboard: Down moves the metric selection, and the topology follows.
        QVERIFY(panes.select_metric(time));
        time_item->setExpanded(true);
        panes.metric_tree()->setFocus();
        QTest::keyClick(panes.metric_tree(), Qt::Key_Down);
        const int next = r.metrics[time].children.front();
        QCOMPARE(panes.metric_choice().metric, next);
        QVERIFY(QString::fromStdString(window.topology_view()->scene().title_text())
                    .startsWith(QString::fromStdString(r.metrics[next].display_name)));
    }

    void value_modes_and_flat_profile() {
        MainWindow& window = open_wavefront();
        const report::Report& r = *window.report();
        BrowserPanes& panes = *window.panes();
        const int time = metric("time");
        QTreeWidgetItem* time_item = panes.metric_tree()->find_node(time, BrowserPanes::kMetric);
        time_item->setExpanded(false);
        panes.set_value_mode(ValueMode::Percent);
        QVERIFY2(time_item->text(0).startsWith("100.00 %"), qPrintable(time_item->text(0)));
        const int ls = metric("mpi_latesender");
        QVERIFY(panes.select_metric(ls));
        QTreeWidgetItem* ls_item = panes.metric_tree()->find_node(ls, BrowserPanes::kMetric);
        char expected[64];
        std::snprintf(expected, sizeof expected, "%.2f %%", 100.0 * r.total(ls) / r.total(time));
        QVERIFY2(ls_item->text(0).startsWith(expected),
                 qPrintable(ls_item->text(0) + " vs " + expected));
        // Relative percent in the system pane: share of the selection, the shares add to 100.
        panes.set_value_mode(ValueMode::RelativePercent);
        const std::vector<double> per_location = r.inclusive_by_location(ls, -1);
        double sum = 0;
        for (double v : per_location) sum += v;
        QTreeWidgetItem* rank0 = panes.system_tree()->find_node(0, BrowserPanes::kLocation);
        std::snprintf(expected, sizeof expected, "%.2f %%", 100.0 * per_location[0] / sum);
        QVERIFY2(rank0->text(0).startsWith(expected),
                 qPrintable(rank0->text(0) + " vs " + expected));
        panes.set_value_mode(ValueMode::Absolute);
        QVERIFY(time_item->text(0).endsWith(" s   Time"));

        // Flat profile: one node per region with the own values of all its call paths.
        panes.set_flat_profile(true);
        QCOMPARE(panes.call_tree()->topLevelItemCount(), static_cast<int>(r.regions.size()));
        const std::vector<double> own = r.callpath_totals(ls, false);
        std::vector<double> by_region(r.regions.size(), 0.0);
        for (size_t c = 0; c < own.size(); ++c) by_region[r.callpaths[c].region] += own[c];
        int recv = -1;
        for (int i = 0; i < panes.call_tree()->topLevelItemCount(); ++i) {
            QTreeWidgetItem* item = panes.call_tree()->topLevelItem(i);
            const int region = ValueTree::node_id(item);
            QVERIFY(std::abs(ValueTree::node_value(item) - by_region[region]) <= 1e-12);
            if (r.regions[region].name == "MPI_Recv") recv = i;
        }
        QVERIFY(recv >= 0);
        panes.call_tree()->setCurrentItem(panes.call_tree()->topLevelItem(recv));
        const int recv_region = ValueTree::node_id(panes.call_tree()->topLevelItem(recv));
        for (int l = 0; l < static_cast<int>(r.locations.size()); ++l) {
            double expected_value = 0;
            for (int c = 0; c < static_cast<int>(r.callpaths.size()); ++c)
                if (r.callpaths[c].region == recv_region)
                    expected_value += r.metric_inclusive(ls, c, l);
            QTreeWidgetItem* item = panes.system_tree()->find_node(l, BrowserPanes::kLocation);
            QVERIFY(std::abs(ValueTree::node_value(item) - expected_value) <= 1e-12);
        }
        panes.set_flat_profile(false);
        QCOMPARE(panes.call_tree()->topLevelItemCount(), 1); // the root "program"
    }

    void topology_menu_lists_topologies() {
        MainWindow& window = open_wavefront();
        QMenu* menu = nullptr;
        for (QAction* action : window.menuBar()->actions())
            if (action->text().remove('&') == "Topology") menu = action->menu();
        QVERIFY(menu);
        int listed = 0;
        for (QAction* action : menu->actions())
            if (action->isCheckable() && action->actionGroup()) {
                ++listed;
                QVERIFY(action->text().contains("4x4"));
            }
        QCOMPARE(listed, static_cast<int>(window.report()->topologies.size()));
        QVERIFY(listed >= 1);
    }

    void export_png_writes_the_view() {
        MainWindow& window = open_wavefront();
        grab();
        const QString path = work_dir() + "/export.png";
        QFile::remove(path);
        QVERIFY(window.export_png(path));
        QImage image(path);
        QCOMPARE(image.size(), window.topology_view()->grab_picture().size());
        window.views()->setCurrentWidget(window.codelet_view());
        const QString codelets = work_dir() + "/export-codelets.png";
        QVERIFY(window.export_png(codelets));
        QVERIFY(!QImage(codelets).isNull());
    }

    void damaged_file_shows_error_and_window_survives() {
        MainWindow& window = open_wavefront();
        const report::Report* before = window.report();
        // Random bytes, and the report cut in half.
        const QString random = work_dir() + "/random.cubex";
        {
            std::ofstream out(random.toStdString(), std::ios::binary);
            std::mt19937 generator(42);
            for (int i = 0; i < 4096; ++i) out.put(static_cast<char>(generator() & 0xff));
        }
        const QString truncated = work_dir() + "/truncated.cubex";
        {
            QFile source(env("TOPOLENS_GUI_TEST_REPORT"));
            QVERIFY(source.open(QIODevice::ReadOnly));
            const QByteArray bytes = source.readAll();
            QFile out(truncated);
            QVERIFY(out.open(QIODevice::WriteOnly));
            out.write(bytes.left(bytes.size() / 2));
        }
        for (const QString& path : {random, truncated, work_dir() + "/missing.cubex"}) {
            QString seen;
            // The dialog is modal: a timer finds it, remembers its text and closes it.
            QTimer poll;
            poll.setInterval(20);
            connect(&poll, &QTimer::timeout, [&] {
                auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
                if (!box) return;
                seen = box->windowTitle() + " | " + box->text();
                box->accept();
            });
            poll.start();
            QVERIFY(!window.open_file(path));
            poll.stop();
            QVERIFY2(seen.startsWith("Cannot open " + QFileInfo(path).fileName()),
                     qPrintable(seen));
            QVERIFY2(seen.contains(QFileInfo(path).fileName() + ":") || seen.contains(path),
                     qPrintable(seen)); // the message names the file
            QCOMPARE(window.report(), before);
            QVERIFY(window.isVisible());
        }
        // Still working: the report is still shown and can be browsed.
        QVERIFY(window.panes()->select_metric(metric("Wavefront from SW")));
        QVERIFY(!grab().isNull());
    }

    // A profile (TOPOLENS_MODE=profile, no trace) opens like any report: its recorded grid
    // in the topology view, its metrics in the tree, the slow rank hottest in Computation.
    void opens_a_profile_with_its_grid() {
        window_ = std::make_unique<MainWindow>();
        window_->resize(1200, 950);
        window_->show();
        QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
        const QString profile = env("TOPOLENS_GUI_TEST_PROFILE");
        QVERIFY2(QFile::exists(profile), qPrintable("no profile at " + profile));
        QVERIFY(window_->open_file(profile));
        QApplication::processEvents();
        const report::Report& r = *window_->report();
        QVERIFY(r.attributes.count("topolens.profile"));
        QCOMPARE(r.locations.size(), size_t(12));
        QCOMPARE(grid().sizes, (std::vector<uint32_t>{4, 3}));
        QVERIFY(window_->panes()->metric_tree()->find_node(metric("bytes_sent"),
                                                           BrowserPanes::kMetric));
        TopologyView& view = *window_->topology_view();
        QVERIFY(QString::fromStdString(view.scene().title_text()).startsWith("Time"));

        const int comp = metric("comp");
        QVERIFY(window_->panes()->select_metric(comp));
        const std::vector<double> values = r.inclusive_by_location(comp, -1);
        const int slow = 5; // make_profile.sh's --slow-rank, location 5 (ranks in order)
        QCOMPARE(values[slow], *std::max_element(values.begin(), values.end()));
        const QImage image = grab();
        const auto pos = view.scene().display_position(slow);
        QVERIFY(pos);
        const QColor colour = pixel_at(image, *pos);
        QVERIFY2(
            colour.red() >= 235 && colour.green() <= 25 && colour.blue() <= 25,
            qPrintable("the slow rank's cell should be the hottest colour: " + describe(colour)));
    }

    void opens_a_scalasca_style_report() {
        // What Scalasca's reports have and ours do not: a derived metric (CubePL), two hosts,
        // no Cartesian topology.
        report::Report r;
        auto metric = [](const char* unique, const char* display, int parent) {
            report::Metric metric;
            metric.unique_name = unique;
            metric.display_name = display;
            metric.parent = parent;
            return metric;
        };
        const int t = r.add_metric(metric("time", "Time", -1));
        const int m = r.add_metric(metric("mpi", "MPI", t));
        report::Metric comp = metric("comp", "Computation", t);
        comp.derived_type = "POSTDERIVED";
        comp.cubepl = "metric::time() - metric::mpi()";
        r.add_metric(comp);
        report::Region main_region;
        main_region.name = "main";
        report::Region recv;
        recv.name = "MPI_Recv";
        recv.paradigm = "mpi";
        const int main_cp = r.add_callpath(r.add_region(main_region), -1);
        const int recv_cp = r.add_callpath(r.add_region(recv), main_cp);
        for (int rank = 0; rank < 4; ++rank) {
            const int l = r.add_location({"Master thread", rank < 2 ? "node0" : "node1",
                                          "MPI Rank " + std::to_string(rank), rank, 0});
            r.set_value(t, main_cp, l, 1.0);
            r.set_value(t, recv_cp, l, 0.5);
            r.set_value(m, recv_cp, l, 0.5);
        }
        const QString path = work_dir() + "/scalasca-style.cubex";
        report::write_cube4(r, path.toStdString());
        window_ = std::make_unique<MainWindow>();
        window_->show();
        QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
        QVERIFY(window_->open_file(path));
        ValueTree* metrics = window_->panes()->metric_tree();
        // The derived metric says so instead of showing a value of 0.
        QTreeWidgetItem* derived = metrics->find_node(2, BrowserPanes::kMetric);
        QVERIFY(derived);
        QCOMPARE(derived->text(0), QString("(derived)   Computation"));
        QVERIFY(derived->toolTip(0).contains("metric::time() - metric::mpi()"));
        // Time opens collapsed, as in Cube: with MPI's 4 x 0.5 s; expanded, its own stored
        // part (4 x 1.5 s).
        QTreeWidgetItem* time_item = metrics->find_node(t, BrowserPanes::kMetric);
        QVERIFY(time_item && !time_item->isExpanded());
        QCOMPARE(ValueTree::node_value(time_item), 8.0);
        time_item->setExpanded(true);
        QCOMPARE(ValueTree::node_value(time_item), 6.0);
        QVERIFY(window_->panes()->select_metric(m));
        QCOMPARE(window_->panes()->system_tree()->topLevelItemCount() > 0, true);
        // No grid to draw, and the view says why.
        QVERIFY(QString::fromStdString(window_->topology_view()->scene().scale_text())
                    .startsWith("this report has no Cartesian topology"));
        QVERIFY(!grab().isNull());
    }

    void message_statistics_in_panes_and_topology() {
        // The traced wavefront2d run: bytes and message counts are metric trees of their
        // own (docs/bytes-and-counts.md); the panes and the topology show them per process,
        // in bytes.
        MainWindow& window = open_wavefront();
        const report::Report& r = *window.report();
        BrowserPanes& panes = *window.panes();
        const int bytes = metric("bytes");
        const int sent = metric("bytes_sent");
        QCOMPARE(r.metrics[bytes].parent, -1);
        QTreeWidgetItem* bytes_item = panes.metric_tree()->find_node(bytes, BrowserPanes::kMetric);
        QVERIFY(bytes_item);
        QCOMPARE(bytes_item->parent(), nullptr); // a root beside Time
        QVERIFY(r.total(sent) > 0);
        QVERIFY(panes.select_metric(sent));
        for (int l = 0; l < static_cast<int>(r.locations.size()); ++l) {
            QTreeWidgetItem* item = panes.system_tree()->find_node(l, BrowserPanes::kLocation);
            QVERIFY(item);
            QCOMPARE(ValueTree::node_value(item), r.total(sent, l));
            QVERIFY(r.total(sent, l) > 0); // sweeps from four corners: everyone sends
        }
        const TopologyScene& scene = window.topology_view()->scene();
        QVERIFY2(QString::fromStdString(scene.title_text()).startsWith("P2P bytes sent"),
                 qPrintable(QString::fromStdString(scene.title_text())));
        QVERIFY2(QString::fromStdString(scene.scale_text()).contains(" bytes"),
                 qPrintable(QString::fromStdString(scene.scale_text())));
        QVERIFY(!grab().isNull());
    }

    void opens_scalascas_report_with_cubes_values() {
        // Scalasca 2.6's report of the wavefront2d trace: the metric pane shows what Cube
        // shows (tests/data/scalasca-oracle/README.md): Late Sender 6.965310 s with its Wrong
        // Order part 3.372912 s, not their sum.
        const QString path = env("TOPOLENS_ORACLE_DIR") + "/wavefront2d/scalasca.cubex";
        QVERIFY2(QFile::exists(path), qPrintable(path + " is missing"));
        window_ = std::make_unique<MainWindow>();
        window_->show();
        QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
        QVERIFY(window_->open_file(path));
        ValueTree* metrics = window_->panes()->metric_tree();
        for (const auto& [name, seconds] :
             {std::pair{"mpi_latesender", 6.965310}, std::pair{"mpi_latesender_wo", 3.372912},
              std::pair{"mpi_latereceiver", 1.279709}}) {
            QTreeWidgetItem* item = metrics->find_node(metric(name), BrowserPanes::kMetric);
            QVERIFY(item);
            item->setExpanded(false); // collapsed: the metric with everything below it
            QVERIFY2(std::abs(ValueTree::node_value(item) - seconds) < 2e-6,
                     qPrintable(QString("%1: %2").arg(name).arg(ValueTree::node_value(item))));
        }
        // Per process, as Scalasca's values: location 5's Late Sender.
        QVERIFY(window_->panes()->select_metric(metric("mpi_latesender")));
        QTreeWidgetItem* five =
            window_->panes()->system_tree()->find_node(5, BrowserPanes::kLocation);
        QVERIFY(five);
        QVERIFY(std::abs(ValueTree::node_value(five) - 0.297947) < 2e-6); // scalasca-values.csv
    }

    void codelet_view_shows_boxes_and_verdict() {
        // Through a file, like a real report: the attribute survives CUBE4 writing and reading.
        const QString path = work_dir() + "/audited.cubex";
        report::write_cube4(test::audited_report(), path.toStdString());
        window_ = std::make_unique<MainWindow>();
        window_->show();
        QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
        QVERIFY(window_->open_file(path));
        CodeletView& view = *window_->codelet_view();
        window_->views()->setCurrentWidget(&view);
        QVERIFY(view.has_audit());
        QCOMPARE(view.box_count(), 3);
        QCOMPARE(view.outlier_point_count(), 1);
        QCOMPARE(view.verdict_text(),
                 QString("halo3d: the tuner's choice put-fence is wrong; the audit's winner is "
                         "sendrecv-pairwise (the choice costs 42.5 % more). ") +
                     test::kAuditReason);
        QCOMPARE(view.outlier_point_count(AuditCodelet::OutlierCause::Caused), 1);
        QCOMPARE(view.search_text(),
                 QString("Search phase 0.4 s (27.0 % of the run), search cost 0.1 s beyond "
                         "running the chosen codelet in every measurement. No production "
                         "phase."));
        // The axis names codelets by index, the key names them in full.
        const QList<QBoxSet*> sets = view.box_series()->boxSets();
        QCOMPARE(sets[0]->label(), QString("0"));
        QCOMPARE(sets[1]->label(), QString("1<br>audit"));
        QCOMPARE(sets[2]->label(), QString("2<br>tuner"));
        QCOMPARE(view.category_label(2), QString("2<br>tuner"));
        for (const char* name : {"isend-irecv", "sendrecv-pairwise", "put-fence"})
            QVERIFY2(view.names_text().contains(name), qPrintable(view.names_text()));
        QCOMPARE(sets[1]->at(QBoxSet::Median), 0.00115);
        QCOMPARE(sets[0]->at(QBoxSet::UpperExtreme), 0.0022); // the whisker, not the outlier
        QVERIFY(sets[1]->brush().color() != sets[0]->brush().color());
        QVERIFY(sets[2]->brush().color() != sets[0]->brush().color());

        // Choosing a codelet colours the topology by its per-process mean.
        QVERIFY(view.choose_codelet("sendrecv-pairwise"));
        TopologyView& topology = *window_->topology_view();
        QCOMPARE(window_->views()->currentWidget(), &topology);
        QVERIFY(QString::fromStdString(topology.scene().title_text())
                    .contains("halo3d / sendrecv-pairwise"));
        double range[2];
        legend_range(topology.scene(), range);
        QCOMPARE(range[1], 0.004); // low resolution: the largest mean of any codelet
        const QImage image = grab();
        const report::CartTopology& g = window_->report()->topologies[0];
        // rank 5 has no measurement (null): drawn empty; rank 7 is the slowest of the codelet.
        const QColor empty =
            pixel_at(image, *topology.scene().display_position(location_at(g, {1, 1})));
        QVERIFY2(close_to(empty, 255, 255, 255, 3), qPrintable(describe(empty)));
        const QColor slowest =
            pixel_at(image, *topology.scene().display_position(location_at(g, {3, 1})));
        const Rgb expected = scale_color(0.0017 / 0.004);
        QVERIFY2(close_to(slowest, std::lround(expected.r * 255), std::lround(expected.g * 255),
                          std::lround(expected.b * 255), 12),
                 qPrintable(describe(slowest)));
        // Selecting a metric again shows the metric.
        QVERIFY(window_->panes()->select_metric(0));
        QVERIFY(QString::fromStdString(topology.scene().title_text()).startsWith("Time"));
    }

    void codelet_view_without_audit_says_so() {
        report::Report plain = test::audited_report();
        plain.attributes.erase("topolens.audit");
        CodeletView view;
        view.set_report(&plain);
        QVERIFY(!view.has_audit());
        QCOMPARE(view.box_count(), 0);
        QCOMPARE(view.message_text(), QString("no tuned operations in this report"));
        // A broken document is reported, not shown as an empty audit.
        plain.attributes["topolens.audit"] = "{\"format\": \"topolens-audit\", \"operations\": [";
        view.set_report(&plain);
        QVERIFY(!view.has_audit());
        QVERIFY2(view.message_text().contains("not JSON"), qPrintable(view.message_text()));
    }

    void codelet_view_of_the_autotune_sample() {
        // The real thing: samples/autotune_halo traced on 8 ranks (2x2x2) and analyzed
        // (make_autotune_report.sh). What the view must show is read here from the report's
        // JSON directly, not through the GUI's reader.
        const QString path = env("TOPOLENS_GUI_TEST_AUTOTUNE_REPORT");
        QVERIFY2(QFile::exists(path), qPrintable("no autotune report at " + path));
        window_ = std::make_unique<MainWindow>();
        window_->resize(1200, 950);
        window_->show();
        QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
        QVERIFY(window_->open_file(path));
        const report::Report& r = *window_->report();
        const auto attribute = r.attributes.find("topolens.audit");
        QVERIFY(attribute != r.attributes.end());
        const QJsonObject json =
            QJsonDocument::fromJson(QByteArray::fromStdString(attribute->second)).object();
        const QJsonArray operations = json.value("operations").toArray();
        QCOMPARE(operations.size(), 1);
        const QJsonObject op = operations[0].toObject();
        const QJsonArray codelets = op.value("codelets").toArray();
        QCOMPARE(codelets.size(), 11); // the sample's eleven codelets

        CodeletView& view = *window_->codelet_view();
        window_->views()->setCurrentWidget(&view);
        QVERIFY(view.has_audit());
        QCOMPARE(view.box_count(), 11);

        // The verdict shown: the JSON's verdict in words, then its reason.
        const QString verdict = op.value("verdict").toString();
        const QString reason = op.value("reason").toString();
        QVERIFY(!reason.isEmpty());
        const QString shown = view.verdict_text();
        QVERIFY2(shown.startsWith(op.value("name").toString() + ": "), qPrintable(shown));
        QVERIFY2(shown.endsWith(". " + reason), qPrintable(shown));
        const QString words = verdict == "confirmed"      ? "is confirmed by the audit"
                              : verdict == "questionable" ? "is questionable"
                              : verdict == "wrong"        ? "is wrong"
                                                          : "the audit is undecided";
        QVERIFY2(shown.contains(words), qPrintable(verdict + " vs " + shown));

        // Winners marked on the right boxes: labels and colours by position of the index.
        const int tuner = op.value("tuner_winner").toObject().value("index").toInt(-1);
        const int best = op.value("best").toInt(-1);
        QVERIFY(tuner >= 0 && best >= 0);
        const QList<QBoxSet*> sets = view.box_series()->boxSets();
        int outliers = 0;
        for (int i = 0; i < codelets.size(); ++i) {
            const QJsonObject c = codelets[i].toObject();
            const int index = c.value("index").toInt();
            QString expected = QString::number(index);
            if (index == tuner && index == best)
                expected += "<br>tuner<br>audit";
            else if (index == tuner)
                expected += "<br>tuner";
            else if (index == best)
                expected += "<br>audit";
            QCOMPARE(sets[i]->label(), expected);
            QVERIFY(view.names_text().contains(c.value("name").toString()));
            QCOMPARE(sets[i]->at(QBoxSet::Median),
                     c.value("box").toObject().value("median").toDouble());
            const QColor fill = sets[i]->brush().color();
            if (index == best)
                QCOMPARE(fill, QColor(60, 170, 90)); // the audit's green
            else if (index == tuner)
                QCOMPARE(fill, QColor(255, 190, 40)); // the tuner's gold
            else
                QVERIFY(fill != QColor(60, 170, 90) && fill != QColor(255, 190, 40));
            outliers += c.value("box_outliers").toArray().size();
        }
        QCOMPARE(view.outlier_point_count(), outliers);
        // Rank 5 perturbed codelet 3 twice (the sample's --outlier-* options): the audit finds
        // it slow by itself there.
        QVERIFY(view.outlier_point_count(AuditCodelet::OutlierCause::Caused) >= 1);
        // Search cost and production check, from the JSON.
        char search[64];
        std::snprintf(search, sizeof search, "Search phase %.3g s",
                      op.value("search_seconds").toDouble());
        QVERIFY2(view.search_text().startsWith(search), qPrintable(view.search_text()));
        QVERIFY(view.search_text().contains(
            QString("Production: %1 executions (all processes)")
                .arg(op.value("production").toObject().value("executions").toInt())));

        // Choosing a codelet colours the 2x2x2 topology: no cell shows the background.
        const QString chosen = codelets[best].toObject().value("name").toString();
        QVERIFY(view.choose_codelet(chosen.toStdString()));
        TopologyView& topology = *window_->topology_view();
        QCOMPARE(window_->views()->currentWidget(), &topology);
        QVERIFY(QString::fromStdString(topology.scene().title_text()).contains("/ " + chosen));
        const report::CartTopology& g = r.topologies.at(window_->current_topology());
        QCOMPARE(g.sizes, (std::vector<uint32_t>{2, 2, 2}));
        const QImage image = grab();
        for (int l = 0; l < static_cast<int>(r.locations.size()); ++l) {
            const auto pos = topology.scene().display_position(l);
            QVERIFY(pos);
            const QColor c = pixel_at(image, *pos);
            QVERIFY2(
                !close_to(c, 255, 255, 255, 8),
                qPrintable(QString("location %1 shows the background %2").arg(l).arg(describe(c))));
        }
    }

    void large_grid_32x32x32_frame_time() {
        // 32768 processes: one instanced glyph per cell keeps a rotation frame short even
        // on Mesa's software renderer.
        report::CartTopology grid;
        grid.name = "big";
        grid.sizes = {32, 32, 32};
        grid.periodic = {false, false, false};
        TopologyPicture picture;
        picture.topology = &grid;
        for (uint32_t z = 0; z < 32; ++z)
            for (uint32_t y = 0; y < 32; ++y)
                for (uint32_t x = 0; x < 32; ++x) {
                    grid.coords.push_back({x, y, z});
                    picture.values.push_back(x + y + z);
                }
        picture.low_resolution_max = 93.0;
        picture.title = "synthetic";
        picture.unit = "s";
        TopologyView view;
        view.resize(900, 700);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QElapsedTimer build;
        build.start();
        view.set_picture(picture);
        view.grab_picture();
        const qint64 first_ms = build.elapsed();
        vtkCamera* camera = view.scene().grid_renderer()->GetActiveCamera();
        // Median over frames, each drawn and read back (grab), the camera turned between:
        // the frame's wall time (shown) and the CPU time the process spent on it (judged:
        // a frame's work does not grow when other programs share the cores, its wall time
        // does, e.g. 2x with two busy processes beside the test).
        struct FrameTimes {
            double wall_ms, cpu_ms;
        };
        const auto median_frame = [&](int frames) {
            std::vector<double> wall, cpu;
            for (int i = 0; i < frames; ++i) {
                camera->Azimuth(9.0);
                QElapsedTimer timer;
                const double cpu_start = process_cpu_ms();
                timer.start();
                view.grab_picture();
                wall.push_back(static_cast<double>(timer.nsecsElapsed()) / 1e6);
                cpu.push_back(process_cpu_ms() - cpu_start);
            }
            std::sort(wall.begin(), wall.end());
            std::sort(cpu.begin(), cpu.end());
            return FrameTimes{wall[wall.size() / 2], cpu[cpu.size() / 2]};
        };
        const FrameTimes still = median_frame(10);

        // Dragging with the mouse switches to the interactive representation (a flat point
        // per cell), releasing draws the cubes again.
        VtkGlWidget* gl = view.gl_widget();
        const QPoint centre(gl->width() / 2, gl->height() / 2);
        QTest::mousePress(gl, Qt::LeftButton, Qt::NoModifier, centre);
        QMouseEvent move(QEvent::MouseMove, QPointF(centre + QPoint(40, 10)),
                         gl->mapToGlobal(QPointF(centre + QPoint(40, 10))), Qt::NoButton,
                         Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(gl, &move);
        QVERIFY(view.scene().interactive());
        const FrameTimes rotating = median_frame(10);
        QTest::mouseRelease(gl, Qt::LeftButton, Qt::NoModifier, centre + QPoint(40, 10));
        QVERIFY(!view.scene().interactive());

        qInfo("32x32x32: first picture %lld ms, then median %.1f ms per still frame (CPU %.1f "
              "ms), %.1f ms per frame while rotating (CPU %.1f ms), each with reading the "
              "picture back",
              first_ms, still.wall_ms, still.cpu_ms, rotating.wall_ms, rotating.cpu_ms);
        // Measured under xvfb (Mesa llvmpipe, 2 shared cores, load ~5): ~100 ms per still
        // frame and ~40 ms while rotating, each with reading the framebuffer back
        // (docs/performance.md: topolens-gui --bench-frames); ~90 and ~30 ms CPU, also with two
        // busy processes beside the test, when the wall time doubles. One actor per cell, or a
        // scene rebuilt per frame, takes well over a second here. A GPU draws this in a few ms.
        QVERIFY2(still.cpu_ms < 300.0,
                 qPrintable(QString("%1 ms CPU per still frame").arg(still.cpu_ms)));
        QVERIFY2(rotating.cpu_ms < 300.0,
                 qPrintable(QString("%1 ms CPU per rotating frame").arg(rotating.cpu_ms)));
        // The hottest corner's red is in the picture, the coldest corner's blue too.
        const QImage image = view.grab_picture();
        int red = 0, blue = 0;
        for (int y = 0; y < image.height(); ++y)
            for (int x = 0; x < image.width(); ++x) {
                const QColor c = image.pixelColor(x, y);
                red += c.red() > 200 && c.green() < 60 && c.blue() < 60;
                blue += c.blue() > 200 && c.red() < 60 && c.green() < 60;
            }
        QVERIFY(red > 50 && blue > 50);
    }

    void codelet_series_show_every_measurement_and_share_the_choice() {
        const QString path = work_dir() + "/audited-series.cubex";
        report::write_cube4(test::audited_report(), path.toStdString());
        window_ = std::make_unique<MainWindow>();
        window_->resize(1400, 950);
        window_->show();
        QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
        QVERIFY(window_->open_file(path));
        CodeletView& view = *window_->codelet_view();
        window_->views()->setCurrentWidget(&view);
        // The fixture's samples (max over processes) and samples_min, by codelet.
        const double samples[3][4] = {{0.0020, 0.0021, 0.0022, 0.0090},
                                      {0.0010, 0.0011, 0.0012, 0.0013},
                                      {0.0030, 0.0031, 0.0032, 0.0033}};
        const double mins[3][4] = {{0.0018, 0.0019, 0.0020, 0.0021},
                                   {0.0008, 0.0009, 0.0010, 0.0011},
                                   {0.0028, 0.0029, 0.0030, 0.0031}};
        for (int i = 0; i < 3; ++i) {
            const QLineSeries* line = view.max_line(i);
            QVERIFY(line && line->isVisible());
            QCOMPARE(line->name(), QString::number(i));
            const QList<QPointF> points = line->points();
            QCOMPARE(points.size(), 4); // one point per measurement, in order
            for (int m = 0; m < 4; ++m) {
                QVERIFY(points[m].x() == m);
                QVERIFY2(points[m].y() == samples[i][m],
                         qPrintable(QString::number(points[m].y())));
            }
        }
        QVERIFY(!view.max_line(3));
        // The box plot's outlier (isend-irecv, measurement 3) is a spike, marked.
        const QList<QPointF> spikes = view.series_outliers()->points();
        QCOMPARE(spikes.size(), 1);
        QVERIFY(spikes[0].x() == 3 && spikes[0].y() == 0.0090);
        // Slow by itself on rank 3 (heuristic): red, as its dot in the box plot.
        QCOMPARE(view.series_outliers()
                     ->pointConfiguration(0)
                     .value(QXYSeries::PointConfiguration::Color)
                     .value<QColor>(),
                 QColor(220, 30, 30));
        // Nothing chosen yet: no band, no mark under a box.
        QCOMPARE(view.chosen_position(), -1);
        QVERIFY(!view.band());
        QCOMPARE(view.chosen_marker()->count(), 0);
        // On the screen: every codelet's line and the red spike.
        QTest::qWait(100);
        QImage picture = view.series_chart_view()->grab().toImage();
        picture.save(work_dir() + "/series-unchosen.png");
        const QColor line_colours[3] = {QColor(31, 119, 180), QColor(255, 127, 14),
                                        QColor(44, 160, 44)};
        for (const QColor& colour : line_colours)
            QVERIFY2(count_pixels(picture, colour, 30) > 40,
                     qPrintable(describe(colour) +
                                QString(": %1 pixels").arg(count_pixels(picture, colour, 30))));
        QVERIFY(count_pixels(picture, QColor(220, 30, 30), 30) > 15);

        // A click on sendrecv-pairwise's line chooses it in both charts and colours the topology.
        click_chart(view.series_chart_view(), view.max_line(1), QPointF(1.5, 0.00115));
        QCOMPARE(view.chosen_position(), 1);
        QCOMPARE(view.chosen_marker()->count(), 1);
        QVERIFY(view.chosen_marker()->at(0).x() == 1); // under box 1
        QVERIFY(QString::fromStdString(window_->topology_view()->scene().title_text())
                    .contains("halo3d / sendrecv-pairwise"));
        QAreaSeries* band = view.band();
        QVERIFY(band && band->isVisible());
        const QList<QPointF> lower = band->lowerSeries()->points();
        const QList<QPointF> upper = band->upperSeries()->points();
        QCOMPARE(lower.size(), 4);
        QCOMPARE(upper.size(), 4);
        for (int m = 0; m < 4; ++m) {
            QVERIFY(lower[m].x() == m && lower[m].y() == mins[1][m]); // the band's min: samples_min
            QVERIFY(upper[m].x() == m && upper[m].y() == samples[1][m]);
        }
        QCOMPARE(view.max_line(1)->pen().widthF(), 3.0);
        QVERIFY(view.max_line(0)->pen().color().alpha() < 255); // the others step back
        window_->views()->setCurrentWidget(&view);
        QTest::qWait(100);
        picture = view.series_chart_view()->grab().toImage();
        picture.save(work_dir() + "/series-chosen.png");
        // The band: sendrecv-pairwise's orange at alpha 60 over white.
        QVERIFY2(
            count_pixels(picture, QColor(255, 225, 198), 12) > 300,
            qPrintable(
                QString("%1 band pixels").arg(count_pixels(picture, QColor(255, 225, 198), 12))));
        QImage boxes = view.chart_view()->grab().toImage();
        boxes.save(work_dir() + "/boxes-chosen.png");
        QVERIFY(count_pixels(boxes, QColor(200, 0, 200), 30) > 30); // the mark under box 1

        // A click on put-fence's box chooses it in the series too.
        click_chart(view.chart_view(), view.chosen_marker(), QPointF(2, 0.00315));
        QCOMPARE(view.chosen_position(), 2);
        QVERIFY(view.chosen_marker()->at(0).x() == 2);
        QVERIFY(view.band());
        const QList<QPointF> put_lower = view.band()->lowerSeries()->points();
        for (int m = 0; m < 4; ++m) QVERIFY(put_lower[m].y() == mins[2][m]);
        QCOMPARE(view.max_line(2)->pen().widthF(), 3.0);
        QCOMPARE(view.max_line(1)->pen().widthF(), 1.5);
        QVERIFY(QString::fromStdString(window_->topology_view()->scene().title_text())
                    .contains("halo3d / put-fence"));
    }

    void codelet_view_verification_ranges_and_worst_set() {
        const QString path = work_dir() + "/audited-verified.cubex";
        report::write_cube4(test::audited_report_with_verification(), path.toStdString());
        window_ = std::make_unique<MainWindow>();
        window_->resize(1400, 950);
        window_->show();
        QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
        QVERIFY(window_->open_file(path));
        CodeletView& view = *window_->codelet_view();
        window_->views()->setCurrentWidget(&view);
        QVERIFY(view.current_verification());
        // Ranges beside the boxes of the verified codelets only: isend-irecv and put-fence.
        const QLineSeries* isend = view.verification_range(0);
        const QLineSeries* put = view.verification_range(2);
        QVERIFY(isend && put && isend->isVisible());
        QVERIFY(!view.verification_range(1)); // sendrecv-pairwise: no run
        QCOMPARE(isend->count(), 2);
        QVERIFY(isend->at(0) == QPointF(0.36, 0.0041) && isend->at(0).y() == 0.0041);
        QVERIFY(isend->at(1).x() == 0.36 && isend->at(1).y() == 0.0043);
        QVERIFY(put->at(0).x() == 2.36 && put->at(0).y() == 0.0031 && put->at(1).y() == 0.0031);
        const QList<QPointF> means = view.verification_means()->points();
        QCOMPARE(means.size(), 2);
        QVERIFY(means[0].x() == 0.36 && means[0].y() == 0.0042);
        QVERIFY(means[1].x() == 2.36 && means[1].y() == 0.0031);
        // The verdict names the best verified codelet and the tuner's penalty.
        QCOMPARE(view.verdict_text(),
                 QString("halo3d: the tuner's choice put-fence is wrong; the audit's winner is "
                         "sendrecv-pairwise (the choice costs 42.5 % more). ") +
                     test::kAuditReason +
                     " Verification runs (3): the best verified codelet is put-fence (mean "
                     "0.0031 s over 1 run); it is the tuner's choice (penalty 0 %).");
        // The worst set is the verification's: isend-irecv, not the audit's put-fence.
        QVERIFY(view.in_worst_set(0));
        QVERIFY(!view.in_worst_set(1));
        QVERIFY(!view.in_worst_set(2));
        const QList<QBoxSet*> sets = view.box_series()->boxSets();
        QCOMPARE(sets[0]->pen().color(), QColor(200, 0, 0));
        QCOMPARE(sets[0]->pen().style(), Qt::DashLine);
        QVERIFY(sets[2]->pen().style() != Qt::DashLine);
        QCOMPARE(view.names_text().count("(worst set)"), 1);
        QVERIFY(view.names_text().contains("isend-irecv <i style='color:#c80000'>(worst set)</i>"));
        // On the screen: the purple ranges and means, the red dashed outline.
        QTest::qWait(100);
        QImage boxes = view.chart_view()->grab().toImage();
        boxes.save(work_dir() + "/boxes-verified.png");
        QVERIFY2(
            count_pixels(boxes, QColor(110, 40, 160), 30) > 60,
            qPrintable(QString("%1 purple").arg(count_pixels(boxes, QColor(110, 40, 160), 30))));
        QVERIFY2(count_pixels(boxes, QColor(200, 0, 0), 30) > 40,
                 qPrintable(QString("%1 red").arg(count_pixels(boxes, QColor(200, 0, 0), 30))));

        // Without verification runs the audit's worst set is marked: put-fence.
        view.set_verification(std::nullopt);
        QVERIFY(!view.current_verification());
        QVERIFY(!view.verification_range(0) && !view.verification_range(2));
        QVERIFY(!view.verification_means());
        QVERIFY(!view.in_worst_set(0));
        QVERIFY(view.in_worst_set(2));
        QCOMPARE(view.box_series()->boxSets()[2]->pen().style(), Qt::DashLine);
        QVERIFY(!view.verdict_text().contains("Verification"));
        QTest::qWait(100);
        boxes = view.chart_view()->grab().toImage();
        QCOMPARE(count_pixels(boxes, QColor(110, 40, 160), 30), 0);
        QVERIFY(count_pixels(boxes, QColor(200, 0, 0), 30) > 40);

        // A samples_min that does not match the samples is reported, not drawn.
        report::Report broken = test::audited_report();
        std::string& json = broken.attributes["topolens.audit"];
        const std::string mins = "[0.0008, 0.0009, 0.0010, 0.0011]";
        json.replace(json.find(mins), mins.size(), "[0.0008, 0.0009, 0.0010]");
        CodeletView alone;
        alone.set_report(&broken);
        QVERIFY(!alone.has_audit());
        QVERIFY2(alone.message_text().contains(
                     "codelet sendrecv-pairwise: \"samples_min\" has 3 values, \"samples\" 4"),
                 qPrintable(alone.message_text()));
    }

    void codelet_box_plot_round_ticks_and_log_scale() {
        // The ticks' rules on their own: 1-2-5 steps, the range widened to whole steps;
        // decades around the times.
        const RoundTicks t = round_ticks(3.2, 47.0);
        QCOMPARE(t.min, 0.0);
        QCOMPARE(t.max, 50.0);
        QCOMPARE(t.step, 10.0);
        QCOMPARE(t.count, 6);
        const RoundTicks fine = round_ticks(0.0121, 0.0138, 8);
        // Steps of 0.0001 and 0.0002 need more than 8 ticks: 0.012 ... 0.014 by 0.0005.
        QVERIFY(qFuzzyCompare(fine.step, 0.0005));
        QVERIFY(qFuzzyCompare(fine.min, 0.012));
        QVERIFY(qFuzzyCompare(fine.max, 0.014));
        QCOMPARE(fine.count, 5);
        // Times a document gave as null (NaN) or out of range give a default axis, not a hang.
        const RoundTicks nan = round_ticks(std::nan(""), 1.0);
        QCOMPARE(nan.min, 0.0);
        QCOMPARE(nan.max, 1.0);
        QCOMPARE(round_ticks(-1e308, 1e308).max, 1.0);
        QCOMPARE(decades(0.0, 1.0).max, 10.0);
        const Decades d = decades(0.0009, 0.0094);
        QVERIFY(qFuzzyCompare(d.min, 1e-4));
        QVERIFY(qFuzzyCompare(d.max, 1e-2));

        // The fixture's boxes span 0.0010 to 0.0090 s (with the strip for the mark below).
        report::Report report = test::audited_report();
        CodeletView view;
        view.resize(1200, 700);
        view.set_report(&report);
        QVERIFY(view.has_audit());
        QVERIFY(!view.log_scale());
        auto* linear = qobject_cast<QValueAxis*>(view.time_axis());
        QVERIFY(linear);
        QCOMPARE(linear->min(), 0.0);
        QVERIFY(qFuzzyCompare(linear->max(), 0.01));
        QCOMPARE(linear->tickType(), QValueAxis::TicksFixed);
        QCOMPARE(linear->tickCount(), 6); // 0, 0.002, ..., 0.01
        for (int k = 0; k < linear->tickCount(); ++k) {
            const double tick = linear->min() + k * (linear->max() - linear->min()) / 5;
            QVERIFY2(std::abs(tick / 0.002 - std::round(tick / 0.002)) < 1e-9,
                     qPrintable(QString::number(tick)));
        }
        QVERIFY(view.choose_codelet("put-fence"));
        QCOMPARE(view.chosen_position(), 2);

        // The check box: decades on a log axis, the choice kept, the mark still inside.
        auto* box = view.findChild<QCheckBox*>("log scale");
        QVERIFY(box);
        box->setChecked(true);
        QVERIFY(view.log_scale());
        auto* log = qobject_cast<QLogValueAxis*>(view.time_axis());
        QVERIFY(log);
        QCOMPARE(log->base(), 10.0);
        QVERIFY(qFuzzyCompare(log->min(), 1e-4));
        QVERIFY(qFuzzyCompare(log->max(), 1e-2));
        QCOMPARE(view.box_count(), 3);
        QCOMPARE(view.outlier_point_count(), 1);
        QCOMPARE(view.chosen_position(), 2);
        QCOMPARE(view.chosen_marker()->count(), 1);
        const double mark = view.chosen_marker()->at(0).y();
        QVERIFY2(mark > log->min() && mark < 0.0010, qPrintable(QString::number(mark)));
        // The measurement series beside it on the same scale.
        QVERIFY(qobject_cast<QLogValueAxis*>(view.series_chart()->axes(Qt::Vertical).value(0)));
        // And back: linear again, with the same round ticks.
        view.set_log_scale(false);
        QVERIFY(!box->isChecked());
        linear = qobject_cast<QValueAxis*>(view.time_axis());
        QVERIFY(linear);
        QCOMPARE(linear->tickCount(), 6);
        QVERIFY(qFuzzyCompare(linear->max(), 0.01));
        QVERIFY(qobject_cast<QValueAxis*>(view.series_chart()->axes(Qt::Vertical).value(0)));
    }

    void verification_runs_from_files_and_render() {
        const QString tuned = work_dir() + "/tuned.cubex";
        report::write_cube4(test::audited_report(), tuned.toStdString());
        // Per run the slowest process's mean: 0.0015, 0.0031, 0.0011.
        const QString v1 = work_dir() + "/verify-sendrecv-1.cubex";
        const QString v2 = work_dir() + "/verify-put.cubex";
        const QString v3 = work_dir() + "/verify-sendrecv-2.cubex";
        report::write_cube4(test::verification_run(1, {0.0012, 0.0015}), v1.toStdString());
        report::write_cube4(test::verification_run(2, {0.0031, 0.0030}), v2.toStdString());
        report::write_cube4(test::verification_run(1, {0.0011}), v3.toStdString());
        report::Report none = test::audited_report();
        none.attributes.erase("topolens.codelet_measurements");
        none.attributes.erase("topolens.audit");
        const QString plain = work_dir() + "/verify-plain.cubex";
        report::write_cube4(none, plain.toStdString());

        window_ = std::make_unique<MainWindow>();
        window_->resize(1400, 950);
        window_->show();
        QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
        QVERIFY(window_->open_file(tuned));
        QVERIFY(window_->add_verification_runs({v1, v2}));
        QVERIFY(window_->add_verification_runs({v3})); // added to the two before
        QCOMPARE(window_->verification_runs(), (QStringList{v1, v2, v3}));
        CodeletView& view = *window_->codelet_view();
        window_->views()->setCurrentWidget(&view);
        const patterns::OperationVerification* v = view.current_verification();
        QVERIFY(v);
        QCOMPARE(v->runs.size(), size_t(3));
        auto near = [](double a, double b) { return std::abs(a - b) < 1e-12; };
        const QLineSeries* sendrecv = view.verification_range(1);
        const QLineSeries* put = view.verification_range(2);
        QVERIFY(sendrecv && put && !view.verification_range(0));
        QVERIFY(near(sendrecv->at(0).y(), 0.0011) && near(sendrecv->at(1).y(), 0.0015));
        QVERIFY(near(put->at(0).y(), 0.0031) && near(put->at(1).y(), 0.0031));
        const QList<QPointF> means = view.verification_means()->points();
        QCOMPARE(means.size(), 2);
        QVERIFY(near(means[0].y(), 0.0013) && near(means[1].y(), 0.0031));
        // (0.0031 - 0.0013) / 0.0013 = 138.46 %
        QVERIFY2(view.verdict_text().endsWith(
                     " Verification runs (3): the best verified codelet is sendrecv-pairwise "
                     "(mean 0.0013 s over 2 runs); the tuner's choice put-fence costs 138.5 % "
                     "more than it."),
                 qPrintable(view.verdict_text()));
        QVERIFY(view.in_worst_set(2) && !view.in_worst_set(1) && !view.in_worst_set(0));

        // A run without tuned operations: a dialog names it, the runs before stay.
        QString seen;
        QTimer poll;
        poll.setInterval(20);
        connect(&poll, &QTimer::timeout, [&] {
            auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
            if (!box) return;
            seen = box->windowTitle() + " | " + box->text();
            box->accept();
        });
        poll.start();
        QVERIFY(!window_->add_verification_runs({plain}));
        poll.stop();
        QVERIFY2(seen.contains("verification run " + plain + " holds no tuned operation"),
                 qPrintable(seen));
        QCOMPARE(window_->verification_runs().size(), 3);
        QVERIFY(view.verification_range(1));

        // --render: the series alone, with a chosen codelet and the runs; a bad run fails.
        const QString program = env("TOPOLENS_GUI");
        const QString png = work_dir() + "/render-series.png";
        QFile::remove(png);
        QProcess process;
        process.start(program, {"--render", tuned, "--png", png, "--view", "series", "--codelet",
                                "put-fence", "--verify", v1, v2});
        QVERIFY(process.waitForFinished(30000));
        QVERIFY2(process.exitCode() == 0, process.readAllStandardError().constData());
        QImage image(png);
        QCOMPARE(image.size(), QSize(1000, 760));
        QVERIFY(count_pixels(image, QColor(44, 160, 44), 30) > 40); // put-fence's line
        QVERIFY(count_pixels(image, QColor(220, 30, 30), 30) > 15); // the spike
        const QString codelets = work_dir() + "/render-verified.png";
        process.start(program, {"--render", tuned, "--png", codelets, "--view", "codelets",
                                "--verify", v1, v2, v3});
        QVERIFY(process.waitForFinished(30000));
        QVERIFY2(process.exitCode() == 0, process.readAllStandardError().constData());
        image = QImage(codelets);
        QVERIFY(count_pixels(image, QColor(110, 40, 160), 30) > 60); // the ranges
        process.start(program, {"--render", tuned, "--png", codelets, "--view", "codelets",
                                "--verify", plain});
        QVERIFY(process.waitForFinished(30000));
        QCOMPARE(process.exitCode(), 1);
        QVERIFY(process.readAllStandardError().contains(
            QString("verification run " + plain + " holds no tuned operation").toUtf8()));
        process.start(program, {"--render", tuned, "--png", codelets, "--verify", v1});
        QVERIFY(process.waitForFinished(30000));
        QCOMPARE(process.exitCode(), 2); // --verify needs a codelet view
    }

    void render_command_writes_png() {
        const QString program = env("TOPOLENS_GUI");
        const QString png = work_dir() + "/render-sw.png";
        QFile::remove(png);
        QProcess process;
        process.start(program, {"--render", env("TOPOLENS_GUI_TEST_REPORT"), "--png", png,
                                "--metric", "Wavefront from SW", "--size", "900x700"});
        QVERIFY(process.waitForFinished(30000));
        QVERIFY2(process.exitCode() == 0, process.readAllStandardError().constData());
        const QImage image(png);
        QCOMPARE(image.size(), QSize(900, 700));
        // The same scene, drawn here at the same size, tells where the corner cells are.
        const report::Report report =
            report::read_cube4(env("TOPOLENS_GUI_TEST_REPORT").toStdString());
        const report::CartTopology& g = report.topologies.front();
        TopologyScene scene;
        TopologyPicture picture;
        picture.topology = &g;
        picture.values = report.inclusive_by_location(*report.find_metric("Wavefront from SW"), -1);
        picture.low_resolution_max =
            *std::max_element(picture.values.begin(), picture.values.end());
        scene.show(picture, SceneControls{});
        vtkNew<vtkRenderWindow> offscreen;
        offscreen->SetOffScreenRendering(1);
        offscreen->SetSize(900, 700);
        scene.attach(offscreen);
        offscreen->Render();
        const QColor sw = pixel_at(image, *scene.display_position(location_at(g, {0, 0})));
        const QColor ne = pixel_at(image, *scene.display_position(location_at(g, {3, 3})));
        QVERIFY2(close_to(sw, 255, 255, 255, 3), qPrintable(describe(sw)));
        QVERIFY2(ne.red() >= 235 && ne.green() <= 25 && ne.blue() <= 25, qPrintable(describe(ne)));

        // The codelet view, and the errors.
        const QString audited = work_dir() + "/audited-render.cubex";
        report::write_cube4(test::audited_report(), audited.toStdString());
        const QString codelets = work_dir() + "/render-codelets.png";
        process.start(program, {"--render", audited, "--png", codelets, "--view", "codelets"});
        QVERIFY(process.waitForFinished(30000));
        QCOMPARE(process.exitCode(), 0);
        QCOMPARE(QImage(codelets).size(), QSize(1000, 760));
        process.start(program,
                      {"--render", audited, "--png", codelets, "--metric", "no such metric"});
        QVERIFY(process.waitForFinished(30000));
        QCOMPARE(process.exitCode(), 1);
        QVERIFY(process.readAllStandardError().contains("no metric named 'no such metric'"));
        process.start(program, {"--render", audited, "--png", codelets, "--view", "sideways"});
        QVERIFY(process.waitForFinished(30000));
        QCOMPARE(process.exitCode(), 2);
    }

    // `topolens-gui DIR`: a trace directory opens through its report.cubex, written first
    // when missing (said on stderr), read as it is afterwards; on a synthetic trace with known
    // Late Sender and on the wavefront sample's trace (the fixture's).
    void opens_a_trace_directory_through_its_report() {
        namespace fs = std::filesystem;
        const fs::path synth_dir = work_dir().toStdString() + "/synth-trace";
        fs::remove_all(synth_dir);
        trace::SynthOptions options;
        options.pattern = trace::SynthPattern::LateSender;
        options.ranks = 4;
        trace::Synthetic synth = trace::synthesize(options);
        synth.builder.write(synth_dir.string());
        const fs::path synth_report = synth_dir / "report.cubex";
        QVERIFY(!fs::exists(synth_report));

        window_ = std::make_unique<MainWindow>();
        window_->show();
        QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
        QVERIFY(window_->open_file(QString::fromStdString(synth_dir.string())));
        QVERIFY(fs::exists(synth_report));
        QCOMPARE(window_->windowTitle(), QString("topolens - synth-trace"));
        // On screen: Late Sender's total in the metric pane (collapsed: inclusive).
        const int ls = metric("mpi_latesender");
        QTreeWidgetItem* item =
            window_->panes()->metric_tree()->find_node(ls, BrowserPanes::kMetric);
        QVERIFY(item);
        item->setExpanded(false);
        const double expected = static_cast<double>(synth.expected.late_sender.total) /
                                static_cast<double>(trace::kSynthResolution);
        QVERIFY(expected > 0);
        QVERIFY2(std::abs(ValueTree::node_value(item) - expected) <= 1e-12,
                 qPrintable(QString::number(ValueTree::node_value(item))));
        // Opened again: the report is read, not made again.
        const auto written = fs::last_write_time(synth_report);
        QVERIFY(window_->open_file(QString::fromStdString(synth_dir.string())));
        QCOMPARE(fs::last_write_time(synth_report), written);

        // The program itself: it analyzes first and says so, on stderr.
        fs::remove(synth_report);
        QProcess process;
        process.start(env("TOPOLENS_GUI"), {QString::fromStdString(synth_dir.string())});
        QVERIFY(process.waitForStarted(10000));
        QElapsedTimer waited;
        waited.start();
        while (!fs::exists(synth_report) && waited.elapsed() < 30000) QTest::qWait(50);
        QTest::qWait(500); // the note follows the report's writing
        process.kill();
        process.waitForFinished(10000);
        QVERIFY(fs::exists(synth_report));
        const QString said = process.readAllStandardError();
        QVERIFY2(said.contains("topolens: analyzing " + QString::fromStdString(synth_dir.string()) +
                               " first: it has no report yet"),
                 qPrintable(said));

        // The wavefront sample traced under mpirun (16 ranks): the same values as its report
        // made by `topolens analyze`.
        const fs::path fixture_trace =
            fs::path(env("TOPOLENS_GUI_TEST_REPORT").toStdString()).parent_path() / "trace";
        QVERIFY2(fs::exists(fixture_trace / "traces.otf2"), fixture_trace.c_str());
        const fs::path sample_dir = work_dir().toStdString() + "/wavefront-trace";
        fs::remove_all(sample_dir);
        fs::copy(fixture_trace, sample_dir, fs::copy_options::recursive);
        QVERIFY(window_->open_file(QString::fromStdString(sample_dir.string())));
        QVERIFY(fs::exists(sample_dir / "report.cubex"));
        const report::Report reference =
            report::read_cube4(env("TOPOLENS_GUI_TEST_REPORT").toStdString());
        const int sw = metric("Wavefront from SW");
        QVERIFY(window_->panes()->select_metric(sw));
        QTreeWidgetItem* sw_item =
            window_->panes()->metric_tree()->find_node(sw, BrowserPanes::kMetric);
        QVERIFY(sw_item);
        sw_item->setExpanded(false);
        const double sw_total = reference.total(*reference.find_metric("Wavefront from SW"));
        QVERIFY(sw_total > 0);
        QVERIFY2(std::abs(ValueTree::node_value(sw_item) - sw_total) <= 1e-9 * sw_total,
                 qPrintable(QString::number(ValueTree::node_value(sw_item))));
    }

    // --- Issue 23: slicing, folding, label clipping, CSV export, 64^3 (helper gui23) ---

    void default_layout_gives_the_panes_room() {
        // The window at its default size with a report open, as a user first sees it.
        window_ = std::make_unique<MainWindow>();
        window_->show();
        QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
        QVERIFY(window_->open_file(env("TOPOLENS_GUI_TEST_REPORT")));
        QApplication::processEvents();
        window_->grab().save(work_dir() + "/main-window.png");
        qInfo("window %dx%d, panes %d px high, views %d px high, topology GL %d px",
              window_->width(), window_->height(), window_->panes()->height(),
              window_->views()->height(), window_->topology_view()->gl_widget()->height());
        // The system pane shows all 16 processes of the report without scrolling, the
        // call tree every call path, and the topology keeps a picture of useful size.
        for (ValueTree* tree : {window_->panes()->system_tree(), window_->panes()->call_tree()}) {
            tree->expandAll();
            QApplication::processEvents();
            QVERIFY2(!tree->verticalScrollBar()->isVisible(),
                     qPrintable(QString("%1 px high pane scrolls").arg(tree->height())));
        }
        QVERIFY(window_->topology_view()->gl_widget()->height() >= 380);
    }

    void render_slice_draws_the_chosen_row_only() {
        const QString program = env("TOPOLENS_GUI");
        const QString png = work_dir() + "/render-slice.png";
        QFile::remove(png);
        QProcess process;
        process.start(program,
                      {"--render", env("TOPOLENS_GUI_TEST_REPORT"), "--png", png, "--metric",
                       "Wavefront from SW", "--size", "900x700", "--slice", "y=3"});
        QVERIFY(process.waitForFinished(30000));
        QVERIFY2(process.exitCode() == 0, process.readAllStandardError().constData());
        const QImage image(png);
        QCOMPARE(image.size(), QSize(900, 700));
        // Where the cells are: the same scene (whole grid: the slice moves no cell).
        const report::Report report =
            report::read_cube4(env("TOPOLENS_GUI_TEST_REPORT").toStdString());
        const report::CartTopology& g = report.topologies.front();
        TopologyPicture picture;
        picture.topology = &g;
        picture.values = report.inclusive_by_location(*report.find_metric("Wavefront from SW"), -1);
        picture.low_resolution_max =
            *std::max_element(picture.values.begin(), picture.values.end());
        TopologyScene scene;
        scene.show(picture, SceneControls{});
        vtkNew<vtkRenderWindow> offscreen;
        offscreen->SetOffScreenRendering(1);
        offscreen->SetSize(900, 700);
        scene.attach(offscreen);
        offscreen->Render();
        // Row y = 3 drawn (NE is the hottest, red); row y = 0 left out although its east
        // cell has a value (it would be coloured).
        const int se = location_at(g, {3, 0});
        QVERIFY(picture.values[se] > 0.0);
        const QColor ne = pixel_at(image, *scene.display_position(location_at(g, {3, 3})));
        const QColor se_pixel = pixel_at(image, *scene.display_position(se));
        QVERIFY2(ne.red() >= 235 && ne.green() <= 25 && ne.blue() <= 25, qPrintable(describe(ne)));
        QVERIFY2(close_to(se_pixel, 255, 255, 255, 3), qPrintable(describe(se_pixel)));

        // A slice outside the 2D grid, and a malformed one.
        process.start(
            program, {"--render", env("TOPOLENS_GUI_TEST_REPORT"), "--png", png, "--slice", "z=0"});
        QVERIFY(process.waitForFinished(30000));
        QCOMPARE(process.exitCode(), 1);
        QVERIFY(process.readAllStandardError().contains("outside the 2D grid"));
        process.start(program, {"--render", env("TOPOLENS_GUI_TEST_REPORT"), "--png", png,
                                "--slice", "y=3:1"});
        QVERIFY(process.waitForFinished(30000));
        QCOMPARE(process.exitCode(), 2);
    }

    void slicing_shows_the_chosen_planes_only() {
        QCOMPARE(parse_slice("z=3")->dimension, 2);
        QCOMPARE(parse_slice("z=3")->from, 3u);
        QCOMPARE(parse_slice("z=3")->to, 3u);
        QCOMPARE(parse_slice("1=2:5")->dimension, 1);
        QCOMPARE(parse_slice("1=2:5")->from, 2u);
        QCOMPARE(parse_slice("1=2:5")->to, 5u);
        QVERIFY(!parse_slice("z=5:2") && !parse_slice("w=1") && !parse_slice("z=") &&
                !parse_slice("z=1:") && !parse_slice("=3") && !parse_slice("z=-1"));

        SyntheticGrid grid({8, 6, 5});
        TopologyView view;
        view.resize(900, 700);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.set_picture(grid.picture);
        QCOMPARE(view.scene().drawn_cells(), 8LL * 6 * 5);
        // The view's own controls: dimension 2 (z), plane 3.
        auto* dimension = view.findChild<QComboBox*>("slice_dimension");
        auto* from = view.findChild<QSpinBox*>("slice_from");
        auto* to = view.findChild<QSpinBox*>("slice_to");
        QVERIFY(dimension && from && to);
        QCOMPARE(dimension->count(), 4); // none, 0, 1, 2
        dimension->setCurrentIndex(3);
        QCOMPARE(from->maximum(), 4);
        from->setValue(3);
        QCOMPARE(view.slice().dimension, 2);
        QCOMPARE(view.slice().from, 3u);
        QCOMPARE(view.slice().to, 3u); // to follows from
        QCOMPARE(view.scene().drawn_cells(), 8LL * 6);
        const auto drawn_are = [&](auto inside) {
            for (size_t l = 0; l < grid.topology.coords.size(); ++l)
                if (view.scene().cell_center(static_cast<int>(l)).has_value() !=
                    inside(grid.topology.coords[l]))
                    return false;
            return true;
        };
        QVERIFY(drawn_are([](const std::vector<uint32_t>& c) { return c[2] == 3; }));
        QVERIFY2(
            QString::fromStdString(view.scene().caption_text()).contains("slice: dimension 2 = 3"),
            view.scene().caption_text().c_str());
        // A range of planes along dimension 0.
        view.set_slice(GridSlice{0, 2, 4});
        QCOMPARE(view.scene().drawn_cells(), 3LL * 6 * 5);
        QVERIFY(drawn_are([](const std::vector<uint32_t>& c) { return c[0] >= 2 && c[0] <= 4; }));
        QCOMPARE(dimension->currentIndex(), 1);
        QCOMPARE(to->value(), 4);

        // Clicking a cell of an inner plane picks its process, not one of the planes the
        // slice leaves out (in front of it from the oblique default view).
        view.set_slice(GridSlice{2, 1, 1});
        view.grab_picture();
        const int inner = location_at(grid.topology, {3, 2, 1});
        const auto at = view.scene().display_position(inner);
        QVERIFY(at);
        int picked = -1;
        connect(&view, &TopologyView::locationPicked, [&picked](int l) { picked = l; });
        view.pick_at((*at)[0], (*at)[1]);
        QCOMPARE(picked, inner);
        QCOMPARE(view.scene().highlight(), inner);
        // What is drawn on the screen: plane 1's colours only. Values are 1 + x + y + z, so
        // plane 1 spans 2..14 of the scale 0..17; red (above 16.3) is in no cell of it.
        const QImage image = view.grab_picture();
        int red = 0;
        for (int y = 0; y < image.height(); ++y)
            for (int x = 0; x < image.width(); ++x) {
                const QColor c = image.pixelColor(x, y);
                red += c.red() > 150 && c.green() < 40 && c.blue() < 40;
            }
        image.save(work_dir() + "/slice-z1.png");
        // The legend's top is red: only its pixels, none from cells.
        view.set_slice(GridSlice{});
        const QImage whole = view.grab_picture();
        int whole_red = 0;
        for (int y = 0; y < whole.height(); ++y)
            for (int x = 0; x < whole.width(); ++x) {
                const QColor c = whole.pixelColor(x, y);
                whole_red += c.red() > 150 && c.green() < 40 && c.blue() < 40;
            }
        QVERIFY2(
            whole_red > red + 50,
            qPrintable(QString("red pixels: slice %1, whole grid %2").arg(red).arg(whole_red)));
        QCOMPARE(view.scene().drawn_cells(), 8LL * 6 * 5);
    }

    void folded_grids_give_every_process_its_own_cell() {
        for (const std::vector<uint32_t>& sizes :
             {std::vector<uint32_t>{2, 2, 2, 2}, std::vector<uint32_t>{2, 2, 2, 2, 2},
              std::vector<uint32_t>{3, 2, 2, 2, 2, 2, 2}}) {
            SyntheticGrid grid(sizes);
            TopologyScene scene;
            scene.show(grid.picture, SceneControls{});
            const size_t n = grid.topology.coords.size();
            QCOMPARE(scene.drawn_cells(), static_cast<long long>(n));
            std::set<std::array<double, 3>> positions;
            for (size_t l = 0; l < n; ++l) {
                const auto c = scene.cell_center(static_cast<int>(l));
                QVERIFY(c);
                positions.insert(*c);
            }
            QCOMPARE(positions.size(), n);
            const QString caption = QString::fromStdString(scene.caption_text());
            QVERIFY2(caption.startsWith(QString("%1D grid folded into 3D: dimension 3 as blocks "
                                                "along axis 0")
                                            .arg(sizes.size())),
                     qPrintable(caption));
            if (sizes.size() >= 5) QVERIFY(caption.contains("dimension 4 as blocks along axis 1"));
            QVERIFY(caption.contains(QString::fromUtf8("x = d0 + %1\u00b7d3").arg(sizes[0] + 1)));
            // The axis titles name the dimensions along them.
            QStringList labels;
            for (auto* label : scene.labels()) labels << QString::fromUtf8(label->GetInput());
            QVERIFY2(labels.contains(QString::fromUtf8("axis 0\u00b73: W -> E")) ||
                         labels.contains(QString::fromUtf8("axis 0\u00b73\u00b76: W -> E")),
                     qPrintable(labels.join(" | ")));
        }
        // The rule itself: dimension 3 repeats x after one empty pitch, dimension 4 y.
        SyntheticGrid grid({2, 2, 2, 2, 2});
        TopologyScene scene;
        scene.show(grid.picture, SceneControls{});
        const auto c = scene.cell_center(location_at(grid.topology, {1, 0, 1, 1, 1}));
        QVERIFY(c);
        QCOMPARE((*c)[0], 1.0 + 3.0);
        QCOMPARE((*c)[1], 0.0 + 3.0);
        QCOMPARE((*c)[2], 1.0 * SceneControls{}.plane_distance);
        // Up to three dimensions nothing is folded and nothing said.
        SyntheticGrid cube({2, 2, 2});
        scene.show(cube.picture, SceneControls{});
        QCOMPARE(scene.caption_text(), std::string());
        // A slice along a folded dimension keeps its blocks only.
        SceneControls sliced;
        sliced.slice = GridSlice{3, 1, 1};
        scene.show(grid.picture, sliced);
        QCOMPARE(scene.drawn_cells(), 16LL);
        // On the screen (the picture kept for a look: gui-tests/folded-5d.png): the caption
        // is drawn.
        TopologyView view;
        view.resize(900, 700);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.set_picture(grid.picture);
        const QImage image = view.grab_picture();
        image.save(work_dir() + "/folded-5d.png");
        QVERIFY(view.scene().caption_text().find("5D grid folded") == 0);
    }

    void axis_labels_stay_inside_the_view_when_zooming() {
        SyntheticGrid grid({16, 16, 16});
        TopologyView view;
        view.resize(900, 700);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.set_picture(grid.picture);
        view.grab_picture();
        vtkRenderer* renderer = view.scene().grid_renderer();
        const int* origin = renderer->GetOrigin();
        const int* size = renderer->GetSize();
        // Every label drawn lies inside the 3D viewport: its anchor and its text's box.
        const auto visible_labels = [&] {
            int visible = 0;
            for (auto* label : view.scene().labels()) {
                if (!label->GetVisibility()) continue;
                ++visible;
                const double* p = label->GetPosition();
                renderer->SetWorldPoint(p[0], p[1], p[2], 1.0);
                renderer->WorldToDisplay();
                double d[3];
                renderer->GetDisplayPoint(d);
                const auto box = label_box(label, {d[0], d[1]}, 0.0);
                if (d[0] < origin[0] || d[0] > origin[0] + size[0] || d[1] < origin[1] ||
                    d[1] > origin[1] + size[1] || box[0] < origin[0] || box[1] < origin[1] ||
                    box[2] > origin[0] + size[0] || box[3] > origin[1] + size[1])
                    return -1;
            }
            return visible;
        };
        const int all = static_cast<int>(view.scene().labels().size());
        QCOMPARE(visible_labels(), all); // the default view fits every label
        vtkCamera* camera = renderer->GetActiveCamera();
        camera->Zoom(3.0);
        view.grab_picture();
        const int zoomed = visible_labels();
        QVERIFY2(zoomed >= 0, "a label drawn across the viewport's border");
        QVERIFY2(zoomed < all, qPrintable(QString("%1 of %2 labels").arg(zoomed).arg(all)));
        camera->Zoom(1.0 / 3.0);
        view.grab_picture();
        QCOMPARE(visible_labels(), all);
    }

    void export_values_csv_writes_the_shown_values() {
        MainWindow& window = open_wavefront();
        const int sw_metric = metric("Wavefront from SW");
        QVERIFY(window.panes()->select_metric(sw_metric));
        const int leaf = busiest_leaf_callpath(sw_metric);
        QVERIFY(leaf >= 0);
        QVERIFY(window.panes()->select_callpath(leaf));
        const TopologyPicture& shown = window.topology_view()->picture();
        const report::Report& r = *window.report();
        const QString path = work_dir() + "/shown-values.csv";
        QFile::remove(path);
        auto* action = window.findChild<QAction*>("export_values_csv");
        QVERIFY(action);
        window.answer_next_save_dialog(path);
        action->trigger();
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QStringList lines = QString::fromUtf8(file.readAll()).split('\n', Qt::SkipEmptyParts);
        QVERIFY(lines.size() >= 4);
        QCOMPARE(lines[0], "# metric: " + QString::fromStdString(shown.title));
        QVERIFY(lines[0].contains("Wavefront from SW"));
        QCOMPARE(lines[1], "# call path: " + QString::fromStdString(
                                                 callpath_label(r, window.panes()->call_choice())));
        QVERIFY2(lines[1].contains(QString::fromStdString(r.callpath_name(leaf))),
                 qPrintable(lines[1]));
        QCOMPARE(lines[2], QString("# unit: s"));
        QCOMPARE(lines[3], QString("location,rank,d0,d1,value"));
        // The values, from the report directly: the selected call path, as shown (a
        // selected, collapsed leaf: its inclusive value, the same as its own).
        const std::vector<double> expected = r.inclusive_by_location(sw_metric, leaf);
        QCOMPARE(lines.size() - 4, static_cast<qsizetype>(grid().coords.size()));
        const std::vector<uint32_t> ranks = r.location_ranks();
        double sum = 0.0;
        for (int i = 4; i < lines.size(); ++i) {
            const QStringList f = lines[i].split(',');
            QCOMPARE(f.size(), 5);
            const int l = f[0].toInt();
            QCOMPARE(l, i - 4);
            QCOMPARE(f[1].toUInt(), ranks[l]);
            QCOMPARE(f[2].toUInt(), grid().coords[l][0]);
            QCOMPARE(f[3].toUInt(), grid().coords[l][1]);
            QCOMPARE(std::strtod(f[4].toUtf8().constData(), nullptr), expected[l]); // exact
            sum += expected[l];
        }
        QVERIFY(sum > 0.0);
        // An unwritable place: an error dialog, false.
        QTimer::singleShot(0, [] {
            for (QWidget* w : QApplication::topLevelWidgets())
                if (auto* box = qobject_cast<QMessageBox*>(w)) box->accept();
        });
        QVERIFY(!window.export_values_csv(work_dir() + "/no-such-dir/values.csv"));
    }

    // Issue 23: the root causes on the grid. The synthetic delay pattern's wait edges (known
    // from its generator) as arrows: one per causing -> waiting pair, summed over the kinds,
    // each starting at its causing cell and pointing at its waiting cell; the slow rank's
    // arrows among them; drawn (violet pixels) only when the box is checked.
    void root_cause_arrows_run_from_the_causing_cells() {
        trace::SynthOptions options;
        options.pattern = trace::SynthPattern::Delay;
        options.latency_ticks = trace::kSynthDelayLatencyTicks;
        const trace::Synthetic synth = open_synthetic(options, "synth-delay");
        TopologyView& view = *window_->topology_view();
        TopologyScene& scene = view.scene();
        const auto expected = expected_arrows(synth);
        QVERIFY(expected.size() >= 3);
        QVERIFY(!view.arrows_shown()); // off by default: the cells' colours alone
        QVERIFY(scene.drawn_arrows().empty());
        const QImage without = grab();

        view.set_arrow_threshold(0.0);
        view.set_arrows_shown(true);
        const std::vector<WaitArrow>& drawn = scene.drawn_arrows();
        QCOMPARE(drawn.size(), expected.size());
        vtkPolyData* glyphs = scene.arrow_glyphs();
        QCOMPARE(glyphs->GetNumberOfPoints(), static_cast<vtkIdType>(drawn.size()));
        vtkDataArray* directions = glyphs->GetPointData()->GetArray("direction");
        QVERIFY(directions);
        const int slow = location_of_rank(synth.expected.slow_rank);
        int from_slow = 0, expected_from_slow = 0;
        for (const auto& [ends, seconds] : expected) expected_from_slow += ends.first == slow;
        QVERIFY(expected_from_slow >= 2);
        for (size_t i = 0; i < drawn.size(); ++i) {
            const WaitArrow& a = drawn[i];
            const auto found = expected.find({a.causing, a.waiting});
            QVERIFY2(found != expected.end(),
                     qPrintable(QString("arrow %1 -> %2").arg(a.causing).arg(a.waiting)));
            QVERIFY2(std::abs(a.seconds - found->second) <= 1e-9,
                     qPrintable(QString("%1 s, expected %2 s").arg(a.seconds).arg(found->second)));
            if (i > 0) QVERIFY(drawn[i - 1].seconds >= a.seconds); // largest first
            // Where it starts: at the causing cell's centre (a small step to the side, so
            // that A -> B and B -> A stay apart): no other cell's centre is as near.
            const auto from = *scene.cell_center(a.causing);
            const auto to = *scene.cell_center(a.waiting);
            double p[3];
            glyphs->GetPoint(static_cast<vtkIdType>(i), p);
            const double off = std::hypot(p[0] - from[0], p[1] - from[1], p[2] - from[2]);
            QVERIFY2(off <= 0.1 + 1e-5, qPrintable(QString("starts %1 from its cell").arg(off)));
            for (int l = 0; l < static_cast<int>(window_->report()->locations.size()); ++l)
                if (l != a.causing)
                    if (const auto c = scene.cell_center(l))
                        QVERIFY(std::hypot(p[0] - (*c)[0], p[1] - (*c)[1], p[2] - (*c)[2]) > off);
            // Where it points: at the waiting cell.
            double d[3];
            directions->GetTuple(static_cast<vtkIdType>(i), d);
            const double length = std::hypot(to[0] - from[0], to[1] - from[1], to[2] - from[2]);
            const double along =
                (d[0] * (to[0] - from[0]) + d[1] * (to[1] - from[1]) + d[2] * (to[2] - from[2])) /
                (length * std::hypot(d[0], d[1], d[2]));
            QVERIFY2(along > 0.9999, qPrintable(QString("direction off by %1").arg(along)));
            from_slow += a.causing == slow;
        }
        QCOMPARE(from_slow, expected_from_slow);
        // On the screen: the arrows' violet appears.
        const QImage with = grab();
        const QColor arrow = QColor::fromRgbF(kWaitArrow.r, kWaitArrow.g, kWaitArrow.b);
        const int before = count_pixels(without, arrow, 25), after = count_pixels(with, arrow, 25);
        QVERIFY2(after > before + 200,
                 qPrintable(QString("%1 -> %2 arrow pixels").arg(before).arg(after)));
    }

    // The threshold slider drops the arrows below its share of the largest; the check box
    // hides them all; a slice keeps only arrows between drawn cells.
    void root_cause_threshold_and_slice_drop_arrows() {
        trace::SynthOptions options;
        options.pattern = trace::SynthPattern::Delay;
        options.latency_ticks = trace::kSynthDelayLatencyTicks;
        const trace::Synthetic synth = open_synthetic(options, "synth-delay-threshold");
        TopologyView& view = *window_->topology_view();
        const auto expected = expected_arrows(synth);
        auto* box = view.findChild<QCheckBox*>("root_causes");
        auto* slider = view.findChild<QSlider*>("root_cause_threshold");
        QVERIFY(box && slider && box->isEnabled());
        box->setChecked(true);
        slider->setValue(0);
        const size_t all = view.scene().drawn_arrows().size();
        QCOMPARE(all, expected.size());
        double largest = 0;
        for (const auto& [ends, seconds] : expected) largest = std::max(largest, seconds);
        slider->setValue(50);
        size_t at_least_half = 0;
        for (const auto& [ends, seconds] : expected) at_least_half += seconds >= 0.5 * largest;
        QVERIFY(at_least_half >= 1 && at_least_half < all);
        QCOMPARE(view.scene().drawn_arrows().size(), at_least_half);
        for (const WaitArrow& a : view.scene().drawn_arrows())
            QVERIFY(a.seconds >= 0.5 * largest * (1 - 1e-9));
        QCOMPARE(view.scene().arrow_glyphs()->GetNumberOfPoints(),
                 static_cast<vtkIdType>(at_least_half));
        box->setChecked(false);
        QVERIFY(view.scene().drawn_arrows().empty());
        QCOMPARE(view.scene().arrow_glyphs()->GetNumberOfPoints(), vtkIdType{0});

        // Row 0 only: the arrows whose both ends lie in it.
        box->setChecked(true);
        slider->setValue(0);
        view.set_slice(GridSlice{1, 0, 0});
        const report::CartTopology& g = grid();
        size_t in_row = 0;
        for (const auto& [ends, seconds] : expected)
            in_row += g.coords[ends.first][1] == 0 && g.coords[ends.second][1] == 0;
        QVERIFY(in_row < all);
        QCOMPARE(view.scene().drawn_arrows().size(), in_row);
        for (const WaitArrow& a : view.scene().drawn_arrows())
            QVERIFY(g.coords[a.causing][1] == 0 && g.coords[a.waiting][1] == 0);
    }

    // Clicking the slow rank says what it caused: how many processes waited for it directly
    // and how long, how many its waits reached, and what it waited for itself.
    void clicking_a_root_cause_says_what_it_caused() {
        trace::SynthOptions options;
        options.pattern = trace::SynthPattern::Delay;
        options.latency_ticks = trace::kSynthDelayLatencyTicks;
        const trace::Synthetic synth = open_synthetic(options, "synth-delay-click");
        const auto expected = expected_arrows(synth);
        const int slow = location_of_rank(synth.expected.slow_rank);
        std::set<int> victims, culprits;
        double caused = 0, waited = 0;
        for (const auto& [ends, seconds] : expected) {
            if (ends.first == slow) {
                victims.insert(ends.second);
                caused += seconds;
            }
            if (ends.second == slow) {
                culprits.insert(ends.first);
                waited += seconds;
            }
        }
        QVERIFY(victims.size() >= 2);
        // Reached: every process along the edges from it, directly or through others.
        std::set<int> reached{slow};
        for (bool grew = true; grew;) {
            grew = false;
            for (const auto& [ends, seconds] : expected)
                if (reached.count(ends.first) && reached.insert(ends.second).second) grew = true;
        }
        click_cell(slow);
        QCOMPARE(window_->panes()->selected_location(), slow);
        const QString text = window_->topology_view()->info_text();
        const QString made = QString("made %1 processes wait %2 s directly; reached %3;")
                                 .arg(victims.size())
                                 .arg(QString::fromStdString(format_number(caused)))
                                 .arg(reached.size() - 1);
        QVERIFY2(text.contains(made), qPrintable(text + "\nexpected: " + made));
        const QString own = culprits.empty()
                                ? QString("waited for no process")
                                : QString("waited %1 s for %2 process")
                                      .arg(QString::fromStdString(format_number(waited)))
                                      .arg(culprits.size());
        QVERIFY2(text.contains(own), qPrintable(text + "\nexpected: " + own));
        // A process that only waited: made no process wait.
        int victim_only = -1;
        for (int v : victims) {
            bool causes = false;
            for (const auto& [ends, seconds] : expected) causes |= ends.first == v;
            if (!causes) victim_only = v;
        }
        if (victim_only >= 0) {
            click_cell(victim_only);
            QVERIFY2(
                window_->topology_view()->info_text().contains("made no process wait; waited "),
                qPrintable(window_->topology_view()->info_text()));
        }
    }

    // Delay costs coloured on the grid: a halo exchange with one slow rank (rank 5) shows that
    // rank hottest (red) under the metric "delay".
    void delay_costs_colour_the_slow_rank_hottest() {
        trace::SynthOptions options;
        options.pattern = trace::SynthPattern::Halo;
        options.slow_rank = 5;
        open_synthetic(options, "synth-halo-slow");
        const auto delay = window_->report()->find_metric("delay");
        QVERIFY(delay);
        QVERIFY(window_->panes()->select_metric(*delay));
        TopologyView& view = *window_->topology_view();
        const int slow = location_of_rank(5);
        const std::vector<double>& values = view.picture().values;
        QVERIFY(values[slow] > 0);
        for (size_t l = 0; l < values.size(); ++l)
            if (static_cast<int>(l) != slow) QVERIFY(values[l] < values[slow]);
        const QImage image = grab();
        const QColor hottest = pixel_at(image, *view.scene().display_position(slow));
        QVERIFY2(hottest.red() >= 235 && hottest.green() <= 25 && hottest.blue() <= 25,
                 qPrintable("the slow rank should be red: " + describe(hottest)));
    }

    // The arrows from a hand-written list of wait edges: summed over the kinds per causing ->
    // waiting pair, a process's waits for itself left out, largest first; the threshold; the
    // words for a process (no delay costs in this report: no reach).
    void wait_arrows_sum_the_kinds() {
        report::Report r;
        r.locations.resize(4);
        r.wait_edges = {{"latesender", 1, 0, 2.0},
                        {"barrier", 1, 0, 0.5},
                        {"latesender", 2, 0, 1.0},
                        {"latesender", 0, 3, 0.25},
                        {"barrier", 3, 3, 1.0}};
        const RootCauseArrows causes = root_cause_arrows(r);
        const std::vector<WaitArrow> expected{{0, 1, 2.5}, {0, 2, 1.0}, {3, 0, 0.25}};
        QVERIFY(causes.arrows == expected);
        QCOMPARE(causes.reached, std::vector<int>(4, -1));
        QCOMPARE(arrows_at_or_above(causes.arrows, 0.4).size(), size_t{2});
        QCOMPARE(arrows_at_or_above(causes.arrows, 0.0).size(), size_t{3});
        QCOMPARE(arrows_at_or_above(causes.arrows, 1.0).size(), size_t{1});
        QCOMPARE(cause_text(causes, 0),
                 std::string("made 2 processes wait 3.5 s directly; waited 0.25 s for 1 process"));
        QCOMPARE(cause_text(causes, 1),
                 std::string("made no process wait; waited 2.5 s for 1 process"));
        QCOMPARE(cause_text(causes, 3),
                 std::string("made 1 process wait 0.25 s directly; waited for no process"));
        r.wait_edges.clear();
        QVERIFY(root_cause_arrows(r).arrows.empty());
        QCOMPARE(cause_text(root_cause_arrows(r), 0), std::string());
    }

    // `--render --edges` draws the arrows (violet pixels), without it none; a threshold outside
    // 0..100 % is a usage error.
    void render_edges_draws_the_arrows() {
        namespace fs = std::filesystem;
        const fs::path dir = work_dir().toStdString() + "/render-edges";
        fs::remove_all(dir);
        trace::SynthOptions options;
        options.pattern = trace::SynthPattern::Delay;
        options.latency_ticks = trace::kSynthDelayLatencyTicks;
        options.grid = {4, 3};
        options.iterations = 2;
        trace::synthesize(options).builder.write(dir.string());
        const auto render = [&](const QStringList& extra, const QString& png) {
            QProcess process;
            process.start(env("TOPOLENS_GUI"),
                          QStringList{"--render", QString::fromStdString(dir.string()), "--png",
                                      png, "--metric", "delay", "--size", "800x600"} +
                              extra);
            if (!process.waitForFinished(30000)) qFatal("render did not finish");
            return process.exitCode();
        };
        const QString plain = work_dir() + "/render-no-edges.png";
        const QString edges = work_dir() + "/render-edges.png";
        QCOMPARE(render({}, plain), 0);
        QCOMPARE(render({"--edges", "--edge-threshold", "0"}, edges), 0);
        const QColor arrow = QColor::fromRgbF(kWaitArrow.r, kWaitArrow.g, kWaitArrow.b);
        const int before = count_pixels(QImage(plain), arrow, 25);
        const int after = count_pixels(QImage(edges), arrow, 25);
        QVERIFY2(after > before + 200,
                 qPrintable(QString("%1 -> %2 arrow pixels").arg(before).arg(after)));
        QCOMPARE(render({"--edges", "--edge-threshold", "150"}, edges), 2);
    }

    void large_grid_hidden_cubes_change_no_picture() {
        // A still frame of a 64x64x64 grid draws only the cubes near the sides the camera
        // sees; the picture must be the one with every cube, from any side.
        SyntheticGrid grid({64, 64, 64});
        const auto render = [&](bool hide, Orientation orientation, double azimuth,
                                double elevation, long long* cubes) {
            TopologyScene scene;
            SceneControls controls;
            controls.hide_inner_cubes = hide;
            scene.show(grid.picture, controls);
            vtkNew<vtkRenderWindow> window;
            window->SetOffScreenRendering(1);
            window->SetMultiSamples(0);
            window->SetSize(900, 700);
            scene.attach(window);
            scene.set_orientation(orientation);
            vtkCamera* camera = scene.grid_renderer()->GetActiveCamera();
            camera->Azimuth(azimuth);
            camera->Elevation(elevation);
            camera->OrthogonalizeViewUp();
            window->Render();
            *cubes = scene.drawn_cubes();
            unsigned char* data = window->GetPixelData(0, 0, 899, 699, 0);
            std::vector<unsigned char> pixels(data, data + 900 * 700 * 3);
            delete[] data;
            return pixels;
        };
        // Oblique views from outside: the hidden cubes are left out; from above or in front
        // (the camera inside the grid's bounds along an axis) every cube is drawn.
        struct View {
            Orientation orientation;
            double azimuth, elevation;
            bool hides;
        };
        for (const View& v :
             {View{Orientation::Iso, 0, 0, true}, View{Orientation::Top, 0, 0, false},
              View{Orientation::Front, 0, 0, false}, View{Orientation::Iso, 140, -50, true},
              View{Orientation::Iso, 200, 10, true}, View{Orientation::Top, 30, -20, true}}) {
            long long all_cubes = 0, culled_cubes = 0;
            const auto all = render(false, v.orientation, v.azimuth, v.elevation, &all_cubes);
            const auto culled = render(true, v.orientation, v.azimuth, v.elevation, &culled_cubes);
            int differing = 0, grid_pixels = 0;
            for (size_t p = 0; p < all.size(); p += 3) {
                int diff = 0;
                for (int c = 0; c < 3; ++c)
                    diff = std::max(diff, std::abs(all[p + c] - culled[p + c]));
                differing += diff > 40;
                grid_pixels += !(all[p] == 255 && all[p + 1] == 255 && all[p + 2] == 255);
            }
            qInfo("%s azimuth %.0f elevation %.0f: %lld of %lld cubes drawn, %d of %d "
                  "non-white pixels differ",
                  orientation_name(v.orientation).c_str(), v.azimuth, v.elevation, culled_cubes,
                  all_cubes, differing, grid_pixels);
            QCOMPARE(all_cubes, 64LL * 64 * 64);
            if (v.hides)
                QVERIFY(culled_cubes < all_cubes / 2);
            else
                QCOMPARE(culled_cubes, all_cubes);
            QVERIFY2(differing <= grid_pixels / 1000,
                     qPrintable(QString("%1 pixels differ").arg(differing)));
        }
    }

    void large_grid_64x64x64_opens_and_rotates() {
        // 262,144 processes, Scalasca's scale: the open time (scene built from the values
        // and the first picture) and the frames while the mouse drags.
        SyntheticGrid grid({64, 64, 64});
        TopologyView view;
        view.resize(900, 700);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QElapsedTimer open;
        open.start();
        view.set_picture(grid.picture);
        view.grab_picture();
        const qint64 open_ms = open.elapsed();
        // While rotating only the cells near the sides the camera sees are drawn: from the
        // default oblique view (camera east, south and above of the grid), with the default
        // cell size and plane distance, those less than 4 steps from the east or south
        // border or less than 2 from the top.
        const auto depth = shell_depth(SceneControls{}, 3);
        QCOMPARE(depth, (std::array<int, 3>{4, 4, 2}));
        QCOMPARE(view.scene().drawn_cells(), 64LL * 64 * 64);
        QCOMPARE(view.scene().interactive_cells(), 64LL * 64 * 64 - 60LL * 60 * 62);
        VtkGlWidget* gl = view.gl_widget();
        const QPoint centre(gl->width() / 2, gl->height() / 2);
        QTest::mousePress(gl, Qt::LeftButton, Qt::NoModifier, centre);
        QMouseEvent move(QEvent::MouseMove, QPointF(centre + QPoint(40, 10)),
                         gl->mapToGlobal(QPointF(centre + QPoint(40, 10))), Qt::NoButton,
                         Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(gl, &move);
        QVERIFY(view.scene().interactive());
        vtkCamera* camera = view.scene().grid_renderer()->GetActiveCamera();
        std::vector<double> wall, cpu;
        for (int i = 0; i < 10; ++i) {
            camera->Azimuth(9.0);
            QElapsedTimer timer;
            const double cpu_start = process_cpu_ms();
            timer.start();
            gl->render_frame_now();
            wall.push_back(static_cast<double>(timer.nsecsElapsed()) / 1e6);
            cpu.push_back(process_cpu_ms() - cpu_start);
        }
        QTest::mouseRelease(gl, Qt::LeftButton, Qt::NoModifier, centre + QPoint(40, 10));
        std::sort(wall.begin(), wall.end());
        std::sort(cpu.begin(), cpu.end());
        qInfo("64x64x64: open %lld ms, rotating frame median %.1f ms (CPU %.1f ms)", open_ms,
              wall[5], cpu[5]);
        // Measured (docs/performance.md): open ~0.5 s, rotating ~35 ms on an idle machine.
        // The bounds allow a busy machine and fail on a regression by an order of magnitude
        // (every cube drawn while rotating: ~250 ms CPU and more).
        QVERIFY2(open_ms <= 10000, qPrintable(QString("open %1 ms").arg(open_ms)));
        QVERIFY2(cpu[5] <= 250.0, qPrintable(QString("%1 ms CPU per rotating frame").arg(cpu[5])));
        // The corners' colours are there after release (cubes again).
        const QImage image = view.grab_picture();
        int red = 0, blue = 0;
        for (int y = 0; y < image.height(); ++y)
            for (int x = 0; x < image.width(); ++x) {
                const QColor c = image.pixelColor(x, y);
                red += c.red() > 200 && c.green() < 60 && c.blue() < 60;
                blue += c.blue() > 200 && c.red() < 60 && c.green() < 60;
            }
        QVERIFY(red > 50 && blue > 50);
    }
};

int main(int argc, char** argv) {
    use_vtk_surface_format();
    QApplication app(argc, argv);
    GuiTest test;
    return QTest::qExec(&test, argc, argv);
}

#include "gui_test.moc"
