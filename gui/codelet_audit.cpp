#include "gui/codelet_audit.h"

#include "patterns/audit/codelet_audit_json.h"
#include "patterns/audit/json_object_reader.h"
#include "patterns/audit/verification_json.h"

#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace topolens::gui {

namespace {

// The readers' message, said where the document came from.
[[noreturn]] void rethrow(const patterns::AuditFormatError& e) {
    throw std::runtime_error(std::string("codelet audit (report attribute topolens.audit): ") +
                             e.what());
}

} // namespace

Audit parse_audit(const std::string& json) {
    try {
        return patterns::audit_from_json(json);
    } catch (const patterns::AuditFormatError& e) {
        rethrow(e);
    }
}

std::optional<patterns::Verification> parse_verification(const std::string& json) {
    try {
        return patterns::verification_from_json(json);
    } catch (const patterns::AuditFormatError& e) {
        rethrow(e);
    }
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
