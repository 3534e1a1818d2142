#include "gui/picture_render.h"

#include "gui/codelet_audit.h"
#include "gui/codelet_view.h"
#include "gui/report_loading.h"
#include "gui/topology_picture.h"
#include "gui/verification_runs.h"

#include <QChartView>
#include <QImage>
#include <QPixmap>
#include <QWidget>

#include <vtkImageData.h>
#include <vtkNew.h>
#include <vtkPNGWriter.h>
#include <vtkRenderWindow.h>
#include <vtkWindowToImageFilter.h>

#include <filesystem>
#include <stdexcept>

namespace topolens::gui {

void write_scene_png(TopologyScene& scene, int width, int height, const std::string& path,
                     const std::optional<Orientation>& orientation) {
    vtkNew<vtkRenderWindow> window;
    window->SetOffScreenRendering(1);
    window->SetMultiSamples(0);
    window->SetSize(width, height);
    scene.attach(window);
    if (orientation) scene.set_orientation(*orientation);
    window->Render();
    vtkNew<vtkWindowToImageFilter> grab;
    grab->SetInput(window);
    grab->SetInputBufferTypeToRGB();
    grab->ReadFrontBufferOff();
    grab->Update();
    vtkNew<vtkPNGWriter> writer;
    writer->SetFileName(path.c_str());
    writer->SetInputConnection(grab->GetOutputPort());
    writer->Write();
    if (writer->GetErrorCode() != 0 || !std::filesystem::exists(path))
        throw std::runtime_error("cannot write " + path);
}

void write_widget_png(QWidget& widget, int width, int height, const std::string& path) {
    widget.resize(width, height);
    widget.setAttribute(Qt::WA_DontShowOnScreen);
    widget.show(); // lays out the children; never appears on the screen
    const QPixmap picture = widget.grab();
    if (!picture.save(QString::fromStdString(path), "PNG"))
        throw std::runtime_error("cannot write " + path);
}

namespace {

int topology_render(const report::Report& report, const RenderOptions& options, std::ostream& err) {
    int topology = default_topology(report);
    if (!options.topology.empty()) {
        topology = -1;
        for (size_t t = 0; t < report.topologies.size(); ++t)
            if (report.topologies[t].name == options.topology) topology = static_cast<int>(t);
        if (topology < 0) {
            err << "topolens-gui: error: the report has no topology named '" << options.topology
                << "'\n";
            return 1;
        }
    }
    if (topology < 0) {
        err << "topolens-gui: error: the report has no Cartesian topology to draw\n";
        return 1;
    }
    TopologyPicture picture;
    std::optional<Audit> audit;
    if (!options.codelet.empty()) {
        audit = read_audit(report);
        if (!audit || audit->operations.empty()) {
            err << "topolens-gui: error: no tuned operations in this report\n";
            return 1;
        }
        const OperationAudit* op = options.operation.empty() ? &audit->operations.front()
                                                             : audit->operation(options.operation);
        if (!op) {
            err << "topolens-gui: error: no tuned operation named '" << options.operation << "'\n";
            return 1;
        }
        const CodeletAudit* codelet = op->codelet_named(options.codelet);
        if (!codelet) {
            err << "topolens-gui: error: operation " << op->name << " has no codelet named '"
                << options.codelet << "'\n";
            return 1;
        }
        picture = codelet_picture(report, topology, *op, *codelet, options.high_resolution);
    } else {
        MetricChoice metric;
        if (options.metric.empty()) {
            const auto roots = metric_roots(report);
            if (roots.empty()) {
                err << "topolens-gui: error: the report has no metrics\n";
                return 1;
            }
            metric.metric = roots.front();
        } else {
            const auto found = report.find_metric(options.metric);
            if (!found) {
                err << "topolens-gui: error: no metric named '" << options.metric << "'\n";
                return 1;
            }
            metric.metric = *found;
        }
        CallChoice calls;
        if (!options.callpath.empty()) {
            const auto found = report.find_callpath(options.callpath);
            if (!found) {
                err << "topolens-gui: error: no call path '" << options.callpath << "'\n";
                return 1;
            }
            calls.whole_program = false;
            calls.callpaths = {*found};
        }
        picture = metric_picture(report, topology, metric, calls, options.high_resolution);
    }
    const GridSlice& slice = options.slice;
    if (slice.dimension >= 0) {
        const auto& sizes = report.topologies[topology].sizes;
        if (slice.dimension >= static_cast<int>(sizes.size()) ||
            slice.to >= sizes[slice.dimension]) {
            err << "topolens-gui: error: --slice " << slice.dimension << "=" << slice.from << ":"
                << slice.to << " is outside the " << sizes.size() << "D grid\n";
            return 1;
        }
    }
    SceneControls controls;
    controls.slice = slice;
    TopologyScene scene;
    scene.show(picture, controls);
    if (options.edges)
        scene.show_arrows(
            arrows_at_or_above(root_cause_arrows(report).arrows, options.edge_threshold));
    write_scene_png(scene, options.width, options.height, options.png, options.orientation);
    return 0;
}

int codelet_render(const report::Report& report, const RenderOptions& options, std::ostream& err) {
    CodeletView view;
    view.set_report(&report);
    if (!options.verify.empty()) {
        const std::optional<Audit> audit = read_audit(report);
        if (!audit || audit->operations.empty()) {
            err << "topolens-gui: error: no tuned operations in this report\n";
            return 1;
        }
        view.set_verification(verify_runs(report, *audit, options.verify));
    }
    if (options.view == "series") view.chart_view()->hide(); // the series take the width
    if (!options.operation.empty() && !view.choose_operation(options.operation)) {
        err << "topolens-gui: error: no tuned operation named '" << options.operation << "'\n";
        return 1;
    }
    if (!options.codelet.empty() && !view.choose_codelet(options.codelet)) {
        err << "topolens-gui: error: no codelet named '" << options.codelet << "'\n";
        return 1;
    }
    write_widget_png(view, options.width, options.height, options.png);
    return 0;
}

} // namespace

int render_picture(const RenderOptions& options, std::ostream& err) {
    try {
        const report::Report report = load_report_or_trace(options.input);
        const int code = options.view == "topology" ? topology_render(report, options, err)
                                                    : codelet_render(report, options, err);
        if (code == 0) err << "topolens-gui: wrote " << options.png << "\n";
        return code;
    } catch (const std::exception& e) {
        err << "topolens-gui: error: " << e.what() << "\n";
        return 1;
    }
}

} // namespace topolens::gui
