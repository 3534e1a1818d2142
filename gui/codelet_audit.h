// The codelet audit as the GUI reads it: the JSON document the analysis stores in the
// report's attribute "topolens.audit" (schema: patterns/audit/AUDIT_FORMAT.md). Only what the
// codelet view and the topology need is kept.
#pragma once

#include "analyzer/report/report.h"

#include <optional>
#include <string>
#include <vector>

namespace topolens::gui {

struct AuditBox {
    double min = 0, q1 = 0, median = 0, q3 = 0, max = 0, whisker_lo = 0, whisker_hi = 0;
};

struct AuditCodelet {
    int index = -1;
    std::string name;
    int processes = 0, measurements = 0;
    std::vector<double> samples; // per measurement: max over processes
    AuditBox box;
    std::vector<int> box_outliers; // indices into samples
    // Per box outlier (same order): what the audit's filters found at that measurement.
    // Caused: slow by itself on some process; Propagated: its processes were waiting for
    // others; Global: slow on most processes at once (the whole run was disturbed);
    // Unflagged: beyond the whiskers, dropped by no filter.
    enum class OutlierCause { Caused, Propagated, Global, Unflagged };
    static constexpr int kOutlierCauses = 4;
    std::vector<OutlierCause> box_outlier_causes;
    std::vector<std::vector<int>> box_outlier_ranks; // the ranks that caused it (Caused)
    bool winner_set = false;
    std::string stability;
    // By report location; nullopt where the location ran no search-phase measurement.
    std::vector<std::optional<double>> per_process_mean;
};

struct AuditOperation {
    std::string name;
    std::string verdict; // confirmed | questionable | wrong | undecided
    std::string reason;
    std::optional<int> tuner_winner; // codelet index
    std::string tuner_winner_name;
    std::optional<int> best; // the audit's winner (codelet index)
    double penalty_percent = 0.0;
    // Search cost (fields of the same names; absent fields stay unset).
    std::optional<double> search_seconds, search_share, search_cost_seconds, search_cost_share;
    struct Production {
        int executions = 0;
        double mean = 0.0, search_estimate = 0.0, ratio = 0.0;
        bool flagged = false;
    };
    std::optional<Production> production; // nullopt: no production phase (JSON null)
    std::vector<AuditCodelet> codelets;

    const AuditCodelet* codelet_by_index(int index) const;
    const AuditCodelet* codelet_by_name(const std::string& name) const;
};

struct Audit {
    std::vector<AuditOperation> operations;
    const AuditOperation* operation(const std::string& name) const;
};

inline constexpr const char* kAuditAttribute = "topolens.audit";

// nullopt when the report has no audit. Throws std::runtime_error for a document that is
// not JSON or does not follow the schema (naming what is wrong).
std::optional<Audit> read_audit(const report::Report& report);
Audit parse_audit(const std::string& json);

// The verdict in words: "halo3d: the tuner's choice sendrecv is confirmed: <reason>".
std::string verdict_sentence(const AuditOperation& operation);
// Search cost and production check in words, e.g. "Search phase 3.86 s (88.6 % of the run),
// 2.03 s (46.5 %) beyond running the chosen codelet throughout. Production: 160 executions,
// 1.04 x the search estimate (not flagged)."; empty when the document has none of it.
std::string search_sentence(const AuditOperation& operation);

} // namespace topolens::gui
