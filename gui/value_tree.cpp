#include "gui/value_tree.h"

#include "gui/color_scale.h"

#include <QHeaderView>
#include <QPainter>
#include <QPixmap>

#include <cmath>

namespace topolens::gui {

namespace {

enum Role {
    kId = Qt::UserRole,
    kKind,
    kInclusive,
    kExclusive,
    kName,
    kMode,
    kWhole,
    kColourMax,
    kUnit,
    kDescription,
    kNote
};

QIcon colour_square(double value, double colour_max) {
    QPixmap square(14, 14);
    QColor fill;
    switch (classify(value, colour_max)) {
    case ValueClass::Zero:
        fill = QColor::fromRgbF(kBackground.r, kBackground.g, kBackground.b);
        break;
    case ValueClass::NearZero:
        fill = QColor::fromRgbF(kNearZero.r, kNearZero.g, kNearZero.b);
        break;
    case ValueClass::OnScale: {
        const Rgb c = scale_color(scale_fraction(std::abs(value), 0.0, colour_max));
        fill = QColor::fromRgbF(c.r, c.g, c.b);
        break;
    }
    }
    square.fill(fill);
    QPainter painter(&square);
    painter.setPen(QColor(120, 120, 120));
    painter.drawRect(0, 0, 13, 13);
    return QIcon(square);
}

} // namespace

ValueTree::ValueTree(const QString& title, QWidget* parent) : QTreeWidget(parent) {
    setHeaderLabels({title});
    setColumnCount(1);
    setSelectionMode(QAbstractItemView::SingleSelection);
    setUniformRowHeights(true);
    header()->setStretchLastSection(true);
    connect(this, &QTreeWidget::itemExpanded, this, [this](QTreeWidgetItem* item) {
        relabel_item(item);
        emit nodeValueModeChanged(item);
    });
    connect(this, &QTreeWidget::itemCollapsed, this, [this](QTreeWidgetItem* item) {
        relabel_item(item);
        emit nodeValueModeChanged(item);
    });
}

QTreeWidgetItem* ValueTree::add_node(QTreeWidgetItem* parent, int id, int kind,
                                     const QString& name) {
    auto* item = parent ? new QTreeWidgetItem(parent) : new QTreeWidgetItem(this);
    item->setData(0, kId, id);
    item->setData(0, kKind, kind);
    item->setData(0, kName, name);
    item->setData(0, kInclusive, 0.0);
    item->setData(0, kExclusive, 0.0);
    item->setText(0, name);
    return item;
}

void ValueTree::set_node_description(QTreeWidgetItem* item, const QString& description) {
    item->setData(0, kDescription, description);
}

void ValueTree::set_node_note(QTreeWidgetItem* item, const QString& note) {
    item->setData(0, kNote, note);
}

int ValueTree::node_id(const QTreeWidgetItem* item) {
    return item ? item->data(0, kId).toInt() : -1;
}
int ValueTree::node_kind(const QTreeWidgetItem* item) {
    return item ? item->data(0, kKind).toInt() : -1;
}

void ValueTree::set_node_values(QTreeWidgetItem* item, double inclusive, double exclusive) {
    item->setData(0, kInclusive, inclusive);
    item->setData(0, kExclusive, exclusive);
}

bool ValueTree::shows_inclusive(const QTreeWidgetItem* item) {
    return item->childCount() == 0 || !item->isExpanded();
}

double ValueTree::node_value(const QTreeWidgetItem* item) {
    return item->data(0, shows_inclusive(item) ? kInclusive : kExclusive).toDouble();
}

void ValueTree::relabel(ValueMode mode, double whole, double colour_max, const std::string& unit) {
    for (int i = 0; i < topLevelItemCount(); ++i)
        relabel_subtree(topLevelItem(i), mode, whole, colour_max, unit);
}

void ValueTree::relabel_subtree(QTreeWidgetItem* top, ValueMode mode, double whole,
                                double colour_max, const std::string& unit) {
    std::vector<QTreeWidgetItem*> stack = {top};
    while (!stack.empty()) {
        QTreeWidgetItem* item = stack.back();
        stack.pop_back();
        item->setData(0, kMode, static_cast<int>(mode));
        item->setData(0, kWhole, whole);
        item->setData(0, kColourMax, colour_max);
        item->setData(0, kUnit, QString::fromStdString(unit));
        relabel_item(item);
        for (int i = 0; i < item->childCount(); ++i) stack.push_back(item->child(i));
    }
}

void ValueTree::relabel_item(QTreeWidgetItem* item) {
    if (const QString note = item->data(0, kNote).toString(); !note.isEmpty()) {
        // A node without a value of its own (a derived metric): say so instead of a 0.
        item->setIcon(0, QIcon());
        item->setText(0, note + "   " + item->data(0, kName).toString());
        item->setToolTip(0, item->data(0, kDescription).toString());
        return;
    }
    const double value = node_value(item);
    const auto mode = static_cast<ValueMode>(item->data(0, kMode).toInt());
    const double whole = item->data(0, kWhole).toDouble();
    const std::string unit = item->data(0, kUnit).toString().toStdString();
    item->setIcon(0, colour_square(value, item->data(0, kColourMax).toDouble()));
    item->setText(0, QString::fromStdString(format_value(value, mode, whole, unit)) + "   " +
                         item->data(0, kName).toString());
    const QString description = item->data(0, kDescription).toString();
    item->setToolTip(0, (description.isEmpty() ? QString() : description + "\n") +
                            (shows_inclusive(item) ? tr("shown: inclusive (with everything below)")
                                                   : tr("shown: exclusive (own part only)")));
}

QTreeWidgetItem* ValueTree::find_node(int id, int kind) const {
    QTreeWidgetItemIterator it(const_cast<ValueTree*>(this));
    for (; *it; ++it)
        if (node_id(*it) == id && node_kind(*it) == kind) return *it;
    return nullptr;
}

int ValueTree::selected_id(int kind) const {
    const auto items = selectedItems();
    if (items.isEmpty() || node_kind(items.front()) != kind) return -1;
    return node_id(items.front());
}

} // namespace topolens::gui
