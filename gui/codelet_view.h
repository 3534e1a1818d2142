// The codelet view: for one tuned operation of the report's codelet audit, a box plot per
// codelet of its search-phase times (per measurement, the slowest process), outliers as
// points, the tuner's and the audit's winners marked and the verdict in words. Choosing a
// codelet (the combo box, or clicking its box) asks the topology to show that codelet's
// mean time per process. Reads only the report attribute "topolens.audit".
#pragma once

#include "analyzer/report/report.h"
#include "gui/codelet_audit.h"

#include <QWidget>

#include <optional>
#include <string>
#include <vector>

class QBoxPlotSeries;
class QChart;
class QChartView;
class QComboBox;
class QLabel;
class QScatterSeries;

namespace topolens::gui {

class CodeletView : public QWidget {
    Q_OBJECT
  public:
    explicit CodeletView(QWidget* parent = nullptr);
    // The report must outlive the view (or be replaced before it goes).
    void set_report(const report::Report* report);

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
    QBoxPlotSeries* box_series() const { return boxes_; }

  signals:
    // The user chose a codelet of an operation: colour the topology by it.
    void codeletChosen(const topolens::patterns::OperationAudit& operation,
                       const topolens::patterns::CodeletAudit& codelet);

  private:
    void show_operation(int index);
    void codelet_box_clicked(int position);
    void codelet_combo_changed(int position);

    std::optional<Audit> audit_;
    std::vector<uint32_t> ranks_; // by location, for the outliers' hover text
    int operation_ = -1;
    int codelet_ = -1; // position in the operation's codelets
    QComboBox* operation_combo_;
    QComboBox* codelet_combo_;
    QLabel* verdict_;
    QLabel* search_;
    QLabel* names_;
    QLabel* message_;
    QLabel* key_;
    QChartView* chart_view_;
    QChart* chart_;
    QBoxPlotSeries* boxes_ = nullptr;
    QScatterSeries* outliers_[CodeletAudit::kOutlierCauses] = {}; // by OutlierCause
    QStringList categories_;
    QStringList outlier_tips_[CodeletAudit::kOutlierCauses]; // hover text per point, by series
};

} // namespace topolens::gui
