#include "gui/codelet_series_chart.h"

#include "gui/codelet_style.h"
#include "gui/time_axis.h"

#include <QAreaSeries>
#include <QChart>
#include <QCoreApplication>
#include <QLegendMarker>
#include <QLineSeries>
#include <QScatterSeries>
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

// Coloured by cause as in the box plot (a propagated one, a ring there, pale red).
QColor cause_colour(patterns::CodeletAudit::OutlierCause cause) {
    using Cause = patterns::CodeletAudit::OutlierCause;
    return cause == Cause::Caused       ? kOutlierColor
           : cause == Cause::Propagated ? kOutlierColor.lighter(160)
           : cause == Cause::Global     ? kGlobalColor
                                        : kUnflaggedColor;
}

} // namespace

SeriesChart draw_series_chart(QChart* chart, const patterns::OperationAudit& op, bool log_scale) {
    chart->removeAllSeries();
    for (QAbstractAxis* axis : chart->axes()) {
        chart->removeAxis(axis);
        delete axis;
    }
    SeriesChart out;
    chart->setTitle(
        QCoreApplication::translate("CodeletView", "%1: time per measurement, in search order")
            .arg(QString::fromStdString(op.name)));
    out.outliers = new QScatterSeries;
    out.outliers->setMarkerSize(8.0);
    out.outliers->setColor(kOutlierColor);
    out.outliers->setBorderColor(kOutlierColor.darker(180));
    std::size_t measurements = 0;
    double low = 0.0, high = 0.0, positive = std::numeric_limits<double>::infinity();
    bool first = true;
    for (size_t i = 0; i < op.codelets.size(); ++i) {
        const patterns::CodeletAudit& c = op.codelets[i];
        auto* line = new QLineSeries;
        line->setName(QString::number(c.index));
        line->setColor(series_color(i));
        for (size_t m = 0; m < c.samples.size(); ++m)
            line->append(static_cast<double>(m), c.samples[m]);
        const std::vector<patterns::BoxOutlierCause> causes = patterns::box_outlier_causes(c);
        for (size_t k = 0; k < c.box.outliers.size(); ++k) {
            const std::size_t m = c.box.outliers[k];
            if (m >= c.samples.size()) continue;
            out.outliers->append(static_cast<double>(m), c.samples[m]);
            out.outliers->setPointConfiguration(out.outliers->count() - 1,
                                                QXYSeries::PointConfiguration::Color,
                                                cause_colour(causes[k].cause));
        }
        measurements = std::max(measurements, c.samples.size());
        for (const std::vector<double>* values : {&c.samples, &c.samples_min})
            for (double v : *values) {
                low = first ? v : std::min(low, v);
                high = first ? v : std::max(high, v);
                if (v > 0) positive = std::min(positive, v);
                first = false;
            }
        out.lines.push_back(line);
        chart->addSeries(line);
    }
    chart->addSeries(out.outliers);
    auto* x = new QValueAxis;
    // Padded so that a spike at the first or last measurement shows whole.
    const double last = measurements > 1 ? static_cast<double>(measurements - 1) : 1.0;
    x->setRange(-0.03 * last - 0.1, last * 1.03 + 0.1);
    x->setLabelFormat("%.0f");
    x->setTickType(QValueAxis::TicksDynamic);
    x->setTickAnchor(0.0);
    x->setTickInterval(std::max(1.0, std::ceil(static_cast<double>(measurements) / 20.0)));
    x->setTitleText(QCoreApplication::translate("CodeletView", "measurement m (search order)"));
    const double pad = (high - low) * 0.05 + (high == low ? std::max(1e-9, high * 0.05) : 0.0);
    QAbstractAxis* y = log_scale && positive < std::numeric_limits<double>::infinity()
                           ? time_axis(positive, high + pad, true)
                           : time_axis(std::max(0.0, low - pad), high + pad, false);
    y->setTitleText(QCoreApplication::translate("CodeletView", "time per execution [s]"));
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    for (QAbstractSeries* series : chart->series()) {
        series->attachAxis(x);
        series->attachAxis(y);
    }
    hide_legend_marker(chart, out.outliers);
    return out;
}

void show_chosen_series(QChart* chart, SeriesChart& series, const patterns::OperationAudit& op,
                        int chosen) {
    for (size_t i = 0; i < series.lines.size(); ++i) {
        QColor color = series_color(i);
        const bool is_chosen = static_cast<int>(i) == chosen;
        if (chosen >= 0 && !is_chosen) color.setAlpha(70); // the others step back
        series.lines[i]->setPen(QPen(color, is_chosen ? 3.0 : 1.5));
    }
    if (series.band) {
        chart->removeSeries(series.band);
        delete series.band; // with its two lines
        series.band = nullptr;
    }
    if (chosen < 0 || chosen >= static_cast<int>(op.codelets.size())) return;
    const patterns::CodeletAudit& c = op.codelets[chosen];
    if (c.samples_min.size() != c.samples.size() || c.samples.empty()) return;
    auto* band = new QAreaSeries;
    auto* upper = new QLineSeries(band);
    auto* lower = new QLineSeries(band);
    for (size_t m = 0; m < c.samples.size(); ++m) {
        upper->append(static_cast<double>(m), c.samples[m]);
        lower->append(static_cast<double>(m), c.samples_min[m]);
    }
    band->setUpperSeries(upper);
    band->setLowerSeries(lower);
    QColor fill = series_color(static_cast<std::size_t>(chosen));
    fill.setAlpha(60);
    band->setBrush(fill);
    band->setPen(QPen(fill.darker(120), 1.0, Qt::DotLine));
    chart->addSeries(band);
    for (QAbstractAxis* axis : chart->axes()) band->attachAxis(axis);
    hide_legend_marker(chart, band);
    series.band = band;
}

} // namespace topolens::gui
