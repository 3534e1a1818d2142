#include "gui/codelet_box_chart.h"

#include "gui/codelet_style.h"
#include "gui/codelet_summary.h"
#include "gui/time_axis.h"

#include <QBarCategoryAxis>
#include <QBoxPlotSeries>
#include <QBoxSet>
#include <QChart>
#include <QCoreApplication>
#include <QLineSeries>
#include <QScatterSeries>
#include <QValueAxis>

#include <algorithm>
#include <initializer_list>
#include <limits>

namespace topolens::gui {

using namespace codelet_style;
using Cause = patterns::CodeletAudit::OutlierCause;

namespace {

// Where a verified codelet's range stands: right of its box (boxes are 0.5 wide).
constexpr double kVerifiedOffset = 0.36;

QScatterSeries* outlier_series(int cause) {
    auto* series = new QScatterSeries;
    series->setMarkerSize(cause == static_cast<int>(Cause::Unflagged) ? 7.0 : 9.0);
    if (cause == static_cast<int>(Cause::Propagated)) { // a ring: hollow
        series->setColor(Qt::transparent);
        series->setBorderColor(kOutlierColor);
        series->setPen(QPen(kOutlierColor, 2.0));
    } else {
        const QColor fill = cause == static_cast<int>(Cause::Caused)   ? kOutlierColor
                            : cause == static_cast<int>(Cause::Global) ? kGlobalColor
                                                                       : kUnflaggedColor;
        series->setColor(fill);
        series->setBorderColor(fill.darker(180));
    }
    return series;
}

QBoxSet* box_set(const patterns::OperationAudit& op, const patterns::CodeletAudit& c, bool worst,
                 const QString& label) {
    const bool tuner = op.tuner_winner && *op.tuner_winner == c.index;
    const bool audit = op.best && *op.best == c.index;
    auto* set =
        new QBoxSet(c.box.whisker_lo, c.box.q1, c.box.median, c.box.q3, c.box.whisker_hi, label);
    set->setBrush(audit ? kAuditColor : tuner ? kTunerColor : kOtherColor);
    // Flat boxes (a spread of a few per cent) show little fill: the outline carries the
    // winner's colour too. The worst set's outline is red and dashed, whatever the fill says.
    set->setPen(worst   ? QPen(kWorstColor, 2.5, Qt::DashLine)
                : audit ? QPen(kAuditColor.darker(130), 2.5)
                : tuner ? QPen(kTunerColor.darker(115), 2.5)
                        : QPen(QColor(40, 40, 40), 1));
    return set;
}

} // namespace

BoxChart draw_box_chart(QChart* chart, const BoxChartInput& in) {
    const patterns::OperationAudit& op = *in.op;
    chart->removeAllSeries();
    for (QAbstractAxis* axis : chart->axes()) {
        chart->removeAxis(axis);
        delete axis;
    }
    BoxChart out;
    out.boxes = new QBoxPlotSeries;
    for (int k = 0; k < patterns::CodeletAudit::kOutlierCauses; ++k)
        out.outliers[k] = outlier_series(k);
    // The time range shown, and the lowest positive time (a log axis starts above 0).
    double low = 0.0, high = 0.0, positive = std::numeric_limits<double>::infinity();
    bool first = true;
    const auto extend = [&](double v) {
        low = first ? v : std::min(low, v);
        high = first ? v : std::max(high, v);
        if (v > 0) positive = std::min(positive, v);
        first = false;
    };
    for (size_t i = 0; i < op.codelets.size(); ++i) {
        const patterns::CodeletAudit& c = op.codelets[i];
        const QString label = category_label(op, c);
        out.categories << label;
        out.boxes->append(box_set(op, c, i < in.worst.size() && in.worst[i], label));
        const std::vector<patterns::BoxOutlierCause> causes = patterns::box_outlier_causes(c);
        for (size_t k = 0; k < c.box.outliers.size(); ++k) {
            const Cause cause = causes[k].cause;
            // Side by side, so that a ring and a dot at the same height stay apart.
            const double shift = cause == Cause::Caused       ? -0.12
                                 : cause == Cause::Propagated ? 0.12
                                                              : 0.0;
            out.outliers[static_cast<int>(cause)]->append(static_cast<double>(i) + shift,
                                                          c.samples[c.box.outliers[k]]);
            out.outlier_tips[static_cast<int>(cause)].push_back(
                outlier_tip(c, k, causes[k], in.ranks));
        }
        for (double v : {c.box.min, c.box.max, c.box.whisker_lo, c.box.whisker_hi}) extend(v);
    }
    // The verification runs' range and mean of each verified codelet, right of its box.
    out.verification_ranges.assign(op.codelets.size(), nullptr);
    if (in.verified) {
        out.verification_means = new QScatterSeries;
        out.verification_means->setMarkerShape(QScatterSeries::MarkerShapeRotatedRectangle);
        out.verification_means->setMarkerSize(11.0);
        out.verification_means->setColor(kVerifiedColor);
        out.verification_means->setBorderColor(kVerifiedColor.darker(150));
        for (size_t i = 0; i < op.codelets.size(); ++i) {
            const patterns::VerifiedCodelet* v = in.verified->codelet(op.codelets[i].index);
            if (!v) continue;
            const double x = static_cast<double>(i) + kVerifiedOffset;
            auto* range = new QLineSeries;
            range->append(x, v->lo);
            range->append(x, v->hi);
            range->setPen(QPen(kVerifiedColor, 4.0, Qt::SolidLine, Qt::FlatCap));
            out.verification_ranges[i] = range;
            out.verification_means->append(x, v->mean);
            for (double t : {v->lo, v->hi}) extend(t);
        }
    }
    chart->setTitle(QCoreApplication::translate("CodeletView",
                                                "%1: search-phase time per measurement, by codelet")
                        .arg(QString::fromStdString(op.name)));
    chart->addSeries(out.boxes);
    for (auto* series : out.outliers) chart->addSeries(series);
    for (auto* range : out.verification_ranges)
        if (range) chart->addSeries(range);
    if (out.verification_means) chart->addSeries(out.verification_means);
    out.chosen_marker = new QScatterSeries;
    out.chosen_marker->setMarkerShape(QScatterSeries::MarkerShapeTriangle);
    out.chosen_marker->setMarkerSize(16.0);
    out.chosen_marker->setColor(kChosenColor);
    out.chosen_marker->setBorderColor(kChosenColor.darker(150));
    chart->addSeries(out.chosen_marker);

    auto* x = new QBarCategoryAxis;
    x->append(out.categories);
    x->setTitleText(QCoreApplication::translate("CodeletView", "codelet (index; names below)"));
    auto* x_points = new QValueAxis; // the outliers' x: box i sits at i
    x_points->setRange(-0.5, static_cast<double>(op.codelets.size()) - 0.5);
    x_points->setVisible(false);
    // Without a positive time there is nothing a log axis could show.
    const bool log_scale = in.log_scale && positive < std::numeric_limits<double>::infinity();
    double bottom = 0, top = 0;
    if (log_scale) {
        // Room below the lowest box for the chosen codelet's mark, as on the linear axis.
        const Decades d = decades(0.9 * positive, high);
        bottom = d.min;
        top = d.max;
    } else {
        const double pad = (high - low) * 0.05 + (high == low ? std::max(1e-9, high * 0.05) : 0.0);
        // A strip below the lowest box for the chosen codelet's mark, which sits inside the
        // plot so that the whole triangle shows.
        const RoundTicks t =
            round_ticks(std::max(0.0, low - pad - 0.06 * (high - low)), high + pad);
        bottom = t.min;
        top = t.max;
    }
    out.time_axis = time_axis(bottom, top, log_scale);
    out.floor = axis_fraction(bottom, top, 0.03, log_scale);
    out.time_axis->setTitleText(
        QCoreApplication::translate("CodeletView", "time per execution [s] (slowest process)"));
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(x_points, Qt::AlignBottom);
    chart->addAxis(out.time_axis, Qt::AlignLeft);
    out.boxes->attachAxis(x);
    out.boxes->attachAxis(out.time_axis);
    std::vector<QAbstractSeries*> at_points(std::begin(out.outliers), std::end(out.outliers));
    at_points.push_back(out.chosen_marker);
    if (out.verification_means) at_points.push_back(out.verification_means);
    for (auto* range : out.verification_ranges)
        if (range) at_points.push_back(range);
    for (QAbstractSeries* series : at_points) {
        series->attachAxis(x_points);
        series->attachAxis(out.time_axis);
    }
    return out;
}

} // namespace topolens::gui
