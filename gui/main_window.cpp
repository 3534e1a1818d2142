#include "gui/main_window.h"

#include "gui/browser_panes.h"
#include "gui/codelet_view.h"
#include "gui/report_loading.h"
#include "gui/topology_picture.h"
#include "gui/topology_view.h"
#include "gui/value_export.h"
#include "gui/value_tree.h"
#include "gui/verification_runs.h"
#include "gui/wait_arrows.h"
#include "patterns/analyze_file.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QDialog>
#include <QDialogButtonBox>
#include <QEventLoop>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenuBar>
#include <QMessageBox>
#include <QPixmap>
#include <QProgressDialog>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTextBrowser>
#include <QThread>
#include <QVBoxLayout>

#include <fstream>
#include <utility>

namespace topolens::gui {

namespace {

constexpr int kRecentMax = 8;
const char* kRecentKey = "recentFiles";

QSettings settings() {
    return QSettings("topolens", "topolens-gui");
}

} // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
    setWindowTitle("topolens");
    auto* splitter = new QSplitter(Qt::Vertical);
    panes_ = new BrowserPanes;
    views_ = new QTabWidget;
    topology_ = new TopologyView;
    codelets_ = new CodeletView;
    views_->addTab(topology_, tr("Topology"));
    views_->addTab(codelets_, tr("Codelets"));
    splitter->addWidget(panes_);
    splitter->addWidget(views_);
    splitter->setStretchFactor(0, 2);
    splitter->setStretchFactor(1, 3);
    setCentralWidget(splitter);
    resize(1200, 900);
    // The panes' share by default: left to their size hints they got a quarter of the
    // height, too little for a 16-process system tree; the views keep more than half.
    splitter->setSizes({360, 540});

    connect(panes_, &BrowserPanes::selectionChanged, this, [this] {
        codelet_shown_.reset();
        update_topology();
    });
    connect(panes_, &BrowserPanes::locationSelected, topology_, &TopologyView::set_highlight);
    connect(topology_, &TopologyView::locationPicked, this,
            [this](int location) { panes_->select_location(location); });
    connect(codelets_, &CodeletView::codeletChosen, this,
            [this](const OperationAudit& op, const CodeletAudit& c) { codelet_chosen(op, c); });
    build_menus();
    statusBar()->showMessage(tr("Open a report (.cubex) or a trace: File > Open"));
}

MainWindow::~MainWindow() = default;

void MainWindow::build_menus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open report or trace anchor..."), QKeySequence::Open, this,
                    &MainWindow::open_dialog);
    file->addAction(tr("Open trace &directory..."), this, &MainWindow::open_trace_directory_dialog);
    recent_menu_ = file->addMenu(tr("&Recent files"));
    rebuild_recent_menu();
    file->addAction(tr("Add &verification runs..."), this, &MainWindow::verification_dialog);
    file->addAction(tr("&Export view as PNG..."), QKeySequence(tr("Ctrl+E")), this,
                    &MainWindow::export_dialog);
    file->addAction(tr("Export values as &CSV..."), this, &MainWindow::export_values_dialog)
        ->setObjectName("export_values_csv");
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    auto* modes = new QActionGroup(this);
    const std::pair<QString, ValueMode> mode_names[] = {
        {tr("&Absolute values"), ValueMode::Absolute},
        {tr("&Percent of the root metric"), ValueMode::Percent},
        {tr("&Relative percent (of the selection to the left)"), ValueMode::RelativePercent}};
    for (const auto& [name, mode] : mode_names) {
        QAction* action = view->addAction(name);
        action->setCheckable(true);
        action->setChecked(mode == ValueMode::Absolute);
        action->setActionGroup(modes);
        const ValueMode m = mode;
        connect(action, &QAction::triggered, this, [this, m] { panes_->set_value_mode(m); });
    }
    view->addSeparator();
    auto* shapes = new QActionGroup(this);
    QAction* tree = view->addAction(tr("&Call tree"));
    QAction* flat = view->addAction(tr("&Flat region profile"));
    for (QAction* a : {tree, flat}) {
        a->setCheckable(true);
        a->setActionGroup(shapes);
    }
    tree->setChecked(true);
    connect(tree, &QAction::triggered, this, [this] { panes_->set_flat_profile(false); });
    connect(flat, &QAction::triggered, this, [this] { panes_->set_flat_profile(true); });

    topology_menu_ = menuBar()->addMenu(tr("&Topology"));
    rebuild_topology_menu();

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&Metric descriptions"), QKeySequence::HelpContents, this,
                    &MainWindow::show_metric_help);
    help->addAction(tr("&How to read the views"), this, [this] {
        QMessageBox::information(
            this, tr("How to read the views"),
            tr("Panes: metric, call path, system. A collapsed node shows its value with "
               "everything below it (inclusive), an expanded node its own part (exclusive). "
               "Selecting a node narrows the panes to its right to it.\n\n"
               "Topology: one cell per process; axis 0 runs west to east, axis 1 south to "
               "north, axis 2 bottom to top, the origin (coordinate 0) is marked. An empty "
               "cell is zero, a dark grey one nearly zero. Low resolution: colours span 0 .. "
               "the largest value of any process over the whole program; high resolution: "
               "the grid's smallest .. largest value. Drag to rotate, wheel to zoom, click a "
               "cell to select its process. The Slice row draws only the processes in a range "
               "of one grid dimension's coordinates; a grid of more than three dimensions is "
               "folded into blocks, as the caption under the grid says. File > Export values "
               "as CSV writes the shown values. Root causes draws an arrow from each process "
               "that made another wait to the one that waited (the wider, the more seconds; "
               "the slider drops the small ones); a click on a cell then also says what the "
               "process caused and what it waited for; the metric Delay costs colours the "
               "processes whose delays caused the waiting.\n\n"
               "Codelets: per tuned operation a box per codelet and, beside it, each "
               "codelet's time per measurement; click a box or a line to choose the codelet "
               "in both and colour the topology by its mean time per process. File > Add "
               "verification runs draws the range of runs with one fixed codelet beside each "
               "box."));
    });
}

void MainWindow::rebuild_recent_menu() {
    recent_menu_->clear();
    const QStringList files = recent_files();
    for (const QString& path : files)
        recent_menu_->addAction(path, this, [this, path] { open_file(path); });
    recent_menu_->setEnabled(!files.isEmpty());
}

QStringList MainWindow::recent_files() {
    return settings().value(kRecentKey).toStringList();
}

void MainWindow::remember_recent(const QString& path) {
    QStringList files = recent_files();
    const QString absolute = QFileInfo(path).absoluteFilePath();
    files.removeAll(absolute);
    files.prepend(absolute);
    while (files.size() > kRecentMax) files.removeLast();
    auto s = settings();
    s.setValue(kRecentKey, files);
    rebuild_recent_menu();
}

void MainWindow::rebuild_topology_menu() {
    topology_menu_->clear();
    delete topology_group_;
    topology_group_ = new QActionGroup(this);
    if (report_) {
        for (size_t t = 0; t < report_->topologies.size(); ++t) {
            const report::CartTopology& topo = report_->topologies[t];
            QString dims;
            for (uint32_t s : topo.sizes) dims += (dims.isEmpty() ? "" : "x") + QString::number(s);
            QAction* action = topology_menu_->addAction(tr("%1 (%2)").arg(
                QString::fromStdString(topo.name.empty() ? "topology " + std::to_string(t)
                                                         : topo.name),
                dims));
            action->setCheckable(true);
            action->setChecked(static_cast<int>(t) == topology_index_);
            action->setActionGroup(topology_group_);
            const int index = static_cast<int>(t);
            connect(action, &QAction::triggered, this, [this, index] { show_topology(index); });
        }
    }
    if (topology_menu_->isEmpty())
        topology_menu_->addAction(tr("(no topology in this report)"))->setEnabled(false);
    topology_menu_->addSeparator();
    for (Orientation o : {Orientation::Top, Orientation::Front, Orientation::Iso}) {
        topology_menu_->addAction(
            tr("View from %1").arg(QString::fromStdString(orientation_name(o))), this,
            [this, o] { topology_->set_orientation(o); });
    }
    QAction* high = topology_menu_->addAction(tr("&High resolution (grid min .. max)"));
    high->setCheckable(true);
    high->setChecked(topology_->high_resolution());
    connect(high, &QAction::toggled, topology_, &TopologyView::set_high_resolution);
}

void MainWindow::show_topology(int index) {
    if (!report_ || index < 0 || index >= static_cast<int>(report_->topologies.size())) return;
    topology_index_ = index;
    update_topology();
}

void MainWindow::open_dialog() {
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open report or trace"), QString(),
        tr("Reports and traces (*.cubex *.otf2);;CUBE4 reports (*.cubex);;OTF2 trace anchors "
           "(*.otf2);;All files (*)"));
    if (!path.isEmpty()) open_file(path);
}

void MainWindow::open_trace_directory_dialog() {
    const QString path = QFileDialog::getExistingDirectory(this, tr("Open trace directory"));
    if (!path.isEmpty()) open_file(path);
}

QString MainWindow::save_file_name(const QString& title, const QString& name,
                                   const QString& filter) {
    if (!next_save_path_.isEmpty()) return std::exchange(next_save_path_, QString());
    return QFileDialog::getSaveFileName(this, title, name, filter);
}

void MainWindow::export_dialog() {
    const QString path =
        save_file_name(tr("Export view as PNG"), "topolens.png", tr("PNG pictures (*.png)"));
    if (!path.isEmpty()) export_png(path);
}

void MainWindow::export_values_dialog() {
    const QString path =
        save_file_name(tr("Export values as CSV"), "topolens-values.csv", tr("CSV files (*.csv)"));
    if (!path.isEmpty()) export_values_csv(path);
}

bool MainWindow::export_values_csv(const QString& path) {
    std::ofstream out(path.toStdString());
    if (out) write_shown_values_csv(topology_->picture(), out);
    out.close();
    if (!out) {
        show_error(tr("Export failed"), tr("Cannot write %1").arg(path));
        return false;
    }
    statusBar()->showMessage(tr("Wrote %1").arg(path));
    return true;
}

void MainWindow::verification_dialog() {
    const QStringList paths = QFileDialog::getOpenFileNames(
        this, tr("Add verification runs (one fixed codelet each)"), QString(),
        tr("Reports and traces (*.cubex *.otf2);;All files (*)"));
    if (!paths.isEmpty()) add_verification_runs(paths);
}

bool MainWindow::add_verification_runs(const QStringList& paths) {
    if (!report_) {
        show_error(tr("No report"), tr("Open the tuned run's report first, then add its "
                                       "verification runs."));
        return false;
    }
    std::optional<Audit> audit;
    try {
        audit = read_audit(*report_);
    } catch (const std::exception& e) {
        show_error(tr("Cannot verify"), QString::fromStdString(e.what()));
        return false;
    }
    if (!audit || audit->operations.empty()) {
        show_error(tr("Cannot verify"), tr("This report has no tuned operations to verify."));
        return false;
    }
    const QStringList all = verification_runs_ + paths;
    std::vector<std::string> files;
    for (const QString& path : all) files.push_back(path.toStdString());
    std::optional<patterns::Verification> verification;
    const QString error = run_in_worker(
        tr("Verification runs"), tr("Reading %1 verification runs ...").arg(all.size()),
        [&](const ProgressSink& progress) {
            verification = verify_runs(*report_, *audit, files, progress);
        });
    if (!verification) {
        show_error(tr("Cannot add the verification runs"),
                   error.isEmpty() ? tr("Unknown error") : error);
        return false;
    }
    verification_runs_ = all;
    codelets_->set_verification(std::move(verification));
    statusBar()->showMessage(tr("%1 verification runs").arg(all.size()));
    return true;
}

QString MainWindow::run_in_worker(const QString& title, const QString& label,
                                  const std::function<void(const ProgressSink&)>& work) {
    QProgressDialog progress(label, QString(), 0, 0, this);
    progress.setWindowTitle(title);
    progress.setWindowModality(Qt::WindowModal);
    progress.setMinimumDuration(0);
    progress.show();
    QString error;
    QEventLoop loop;
    QThread* worker = QThread::create([&] {
        try {
            work([&progress](const std::string& line) {
                QMetaObject::invokeMethod(
                    &progress,
                    [&progress, text = QString::fromStdString(line)] {
                        progress.setLabelText(text);
                    },
                    Qt::QueuedConnection);
            });
        } catch (const std::exception& e) {
            error = QString::fromStdString(e.what());
        }
    });
    connect(worker, &QThread::finished, &loop, &QEventLoop::quit);
    worker->start();
    loop.exec();
    worker->wait();
    delete worker;
    QCoreApplication::removePostedEvents(&progress); // progress lines still queued
    return error;
}

bool MainWindow::export_png(const QString& path) {
    const bool ok = views_->currentWidget() == topology_
                        ? topology_->grab_picture().save(path, "PNG")
                        : codelets_->grab().save(path, "PNG");
    if (!ok)
        show_error(tr("Export failed"), tr("Cannot write %1").arg(path));
    else
        statusBar()->showMessage(tr("Wrote %1").arg(path));
    return ok;
}

void MainWindow::show_error(const QString& title, const QString& text) {
    QMessageBox box(QMessageBox::Critical, title, text, QMessageBox::Ok, this);
    box.setObjectName("error_dialog");
    box.exec();
}

bool MainWindow::open_file(const QString& path) {
    const std::string file = path.toStdString();
    std::optional<report::Report> loaded;
    QString error;
    if (patterns::is_trace_path(file)) {
        // The analysis may take a while: a worker thread, the window stays responsive.
        error = run_in_worker(
            tr("Analyzing trace"), tr("Analyzing %1 ...").arg(path),
            [&](const ProgressSink& progress) { loaded = load_report_or_trace(file, progress); });
    } else {
        QApplication::setOverrideCursor(Qt::WaitCursor);
        try {
            loaded = load_report_or_trace(file);
        } catch (const std::exception& e) {
            error = QString::fromStdString(e.what());
        }
        QApplication::restoreOverrideCursor();
    }
    if (!loaded) {
        show_error(tr("Cannot open %1").arg(QFileInfo(path).fileName()),
                   error.isEmpty() ? tr("Unknown error") : error);
        return false;
    }
    install_report(std::move(*loaded), path);
    remember_recent(path);
    return true;
}

void MainWindow::install_report(report::Report report, const QString& path) {
    // The views point into the report: detach them before replacing it.
    panes_->set_report(nullptr);
    codelets_->set_report(nullptr);
    topology_->set_picture(TopologyPicture{});
    topology_->set_root_causes({});
    report_ = std::make_unique<report::Report>(std::move(report));
    codelet_shown_.reset();
    verification_runs_.clear(); // they verified the report before
    topology_index_ = default_topology(*report_);
    setWindowTitle(tr("topolens - %1").arg(QFileInfo(path).fileName()));
    rebuild_topology_menu();
    codelets_->set_report(report_.get());
    topology_->set_root_causes(root_cause_arrows(*report_));
    panes_->set_report(report_.get()); // selects the first metric: updates the topology
    update_topology();
    statusBar()->showMessage(tr("%1: %2 metrics, %3 call paths, %4 locations, %5 topologies")
                                 .arg(path)
                                 .arg(report_->metrics.size())
                                 .arg(report_->callpaths.size())
                                 .arg(report_->locations.size())
                                 .arg(report_->topologies.size()));
}

void MainWindow::update_topology() {
    if (!report_) return;
    if (codelet_shown_) {
        if (const auto audit = read_audit(*report_)) {
            const OperationAudit* op = audit->operation(codelet_shown_->first);
            const CodeletAudit* codelet = op ? op->codelet_named(codelet_shown_->second) : nullptr;
            if (codelet) {
                topology_->set_picture(
                    codelet_picture(*report_, topology_index_, *op, *codelet, false));
                return;
            }
        }
    }
    topology_->set_picture(metric_picture(*report_, topology_index_, panes_->metric_choice(),
                                          panes_->call_choice(), false));
}

void MainWindow::codelet_chosen(const OperationAudit& operation, const CodeletAudit& codelet) {
    codelet_shown_ = std::make_pair(operation.name, codelet.name);
    update_topology();
    views_->setCurrentWidget(topology_);
}

void MainWindow::show_metric_help() {
    QDialog dialog(this);
    dialog.setWindowTitle(tr("Metric descriptions"));
    auto* layout = new QVBoxLayout(&dialog);
    auto* text = new QTextBrowser;
    QString html;
    if (!report_) {
        html = tr("<p>No report is open.</p>");
    } else {
        for (int root : metric_roots(*report_)) {
            for (int m : report_->metric_subtree(root)) {
                const report::Metric& metric = report_->metrics[m];
                int depth = 0;
                for (int p = metric.parent; p >= 0 && depth < 20; p = report_->metrics[p].parent)
                    ++depth;
                html += QString("<p style='margin-left:%1px'><b>%2</b> <i>(%3, %4)</i><br>%5</p>")
                            .arg(depth * 20)
                            .arg(QString::fromStdString(metric.display_name).toHtmlEscaped(),
                                 QString::fromStdString(metric.unique_name).toHtmlEscaped(),
                                 QString::fromStdString(display_unit(metric)).toHtmlEscaped(),
                                 QString::fromStdString(metric.description.empty()
                                                            ? "(no description in the report)"
                                                            : metric.description)
                                     .toHtmlEscaped());
            }
        }
    }
    text->setHtml(html);
    layout->addWidget(text);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    layout->addWidget(buttons);
    dialog.resize(640, 560);
    dialog.exec();
}

} // namespace topolens::gui
