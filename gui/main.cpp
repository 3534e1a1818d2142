// topolens-gui [REPORT|TRACE]: the browser window.
// topolens-gui --render REPORT --png FILE ...: one view into a PNG file (topolens render).
#include "gui/frame_bench.h"
#include "gui/main_window.h"
#include "gui/picture_render.h"
#include "gui/render_options.h"
#include "gui/vtk_gl_widget.h"

#include <QApplication>
#include <QTimer>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
    using namespace topolens::gui;
    std::vector<std::string> args(argv + 1, argv + argc);
    if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
        render_usage(std::cout);
        return 0;
    }
    if (!args.empty() && args[0] == "--render") {
        RenderOptions options;
        if (auto error = parse_render_options({args.begin() + 1, args.end()}, options)) {
            std::cerr << "topolens-gui: error: " << *error << "\n";
            render_usage(std::cerr);
            return 2;
        }
        QApplication app(argc, argv);
        return render_picture(options, std::cerr);
    }
    if (!args.empty() && args[0] == "--bench-frames") {
        int frames = 20;
        if (args.size() > 1) frames = std::max(1, std::atoi(args[1].c_str()));
        use_vtk_surface_format();
        QApplication app(argc, argv);
        return run_frame_bench(900, 700, frames, args.size() > 2 ? args[2] : "", std::cout);
    }
    BrowserOptions options;
    if (auto error = parse_browser_options(args, options)) {
        std::cerr << "topolens-gui: error: " << *error << "\n";
        render_usage(std::cerr);
        return 2;
    }
    use_vtk_surface_format();
    QApplication app(argc, argv);
    QApplication::setApplicationName("topolens-gui");
    MainWindow window;
    window.show();
    if (!options.input.empty()) {
        const QString path = QString::fromStdString(options.input);
        QStringList runs;
        for (const std::string& run : options.verify) runs << QString::fromStdString(run);
        QTimer::singleShot(0, &window, [&window, path, runs] {
            if (window.open_file(path) && !runs.isEmpty()) window.add_verification_runs(runs);
        });
    }
    return app.exec();
}
