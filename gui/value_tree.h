// One pane of the browser: a tree whose nodes show a colour square and a value before their
// name. A collapsed node shows its inclusive value (with everything below it), an expanded
// node its exclusive value (its own part), as in CUBE; expanding or collapsing a node thus
// changes its value and, when it is selected, what the panes to its right show.
#pragma once

#include "gui/value_model.h"

#include <QTreeWidget>

namespace topolens::gui {

class ValueTree : public QTreeWidget {
    Q_OBJECT
  public:
    explicit ValueTree(const QString& title, QWidget* parent = nullptr);

    // A node for `id` (a metric, call path, region, host or location id; `kind` tells which).
    QTreeWidgetItem* add_node(QTreeWidgetItem* parent, int id, int kind, const QString& name);
    static void set_node_description(QTreeWidgetItem* item, const QString& description);
    // Shown instead of the value, for nodes that have none (e.g. "derived").
    static void set_node_note(QTreeWidgetItem* item, const QString& note);
    static int node_id(const QTreeWidgetItem* item);
    static int node_kind(const QTreeWidgetItem* item);
    static void set_node_values(QTreeWidgetItem* item, double inclusive, double exclusive);
    static double node_value(const QTreeWidgetItem* item); // as shown: incl. or excl.
    // Leaves have no own/with-children distinction: they always count as collapsed.
    static bool shows_inclusive(const QTreeWidgetItem* item);

    // Re-labels every node: value in `mode` relative to `whole`, colour relative to
    // `colour_max` (the value that is red).
    void relabel(ValueMode mode, double whole, double colour_max, const std::string& unit);
    // The same for one node and everything below it (the metric pane: one scale per root).
    void relabel_subtree(QTreeWidgetItem* top, ValueMode mode, double whole, double colour_max,
                         const std::string& unit);
    QTreeWidgetItem* find_node(int id, int kind) const;
    int selected_id(int kind) const; // -1 when no node of that kind is selected

  signals:
    // A node was expanded or collapsed: its value changed meaning.
    void nodeValueModeChanged(QTreeWidgetItem* item);

  private:
    static void relabel_item(QTreeWidgetItem* item);
};

} // namespace topolens::gui
