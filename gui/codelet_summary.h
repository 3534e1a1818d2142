// The codelet view's words in HTML: the box chart's category labels, the table naming the
// codelets by index, the key of the charts' marks and the hover text of outliers and lines.
#pragma once

#include "patterns/audit/codelet_audit.h"

#include <QString>

#include <cstdint>
#include <vector>

namespace topolens::gui {

// "tuner", "audit" or both ("tuner<br>audit"), empty for any other codelet.
QString winner_marks(const patterns::OperationAudit& op, const patterns::CodeletAudit& c);
// Under box `c`: its index, and its winner marks on a line of their own.
QString category_label(const patterns::OperationAudit& op, const patterns::CodeletAudit& c);
// The table "Codelets by index": index, name, winner marks and "(worst set)" where
// worst[position].
QString names_table(const patterns::OperationAudit& op, const std::vector<bool>& worst);
// What the colours and marks of both charts mean.
QString chart_key();
// Hover text of the box plot's outlier k of `c` (box_outliers order): codelet, measurement,
// time and what the audit found there; `ranks` by location names the processes.
QString outlier_tip(const patterns::CodeletAudit& c, std::size_t k,
                    const patterns::BoxOutlierCause& cause, const std::vector<uint32_t>& ranks);

// Hover text of measurement m on codelet c's line: its time and the fastest process's.
QString measurement_tip(const patterns::CodeletAudit& c, std::size_t m);

} // namespace topolens::gui
