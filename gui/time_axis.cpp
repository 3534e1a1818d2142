#include "gui/time_axis.h"

#include <QLogValueAxis>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace topolens::gui {

RoundTicks round_ticks(double low, double high, int max_ticks) {
    // Nothing finite to show (a document's null times): the default 0 .. 1.
    if (!std::isfinite(low) || !std::isfinite(high) || !std::isfinite(high - low))
        return RoundTicks{};
    if (high < low) std::swap(low, high);
    if (high == low) { // a flat range: one step around it
        const double half = std::max(std::abs(high) * 0.05, 1e-12);
        low -= half;
        high += half;
    }
    max_ticks = std::max(max_ticks, 2);
    const double rough = (high - low) / (max_ticks - 1);
    double base = std::pow(10.0, std::floor(std::log10(rough)));
    for (;; base *= 10.0)
        for (const double f : {1.0, 2.0, 5.0}) {
            const double step = f * base;
            const double first = std::floor(low / step + 1e-9);
            const double last = std::ceil(high / step - 1e-9);
            if (last - first + 1 <= max_ticks) {
                RoundTicks t;
                t.step = step;
                // Multiples of the step, so that the ends print as round numbers too.
                t.min = first * step;
                t.max = last * step;
                t.count = static_cast<int>(std::lround(last - first)) + 1;
                return t;
            }
        }
}

Decades decades(double low, double high) {
    Decades d;
    if (!(low > 0) || !std::isfinite(low) || !std::isfinite(high)) return d; // 1 .. 10
    d.min = std::pow(10.0, std::floor(std::log10(low) + 1e-9));
    d.max = std::pow(10.0, std::ceil(std::log10(high) - 1e-9));
    if (d.max <= d.min) d.max = d.min * 10.0;
    return d;
}

QAbstractAxis* time_axis(double low, double high, bool log_scale) {
    if (log_scale) {
        auto* axis = new QLogValueAxis;
        axis->setBase(10.0);
        const Decades d = decades(low, high);
        axis->setRange(d.min, d.max);
        axis->setLabelFormat("%g");
        axis->setMinorTickCount(8); // 2 ... 9 times each decade
        return axis;
    }
    auto* axis = new QValueAxis;
    const RoundTicks t = round_ticks(low, high);
    axis->setRange(t.min, t.max);
    axis->setTickType(QValueAxis::TicksFixed);
    axis->setTickCount(t.count);
    axis->setLabelFormat("%.3g");
    return axis;
}

double axis_fraction(double min, double max, double fraction, bool log_scale) {
    return log_scale ? min * std::pow(max / min, fraction) : min + fraction * (max - min);
}

} // namespace topolens::gui
