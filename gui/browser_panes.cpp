#include "gui/browser_panes.h"

#include "gui/value_tree.h"

#include <QHBoxLayout>
#include <QSignalBlocker>
#include <QSplitter>

#include <algorithm>
#include <cmath>
#include <map>

namespace topolens::gui {

BrowserPanes::BrowserPanes(QWidget* parent) : QWidget(parent) {
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* splitter = new QSplitter(Qt::Horizontal);
    metrics_ = new ValueTree(tr("Metric"));
    calls_ = new ValueTree(tr("Call path"));
    system_ = new ValueTree(tr("System"));
    metrics_->setObjectName("metric_tree");
    calls_->setObjectName("call_tree");
    system_->setObjectName("system_tree");
    splitter->addWidget(metrics_);
    splitter->addWidget(calls_);
    splitter->addWidget(system_);
    layout->addWidget(splitter);

    connect(metrics_, &QTreeWidget::itemSelectionChanged, this,
            [this] { metric_selection_changed(); });
    connect(metrics_, &ValueTree::nodeValueModeChanged, this, [this](QTreeWidgetItem* item) {
        if (item->isSelected()) metric_selection_changed();
    });
    connect(calls_, &QTreeWidget::itemSelectionChanged, this, [this] { call_selection_changed(); });
    // A click on the node already selected shows it again (after a codelet was shown).
    connect(metrics_, &QTreeWidget::itemClicked, this, [this](QTreeWidgetItem* item) {
        if (item->isSelected()) metric_selection_changed();
    });
    connect(calls_, &QTreeWidget::itemClicked, this, [this](QTreeWidgetItem* item) {
        if (item->isSelected()) call_selection_changed();
    });
    connect(calls_, &ValueTree::nodeValueModeChanged, this, [this](QTreeWidgetItem* item) {
        if (item->isSelected()) call_selection_changed();
    });
    connect(system_, &QTreeWidget::itemSelectionChanged, this, [this] {
        const int location = system_->selected_id(kLocation);
        if (location >= 0) emit locationSelected(location);
    });
}

void BrowserPanes::set_report(const report::Report* report) {
    report_ = report;
    {
        const QSignalBlocker a(metrics_), b(calls_), c(system_);
        metrics_->clear();
        calls_->clear();
        system_->clear();
    }
    if (!report_) return;
    build_system_tree();
    build_call_tree();
    build_metric_tree();
}

void BrowserPanes::set_value_mode(ValueMode mode) {
    mode_ = mode;
    if (!report_) return;
    label_metric_tree();
    update_call_values(); // relabels the call and system panes too
}

void BrowserPanes::set_flat_profile(bool flat) {
    if (flat_ == flat) return;
    flat_ = flat;
    if (!report_) return;
    build_call_tree();
    update_call_values();
    emit selectionChanged();
}

MetricChoice BrowserPanes::metric_choice() const {
    MetricChoice choice;
    const auto items = metrics_->selectedItems();
    if (items.isEmpty()) return choice;
    choice.metric = ValueTree::node_id(items.front());
    choice.inclusive = ValueTree::shows_inclusive(items.front());
    return choice;
}

CallChoice BrowserPanes::call_choice() const {
    CallChoice choice;
    const auto items = calls_->selectedItems();
    if (items.isEmpty() || !report_) return choice;
    const QTreeWidgetItem* item = items.front();
    choice.whole_program = false;
    if (ValueTree::node_kind(item) == kRegion) {
        // A region of the flat profile: all its call paths, own parts only.
        const int region = ValueTree::node_id(item);
        for (int c = 0; c < static_cast<int>(report_->callpaths.size()); ++c)
            if (report_->callpaths[c].region == region) choice.callpaths.push_back(c);
        choice.inclusive = false;
    } else {
        choice.callpaths = {ValueTree::node_id(item)};
        choice.inclusive = ValueTree::shows_inclusive(item);
    }
    return choice;
}

bool BrowserPanes::select_metric(int metric) {
    QTreeWidgetItem* item = metrics_->find_node(metric, kMetric);
    if (!item) return false;
    for (QTreeWidgetItem* p = item->parent(); p; p = p->parent()) p->setExpanded(true);
    if (metrics_->currentItem() == item && item->isSelected())
        metric_selection_changed(); // chosen again: show it again (e.g. after a codelet)
    else
        metrics_->setCurrentItem(item);
    return true;
}

bool BrowserPanes::select_callpath(int callpath) {
    QTreeWidgetItem* item = calls_->find_node(callpath, kCallpath);
    if (!item) return false;
    for (QTreeWidgetItem* p = item->parent(); p; p = p->parent()) p->setExpanded(true);
    if (calls_->currentItem() == item && item->isSelected())
        call_selection_changed();
    else
        calls_->setCurrentItem(item);
    return true;
}

bool BrowserPanes::select_location(int location) {
    QTreeWidgetItem* item = system_->find_node(location, kLocation);
    if (!item) return false;
    for (QTreeWidgetItem* p = item->parent(); p; p = p->parent()) p->setExpanded(true);
    if (system_->currentItem() != item) system_->setCurrentItem(item);
    system_->scrollToItem(item);
    return true;
}

int BrowserPanes::selected_location() const {
    return system_->selected_id(kLocation);
}

void BrowserPanes::build_metric_tree() {
    const MetricChoice previous = metric_choice();
    const QSignalBlocker block(metrics_);
    metrics_->clear();
    std::vector<QTreeWidgetItem*> items(report_->metrics.size(), nullptr);
    // Parents come before children in the report's metric ids.
    for (int root : metric_roots(*report_)) {
        for (int m : report_->metric_subtree(root)) {
            const report::Metric& metric = report_->metrics[m];
            QTreeWidgetItem* parent = metric.parent >= 0 ? items[metric.parent] : nullptr;
            items[m] = metrics_->add_node(parent, m, kMetric, metric_label(m));
            QString description = QString::fromStdString(metric.description);
            if (!metric.derived_type.empty()) {
                // Cube computes derived metrics (Scalasca's reports have them) from a CubePL
                // expression; topolens shows stored values only.
                ValueTree::set_node_note(items[m], tr("(derived)"));
                description += (description.isEmpty() ? "" : "\n") +
                               tr("Derived metric (%1), computed by Cube from the CubePL "
                                  "expression %2; topolens does not evaluate it.")
                                   .arg(QString::fromStdString(metric.derived_type),
                                        QString::fromStdString(metric.cubepl));
            }
            ValueTree::set_node_description(items[m], description);
            ValueTree::set_node_values(items[m], metric_value(*report_, {m, true}),
                                       metric_value(*report_, {m, false}));
        }
    }
    // Collapsed, as Cube opens a report: every root shows its inclusive value, so the first
    // view (Time with everything below it) has values on the grid even where Time's own part
    // is 0 (a trace of MPI calls only).
    label_metric_tree();
    const int select = previous.metric >= 0 ? previous.metric : first_metric_with_values();
    if (select >= 0) {
        QTreeWidgetItem* item = items[select];
        metrics_->setCurrentItem(item);
    }
    metric_selection_changed();
}

QString BrowserPanes::metric_label(int m) const {
    const report::Metric& metric = report_->metrics[m];
    QString label = QString::fromStdString(metric.display_name);
    // A part of another metric kept in a tree of its own (the wave metrics: of Late Sender)
    // shows its share of it.
    const std::optional<int> whole = report_->part_of(m);
    if (!whole) return label;
    const double of = metric_value(*report_, {*whole, true});
    if (of <= 0.0) return label;
    return label + tr("  (%1% of %2)")
                       .arg(100.0 * metric_value(*report_, {m, true}) / of, 0, 'f', 2)
                       .arg(QString::fromStdString(report_->metrics[*whole].display_name));
}

int BrowserPanes::first_metric_with_values() const {
    const std::vector<int> roots = metric_roots(*report_);
    for (int root : roots)
        if (metric_value(*report_, {root, true}) != 0.0) return root;
    return roots.empty() ? -1 : roots.front();
}

void BrowserPanes::label_metric_tree() {
    // Every root its own whole and unit (Time in seconds, Visits in occurrences, ...).
    for (int root : metric_roots(*report_)) {
        QTreeWidgetItem* item = metrics_->find_node(root, kMetric);
        if (!item) continue;
        const double total = metric_value(*report_, {root, true});
        metrics_->relabel_subtree(item, mode_, total, std::abs(total),
                                  display_unit(report_->metrics[root]));
    }
}

void BrowserPanes::build_call_tree() {
    const QSignalBlocker block(calls_);
    calls_->clear();
    if (flat_) {
        for (int r = 0; r < static_cast<int>(report_->regions.size()); ++r)
            calls_->add_node(nullptr, r, kRegion, QString::fromStdString(report_->regions[r].name));
        calls_->setHeaderLabels({tr("Flat profile (regions)")});
        return;
    }
    calls_->setHeaderLabels({tr("Call path")});
    std::vector<QTreeWidgetItem*> items(report_->callpaths.size(), nullptr);
    std::vector<int> stack;
    for (int root : callpath_roots(*report_)) {
        stack = {root};
        while (!stack.empty()) {
            const int c = stack.back();
            stack.pop_back();
            if (items[c]) continue;
            const report::Callpath& cp = report_->callpaths[c];
            QTreeWidgetItem* parent = cp.parent >= 0 ? items[cp.parent] : nullptr;
            const QString name =
                cp.region >= 0 && cp.region < static_cast<int>(report_->regions.size())
                    ? QString::fromStdString(report_->regions[cp.region].name)
                    : tr("(unknown region)");
            items[c] = calls_->add_node(parent, c, kCallpath, name);
            for (auto it = cp.children.rbegin(); it != cp.children.rend(); ++it)
                stack.push_back(*it);
        }
    }
    calls_->expandToDepth(1);
}

void BrowserPanes::build_system_tree() {
    const QSignalBlocker block(system_);
    system_->clear();
    std::map<std::string, QTreeWidgetItem*> hosts;
    for (int l = 0; l < static_cast<int>(report_->locations.size()); ++l) {
        const report::Location& location = report_->locations[l];
        QTreeWidgetItem*& host = hosts[location.host];
        if (!host)
            host = system_->add_node(
                nullptr, static_cast<int>(hosts.size()) - 1, kHost,
                QString::fromStdString(location.host.empty() ? "host" : location.host));
        QString name = tr("rank %1").arg(location.rank);
        if (location.thread != 0) name += tr(" thread %1").arg(location.thread);
        system_->add_node(host, l, kLocation, name);
    }
    system_->expandAll();
}

void BrowserPanes::metric_selection_changed() {
    if (!report_) return;
    update_call_values();
    emit selectionChanged();
}

void BrowserPanes::call_selection_changed() {
    if (!report_) return;
    update_system_values();
    emit selectionChanged();
}

void BrowserPanes::update_call_values() {
    const MetricChoice metric = metric_choice();
    if (flat_) {
        const std::vector<double> values = region_values(*report_, metric);
        QTreeWidgetItemIterator it(calls_);
        for (; *it; ++it) {
            const int r = ValueTree::node_id(*it);
            ValueTree::set_node_values(*it, values[r], values[r]);
        }
    } else {
        const CallpathValues values = callpath_values(*report_, metric);
        QTreeWidgetItemIterator it(calls_);
        for (; *it; ++it) {
            const int c = ValueTree::node_id(*it);
            ValueTree::set_node_values(*it, values.inclusive[c], values.exclusive[c]);
        }
    }
    const double selected = metric_value(*report_, metric);
    const double root_total =
        metric.metric >= 0 ? metric_value(*report_, {metric_root_of(*report_, metric.metric), true})
                           : 0.0;
    const std::string unit =
        metric.metric >= 0 ? display_unit(report_->metrics[metric.metric]) : "";
    const double whole = mode_ == ValueMode::RelativePercent ? selected : root_total;
    calls_->relabel(mode_, whole, std::abs(selected), unit);
    update_system_values();
}

void BrowserPanes::update_system_values() {
    const MetricChoice metric = metric_choice();
    const CallChoice calls = call_choice();
    const std::vector<double> values = location_values(*report_, metric, calls);
    double max = 0.0, sum = 0.0;
    for (double v : values) {
        max = std::max(max, std::abs(v));
        sum += v;
    }
    QTreeWidgetItemIterator it(system_);
    for (; *it; ++it) {
        if (ValueTree::node_kind(*it) == kLocation) {
            const double v = values[ValueTree::node_id(*it)];
            ValueTree::set_node_values(*it, v, v);
        }
    }
    for (int h = 0; h < system_->topLevelItemCount(); ++h) {
        QTreeWidgetItem* host = system_->topLevelItem(h);
        double host_sum = 0.0;
        for (int i = 0; i < host->childCount(); ++i)
            host_sum += ValueTree::node_value(host->child(i));
        ValueTree::set_node_values(host, host_sum, 0.0); // a host holds nothing of its own
    }
    const double root_total =
        metric.metric >= 0 ? metric_value(*report_, {metric_root_of(*report_, metric.metric), true})
                           : 0.0;
    const std::string unit =
        metric.metric >= 0 ? display_unit(report_->metrics[metric.metric]) : "";
    const double whole = mode_ == ValueMode::RelativePercent ? sum : root_total;
    system_->relabel(mode_, whole, max, unit);
}

} // namespace topolens::gui
