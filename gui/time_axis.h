// The codelet charts' time axis (seconds): linear with round ticks, or logarithmic by
// decades for times that span orders of magnitude.
#pragma once

class QAbstractAxis;

namespace topolens::gui {

// Ticks of a linear axis over at least [low, high]: the step is 1, 2 or 5 times a power of
// ten, the smallest that needs at most `max_ticks` ticks, and the range is widened to whole
// steps (min = floor(low / step) * step, max = ceil(high / step) * step). Not finite: 0 .. 1.
struct RoundTicks {
    double min = 0, max = 1, step = 1;
    int count = 2; // ticks from min to max, both included
};
RoundTicks round_ticks(double low, double high, int max_ticks = 8);

// Decades of a log axis over [low, high] (low > 0): 10^floor(log10 low) to 10^ceil(log10 high),
// at least one decade; 1 .. 10 when low is not > 0 or either is not finite.
struct Decades {
    double min = 1, max = 10;
};
Decades decades(double low, double high);

// A value axis over [low, high] with round ticks, or a base-10 log axis over its decades
// (`log_scale`; low must be > 0). The caller owns it (QChart::addAxis takes it).
QAbstractAxis* time_axis(double low, double high, bool log_scale);

// A point `fraction` of the way up an axis from `min` to `max`, linear or logarithmic.
double axis_fraction(double min, double max, double fraction, bool log_scale);

} // namespace topolens::gui
