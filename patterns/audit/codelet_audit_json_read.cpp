// The reader of the audit's document, the writer's pair (codelet_audit_json.cpp): the same
// members (audit_json_fields.h) into the same structs.
#include "patterns/audit/audit_json_fields.h"
#include "patterns/audit/codelet_audit_json.h"
#include "patterns/audit/json_object_reader.h"

#include <limits>

namespace topolens::patterns {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// {"raw": ..., "heuristic": ..., ...}: `read(methods, key)` per method; all `absent` when the
// document has no such object.
template <typename T, typename Read>
std::array<T, kMethods> by_method(const JsonObjectReader& json, const char* key, T absent,
                                  Read read) {
    std::array<T, kMethods> values;
    values.fill(absent);
    if (!json.has(key)) return values;
    const JsonObjectReader methods = json.object(key, key);
    for (std::size_t m = 0; m < kMethods; ++m) values[m] = read(methods, method_key(Method(m)));
    return values;
}

// {"index": i, "name": n} or null; the name joins the operation's codelet names.
std::optional<int64_t> codelet_ref(const JsonObjectReader& json, const char* key,
                                   OperationAudit& op) {
    if (!json.has(key)) return std::nullopt;
    const JsonObjectReader ref = json.object(key, key);
    const int64_t index = ref.integer(field::index);
    if (ref.has(field::name)) op.codelet_names[index] = ref.string(field::name);
    return index;
}

std::vector<OutlierAt> outliers_at(const JsonObjectReader& json) {
    std::vector<OutlierAt> outliers;
    for (const json::Value& value : json.array(field::at, false)) {
        const JsonObjectReader o(value,
                                 json.where() + " outlier " + std::to_string(outliers.size()));
        OutlierAt at;
        at.location = static_cast<uint32_t>(o.count(field::location));
        at.number = static_cast<uint32_t>(o.count(field::measurement));
        at.start = o.number(field::start, 0.0);
        at.time = o.number(field::time, 0.0);
        at.wait = o.number(field::wait, 0.0);
        at.propagated = o.boolean(field::propagated, false);
        at.slow = o.boolean(field::slow, true);
        at.global = o.boolean(field::global, false);
        outliers.push_back(at);
    }
    if (json.has(field::count) && json.count(field::count) != outliers.size())
        json.fail("\"count\" is " + std::to_string(json.count(field::count)) + " but \"at\" has " +
                  std::to_string(outliers.size()) + " outlier(s)");
    return outliers;
}

BoxPlot box_plot(const JsonObjectReader& box) {
    BoxPlot b;
    b.min = box.number(field::min);
    b.q1 = box.number(field::q1);
    b.median = box.number(field::median);
    b.q3 = box.number(field::q3);
    b.max = box.number(field::max);
    b.whisker_lo = box.number(field::whisker_lo);
    b.whisker_hi = box.number(field::whisker_hi);
    return b;
}

CodeletAudit codelet(const JsonObjectReader& json) {
    CodeletAudit c;
    c.index = json.integer(field::index);
    c.name = json.string(field::name);
    c.processes = json.count(field::processes, 0);
    c.measurements = json.count(field::measurements, 0);
    c.samples = json.numbers(field::samples);
    // Older documents have no samples_min (the view then draws no band).
    if (json.has(field::samples_min)) {
        c.samples_min = json.numbers(field::samples_min);
        if (c.samples_min.size() != c.samples.size())
            json.fail("\"samples_min\" has " + std::to_string(c.samples_min.size()) +
                      " values, \"samples\" " + std::to_string(c.samples.size()));
    }
    c.box = box_plot(json.object(field::box, field::box));
    for (const int64_t k : json.has(field::box_outliers) ? json.integers(field::box_outliers)
                                                         : std::vector<int64_t>{}) {
        if (k < 0 || k >= static_cast<int64_t>(c.samples.size()))
            json.fail("\"box_outliers\" names sample " + std::to_string(k) + " of " +
                      std::to_string(c.samples.size()));
        c.box.outliers.push_back(static_cast<std::size_t>(k));
    }
    c.estimate = by_method(json, field::estimates, 0.0,
                           [](const JsonObjectReader& o, const char* k) { return o.number(k); });
    c.consensus = json.number(field::consensus, 0.0);
    c.rank = by_method(json, field::ranks, 0, [](const JsonObjectReader& o, const char* k) {
        return static_cast<int>(o.integer(k));
    });
    if (json.has(field::outliers)) {
        const JsonObjectReader outliers = json.object(field::outliers, field::outliers);
        for (Method m : kRobustMethods)
            if (outliers.has(method_key(m)))
                c.outliers[m] = outliers_at(outliers.object(method_key(m), method_key(m)));
    }
    if (json.has(field::range)) {
        const std::vector<double> range = json.numbers(field::range);
        if (range.size() != 2) json.fail("\"range\" is not two numbers");
        c.range_lo = range[0];
        c.range_hi = range[1];
    }
    if (json.has(field::overlaps)) c.overlaps = json.integers(field::overlaps);
    c.instability = json.number(field::instability, 0.0);
    c.stability = json.string(field::stability, "");
    c.winner_set = json.boolean(field::winner_set, false);
    c.worst_set = json.boolean(field::worst_set, false);
    if (json.has(field::adcl)) {
        const JsonObjectReader adcl = json.object(field::adcl, field::adcl);
        c.adcl.unfiltered = adcl.number(field::unfiltered_avg);
        c.adcl.filtered = adcl.number(field::filtered_avg); // null: NaN (all outliers)
        c.adcl.outlier_percent = adcl.number(field::outlier_percent);
    }
    if (json.has(field::per_process_mean))
        c.per_process_mean = json.optional_numbers(field::per_process_mean);
    if (json.has(field::per_process_own))
        c.per_process_own = json.optional_numbers(field::per_process_own);
    // The raw estimate per process is the mean: the writer leaves it out.
    c.per_process_estimate[Raw] = c.per_process_mean;
    if (json.has(field::per_process_estimate)) {
        const JsonObjectReader estimates =
            json.object(field::per_process_estimate, field::per_process_estimate);
        for (Method m : kRobustMethods)
            if (estimates.has(method_key(m)))
                c.per_process_estimate[m] = estimates.optional_numbers(method_key(m));
    }
    return c;
}

Verdict verdict_named(const JsonObjectReader& json) {
    const std::string name = json.string(field::verdict);
    for (const Verdict v :
         {Verdict::Confirmed, Verdict::Questionable, Verdict::Wrong, Verdict::Undecided})
        if (name == verdict_name(v)) return v;
    json.fail("\"verdict\" is \"" + name + "\", no verdict of the audit");
}

AdclBasis basis_named(const JsonObjectReader& json) {
    const std::string key = json.string(field::basis);
    for (const AdclBasis b : {AdclBasis::Filtered, AdclBasis::Unfiltered, AdclBasis::None})
        if (key == adcl_basis_key(b)) return b;
    json.fail("\"basis\" is \"" + key + "\", not filtered, unfiltered or none");
}

OperationAudit operation(const JsonObjectReader& json) {
    OperationAudit op;
    op.name = json.string(field::name);
    if (json.has(field::timing_technique)) {
        const std::string key = json.string(field::timing_technique);
        const auto technique = parse_timing_technique(key);
        if (!technique) json.fail("\"timing_technique\" \"" + key + "\" is unknown");
        op.timing = *technique;
    }
    op.verdict = verdict_named(json);
    op.reason = json.string(field::reason, "");
    op.tuner_winner = codelet_ref(json, field::tuner_winner, op);
    op.method_winner =
        by_method(json, field::method_winners, std::optional<int64_t>{},
                  [](const JsonObjectReader& o, const char* k) { return o.optional_integer(k); });
    op.agreeing_methods = static_cast<int>(json.count(field::agreeing_methods, 0));
    op.best = json.optional_integer(field::best);
    op.penalty_percent = json.number(field::penalty_percent, 0.0);
    // Absent from older documents, null for NaN: NaN either way (not shown).
    op.search_seconds = json.number(field::search_seconds, kNaN);
    op.search_cost_seconds = json.number(field::search_cost_seconds, kNaN);
    op.search_share = json.number(field::search_share, kNaN);
    op.search_cost_share = json.number(field::search_cost_share, kNaN);
    if (json.has(field::production)) {
        const JsonObjectReader p = json.object(field::production, field::production);
        ProductionCheck check;
        check.executions = p.count(field::executions);
        check.mean = p.number(field::mean);
        check.search_estimate = p.number(field::search_estimate);
        check.ratio = p.number(field::ratio);
        check.flagged = p.boolean(field::flagged);
        op.production = check;
    }
    if (json.has(field::adcl)) {
        const JsonObjectReader adcl = json.object(field::adcl, field::adcl);
        op.adcl.winner = codelet_ref(adcl, field::winner, op);
        op.adcl.basis = basis_named(adcl);
        op.adcl.filtered_min = adcl.optional_integer(field::filtered_candidate);
        op.adcl.unfiltered_min = adcl.optional_integer(field::unfiltered_candidate);
        op.adcl.matches_tuner = adcl.optional_boolean(field::matches_tuner);
    }
    op.available_measurements = json.count(field::available_measurements, 0);
    for (const json::Value& d : json.array(field::diagnostics, false)) {
        if (d.kind != json::Value::String) json.fail("a diagnostic is not a string");
        op.diagnostics.push_back(d.string);
    }
    for (const json::Value& value : json.array(field::codelets)) {
        op.codelets.push_back(codelet(
            JsonObjectReader(value, json.where() + " codelet " +
                                        name_or(value, "#" + std::to_string(op.codelets.size())))));
        op.codelet_names[op.codelets.back().index] = op.codelets.back().name;
    }
    return op;
}

} // namespace

Audit audit_from_json(const std::string& text) {
    const json::Value document = parse_document(text);
    const JsonObjectReader root = document_root(document, field::kAuditFormat);
    Audit audit;
    if (root.has(field::parameters)) {
        const JsonObjectReader p = root.object(field::parameters, field::parameters);
        const AuditParameters defaults;
        audit.parameters.b = p.number(field::b, defaults.b);
        audit.parameters.nomax = p.number(field::nomax, defaults.nomax);
        audit.parameters.nu = p.number(field::nu, defaults.nu);
        audit.parameters.measurements =
            p.has(field::measurements) ? p.count(field::measurements) : 0; // null: all
        if (p.has(field::aggregate)) {
            const std::string key = p.string(field::aggregate);
            const auto aggregate = parse_aggregate(key);
            if (!aggregate) p.fail("\"aggregate\" \"" + key + "\" is not max or min");
            audit.parameters.aggregate = *aggregate;
        }
        if (p.has(field::outlier_factor))
            audit.parameters.adcl.outlier_factor =
                static_cast<int>(p.integer(field::outlier_factor));
        if (p.has(field::outlier_fraction))
            audit.parameters.adcl.outlier_fraction =
                static_cast<int>(p.integer(field::outlier_fraction));
    }
    audit.run_seconds = root.number(field::run_seconds, 0.0);
    for (const json::Value& value : root.array(field::operations)) {
        audit.operations.push_back(operation(JsonObjectReader(
            value, "operation " + name_or(value, "#" + std::to_string(audit.operations.size())))));
    }
    return audit;
}

} // namespace topolens::patterns
