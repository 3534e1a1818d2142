// The codelet audit as the GUI reads it: the JSON document the analysis stores in the
// report's attribute "topolens.audit" (schema: patterns/AUDIT_FORMAT.md). Only what the
// codelet view and the topology need is kept.
#pragma once

#include "analyzer/report.h"

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

} // namespace topolens::gui
