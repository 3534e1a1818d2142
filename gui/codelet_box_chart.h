// The codelet view's box chart: for one tuned operation a box per codelet (whiskers, quartiles,
// median of its search-phase times), its outliers coloured by what the audit found there, the
// winners' and the worst set's colours, the verification runs' range and mean beside each
// verified codelet, and a mark for the chosen codelet. Builds the series and axes into a
// chart; the view connects them to clicks and hover text.
#pragma once

#include "patterns/audit/codelet_audit.h"
#include "patterns/audit/verification.h"

#include <QStringList>

#include <cstdint>
#include <vector>

class QAbstractAxis;
class QBoxPlotSeries;
class QChart;
class QLineSeries;
class QScatterSeries;

namespace topolens::gui {

struct BoxChartInput {
    const patterns::OperationAudit* op = nullptr;
    const patterns::OperationVerification* verified = nullptr; // nullptr: no runs
    std::vector<bool> worst;                                   // by position: in the worst set
    std::vector<uint32_t> ranks;                               // by location, for hover text
    bool log_scale = false; // the time axis logarithmic (decades) instead of linear
};

struct BoxChart {
    QBoxPlotSeries* boxes = nullptr;
    QScatterSeries* outliers[patterns::CodeletAudit::kOutlierCauses] = {}; // by OutlierCause
    QStringList outlier_tips[patterns::CodeletAudit::kOutlierCauses];      // per point
    std::vector<QLineSeries*> verification_ranges; // by position, nullptr: not verified
    QScatterSeries* verification_means = nullptr;
    QScatterSeries* chosen_marker = nullptr;
    QStringList categories; // the labels under the boxes
    QAbstractAxis* time_axis = nullptr;
    double floor = 0; // where the chosen marker sits: a strip below the lowest box
};

// Empties `chart` (series and axes) and draws the operation into it.
BoxChart draw_box_chart(QChart* chart, const BoxChartInput& input);

} // namespace topolens::gui
