#include "gui/codelet_audit.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>

namespace topolens::gui {

namespace {

[[noreturn]] void schema_error(const std::string& what) {
    throw std::runtime_error("codelet audit (report attribute topolens.audit): " + what);
}

QJsonObject object_field(const QJsonObject& object, const char* key, const std::string& where) {
    const QJsonValue value = object.value(key);
    if (!value.isObject()) schema_error(where + " has no object \"" + key + "\"");
    return value.toObject();
}

QJsonArray array_field(const QJsonObject& object, const char* key, const std::string& where) {
    const QJsonValue value = object.value(key);
    if (!value.isArray()) schema_error(where + " has no array \"" + key + "\"");
    return value.toArray();
}

double number_field(const QJsonObject& object, const char* key, const std::string& where) {
    const QJsonValue value = object.value(key);
    if (!value.isDouble()) schema_error(where + " has no number \"" + key + "\"");
    return value.toDouble();
}

// A whole number that fits an int (codelet indices, counts); anything else is a schema error
// (a cast of NaN or 1e300 to int would be undefined).
int int_field(const QJsonObject& object, const char* key, const std::string& where) {
    const double v = number_field(object, key, where);
    if (!(v >= std::numeric_limits<int>::min() && v <= std::numeric_limits<int>::max()) ||
        v != std::floor(v))
        schema_error(where + ": \"" + key + "\" is not a whole number");
    return static_cast<int>(v);
}

std::string string_field(const QJsonObject& object, const char* key, const std::string& where) {
    const QJsonValue value = object.value(key);
    if (!value.isString()) schema_error(where + " has no string \"" + key + "\"");
    return value.toString().toStdString();
}

AuditCodelet parse_codelet(const QJsonObject& json, const std::string& where) {
    AuditCodelet codelet;
    codelet.index = int_field(json, "index", where);
    codelet.name = string_field(json, "name", where);
    const std::string here = where + " codelet " + codelet.name;
    codelet.processes = json.value("processes").toInt(0);
    codelet.measurements = json.value("measurements").toInt(0);
    for (const QJsonValue v : array_field(json, "samples", here)) {
        if (!v.isDouble()) schema_error(here + ": a sample is not a number");
        codelet.samples.push_back(v.toDouble());
    }
    const QJsonObject box = object_field(json, "box", here);
    codelet.box = {number_field(box, "min", here),       number_field(box, "q1", here),
                   number_field(box, "median", here),    number_field(box, "q3", here),
                   number_field(box, "max", here),       number_field(box, "whisker_lo", here),
                   number_field(box, "whisker_hi", here)};
    for (const QJsonValue v : json.value("box_outliers").toArray()) {
        const int i = v.toInt(-1);
        if (i < 0 || i >= static_cast<int>(codelet.samples.size()))
            schema_error(here + ": box_outliers names a sample that does not exist");
        codelet.box_outliers.push_back(i);
    }
    // Which processes were slow at each measurement, by any of the audit's filters.
    std::map<int, std::set<int>> caused, propagated, global; // measurement -> ranks
    const QJsonObject outliers = json.value("outliers").toObject();
    for (const QString& method : outliers.keys()) {
        for (const QJsonValue at : outliers.value(method).toObject().value("at").toArray()) {
            const QJsonObject o = at.toObject();
            if (!o.value("slow").toBool(true)) continue; // unusually fast: not why it is high
            const int m = o.value("measurement").toInt(-1);
            const int rank = o.value("rank").toInt(-1);
            (o.value("global").toBool()       ? global
             : o.value("propagated").toBool() ? propagated
                                              : caused)[m]
                .insert(rank);
        }
    }
    for (const int i : codelet.box_outliers) {
        using Cause = AuditCodelet::OutlierCause;
        if (const auto found = caused.find(i); found != caused.end()) {
            codelet.box_outlier_causes.push_back(Cause::Caused);
            codelet.box_outlier_ranks.emplace_back(found->second.begin(), found->second.end());
        } else {
            codelet.box_outlier_causes.push_back(global.count(i)       ? Cause::Global
                                                 : propagated.count(i) ? Cause::Propagated
                                                                       : Cause::Unflagged);
            codelet.box_outlier_ranks.emplace_back();
        }
    }
    codelet.winner_set = json.value("winner_set").toBool();
    codelet.stability = json.value("stability").toString().toStdString();
    for (const QJsonValue v : json.value("per_process_mean").toArray())
        codelet.per_process_mean.push_back(v.isDouble() ? std::optional<double>(v.toDouble())
                                                        : std::nullopt);
    return codelet;
}

} // namespace

const AuditCodelet* AuditOperation::codelet_by_index(int index) const {
    for (const auto& c : codelets)
        if (c.index == index) return &c;
    return nullptr;
}

const AuditCodelet* AuditOperation::codelet_by_name(const std::string& wanted) const {
    for (const auto& c : codelets)
        if (c.name == wanted) return &c;
    return nullptr;
}

const AuditOperation* Audit::operation(const std::string& name) const {
    for (const auto& op : operations)
        if (op.name == name) return &op;
    return nullptr;
}

Audit parse_audit(const std::string& json) {
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(QByteArray::fromStdString(json), &error);
    if (document.isNull())
        schema_error("not JSON: " + error.errorString().toStdString() + " at offset " +
                     std::to_string(error.offset));
    if (!document.isObject()) schema_error("not a JSON object");
    const QJsonObject root = document.object();
    if (root.value("format").toString() != "topolens-audit")
        schema_error("\"format\" is not \"topolens-audit\"");
    Audit audit;
    for (const QJsonValue value : array_field(root, "operations", "the document")) {
        if (!value.isObject()) schema_error("an operation is not an object");
        const QJsonObject json = value.toObject();
        AuditOperation op;
        op.name = string_field(json, "name", "an operation");
        const std::string where = "operation " + op.name;
        op.verdict = string_field(json, "verdict", where);
        op.reason = json.value("reason").toString().toStdString();
        const QJsonValue tuner = json.value("tuner_winner");
        if (tuner.isObject()) {
            op.tuner_winner = int_field(tuner.toObject(), "index", where);
            op.tuner_winner_name = tuner.toObject().value("name").toString().toStdString();
        }
        if (json.value("best").isDouble()) op.best = json.value("best").toInt();
        op.penalty_percent = json.value("penalty_percent").toDouble();
        const auto optional_number = [&json](const char* key) -> std::optional<double> {
            const QJsonValue v = json.value(key);
            return v.isDouble() ? std::optional<double>(v.toDouble()) : std::nullopt;
        };
        op.search_seconds = optional_number("search_seconds");
        op.search_share = optional_number("search_share");
        op.search_cost_seconds = optional_number("search_cost_seconds");
        op.search_cost_share = optional_number("search_cost_share");
        if (const QJsonValue p = json.value("production"); p.isObject()) {
            const QJsonObject production = p.toObject();
            AuditOperation::Production check;
            check.executions = production.value("executions").toInt();
            check.mean = production.value("mean").toDouble();
            check.search_estimate = production.value("search_estimate").toDouble();
            check.ratio = production.value("ratio").toDouble();
            check.flagged = production.value("flagged").toBool();
            op.production = check;
        }
        for (const QJsonValue c : array_field(json, "codelets", where)) {
            if (!c.isObject()) schema_error(where + ": a codelet is not an object");
            op.codelets.push_back(parse_codelet(c.toObject(), where));
        }
        audit.operations.push_back(std::move(op));
    }
    return audit;
}

std::optional<Audit> read_audit(const report::Report& report) {
    const auto found = report.attributes.find(kAuditAttribute);
    if (found == report.attributes.end()) return std::nullopt;
    return parse_audit(found->second);
}

std::string verdict_sentence(const AuditOperation& op) {
    std::string chosen = op.tuner_winner
                             ? "the tuner's choice " + (op.tuner_winner_name.empty()
                                                            ? "#" + std::to_string(*op.tuner_winner)
                                                            : op.tuner_winner_name)
                             : "no decision of the tuner";
    std::string sentence = op.name + ": " + chosen;
    if (op.verdict == "confirmed")
        sentence += " is confirmed by the audit";
    else if (op.verdict == "questionable")
        sentence += " is questionable";
    else if (op.verdict == "wrong")
        sentence += " is wrong";
    else
        sentence += ": the audit is undecided";
    if (const AuditCodelet* best = op.best ? op.codelet_by_index(*op.best) : nullptr;
        best && op.verdict != "confirmed")
        sentence += "; the audit's winner is " + best->name;
    if (op.penalty_percent > 0.0 && op.verdict != "confirmed") {
        char buffer[64];
        std::snprintf(buffer, sizeof buffer, " (the choice costs %.1f %% more)",
                      op.penalty_percent);
        sentence += buffer;
    }
    sentence += ".";
    if (!op.reason.empty()) sentence += " " + op.reason;
    return sentence;
}

std::string search_sentence(const AuditOperation& op) {
    std::string sentence;
    char buffer[200];
    if (op.search_seconds) {
        std::snprintf(buffer, sizeof buffer, "Search phase %.3g s", *op.search_seconds);
        sentence += buffer;
        if (op.search_share) {
            std::snprintf(buffer, sizeof buffer, " (%.1f %% of the run)", 100.0 * *op.search_share);
            sentence += buffer;
        }
        if (op.search_cost_seconds) {
            std::snprintf(buffer, sizeof buffer, ", search cost %.3g s", *op.search_cost_seconds);
            sentence += buffer;
            if (op.search_cost_share) {
                std::snprintf(buffer, sizeof buffer, " (%.1f %%)", 100.0 * *op.search_cost_share);
                sentence += buffer;
            }
            sentence += " beyond running the chosen codelet in every measurement";
        }
        sentence += ".";
    }
    if (op.production) {
        const auto& p = *op.production;
        std::snprintf(
            buffer, sizeof buffer,
            "%sProduction: %d executions (all processes), mean %.3g s (slowest process) = "
            "%.2f x the search estimate "
            "%.3g s (%s).",
            sentence.empty() ? "" : " ", p.executions, p.mean, p.ratio, p.search_estimate,
            p.flagged ? "flagged: production is slower than the search predicted" : "not flagged");
        sentence += buffer;
    } else if (!sentence.empty()) {
        sentence += " No production phase.";
    }
    return sentence;
}

} // namespace topolens::gui
