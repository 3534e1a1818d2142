#include "gui/codelet_view.h"

#include <QBarCategoryAxis>
#include <QBoxPlotSeries>
#include <QBoxSet>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QScatterSeries>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>

namespace topolens::gui {

namespace {

const QColor kTunerColor(255, 190, 40);  // gold: the tuner's choice
const QColor kAuditColor(60, 170, 90);   // green: the audit's winner
const QColor kOtherColor(150, 180, 225); // light blue: every other codelet

} // namespace

CodeletView::CodeletView(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    auto* choosers = new QHBoxLayout;
    operation_combo_ = new QComboBox;
    codelet_combo_ = new QComboBox;
    codelet_combo_->setPlaceholderText(tr("(choose a codelet)"));
    choosers->addWidget(new QLabel(tr("Tuned operation:")));
    choosers->addWidget(operation_combo_);
    choosers->addSpacing(20);
    choosers->addWidget(new QLabel(tr("Colour the topology by codelet:")));
    choosers->addWidget(codelet_combo_, 1);
    layout->addLayout(choosers);
    verdict_ = new QLabel;
    verdict_->setWordWrap(true);
    verdict_->setObjectName("verdict");
    QFont bold = verdict_->font();
    bold.setBold(true);
    bold.setPointSizeF(bold.pointSizeF() * 1.15);
    verdict_->setFont(bold);
    layout->addWidget(verdict_);
    message_ = new QLabel;
    message_->setAlignment(Qt::AlignCenter);
    layout->addWidget(message_, 1);
    chart_ = new QChart;
    chart_->legend()->hide();
    chart_view_ = new QChartView(chart_);
    chart_view_->setRenderHint(QPainter::Antialiasing);
    layout->addWidget(chart_view_, 1);
    key_ = new QLabel;
    key_->setWordWrap(true);
    key_->setTextFormat(Qt::RichText);
    key_->setText(
        tr("<span style='background:%1'>&nbsp;&nbsp;&nbsp;&nbsp;</span> tuner's choice &nbsp; "
           "<span style='background:%2'>&nbsp;&nbsp;&nbsp;&nbsp;</span> audit's winner &nbsp; "
           "(both: green with a gold frame) &nbsp; red dots: outlier measurements. "
           "Each box: quartiles and median of the search-phase times per measurement "
           "(slowest process), whiskers 1.5 IQR. Click a box to colour the topology.")
            .arg(kTunerColor.name(), kAuditColor.name()));
    layout->addWidget(key_);
    connect(operation_combo_, &QComboBox::currentIndexChanged, this,
            [this](int index) { show_operation(index); });
    connect(codelet_combo_, &QComboBox::activated, this,
            [this](int index) { codelet_combo_changed(index); });
    set_report(nullptr);
}

void CodeletView::set_report(const report::Report* report) {
    report_ = report;
    audit_.reset();
    std::string problem;
    if (report_) {
        try {
            audit_ = read_audit(*report_);
        } catch (const std::exception& e) {
            problem = e.what();
        }
    }
    operation_ = codelet_ = -1;
    const QSignalBlocker block(operation_combo_);
    operation_combo_->clear();
    if (has_audit())
        for (const auto& op : audit_->operations)
            operation_combo_->addItem(QString::fromStdString(op.name));
    if (!has_audit()) {
        message_->setText(problem.empty() ? tr("no tuned operations in this report")
                                          : QString::fromStdString(problem));
        message_->show();
        chart_view_->hide();
        key_->hide();
        verdict_->clear();
        codelet_combo_->clear();
        chart_->removeAllSeries();
        boxes_ = nullptr;
        outliers_ = nullptr;
        return;
    }
    message_->clear();
    message_->hide();
    chart_view_->show();
    key_->show();
    show_operation(0);
}

const AuditOperation* CodeletView::current_operation() const {
    if (!has_audit() || operation_ < 0) return nullptr;
    return &audit_->operations[operation_];
}

const AuditCodelet* CodeletView::current_codelet() const {
    const AuditOperation* op = current_operation();
    if (!op || codelet_ < 0 || codelet_ >= static_cast<int>(op->codelets.size())) return nullptr;
    return &op->codelets[codelet_];
}

int CodeletView::box_count() const {
    return boxes_ ? boxes_->count() : 0;
}
int CodeletView::outlier_point_count() const {
    return outliers_ ? outliers_->count() : 0;
}
QString CodeletView::verdict_text() const {
    return verdict_->text();
}
QString CodeletView::message_text() const {
    return message_->isVisible() || !has_audit() ? message_->text() : QString();
}

bool CodeletView::choose_operation(const std::string& name) {
    const int index = operation_combo_->findText(QString::fromStdString(name));
    if (index < 0) return false;
    operation_combo_->setCurrentIndex(index);
    show_operation(index);
    return true;
}

bool CodeletView::choose_codelet(const std::string& name) {
    const AuditOperation* op = current_operation();
    if (!op) return false;
    for (size_t i = 0; i < op->codelets.size(); ++i) {
        if (op->codelets[i].name == name) {
            codelet_combo_changed(static_cast<int>(i));
            return true;
        }
    }
    return false;
}

void CodeletView::show_operation(int index) {
    if (!has_audit() || index < 0 || index >= static_cast<int>(audit_->operations.size())) return;
    operation_ = index;
    codelet_ = -1;
    const AuditOperation& op = audit_->operations[index];
    verdict_->setText(QString::fromStdString(verdict_sentence(op)));

    chart_->removeAllSeries();
    for (QAbstractAxis* axis : chart_->axes()) {
        chart_->removeAxis(axis);
        delete axis;
    }
    boxes_ = new QBoxPlotSeries;
    outliers_ = new QScatterSeries;
    outliers_->setMarkerSize(7.0);
    outliers_->setColor(QColor(220, 30, 30));
    outliers_->setBorderColor(QColor(120, 0, 0));
    QStringList categories;
    double low = 0.0, high = 0.0;
    bool first = true;
    const QSignalBlocker block(codelet_combo_);
    codelet_combo_->clear();
    for (size_t i = 0; i < op.codelets.size(); ++i) {
        const AuditCodelet& c = op.codelets[i];
        const bool tuner = op.tuner_winner && *op.tuner_winner == c.index;
        const bool audit = op.best && *op.best == c.index;
        QString label = QString::fromStdString(c.name);
        if (tuner && audit)
            label += "\n[tuner + audit]";
        else if (tuner)
            label += "\n[tuner]";
        else if (audit)
            label += "\n[audit]";
        categories << label;
        codelet_combo_->addItem(QString::fromStdString(c.name));
        auto* set = new QBoxSet(c.box.whisker_lo, c.box.q1, c.box.median, c.box.q3,
                                c.box.whisker_hi, label);
        set->setBrush(audit ? kAuditColor : tuner ? kTunerColor : kOtherColor);
        set->setPen(
            QPen(tuner && audit ? kTunerColor : QColor(40, 40, 40), tuner && audit ? 4 : 1));
        boxes_->append(set);
        for (int o : c.box_outliers) outliers_->append(static_cast<double>(i), c.samples[o]);
        for (double v : {c.box.min, c.box.max, c.box.whisker_lo, c.box.whisker_hi}) {
            low = first ? v : std::min(low, v);
            high = first ? v : std::max(high, v);
            first = false;
        }
    }
    codelet_combo_->setCurrentIndex(-1); // nothing chosen yet: the placeholder shows
    chart_->setTitle(tr("%1: search-phase time per measurement, by codelet")
                         .arg(QString::fromStdString(op.name)));
    chart_->addSeries(boxes_);
    chart_->addSeries(outliers_);
    auto* x = new QBarCategoryAxis;
    x->append(categories);
    x->setTitleText(tr("codelet"));
    auto* x_points = new QValueAxis; // the outliers' x: box i sits at i
    x_points->setRange(-0.5, static_cast<double>(op.codelets.size()) - 0.5);
    x_points->setVisible(false);
    auto* y = new QValueAxis;
    const double pad = (high - low) * 0.05 + (high == low ? std::max(1e-9, high * 0.05) : 0.0);
    y->setRange(std::max(0.0, low - pad), high + pad);
    y->setTitleText(tr("time per execution [s] (slowest process)"));
    y->setLabelFormat("%.3g");
    chart_->addAxis(x, Qt::AlignBottom);
    chart_->addAxis(x_points, Qt::AlignBottom);
    chart_->addAxis(y, Qt::AlignLeft);
    boxes_->attachAxis(x);
    boxes_->attachAxis(y);
    outliers_->attachAxis(x_points);
    outliers_->attachAxis(y);
    connect(boxes_, &QBoxPlotSeries::clicked, this, [this](QBoxSet* set) {
        const int position = boxes_->boxSets().indexOf(set);
        if (position >= 0) codelet_box_clicked(position);
    });
}

void CodeletView::codelet_box_clicked(int position) {
    codelet_combo_changed(position);
}

void CodeletView::codelet_combo_changed(int position) {
    const AuditOperation* op = current_operation();
    if (!op || position < 0 || position >= static_cast<int>(op->codelets.size())) return;
    codelet_ = position;
    {
        const QSignalBlocker block(codelet_combo_);
        codelet_combo_->setCurrentIndex(position);
    }
    emit codeletChosen(*op, op->codelets[position]);
}

} // namespace topolens::gui
