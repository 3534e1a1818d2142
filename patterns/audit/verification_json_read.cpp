// The reader of the verification runs' objects in the audit's document, the writer's pair
// (verification_json.cpp): the same members (audit_json_fields.h) into the same structs.
#include "patterns/audit/audit_json_fields.h"
#include "patterns/audit/json_object_reader.h"
#include "patterns/audit/verification_json.h"

#include <algorithm>

namespace topolens::patterns {

namespace {

RankingError ranking_error(const JsonObjectReader& json) {
    RankingError e;
    e.codelets = json.integers(field::codelets);
    e.max_avg = json.number(field::max_avg_percent);
    e.sum_avg = json.number(field::sum_avg_percent);
    e.max_min = json.number(field::max_min_percent);
    e.max_max = json.number(field::max_max_percent);
    e.flips = json.count(field::flips);
    for (const json::Value& value : json.array(field::false_orderings)) {
        const JsonObjectReader f(value, json.where() + " false ordering " +
                                            std::to_string(e.false_orderings.size()));
        FalseOrdering o;
        o.faster = f.integer(field::faster);
        o.slower = f.integer(field::slower);
        o.e_min = f.number(field::e_min);
        o.e_avg = f.number(field::e_avg);
        o.e_max = f.number(field::e_max);
        e.false_orderings.push_back(o);
    }
    return e;
}

VerifiedCodelet verified_codelet(const JsonObjectReader& json) {
    VerifiedCodelet c;
    c.index = json.integer(field::index);
    c.name = json.string(field::name, "");
    for (const int64_t run : json.integers(field::runs)) {
        if (run < 0) json.fail("\"runs\" holds a negative run");
        c.runs.push_back(static_cast<std::size_t>(run));
    }
    c.times = json.numbers(field::times);
    const std::vector<double> range = json.numbers(field::range);
    if (range.size() != 2) json.fail("\"range\" is not two numbers");
    c.lo = range[0];
    c.hi = range[1];
    c.mean = json.number(field::mean);
    c.overlaps = json.integers(field::overlaps);
    c.instability = json.number(field::instability, 0.0);
    c.stability = json.string(field::stability, "");
    c.winner_set = json.boolean(field::winner_set, false);
    c.worst_set = json.boolean(field::worst_set, false);
    return c;
}

OperationVerification operation_verification(const JsonObjectReader& json,
                                             const std::string& operation) {
    OperationVerification v;
    v.name = operation;
    for (const json::Value& run : json.array(field::runs)) {
        if (run.kind != json::Value::String) json.fail("a run is not a path");
        v.runs.push_back(run.string);
    }
    v.best = json.optional_integer(field::best);
    v.worst = json.optional_integer(field::worst);
    v.tuner_choice = json.optional_integer(field::tuner_choice);
    v.tuner_penalty_percent = json.optional_number(field::tuner_penalty_percent);
    if (json.has(field::technique)) {
        const std::string key = json.string(field::technique);
        const auto technique = parse_timing_technique(key);
        if (!technique) json.fail("\"technique\" \"" + key + "\" is unknown");
        v.technique = *technique;
    }
    if (json.has(field::ranking_error))
        v.ranking_error = ranking_error(json.object(field::ranking_error, field::ranking_error));
    for (const json::Value& value : json.array(field::codelets))
        v.codelets.push_back(verified_codelet(
            JsonObjectReader(value, json.where() + " codelet " +
                                        name_or(value, "#" + std::to_string(v.codelets.size())))));
    if (json.has(field::unverified)) v.unverified = json.integers(field::unverified);
    return v;
}

} // namespace

std::optional<Verification> verification_from_json(const std::string& text) {
    const json::Value document = parse_document(text);
    const JsonObjectReader root = document_root(document, field::kAuditFormat);
    Verification verification;
    bool any = false;
    for (const json::Value& value : root.array(field::operations)) {
        const JsonObjectReader op(
            value,
            "operation " + name_or(value, "#" + std::to_string(verification.operations.size())));
        const std::string name = op.string(field::name);
        if (!op.has(field::verification)) {
            verification.operations.emplace_back().name = name;
            continue;
        }
        any = true;
        verification.operations.push_back(
            operation_verification(op.object(field::verification, field::verification), name));
        for (const std::string& run : verification.operations.back().runs)
            if (std::find(verification.runs.begin(), verification.runs.end(), run) ==
                verification.runs.end())
                verification.runs.push_back(run);
    }
    if (!any) return std::nullopt;
    return verification;
}

} // namespace topolens::patterns
