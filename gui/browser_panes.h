// The three panes of the browser, left to right: metrics, call paths (call tree or flat
// region profile), system (hosts and their processes). What a pane shows depends on what is
// selected to its left (CUBE's narrowing): the call pane shows the selected metric, the
// system pane the selected metric at the selected call path(s).
#pragma once

#include "gui/value_model.h"

#include <QWidget>

class QTreeWidgetItem;

namespace topolens::gui {

class ValueTree;

class BrowserPanes : public QWidget {
    Q_OBJECT
  public:
    enum Kind { kMetric = 1, kCallpath, kRegion, kHost, kLocation };

    explicit BrowserPanes(QWidget* parent = nullptr);
    // The report must outlive the panes or be replaced first; nullptr clears them.
    void set_report(const report::Report* report);
    void set_value_mode(ValueMode mode);
    ValueMode value_mode() const { return mode_; }
    void set_flat_profile(bool flat);
    bool flat_profile() const { return flat_; }

    bool select_metric(int metric);
    bool select_callpath(int callpath); // call tree only
    bool select_location(int location);
    int selected_location() const;

    MetricChoice metric_choice() const;
    CallChoice call_choice() const;

    ValueTree* metric_tree() const { return metrics_; }
    ValueTree* call_tree() const { return calls_; }
    ValueTree* system_tree() const { return system_; }

  signals:
    // The metric or call-path selection (or its inclusive/exclusive state) changed.
    void selectionChanged();
    void locationSelected(int location);

  private:
    void build_metric_tree();
    void label_metric_tree();
    // A metric's name in the pane, with its share of the metric it is a part of where that
    // is not its parent ("Wavefront from SW  (14.29% of Late Sender)").
    QString metric_label(int metric) const;
    // What the browser opens on: the first root metric with a value (Time, inclusive).
    int first_metric_with_values() const;
    void build_call_tree();
    void build_system_tree();
    void update_call_values();
    void update_system_values();
    void metric_selection_changed();
    void call_selection_changed();

    const report::Report* report_ = nullptr;
    ValueMode mode_ = ValueMode::Absolute;
    bool flat_ = false;
    ValueTree* metrics_;
    ValueTree* calls_;
    ValueTree* system_;
};

} // namespace topolens::gui
