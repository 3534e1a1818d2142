#include "gui/codelet_view.h"

#include "gui/codelet_style.h"
#include "gui/codelet_summary.h"
#include "gui/time_axis.h"

#include <QAreaSeries>
#include <QBoxPlotSeries>
#include <QBoxSet>
#include <QChart>
#include <QChartView>
#include <QCheckBox>
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
#include <limits>

namespace topolens::gui {

using namespace codelet_style;

namespace {

void hide_legend_marker(QChart* chart, QAbstractSeries* series) {
    for (QLegendMarker* marker : chart->legend()->markers(series)) marker->setVisible(false);
}

QString html_escaped(const std::string& text) {
    return QString::fromStdString(text).toHtmlEscaped();
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
    choosers->addSpacing(20);
    // Times that span orders of magnitude (a slow codelet beside fast ones) on decades.
    log_scale_ = new QCheckBox(tr("log scale"));
    log_scale_->setObjectName("log scale");
    choosers->addWidget(log_scale_);
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
    key_->setText(chart_key());
    layout->addWidget(key_);
    connect(operation_combo_, &QComboBox::currentIndexChanged, this,
            [this](int index) { show_operation(index); });
    connect(codelet_combo_, &QComboBox::activated, this,
            [this](int index) { codelet_combo_changed(index); });
    connect(log_scale_, &QCheckBox::toggled, this, [this] { redraw_keeping_choice(); });
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
        box_chart_ = BoxChart{};
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
    redraw_keeping_choice();
}

void CodeletView::redraw_keeping_choice() {
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

bool CodeletView::log_scale() const {
    return log_scale_->isChecked();
}
void CodeletView::set_log_scale(bool on) {
    log_scale_->setChecked(on);
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
    return position >= 0 && position < static_cast<int>(box_chart_.verification_ranges.size())
               ? box_chart_.verification_ranges[position]
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
    return box_chart_.boxes ? box_chart_.boxes->count() : 0;
}
int CodeletView::outlier_point_count() const {
    int count = 0;
    for (const auto* series : box_chart_.outliers) count += series ? series->count() : 0;
    return count;
}
int CodeletView::outlier_point_count(CodeletAudit::OutlierCause cause) const {
    const auto* series = box_chart_.outliers[static_cast<int>(cause)];
    return series ? series->count() : 0;
}
QString CodeletView::verdict_text() const {
    return verdict_->text();
}
QString CodeletView::search_text() const {
    return search_->text();
}
QString CodeletView::category_label(int position) const {
    const QStringList& labels = box_chart_.categories;
    return position >= 0 && position < labels.size() ? labels[position] : QString();
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
    const std::string search = search_sentence(op);
    search_->setText(QString::fromStdString(search));
    search_->setVisible(!search.empty());

    BoxChartInput input;
    input.op = &op;
    input.verified = verified;
    input.ranks = ranks_;
    input.log_scale = log_scale();
    for (std::size_t i = 0; i < op.codelets.size(); ++i)
        input.worst.push_back(in_worst_set(static_cast<int>(i)));
    box_chart_ = draw_box_chart(chart_, input);
    for (int k = 0; k < CodeletAudit::kOutlierCauses; ++k)
        connect(box_chart_.outliers[k], &QScatterSeries::hovered, this,
                [this, k](const QPointF& point, bool state) {
                    const QScatterSeries* series = box_chart_.outliers[k];
                    const int at = series ? series->points().indexOf(point) : -1;
                    if (state && at >= 0 && at < box_chart_.outlier_tips[k].size())
                        QToolTip::showText(QCursor::pos(), box_chart_.outlier_tips[k][at]);
                    else
                        QToolTip::hideText();
                });
    connect(box_chart_.boxes, &QBoxPlotSeries::clicked, this, [this](QBoxSet* set) {
        const int position = box_chart_.boxes->boxSets().indexOf(set);
        if (position >= 0) codelet_box_clicked(position);
    });
    names_->setText(names_table(op, input.worst));

    const QSignalBlocker block(codelet_combo_);
    codelet_combo_->clear();
    for (const CodeletAudit& c : op.codelets)
        codelet_combo_->addItem(QString("%1: %2").arg(c.index).arg(QString::fromStdString(c.name)));
    codelet_combo_->setCurrentIndex(-1); // nothing chosen yet: the placeholder shows
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
    double low = 0.0, high = 0.0, positive = std::numeric_limits<double>::infinity();
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
                if (v > 0) positive = std::min(positive, v);
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
    // The same time scale as the box chart: round ticks, or decades with "log scale".
    const double pad = (high - low) * 0.05 + (high == low ? std::max(1e-9, high * 0.05) : 0.0);
    QAbstractAxis* y = log_scale() && positive < std::numeric_limits<double>::infinity()
                           ? gui::time_axis(positive, high + pad, true)
                           : gui::time_axis(std::max(0.0, low - pad), high + pad, false);
    y->setTitleText(tr("time per execution [s]"));
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
    if (QScatterSeries* marker = box_chart_.chosen_marker) {
        marker->clear();
        if (codelet_ >= 0) marker->append(static_cast<double>(codelet_), box_chart_.floor);
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
