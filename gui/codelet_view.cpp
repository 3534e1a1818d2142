#include "gui/codelet_view.h"

#include <QBarCategoryAxis>
#include <QBoxPlotSeries>
#include <QBoxSet>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QCursor>
#include <QHBoxLayout>
#include <QLabel>
#include <QScatterSeries>
#include <QToolTip>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <set>

namespace topolens::gui {

namespace {

const QColor kTunerColor(255, 190, 40);      // gold: the tuner's choice
const QColor kAuditColor(60, 170, 90);       // green: the audit's winner
const QColor kOtherColor(150, 180, 225);     // light blue: every other codelet
const QColor kOutlierColor(220, 30, 30);     // red: outliers the audit's filters found
const QColor kUnflaggedColor(120, 120, 120); // grey: outliers of the box plot only
const QColor kGlobalColor(230, 140, 0);      // orange: slow on most processes at once

QString html_escaped(const std::string& text) {
    return QString::fromStdString(text).toHtmlEscaped();
}

// "tuner", "audit" or both, for the category label and the names key.
QString winner_marks(const OperationAudit& op, const CodeletAudit& c) {
    const bool tuner = op.tuner_winner && *op.tuner_winner == c.index;
    const bool audit = op.best && *op.best == c.index;
    return tuner && audit ? QStringLiteral("tuner<br>audit")
           : tuner        ? QStringLiteral("tuner")
           : audit        ? QStringLiteral("audit")
                          : QString();
}

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
    search_ = new QLabel;
    search_->setWordWrap(true);
    search_->setObjectName("search");
    layout->addWidget(search_);
    message_ = new QLabel;
    message_->setAlignment(Qt::AlignCenter);
    layout->addWidget(message_, 1);
    chart_ = new QChart;
    chart_->legend()->hide();
    chart_view_ = new QChartView(chart_);
    chart_view_->setRenderHint(QPainter::Antialiasing);
    layout->addWidget(chart_view_, 1);
    // Codelet names are too long for the category axis: the axis shows indices, this key
    // names them.
    names_ = new QLabel;
    names_->setObjectName("codelet names");
    names_->setTextFormat(Qt::RichText);
    layout->addWidget(names_);
    key_ = new QLabel;
    key_->setWordWrap(true);
    key_->setTextFormat(Qt::RichText);
    key_->setText(
        tr("<span style='background:%1'>&nbsp;&nbsp;&nbsp;&nbsp;</span> tuner's choice &nbsp; "
           "<span style='background:%2'>&nbsp;&nbsp;&nbsp;&nbsp;</span> audit's winner &nbsp; "
           "(both: green, labelled tuner and audit). Outliers: "
           "<span style='color:%3'>&#9679;</span> slow in a process itself &nbsp; "
           "<span style='color:%3'>&#9675;</span> propagated (its processes were waiting for "
           "others) &nbsp; <span style='color:%5'>&#9679;</span> slow on most processes at "
           "once (the whole run) &nbsp; <span style='color:%4'>&#9679;</span> beyond the "
           "whiskers, dropped by no filter. Each box: quartiles and median of the search-phase "
           "times per "
           "measurement (slowest process), whiskers 1.5 IQR. Click a box to colour the "
           "topology.")
            .arg(kTunerColor.name(), kAuditColor.name(), kOutlierColor.name(),
                 kUnflaggedColor.name(), kGlobalColor.name()));
    layout->addWidget(key_);
    connect(operation_combo_, &QComboBox::currentIndexChanged, this,
            [this](int index) { show_operation(index); });
    connect(codelet_combo_, &QComboBox::activated, this,
            [this](int index) { codelet_combo_changed(index); });
    set_report(nullptr);
}

void CodeletView::set_report(const report::Report* report) {
    audit_.reset();
    ranks_.clear();
    std::string problem;
    if (report) {
        ranks_ = report->location_ranks();
        try {
            audit_ = read_audit(*report);
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
        search_->clear();
        search_->hide();
        names_->clear();
        names_->hide();
        codelet_combo_->clear();
        chart_->removeAllSeries();
        boxes_ = nullptr;
        for (auto*& series : outliers_) series = nullptr;
        categories_.clear();
        return;
    }
    message_->clear();
    message_->hide();
    chart_view_->show();
    key_->show();
    names_->show();
    show_operation(0);
}

const OperationAudit* CodeletView::current_operation() const {
    if (!has_audit() || operation_ < 0) return nullptr;
    return &audit_->operations[operation_];
}

const CodeletAudit* CodeletView::current_codelet() const {
    const OperationAudit* op = current_operation();
    if (!op || codelet_ < 0 || codelet_ >= static_cast<int>(op->codelets.size())) return nullptr;
    return &op->codelets[codelet_];
}

int CodeletView::box_count() const {
    return boxes_ ? boxes_->count() : 0;
}
int CodeletView::outlier_point_count() const {
    int count = 0;
    for (const auto* series : outliers_) count += series ? series->count() : 0;
    return count;
}
int CodeletView::outlier_point_count(CodeletAudit::OutlierCause cause) const {
    const auto* series = outliers_[static_cast<int>(cause)];
    return series ? series->count() : 0;
}
QString CodeletView::verdict_text() const {
    return verdict_->text();
}
QString CodeletView::search_text() const {
    return search_->text();
}
QString CodeletView::category_label(int position) const {
    return position >= 0 && position < categories_.size() ? categories_[position] : QString();
}
QString CodeletView::names_text() const {
    return names_->text();
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
    const OperationAudit* op = current_operation();
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
    const OperationAudit& op = audit_->operations[index];
    verdict_->setText(QString::fromStdString(verdict_sentence(op)));

    chart_->removeAllSeries();
    for (QAbstractAxis* axis : chart_->axes()) {
        chart_->removeAxis(axis);
        delete axis;
    }
    boxes_ = new QBoxPlotSeries;
    using Cause = CodeletAudit::OutlierCause;
    for (int k = 0; k < CodeletAudit::kOutlierCauses; ++k) {
        auto* series = new QScatterSeries;
        series->setMarkerSize(k == static_cast<int>(Cause::Unflagged) ? 7.0 : 9.0);
        if (k == static_cast<int>(Cause::Propagated)) { // a ring: hollow
            series->setColor(Qt::transparent);
            series->setBorderColor(kOutlierColor);
            QPen ring(kOutlierColor, 2.0);
            series->setPen(ring);
        } else {
            const QColor fill = k == static_cast<int>(Cause::Caused)   ? kOutlierColor
                                : k == static_cast<int>(Cause::Global) ? kGlobalColor
                                                                       : kUnflaggedColor;
            series->setColor(fill);
            series->setBorderColor(fill.darker(180));
        }
        outliers_[k] = series;
        connect(series, &QScatterSeries::hovered, this,
                [this, k](const QPointF& point, bool state) {
                    const int at = outliers_[k] ? outliers_[k]->points().indexOf(point) : -1;
                    if (state && at >= 0 && at < outlier_tips_[k].size())
                        QToolTip::showText(QCursor::pos(), outlier_tips_[k][at]);
                    else
                        QToolTip::hideText();
                });
    }
    categories_.clear();
    for (auto& tips : outlier_tips_) tips.clear();
    QString names;
    const int columns = op.codelets.size() > 8 ? 4 : 3;
    double low = 0.0, high = 0.0;
    bool first = true;
    const QSignalBlocker block(codelet_combo_);
    codelet_combo_->clear();
    for (size_t i = 0; i < op.codelets.size(); ++i) {
        const CodeletAudit& c = op.codelets[i];
        const bool tuner = op.tuner_winner && *op.tuner_winner == c.index;
        const bool audit = op.best && *op.best == c.index;
        const QString marks = winner_marks(op, c);
        // The axis names the codelet by its index (the key below names it in full).
        const QString label = QString::number(c.index) + (marks.isEmpty() ? "" : "<br>" + marks);
        categories_ << label;
        if (i % columns == 0u) names += "<tr>";
        names +=
            QString("<td align='right'><b>%1</b></td><td>%2%3</td>")
                .arg(c.index)
                .arg(html_escaped(c.name))
                .arg(marks.isEmpty() ? ""
                                     : " <i>(" + QString(marks).replace("<br>", " + ") + ")</i>");
        if (static_cast<int>(i % columns) == columns - 1 || i + 1 == op.codelets.size())
            names += "</tr>";
        codelet_combo_->addItem(QString("%1: %2").arg(c.index).arg(QString::fromStdString(c.name)));
        auto* set = new QBoxSet(c.box.whisker_lo, c.box.q1, c.box.median, c.box.q3,
                                c.box.whisker_hi, label);
        set->setBrush(audit ? kAuditColor : tuner ? kTunerColor : kOtherColor);
        // Flat boxes (a spread of a few per cent) show little fill: the outline carries the
        // winner's colour too.
        set->setPen(audit   ? QPen(kAuditColor.darker(130), 2.5)
                    : tuner ? QPen(kTunerColor.darker(115), 2.5)
                            : QPen(QColor(40, 40, 40), 1));
        boxes_->append(set);
        const std::vector<patterns::BoxOutlierCause> causes = patterns::box_outlier_causes(c);
        for (size_t k = 0; k < c.box.outliers.size(); ++k) {
            const Cause cause = causes[k].cause;
            // Side by side, so that a ring and a dot at the same height stay apart.
            const double shift = cause == Cause::Caused       ? -0.12
                                 : cause == Cause::Propagated ? 0.12
                                                              : 0.0;
            const std::size_t m = c.box.outliers[k];
            outliers_[static_cast<int>(cause)]->append(static_cast<double>(i) + shift,
                                                       c.samples[m]);
            QString tip = tr("codelet %1, measurement %2: %3 s")
                              .arg(c.index)
                              .arg(m)
                              .arg(c.samples[m], 0, 'g', 4);
            if (cause == Cause::Caused) {
                std::set<uint32_t> ranks; // ascending
                for (const uint32_t l : causes[k].locations)
                    ranks.insert(l < ranks_.size() ? ranks_[l] : l);
                QStringList rank_list;
                for (const uint32_t r : ranks) rank_list << QString::number(r);
                tip += tr("; slow by itself on rank %1").arg(rank_list.join(", "));
            } else if (cause == Cause::Propagated) {
                tip += tr("; propagated: the processes flagged there were waiting for others");
            } else if (cause == Cause::Global) {
                tip += tr("; slow on most processes at once: the whole run was disturbed");
            } else {
                tip += tr("; no filter of the audit dropped it");
            }
            outlier_tips_[static_cast<int>(cause)].push_back(tip);
        }
        for (double v : {c.box.min, c.box.max, c.box.whisker_lo, c.box.whisker_hi}) {
            low = first ? v : std::min(low, v);
            high = first ? v : std::max(high, v);
            first = false;
        }
    }
    names_->setText("<table cellspacing='0' cellpadding='1' style='margin-left:20px'>"
                    "<tr><td colspan='8'>Codelets by index:</td></tr>" +
                    names + "</table>");
    const std::string search = search_sentence(op);
    search_->setText(QString::fromStdString(search));
    search_->setVisible(!search.empty());
    codelet_combo_->setCurrentIndex(-1); // nothing chosen yet: the placeholder shows
    chart_->setTitle(tr("%1: search-phase time per measurement, by codelet")
                         .arg(QString::fromStdString(op.name)));
    chart_->addSeries(boxes_);
    for (auto* series : outliers_) chart_->addSeries(series);
    auto* x = new QBarCategoryAxis;
    x->append(categories_);
    x->setTitleText(tr("codelet (index; names below)"));
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
    for (auto* series : outliers_) {
        series->attachAxis(x_points);
        series->attachAxis(y);
    }
    connect(boxes_, &QBoxPlotSeries::clicked, this, [this](QBoxSet* set) {
        const int position = boxes_->boxSets().indexOf(set);
        if (position >= 0) codelet_box_clicked(position);
    });
}

void CodeletView::codelet_box_clicked(int position) {
    codelet_combo_changed(position);
}

void CodeletView::codelet_combo_changed(int position) {
    const OperationAudit* op = current_operation();
    if (!op || position < 0 || position >= static_cast<int>(op->codelets.size())) return;
    codelet_ = position;
    {
        const QSignalBlocker block(codelet_combo_);
        codelet_combo_->setCurrentIndex(position);
    }
    emit codeletChosen(*op, op->codelets[position]);
}

} // namespace topolens::gui
