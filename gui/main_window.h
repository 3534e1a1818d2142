// The browser window: menus, the three panes on top, the topology and codelet views below.
// Holds the open report; everything shown is computed from it by value_model.h.
#pragma once

#include "analyzer/report/report.h"
#include "gui/codelet_audit.h"

#include <QMainWindow>

#include <functional>
#include <memory>
#include <optional>
#include <string>

class QActionGroup;
class QMenu;
class QTabWidget;

namespace topolens::gui {

class BrowserPanes;
class CodeletView;
class TopologyView;

class MainWindow : public QMainWindow {
    Q_OBJECT
  public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // Opens a report, or analyzes a trace (in a worker thread, with a progress dialog).
    // On failure shows an error dialog, keeps what was open and returns false.
    bool open_file(const QString& path);
    // Writes the view on top (topology or codelets) as PNG; false (and a dialog) on failure.
    bool export_png(const QString& path);
    // Writes the values the topology view shows as CSV (value_export.h); false (and a dialog)
    // when the file cannot be written.
    bool export_values_csv(const QString& path);
    // The next file dialog of an export answers `path` without opening (tests drive the
    // menu actions this way).
    void answer_next_save_dialog(const QString& path) { next_save_path_ = path; }
    // Adds verification runs (traces or reports of the program run with one fixed codelet) to
    // the open report's: checked against it and shown in the codelet view. On failure (no
    // report, an unreadable or unfitting run) shows an error dialog naming the run, keeps the
    // runs added before and returns false.
    bool add_verification_runs(const QStringList& paths);
    QStringList verification_runs() const { return verification_runs_; }

    const report::Report* report() const { return report_.get(); }
    BrowserPanes* panes() const { return panes_; }
    TopologyView* topology_view() const { return topology_; }
    CodeletView* codelet_view() const { return codelets_; }
    QTabWidget* views() const { return views_; }
    void show_topology(int index);
    int current_topology() const { return topology_index_; }
    static QStringList recent_files();

  private:
    void build_menus();
    void open_dialog();
    void open_trace_directory_dialog();
    void export_dialog();
    void export_values_dialog();
    QString save_file_name(const QString& title, const QString& name, const QString& filter);
    void verification_dialog();
    // Runs `work` in a worker thread behind a progress dialog that shows the lines it hands
    // to its argument; the window stays responsive. Returns what it threw, empty if nothing.
    using ProgressSink = std::function<void(const std::string&)>;
    QString run_in_worker(const QString& title, const QString& label,
                          const std::function<void(const ProgressSink&)>& work);
    void show_metric_help();
    void show_error(const QString& title, const QString& text);
    void remember_recent(const QString& path);
    void rebuild_recent_menu();
    void rebuild_topology_menu();
    void install_report(report::Report report, const QString& path);
    void update_topology();
    void codelet_chosen(const OperationAudit& operation, const CodeletAudit& codelet);

    std::unique_ptr<report::Report> report_;
    BrowserPanes* panes_;
    TopologyView* topology_;
    CodeletView* codelets_;
    QTabWidget* views_;
    QMenu* recent_menu_ = nullptr;
    QMenu* topology_menu_ = nullptr;
    QActionGroup* topology_group_ = nullptr;
    int topology_index_ = -1;
    QStringList verification_runs_; // of the open report
    QString next_save_path_;
    // The topology shows a codelet's means until the metric or call path selection changes.
    std::optional<std::pair<std::string, std::string>> codelet_shown_; // operation, codelet
};

} // namespace topolens::gui
