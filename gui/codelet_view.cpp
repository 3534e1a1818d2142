#include "gui/codelet_view.h"

#include "gui/codelet_series_chart.h"
#include "gui/codelet_summary.h"

#include <QBoxPlotSeries>
#include <QBoxSet>
#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QComboBox>
#include <QCursor>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineSeries>
#include <QScatterSeries>
#include <QToolTip>
#include <QVBoxLayout>

#include <cmath>

namespace topolens::gui {

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
        series_ = SeriesChart{};
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
    const std::vector<QLineSeries*>& lines = series_.lines;
    return position >= 0 && position < static_cast<int>(lines.size()) ? lines[position] : nullptr;
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
    series_ = draw_series_chart(series_chart_, op, log_scale());
    for (size_t i = 0; i < series_.lines.size(); ++i) {
        const int position = static_cast<int>(i);
        connect(series_.lines[i], &QLineSeries::clicked, this,
                [this, position](const QPointF&) { codelet_combo_changed(position); });
        connect(series_.lines[i], &QLineSeries::hovered, this,
                [this, position](const QPointF& point, bool state) {
                    const OperationAudit* shown = current_operation();
                    if (!state || !shown || position >= static_cast<int>(shown->codelets.size())) {
                        QToolTip::hideText();
                        return;
                    }
                    const auto m = static_cast<std::size_t>(std::lround(point.x()));
                    QToolTip::showText(QCursor::pos(),
                                       measurement_tip(shown->codelets[position], m));
                });
    }
    show_chosen();
}

void CodeletView::show_chosen() {
    const OperationAudit* op = current_operation();
    if (!op) return;
    if (QScatterSeries* marker = box_chart_.chosen_marker) {
        marker->clear();
        if (codelet_ >= 0) marker->append(static_cast<double>(codelet_), box_chart_.floor);
    }
    show_chosen_series(series_chart_, series_, *op, codelet_);
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
