#include "gui/codelet_summary.h"

#include "gui/codelet_style.h"

#include <QCoreApplication>
#include <QStringList>

#include <set>

namespace topolens::gui {

using namespace codelet_style;

namespace {

QString tr(const char* text) {
    return QCoreApplication::translate("CodeletView", text);
}

QString html_escaped(const std::string& text) {
    return QString::fromStdString(text).toHtmlEscaped();
}

} // namespace

QString winner_marks(const patterns::OperationAudit& op, const patterns::CodeletAudit& c) {
    const bool tuner = op.tuner_winner && *op.tuner_winner == c.index;
    const bool audit = op.best && *op.best == c.index;
    return tuner && audit ? QStringLiteral("tuner<br>audit")
           : tuner        ? QStringLiteral("tuner")
           : audit        ? QStringLiteral("audit")
                          : QString();
}

QString category_label(const patterns::OperationAudit& op, const patterns::CodeletAudit& c) {
    // The axis names the codelet by its index (the names table names it in full).
    const QString marks = winner_marks(op, c);
    return QString::number(c.index) + (marks.isEmpty() ? "" : "<br>" + marks);
}

QString names_table(const patterns::OperationAudit& op, const std::vector<bool>& worst) {
    QString names;
    const int columns = op.codelets.size() > 8 ? 4 : 3;
    for (size_t i = 0; i < op.codelets.size(); ++i) {
        const patterns::CodeletAudit& c = op.codelets[i];
        const QString marks = winner_marks(op, c);
        if (i % columns == 0u) names += "<tr>";
        names +=
            QString("<td align='right'><b>%1</b></td><td>%2%3</td>")
                .arg(c.index)
                .arg(html_escaped(c.name))
                .arg((marks.isEmpty() ? ""
                                      : " <i>(" + QString(marks).replace("<br>", " + ") + ")</i>") +
                     (i < worst.size() && worst[i]
                          ? QString(" <i style='color:%1'>(worst set)</i>").arg(kWorstColor.name())
                          : QString()));
        if (static_cast<int>(i % columns) == columns - 1 || i + 1 == op.codelets.size())
            names += "</tr>";
    }
    return "<table cellspacing='0' cellpadding='1' style='margin-left:20px'>"
           "<tr><td colspan='8'>Codelets by index:</td></tr>" +
           names + "</table>";
}

QString chart_key() {
    return tr("<span style='background:%1'>&nbsp;&nbsp;&nbsp;&nbsp;</span> tuner's choice &nbsp; "
              "<span style='background:%2'>&nbsp;&nbsp;&nbsp;&nbsp;</span> audit's winner &nbsp; "
              "(both: green, labelled tuner and audit). Outliers: "
              "<span style='color:%3'>&#9679;</span> slow in a process itself &nbsp; "
              "<span style='color:%3'>&#9675;</span> propagated (its processes were waiting for "
              "others) &nbsp; <span style='color:%5'>&#9679;</span> slow on most processes at "
              "once (the whole run) &nbsp; <span style='color:%4'>&#9679;</span> beyond the "
              "whiskers, dropped by no filter. Each box: quartiles and median of the search-phase "
              "times per "
              "measurement (slowest process), whiskers 1.5 IQR. "
              "<span style='color:%6'><b>- - -</b></span> red dashed outline: the worst set (the "
              "slowest and every codelet whose range overlaps it; with verification runs, "
              "theirs). "
              "<span style='color:%7'><b>|</b> &#9670;</span> verification runs' range and mean "
              "of "
              "a verified codelet. Right: each codelet's time per measurement in search order "
              "(slowest process); the chosen codelet's band reaches down to its fastest process. "
              "Click a box or a line to choose a codelet (<span style='color:%8'>&#9650;</span>) "
              "and colour the topology.")
        .arg(kTunerColor.name(), kAuditColor.name(), kOutlierColor.name(), kUnflaggedColor.name(),
             kGlobalColor.name(), kWorstColor.name(), kVerifiedColor.name(), kChosenColor.name());
}

QString outlier_tip(const patterns::CodeletAudit& c, std::size_t k,
                    const patterns::BoxOutlierCause& cause, const std::vector<uint32_t>& ranks) {
    using Cause = patterns::CodeletAudit::OutlierCause;
    const std::size_t m = c.box.outliers[k];
    QString tip =
        tr("codelet %1, measurement %2: %3 s").arg(c.index).arg(m).arg(c.samples[m], 0, 'g', 4);
    if (cause.cause == Cause::Caused) {
        std::set<uint32_t> slow; // ascending
        for (const uint32_t l : cause.locations) slow.insert(l < ranks.size() ? ranks[l] : l);
        QStringList rank_list;
        for (const uint32_t r : slow) rank_list << QString::number(r);
        tip += tr("; slow by itself on rank %1").arg(rank_list.join(", "));
    } else if (cause.cause == Cause::Propagated) {
        tip += tr("; propagated: the processes flagged there were waiting for others");
    } else if (cause.cause == Cause::Global) {
        tip += tr("; slow on most processes at once: the whole run was disturbed");
    } else {
        tip += tr("; no filter of the audit dropped it");
    }
    return tip;
}

QString measurement_tip(const patterns::CodeletAudit& c, std::size_t m) {
    QString tip = tr("codelet %1 (%2)").arg(c.index).arg(html_escaped(c.name));
    if (m < c.samples.size()) {
        tip += tr(", measurement %1: %2 s").arg(m).arg(c.samples[m], 0, 'g', 4);
        if (m < c.samples_min.size())
            tip += tr(" (fastest process %1 s)").arg(c.samples_min[m], 0, 'g', 4);
    }
    return tip;
}

} // namespace topolens::gui
