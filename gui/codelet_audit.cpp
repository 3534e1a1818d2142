#include "gui/codelet_audit.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
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

// A whole number >= 0 (sample indices, locations, measurement numbers); nullopt otherwise.
std::optional<uint32_t> index_value(const QJsonValue& value) {
    const double v = value.toDouble(-1.0);
    if (!(v >= 0 && v <= std::numeric_limits<uint32_t>::max()) || v != std::floor(v))
        return std::nullopt;
    return static_cast<uint32_t>(v);
}

// The outliers one method's filter dropped ("at"), as far as the box plot's causes need them.
std::vector<patterns::OutlierAt> parse_outliers(const QJsonObject& json) {
    std::vector<patterns::OutlierAt> outliers;
    for (const QJsonValue at : json.value("at").toArray()) {
        const QJsonObject o = at.toObject();
        const auto location = index_value(o.value("location"));
        const auto number = index_value(o.value("measurement"));
        if (!location || !number) continue; // names no measurement of the box plot
        patterns::OutlierAt outlier;
        outlier.location = *location;
        outlier.number = *number;
        outlier.start = o.value("start").toDouble();
        outlier.time = o.value("time").toDouble();
        outlier.wait = o.value("wait").toDouble();
        outlier.propagated = o.value("propagated").toBool();
        outlier.slow = o.value("slow").toBool(true);
        outlier.global = o.value("global").toBool();
        outliers.push_back(outlier);
    }
    return outliers;
}

CodeletAudit parse_codelet(const QJsonObject& json, const std::string& where) {
    CodeletAudit codelet;
    codelet.index = int_field(json, "index", where);
    codelet.name = string_field(json, "name", where);
    const std::string here = where + " codelet " + codelet.name;
    codelet.processes = static_cast<std::size_t>(std::max(0, json.value("processes").toInt(0)));
    codelet.measurements =
        static_cast<std::size_t>(std::max(0, json.value("measurements").toInt(0)));
    for (const QJsonValue v : array_field(json, "samples", here)) {
        if (!v.isDouble()) schema_error(here + ": a sample is not a number");
        codelet.samples.push_back(v.toDouble());
    }
    // Older documents have no samples_min: the view then draws no band.
    if (const QJsonValue mins = json.value("samples_min"); !mins.isUndefined() && !mins.isNull()) {
        if (!mins.isArray()) schema_error(here + ": \"samples_min\" is not an array");
        for (const QJsonValue v : mins.toArray()) {
            if (!v.isDouble()) schema_error(here + ": a value of samples_min is not a number");
            codelet.samples_min.push_back(v.toDouble());
        }
        if (codelet.samples_min.size() != codelet.samples.size())
            schema_error(here + ": samples_min has " + std::to_string(codelet.samples_min.size()) +
                         " values, samples " + std::to_string(codelet.samples.size()));
    }
    codelet.consensus = json.value("consensus").toDouble();
    const QJsonObject box = object_field(json, "box", here);
    codelet.box.min = number_field(box, "min", here);
    codelet.box.q1 = number_field(box, "q1", here);
    codelet.box.median = number_field(box, "median", here);
    codelet.box.q3 = number_field(box, "q3", here);
    codelet.box.max = number_field(box, "max", here);
    codelet.box.whisker_lo = number_field(box, "whisker_lo", here);
    codelet.box.whisker_hi = number_field(box, "whisker_hi", here);
    for (const QJsonValue v : json.value("box_outliers").toArray()) {
        const int i = v.toInt(-1);
        if (i < 0 || i >= static_cast<int>(codelet.samples.size()))
            schema_error(here + ": box_outliers names a sample that does not exist");
        codelet.box.outliers.push_back(static_cast<std::size_t>(i));
    }
    const QJsonObject outliers = json.value("outliers").toObject();
    for (std::size_t m = 0; m < patterns::kMethods; ++m) {
        const QJsonValue method = outliers.value(patterns::method_key(patterns::Method(m)));
        if (method.isObject()) codelet.outliers[m] = parse_outliers(method.toObject());
    }
    codelet.winner_set = json.value("winner_set").toBool();
    codelet.worst_set = json.value("worst_set").toBool();
    codelet.stability = json.value("stability").toString().toStdString();
    for (const QJsonValue v : json.value("per_process_mean").toArray())
        codelet.per_process_mean.push_back(v.isDouble() ? std::optional<double>(v.toDouble())
                                                        : std::nullopt);
    return codelet;
}

patterns::Verdict parse_verdict(const std::string& name) {
    using patterns::Verdict;
    for (const Verdict v : {Verdict::Confirmed, Verdict::Questionable, Verdict::Wrong})
        if (name == patterns::verdict_name(v)) return v;
    return Verdict::Undecided; // "undecided", and what this reader does not know
}

QJsonObject document_root(const std::string& json) {
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(QByteArray::fromStdString(json), &error);
    if (document.isNull())
        schema_error("not JSON: " + error.errorString().toStdString() + " at offset " +
                     std::to_string(error.offset));
    if (!document.isObject()) schema_error("not a JSON object");
    return document.object();
}

} // namespace

Audit parse_audit(const std::string& json) {
    const QJsonObject root = document_root(json);
    if (root.value("format").toString() != "topolens-audit")
        schema_error("\"format\" is not \"topolens-audit\"");
    Audit audit;
    for (const QJsonValue value : array_field(root, "operations", "the document")) {
        if (!value.isObject()) schema_error("an operation is not an object");
        const QJsonObject json = value.toObject();
        OperationAudit op;
        op.name = string_field(json, "name", "an operation");
        const std::string where = "operation " + op.name;
        op.verdict = parse_verdict(string_field(json, "verdict", where));
        op.reason = json.value("reason").toString().toStdString();
        if (json.value("best").isDouble()) op.best = json.value("best").toInt();
        op.penalty_percent = json.value("penalty_percent").toDouble();
        const auto number_or_nan = [&json](const char* key) {
            const QJsonValue v = json.value(key);
            return v.isDouble() ? v.toDouble() : std::numeric_limits<double>::quiet_NaN();
        };
        op.search_seconds = number_or_nan("search_seconds");
        op.search_share = number_or_nan("search_share");
        op.search_cost_seconds = number_or_nan("search_cost_seconds");
        op.search_cost_share = number_or_nan("search_cost_share");
        if (const QJsonValue p = json.value("production"); p.isObject()) {
            const QJsonObject production = p.toObject();
            patterns::ProductionCheck check;
            check.executions = static_cast<uint64_t>(
                std::max<qint64>(0, production.value("executions").toInteger()));
            check.mean = production.value("mean").toDouble();
            check.search_estimate = production.value("search_estimate").toDouble();
            check.ratio = production.value("ratio").toDouble();
            check.flagged = production.value("flagged").toBool();
            op.production = check;
        }
        for (const QJsonValue c : array_field(json, "codelets", where)) {
            if (!c.isObject()) schema_error(where + ": a codelet is not an object");
            op.codelets.push_back(parse_codelet(c.toObject(), where));
            op.codelet_names[op.codelets.back().index] = op.codelets.back().name;
        }
        // After the codelets: the tuner's codelet is named as the document names it (or not).
        const QJsonValue tuner = json.value("tuner_winner");
        if (tuner.isObject()) {
            op.tuner_winner = int_field(tuner.toObject(), "index", where);
            op.codelet_names[*op.tuner_winner] =
                tuner.toObject().value("name").toString().toStdString();
        }
        audit.operations.push_back(std::move(op));
    }
    return audit;
}

namespace {

std::optional<int64_t> optional_index(const QJsonObject& object, const char* key,
                                      const std::string& where) {
    const QJsonValue value = object.value(key);
    if (value.isUndefined() || value.isNull()) return std::nullopt;
    return int_field(object, key, where);
}

std::vector<int64_t> index_list(const QJsonObject& object, const char* key,
                                const std::string& where) {
    std::vector<int64_t> indices;
    for (const QJsonValue v : object.value(key).toArray()) {
        const auto index = index_value(v);
        if (!index) schema_error(where + ": \"" + key + "\" holds a value that is no index");
        indices.push_back(*index);
    }
    return indices;
}

patterns::OperationVerification parse_operation_verification(const QJsonObject& json,
                                                             const std::string& operation) {
    const std::string where = "operation " + operation + " verification";
    patterns::OperationVerification v;
    v.name = operation;
    for (const QJsonValue run : json.value("runs").toArray())
        v.runs.push_back(run.toString().toStdString());
    v.best = optional_index(json, "best", where);
    v.worst = optional_index(json, "worst", where);
    v.tuner_choice = optional_index(json, "tuner_choice", where);
    if (json.value("tuner_penalty_percent").isDouble())
        v.tuner_penalty_percent = json.value("tuner_penalty_percent").toDouble();
    v.unverified = index_list(json, "unverified", where);
    for (const QJsonValue value : array_field(json, "codelets", where)) {
        if (!value.isObject()) schema_error(where + ": a codelet is not an object");
        const QJsonObject c = value.toObject();
        patterns::VerifiedCodelet codelet;
        codelet.index = int_field(c, "index", where);
        codelet.name = c.value("name").toString().toStdString();
        const std::string here = where + " codelet " + std::to_string(codelet.index);
        for (const int64_t run : index_list(c, "runs", here))
            codelet.runs.push_back(static_cast<std::size_t>(run));
        for (const QJsonValue t : c.value("times").toArray()) {
            if (!t.isDouble()) schema_error(here + ": a time is not a number");
            codelet.times.push_back(t.toDouble());
        }
        const QJsonArray range = array_field(c, "range", here);
        if (range.size() != 2 || !range[0].isDouble() || !range[1].isDouble())
            schema_error(here + ": \"range\" is not two numbers");
        codelet.lo = range[0].toDouble();
        codelet.hi = range[1].toDouble();
        codelet.mean = number_field(c, "mean", here);
        codelet.overlaps = index_list(c, "overlaps", here);
        codelet.instability = c.value("instability").toDouble();
        codelet.stability = c.value("stability").toString().toStdString();
        codelet.winner_set = c.value("winner_set").toBool();
        codelet.worst_set = c.value("worst_set").toBool();
        v.codelets.push_back(std::move(codelet));
    }
    return v;
}

} // namespace

std::optional<patterns::Verification> parse_verification(const std::string& json) {
    patterns::Verification verification;
    bool any = false;
    for (const QJsonValue value : array_field(document_root(json), "operations", "the document")) {
        const QJsonObject op = value.toObject();
        const std::string name = op.value("name").toString().toStdString();
        const QJsonValue v = op.value("verification");
        if (v.isObject()) {
            any = true;
            verification.operations.push_back(parse_operation_verification(v.toObject(), name));
            for (const std::string& run : verification.operations.back().runs)
                if (std::find(verification.runs.begin(), verification.runs.end(), run) ==
                    verification.runs.end())
                    verification.runs.push_back(run);
        } else {
            verification.operations.emplace_back().name = name;
        }
    }
    if (!any) return std::nullopt;
    return verification;
}

std::optional<Audit> read_audit(const report::Report& report) {
    const auto found = report.attributes.find(patterns::kAuditAttribute);
    if (found == report.attributes.end()) return std::nullopt;
    return parse_audit(found->second);
}

std::string verdict_sentence(const OperationAudit& op) {
    using patterns::Verdict;
    std::string chosen = "no decision of the tuner";
    if (op.tuner_winner) {
        const auto name = op.codelet_names.find(*op.tuner_winner);
        chosen = "the tuner's choice " + (name == op.codelet_names.end() || name->second.empty()
                                              ? "#" + std::to_string(*op.tuner_winner)
                                              : name->second);
    }
    std::string sentence = op.name + ": " + chosen;
    if (op.verdict == Verdict::Confirmed)
        sentence += " is confirmed by the audit";
    else if (op.verdict == Verdict::Questionable)
        sentence += " is questionable";
    else if (op.verdict == Verdict::Wrong)
        sentence += " is wrong";
    else
        sentence += ": the audit is undecided";
    if (const CodeletAudit* best = op.best ? op.codelet(*op.best) : nullptr;
        best && op.verdict != Verdict::Confirmed)
        sentence += "; the audit's winner is " + best->name;
    if (op.penalty_percent > 0.0 && op.verdict != Verdict::Confirmed) {
        char buffer[64];
        std::snprintf(buffer, sizeof buffer, " (the choice costs %.1f %% more)",
                      op.penalty_percent);
        sentence += buffer;
    }
    sentence += ".";
    if (!op.reason.empty()) sentence += " " + op.reason;
    return sentence;
}

std::string search_sentence(const OperationAudit& op) {
    std::string sentence;
    char buffer[200];
    if (!std::isnan(op.search_seconds)) {
        std::snprintf(buffer, sizeof buffer, "Search phase %.3g s", op.search_seconds);
        sentence += buffer;
        if (!std::isnan(op.search_share)) {
            std::snprintf(buffer, sizeof buffer, " (%.1f %% of the run)", 100.0 * op.search_share);
            sentence += buffer;
        }
        if (!std::isnan(op.search_cost_seconds)) {
            std::snprintf(buffer, sizeof buffer, ", search cost %.3g s", op.search_cost_seconds);
            sentence += buffer;
            if (!std::isnan(op.search_cost_share)) {
                std::snprintf(buffer, sizeof buffer, " (%.1f %%)", 100.0 * op.search_cost_share);
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
            "%sProduction: %llu executions (all processes), mean %.3g s (slowest process) = "
            "%.2f x the search estimate "
            "%.3g s (%s).",
            sentence.empty() ? "" : " ", static_cast<unsigned long long>(p.executions), p.mean,
            p.ratio, p.search_estimate,
            p.flagged ? "flagged: production is slower than the search predicted" : "not flagged");
        sentence += buffer;
    } else if (!sentence.empty()) {
        sentence += " No production phase.";
    }
    return sentence;
}

std::string verification_sentence(const patterns::OperationVerification& v) {
    if (v.runs.empty() || !v.best) return {};
    const patterns::VerifiedCodelet* best = v.codelet(*v.best);
    if (!best) return {};
    char buffer[200];
    std::snprintf(buffer, sizeof buffer,
                  "Verification runs (%zu): the best verified codelet is %s (mean %.3g s over "
                  "%zu run%s)",
                  v.runs.size(), best->name.c_str(), best->mean, best->runs.size(),
                  best->runs.size() == 1 ? "" : "s");
    std::string sentence = buffer;
    const patterns::VerifiedCodelet* chosen = v.tuner_choice ? v.codelet(*v.tuner_choice) : nullptr;
    if (!v.tuner_choice) {
        sentence += "; the tuner recorded no choice";
    } else if (!chosen || !v.tuner_penalty_percent) {
        sentence += "; the tuner's choice #" + std::to_string(*v.tuner_choice) +
                    " was not verified: its penalty is unknown";
    } else if (chosen->index == best->index) {
        sentence += "; it is the tuner's choice (penalty 0 %)";
    } else {
        std::snprintf(buffer, sizeof buffer, "; the tuner's choice %s costs %.1f %% more than it%s",
                      chosen->name.c_str(), *v.tuner_penalty_percent,
                      chosen->winner_set ? " (in the winner set: their ranges overlap)" : "");
        sentence += buffer;
    }
    return sentence + ".";
}

} // namespace topolens::gui
