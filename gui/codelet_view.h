// The codelet view: for one tuned operation of the report's codelet audit, a box plot per
// codelet of its search-phase times (per measurement, the slowest process), outliers as
// points, the tuner's and the audit's winners and the worst set marked, the verdict in words;
// beside it the same times in measurement order (the slowest process's line per codelet, and
// for the chosen codelet the band down to the fastest process). With verification runs, each
// verified codelet's range and mean beside its box. Choosing a codelet (the combo box, its
// box, or its line) selects it in both charts and asks the topology to show that codelet's
// mean time per process. Reads only the report attribute "topolens.audit" (through the audit's
// reader) and the verification runs it is given. The charts are built by
// gui/codelet_box_chart.h and gui/codelet_series_chart.h, the HTML by gui/codelet_summary.h;
// this widget holds the choosers, the choice and the signals.
#pragma once

#include "analyzer/report/report.h"
#include "gui/codelet_audit.h"
#include "gui/codelet_box_chart.h"
#include "gui/codelet_series_chart.h"

#include <QWidget>

#include <optional>
#include <string>
#include <vector>

class QAbstractAxis;
class QAreaSeries;
class QBoxPlotSeries;
class QChart;
class QChartView;
class QCheckBox;
class QComboBox;
class QLabel;
class QLineSeries;
class QScatterSeries;

namespace topolens::gui {

class CodeletView : public QWidget {
    Q_OBJECT
  public:
    explicit CodeletView(QWidget* parent = nullptr);
    // The report must outlive the view (or be replaced before it goes).
    void set_report(const report::Report* report);
    // Verification runs of the report's tuned run (gui/verification_runs.h); nullopt: none.
    // set_report takes those the audit document carries (normally none). Redraws the
    // operation shown, keeping the codelet chosen.
    void set_verification(std::optional<patterns::Verification> verification);

    bool choose_operation(const std::string& name);
    bool choose_codelet(const std::string& name);

    // What is shown (for tests and the window).
    bool has_audit() const { return audit_.has_value() && !audit_->operations.empty(); }
    const OperationAudit* current_operation() const;
    const CodeletAudit* current_codelet() const;
    int box_count() const;
    int outlier_point_count() const;
    // Outlier points by what the audit found there (patterns::box_outlier_causes).
    int outlier_point_count(CodeletAudit::OutlierCause cause) const;
    QString verdict_text() const;
    QString search_text() const;
    // The category label under box `position`, and the key's text (index -> codelet name).
    QString category_label(int position) const;
    QString names_text() const;
    QString message_text() const;
    QChart* chart() const { return chart_; }
    QChartView* chart_view() const { return chart_view_; }
    QBoxPlotSeries* box_series() const { return box_chart_.boxes; }
    // The box chart's time axis: a QValueAxis with round ticks, or with the "log scale" box
    // ticked a QLogValueAxis by decades (gui/time_axis.h). nullptr without an audit.
    QAbstractAxis* time_axis() const { return box_chart_.time_axis; }
    bool log_scale() const;
    void set_log_scale(bool on); // as the check box does: redraws, keeping the choice
    // The codelet chosen, by position in the operation's codelets; -1: none.
    int chosen_position() const { return codelet_; }
    // The box chart's mark under the chosen codelet's box (empty without a choice).
    QScatterSeries* chosen_marker() const { return box_chart_.chosen_marker; }
    // In the worst set: the verification's when runs verified the operation, else the audit's.
    bool in_worst_set(int position) const;

    // The verification runs of the operation shown; nullptr when none ran it.
    const patterns::OperationVerification* current_verification() const;
    // The verified codelet's range beside box `position` (two points: x, lo and x, hi);
    // nullptr when it was not verified. The means of all verified codelets: one point each.
    QLineSeries* verification_range(int position) const;
    QScatterSeries* verification_means() const { return box_chart_.verification_means; }

    // The measurement series: per codelet (position) its samples by measurement m, the chosen
    // codelet's band (upper: samples, lower: samples_min; nullptr without a choice or without
    // samples_min) and the box plot's outliers at their measurement.
    QChart* series_chart() const { return series_chart_; }
    QChartView* series_chart_view() const { return series_view_; }
    QLineSeries* max_line(int position) const;
    QAreaSeries* band() const { return series_.band; }
    QScatterSeries* series_outliers() const { return series_.outliers; }

  signals:
    // The user chose a codelet of an operation: colour the topology by it.
    void codeletChosen(const topolens::patterns::OperationAudit& operation,
                       const topolens::patterns::CodeletAudit& codelet);

  private:
    void show_operation(int index);
    void redraw_keeping_choice(); // the operation shown again, the codelet still chosen
    void codelet_box_clicked(int position);
    void codelet_combo_changed(int position);
    void show_chosen(); // the choice in both charts
    void draw_series(const OperationAudit& op);

    std::optional<Audit> audit_;
    std::optional<patterns::Verification> verification_;
    std::vector<uint32_t> ranks_; // by location, for the outliers' hover text
    int operation_ = -1;
    int codelet_ = -1; // position in the operation's codelets
    QComboBox* operation_combo_;
    QComboBox* codelet_combo_;
    QCheckBox* log_scale_;
    QLabel* verdict_;
    QLabel* search_;
    QLabel* names_;
    QLabel* message_;
    QLabel* key_;
    QWidget* charts_; // both charts, side by side
    QChartView* chart_view_;
    QChart* chart_;
    QChartView* series_view_;
    QChart* series_chart_;
    BoxChart box_chart_; // the box chart's series, labels and axis
    SeriesChart series_; // the measurement series' lines, outliers and band
};

} // namespace topolens::gui
