// The codelet view's measurement series: per codelet a line through its search measurements
// m = 0..n-1 (the slowest process, the audit's `samples`), the box plot's outliers as dots on
// their spikes coloured by cause, the chosen codelet's line bold with a band down to the
// fastest process (`samples_min`). Builds the series and axes into a chart; the view connects
// the lines to clicks and hover text.
#pragma once

#include "patterns/audit/codelet_audit.h"

#include <vector>

class QAreaSeries;
class QChart;
class QLineSeries;
class QScatterSeries;

namespace topolens::gui {

struct SeriesChart {
    std::vector<QLineSeries*> lines; // by position
    QScatterSeries* outliers = nullptr;
    QAreaSeries* band = nullptr; // the chosen codelet's, nullptr without one
};

// Empties `chart` (series and axes) and draws the operation's lines into it; the time axis as
// the box chart's (round ticks, or decades with `log_scale`).
SeriesChart draw_series_chart(QChart* chart, const patterns::OperationAudit& op, bool log_scale);

// The choice `chosen` (position, -1: none) in the lines and the band: its line bold, the
// others pale, its band drawn (where it has samples_min for every sample).
void show_chosen_series(QChart* chart, SeriesChart& series, const patterns::OperationAudit& op,
                        int chosen);

} // namespace topolens::gui
