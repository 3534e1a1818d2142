#include "gui/codelet_view.h"

#include <QAreaSeries>
#include <QBarCategoryAxis>
#include <QBoxPlotSeries>
#include <QBoxSet>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QCursor>
#include <QHBoxLayout>
#include <QLabel>
#include <QLegendMarker>
#include <QLineSeries>
#include <QScatterSeries>
#include <QToolTip>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <set>

namespace topolens::gui {

namespace {

const QColor kTunerColor(255, 190, 40);      // gold: the tuner's choice
const QColor kAuditColor(60, 170, 90);       // green: the audit's winner
const QColor kOtherColor(150, 180, 225);     // light blue: every other codelet
const QColor kOutlierColor(220, 30, 30);     // red: outliers the audit's filters found
const QColor kUnflaggedColor(120, 120, 120); // grey: outliers of the box plot only
const QColor kGlobalColor(230, 140, 0);      // orange: slow on most processes at once
const QColor kWorstColor(200, 0, 0);         // red dashed outline: the worst set
const QColor kVerifiedColor(110, 40, 160);   // purple: verification runs' range and mean
const QColor kChosenColor(200, 0, 200);      // magenta: the chosen codelet (as the topology's)

// Line colours of the measurement series, by position (repeating after twelve).
const QColor kSeriesColors[] = {QColor(31, 119, 180),  QColor(255, 127, 14),  QColor(44, 160, 44),
                                QColor(214, 39, 40),   QColor(148, 103, 189), QColor(140, 86, 75),
                                QColor(227, 119, 194), QColor(127, 127, 127), QColor(188, 189, 34),
                                QColor(23, 190, 207),  QColor(0, 0, 128),     QColor(128, 128, 0)};
QColor series_color(std::size_t position) {
    return kSeriesColors[position % (sizeof kSeriesColors / sizeof kSeriesColors[0])];
}

// Where a verified codelet's range stands: right of its box (boxes are 0.5 wide).
constexpr double kVerifiedOffset = 0.36;

void hide_legend_marker(QChart* chart, QAbstractSeries* series) {
    for (QLegendMarker* marker : chart->legend()->markers(series)) marker->setVisible(false);
}

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
    series_chart_ = new QChart;
    series_chart_->legend()->setAlignment(Qt::AlignBottom);
    series_view_ = new QChartView(series_chart_);
    series_view_->setRenderHint(QPainter::Antialiasing);
    series_view_->setObjectName("measurement series");
    charts_ = new QWidget;
    auto* charts = new QHBoxLayout(charts_);
    charts->setContentsMargins(0, 0, 0, 0);
    charts->addWidget(chart_view_, 1);
    charts->addWidget(series_view_, 1);
    layout->addWidget(charts_, 1);
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
           "measurement (slowest process), whiskers 1.5 IQR. "
           "<span style='color:%6'><b>- - -</b></span> red dashed outline: the worst set (the "
           "slowest and every codelet whose range overlaps it; with verification runs, theirs). "
           "<span style='color:%7'><b>|</b> &#9670;</span> verification runs' range and mean of "
           "a verified codelet. Right: each codelet's time per measurement in search order "
           "(slowest process); the chosen codelet's band reaches down to its fastest process. "
           "Click a box or a line to choose a codelet (<span style='color:%8'>&#9650;</span>) "
           "and colour the topology.")
            .arg(kTunerColor.name(), kAuditColor.name(), kOutlierColor.name(),
                 kUnflaggedColor.name(), kGlobalColor.name(), kWorstColor.name(),
                 kVerifiedColor.name(), kChosenColor.name()));
    layout->addWidget(key_);
    connect(operation_combo_, &QComboBox::currentIndexChanged, this,
            [this](int index) { show_operation(index); });
    connect(codelet_combo_, &QComboBox::activated, this,
            [this](int index) { codelet_combo_changed(index); });
    set_report(nullptr);
}

void CodeletView::set_report(const report::Report* report) {
    audit_.reset();
    verification_.reset();
    ranks_.clear();
    std::string problem;
    if (report) {
        ranks_ = report->location_ranks();
        try {
            audit_ = read_audit(*report);
            // A document of `topolens audit --format json` with runs carries their result.
            if (audit_)
                verification_ =
                    parse_verification(report->attributes.at(patterns::kAuditAttribute));
        } catch (const std::exception& e) {
            audit_.reset();
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
        charts_->hide();
        key_->hide();
        verdict_->clear();
        search_->clear();
        search_->hide();
        names_->clear();
        names_->hide();
        codelet_combo_->clear();
        chart_->removeAllSeries();
        boxes_ = nullptr;
        chosen_marker_ = nullptr;
        verification_means_ = nullptr;
        verification_ranges_.clear();
        for (auto*& series : outliers_) series = nullptr;
        categories_.clear();
        series_chart_->removeAllSeries();
        max_lines_.clear();
        band_ = nullptr;
        series_outliers_ = nullptr;
        return;
    }
    message_->clear();
    message_->hide();
    charts_->show();
    key_->show();
    names_->show();
    show_operation(0);
}

void CodeletView::set_verification(std::optional<patterns::Verification> verification) {
    verification_ = std::move(verification);
    if (!has_audit()) return;
    const int chosen = codelet_;
    show_operation(operation_ < 0 ? 0 : operation_);
    if (chosen >= 0) { // keep the choice without colouring the topology again
        codelet_ = chosen;
        const QSignalBlocker block(codelet_combo_);
        codelet_combo_->setCurrentIndex(chosen);
        show_chosen();
    }
}

const patterns::OperationVerification* CodeletView::current_verification() const {
    const OperationAudit* op = current_operation();
    if (!op || !verification_) return nullptr;
    for (const patterns::OperationVerification& v : verification_->operations)
        if (v.name == op->name) return v.runs.empty() ? nullptr : &v;
    return nullptr;
}

bool CodeletView::in_worst_set(int position) const {
    const OperationAudit* op = current_operation();
    if (!op || position < 0 || position >= static_cast<int>(op->codelets.size())) return false;
    const CodeletAudit& c = op->codelets[position];
    if (const patterns::OperationVerification* v = current_verification();
        v && !v->codelets.empty()) {
        const patterns::VerifiedCodelet* verified = v->codelet(c.index);
        return verified && verified->worst_set;
    }
    return c.worst_set;
}

QLineSeries* CodeletView::verification_range(int position) const {
    return position >= 0 && position < static_cast<int>(verification_ranges_.size())
               ? verification_ranges_[position]
               : nullptr;
}

QLineSeries* CodeletView::max_line(int position) const {
    return position >= 0 && position < static_cast<int>(max_lines_.size()) ? max_lines_[position]
                                                                           : nullptr;
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
    const patterns::OperationVerification* verified = current_verification();
    std::string verdict = verdict_sentence(op);
    if (const std::string runs = verified ? verification_sentence(*verified) : std::string();
        !runs.empty())
        verdict += " " + runs;
    verdict_->setText(QString::fromStdString(verdict));

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
        const bool worst = in_worst_set(static_cast<int>(i));
        // The axis names the codelet by its index (the key below names it in full).
        const QString label = QString::number(c.index) + (marks.isEmpty() ? "" : "<br>" + marks);
        categories_ << label;
        if (i % columns == 0u) names += "<tr>";
        names +=
            QString("<td align='right'><b>%1</b></td><td>%2%3</td>")
                .arg(c.index)
                .arg(html_escaped(c.name))
                .arg((marks.isEmpty() ? ""
                                      : " <i>(" + QString(marks).replace("<br>", " + ") + ")</i>") +
                     (worst
                          ? QString(" <i style='color:%1'>(worst set)</i>").arg(kWorstColor.name())
                          : QString()));
        if (static_cast<int>(i % columns) == columns - 1 || i + 1 == op.codelets.size())
            names += "</tr>";
        codelet_combo_->addItem(QString("%1: %2").arg(c.index).arg(QString::fromStdString(c.name)));
        auto* set = new QBoxSet(c.box.whisker_lo, c.box.q1, c.box.median, c.box.q3,
                                c.box.whisker_hi, label);
        set->setBrush(audit ? kAuditColor : tuner ? kTunerColor : kOtherColor);
        // Flat boxes (a spread of a few per cent) show little fill: the outline carries the
        // winner's colour too.
        // The worst set's outline is red and dashed, whatever the fill says.
        set->setPen(worst   ? QPen(kWorstColor, 2.5, Qt::DashLine)
                    : audit ? QPen(kAuditColor.darker(130), 2.5)
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
    // The verification runs' range and mean of each verified codelet, right of its box.
    verification_ranges_.assign(op.codelets.size(), nullptr);
    verification_means_ = nullptr;
    if (verified) {
        verification_means_ = new QScatterSeries;
        verification_means_->setMarkerShape(QScatterSeries::MarkerShapeRotatedRectangle);
        verification_means_->setMarkerSize(11.0);
        verification_means_->setColor(kVerifiedColor);
        verification_means_->setBorderColor(kVerifiedColor.darker(150));
        for (size_t i = 0; i < op.codelets.size(); ++i) {
            const patterns::VerifiedCodelet* v = verified->codelet(op.codelets[i].index);
            if (!v) continue;
            const double x = static_cast<double>(i) + kVerifiedOffset;
            auto* range = new QLineSeries;
            range->append(x, v->lo);
            range->append(x, v->hi);
            range->setPen(QPen(kVerifiedColor, 4.0, Qt::SolidLine, Qt::FlatCap));
            verification_ranges_[i] = range;
            verification_means_->append(x, v->mean);
            for (double t : {v->lo, v->hi}) {
                low = std::min(low, t);
                high = std::max(high, t);
            }
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
    for (auto* range : verification_ranges_)
        if (range) chart_->addSeries(range);
    if (verification_means_) chart_->addSeries(verification_means_);
    chosen_marker_ = new QScatterSeries;
    chosen_marker_->setMarkerShape(QScatterSeries::MarkerShapeTriangle);
    chosen_marker_->setMarkerSize(16.0);
    chosen_marker_->setColor(kChosenColor);
    chosen_marker_->setBorderColor(kChosenColor.darker(150));
    chart_->addSeries(chosen_marker_);
    auto* x = new QBarCategoryAxis;
    x->append(categories_);
    x->setTitleText(tr("codelet (index; names below)"));
    auto* x_points = new QValueAxis; // the outliers' x: box i sits at i
    x_points->setRange(-0.5, static_cast<double>(op.codelets.size()) - 0.5);
    x_points->setVisible(false);
    auto* y = new QValueAxis;
    const double pad = (high - low) * 0.05 + (high == low ? std::max(1e-9, high * 0.05) : 0.0);
    // A strip below the lowest box for the chosen codelet's mark, which sits inside the plot
    // so that the whole triangle shows.
    const double bottom = std::max(0.0, low - pad - 0.06 * (high - low));
    y->setRange(bottom, high + pad);
    box_floor_ = bottom + 0.03 * (high + pad - bottom);
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
    for (QXYSeries* series : std::initializer_list<QXYSeries*>{verification_means_, chosen_marker_})
        if (series) {
            series->attachAxis(x_points);
            series->attachAxis(y);
        }
    for (auto* range : verification_ranges_)
        if (range) {
            range->attachAxis(x_points);
            range->attachAxis(y);
        }
    connect(boxes_, &QBoxPlotSeries::clicked, this, [this](QBoxSet* set) {
        const int position = boxes_->boxSets().indexOf(set);
        if (position >= 0) codelet_box_clicked(position);
    });
    draw_series(op);
}

void CodeletView::draw_series(const OperationAudit& op) {
    series_chart_->removeAllSeries();
    for (QAbstractAxis* axis : series_chart_->axes()) {
        series_chart_->removeAxis(axis);
        delete axis;
    }
    max_lines_.clear();
    band_ = nullptr;
    series_chart_->setTitle(
        tr("%1: time per measurement, in search order").arg(QString::fromStdString(op.name)));
    series_outliers_ = new QScatterSeries;
    series_outliers_->setMarkerSize(8.0);
    series_outliers_->setColor(kOutlierColor);
    series_outliers_->setBorderColor(kOutlierColor.darker(180));
    std::size_t measurements = 0;
    double low = 0.0, high = 0.0;
    bool first = true;
    for (size_t i = 0; i < op.codelets.size(); ++i) {
        const CodeletAudit& c = op.codelets[i];
        auto* line = new QLineSeries;
        line->setName(QString::number(c.index));
        line->setColor(series_color(i));
        for (size_t m = 0; m < c.samples.size(); ++m)
            line->append(static_cast<double>(m), c.samples[m]);
        // Coloured by cause as in the box plot (a propagated one, a ring there, pale red).
        const std::vector<patterns::BoxOutlierCause> causes = patterns::box_outlier_causes(c);
        for (size_t k = 0; k < c.box.outliers.size(); ++k) {
            const std::size_t m = c.box.outliers[k];
            if (m >= c.samples.size()) continue;
            using Cause = CodeletAudit::OutlierCause;
            const Cause cause = causes[k].cause;
            const QColor colour = cause == Cause::Caused       ? kOutlierColor
                                  : cause == Cause::Propagated ? kOutlierColor.lighter(160)
                                  : cause == Cause::Global     ? kGlobalColor
                                                               : kUnflaggedColor;
            series_outliers_->append(static_cast<double>(m), c.samples[m]);
            series_outliers_->setPointConfiguration(series_outliers_->count() - 1,
                                                    QXYSeries::PointConfiguration::Color, colour);
        }
        measurements = std::max(measurements, c.samples.size());
        for (const std::vector<double>* values : {&c.samples, &c.samples_min})
            for (double v : *values) {
                low = first ? v : std::min(low, v);
                high = first ? v : std::max(high, v);
                first = false;
            }
        const int position = static_cast<int>(i);
        connect(line, &QLineSeries::clicked, this,
                [this, position](const QPointF&) { codelet_combo_changed(position); });
        connect(line, &QLineSeries::hovered, this,
                [this, position](const QPointF& point, bool state) {
                    const OperationAudit* shown = current_operation();
                    if (!state || !shown || position >= static_cast<int>(shown->codelets.size())) {
                        QToolTip::hideText();
                        return;
                    }
                    const CodeletAudit& c = shown->codelets[position];
                    const auto m = static_cast<std::size_t>(std::lround(point.x()));
                    QString tip = tr("codelet %1 (%2)").arg(c.index).arg(html_escaped(c.name));
                    if (m < c.samples.size()) {
                        tip += tr(", measurement %1: %2 s").arg(m).arg(c.samples[m], 0, 'g', 4);
                        if (m < c.samples_min.size())
                            tip += tr(" (fastest process %1 s)").arg(c.samples_min[m], 0, 'g', 4);
                    }
                    QToolTip::showText(QCursor::pos(), tip);
                });
        max_lines_.push_back(line);
        series_chart_->addSeries(line);
    }
    series_chart_->addSeries(series_outliers_);
    auto* x = new QValueAxis;
    // Padded so that a spike at the first or last measurement shows whole.
    const double last = measurements > 1 ? static_cast<double>(measurements - 1) : 1.0;
    x->setRange(-0.03 * last - 0.1, last * 1.03 + 0.1);
    x->setLabelFormat("%.0f");
    x->setTickType(QValueAxis::TicksDynamic);
    x->setTickAnchor(0.0);
    x->setTickInterval(std::max(1.0, std::ceil(static_cast<double>(measurements) / 20.0)));
    x->setTitleText(tr("measurement m (search order)"));
    auto* y = new QValueAxis;
    const double pad = (high - low) * 0.05 + (high == low ? std::max(1e-9, high * 0.05) : 0.0);
    y->setRange(std::max(0.0, low - pad), high + pad);
    y->setTitleText(tr("time per execution [s]"));
    y->setLabelFormat("%.3g");
    series_chart_->addAxis(x, Qt::AlignBottom);
    series_chart_->addAxis(y, Qt::AlignLeft);
    for (QAbstractSeries* series : series_chart_->series()) {
        series->attachAxis(x);
        series->attachAxis(y);
    }
    hide_legend_marker(series_chart_, series_outliers_);
    show_chosen();
}

void CodeletView::show_chosen() {
    const OperationAudit* op = current_operation();
    if (!op) return;
    if (chosen_marker_) {
        chosen_marker_->clear();
        if (codelet_ >= 0) chosen_marker_->append(static_cast<double>(codelet_), box_floor_);
    }
    for (size_t i = 0; i < max_lines_.size(); ++i) {
        QColor color = series_color(i);
        const bool chosen = static_cast<int>(i) == codelet_;
        if (codelet_ >= 0 && !chosen) color.setAlpha(70); // the others step back
        max_lines_[i]->setPen(QPen(color, chosen ? 3.0 : 1.5));
    }
    if (band_) {
        series_chart_->removeSeries(band_);
        delete band_; // with its two lines
        band_ = nullptr;
    }
    const CodeletAudit* c = current_codelet();
    if (!c || c->samples_min.size() != c->samples.size() || c->samples.empty()) return;
    band_ = new QAreaSeries;
    auto* upper = new QLineSeries(band_);
    auto* lower = new QLineSeries(band_);
    for (size_t m = 0; m < c->samples.size(); ++m) {
        upper->append(static_cast<double>(m), c->samples[m]);
        lower->append(static_cast<double>(m), c->samples_min[m]);
    }
    band_->setUpperSeries(upper);
    band_->setLowerSeries(lower);
    QColor fill = series_color(static_cast<std::size_t>(codelet_));
    fill.setAlpha(60);
    band_->setBrush(fill);
    band_->setPen(QPen(fill.darker(120), 1.0, Qt::DotLine));
    series_chart_->addSeries(band_);
    for (QAbstractAxis* axis : series_chart_->axes()) band_->attachAxis(axis);
    hide_legend_marker(series_chart_, band_);
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
    show_chosen();
    emit codeletChosen(*op, op->codelets[position]);
}

} // namespace topolens::gui
