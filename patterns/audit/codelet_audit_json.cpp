#include "patterns/audit/codelet_audit_json.h"

#include "analyzer/report/json.h"
#include "patterns/audit/audit_json_fields.h"

namespace topolens::patterns {

namespace {

// {"raw": ..., "heuristic": ..., ...}: one value per method.
template <typename T>
void by_method(json::Writer& w, const char* key, const std::array<T, kMethods>& values) {
    w.key(key).begin_object();
    for (std::size_t m = 0; m < kMethods; ++m) w.key(method_key(Method(m))).value(values[m]);
    w.end_object();
}

void codelet_ref(json::Writer& w, const OperationAudit& op, const std::optional<int64_t>& index) {
    if (!index) {
        w.null();
        return;
    }
    auto name = op.codelet_names.find(*index);
    w.begin_object().key(field::index).value(*index);
    w.key(field::name);
    if (name != op.codelet_names.end())
        w.value(name->second);
    else
        w.null();
    w.end_object();
}

void outliers(json::Writer& w, const CodeletAudit& c, const std::vector<uint32_t>& ranks) {
    w.begin_object();
    for (Method m : kRobustMethods) {
        w.key(method_key(m)).begin_object();
        w.key(field::count).value(c.outliers[m].size());
        w.key(field::at).begin_array();
        for (const OutlierAt& o : c.outliers[m]) {
            w.begin_inline_object();
            w.key(field::location).value(o.location);
            w.key(field::rank).value(o.location < ranks.size() ? ranks[o.location] : o.location);
            w.key(field::measurement).value(o.number);
            w.key(field::start).value(o.start);
            w.key(field::time).value(o.time);
            w.key(field::wait).value(o.wait);
            w.key(field::propagated).value(o.propagated);
            w.key(field::slow).value(o.slow);
            w.key(field::global).value(o.global);
            w.end_object();
        }
        w.end_array().end_object();
    }
    w.end_object();
}

void codelet(json::Writer& w, const CodeletAudit& c, const std::vector<uint32_t>& ranks) {
    w.begin_object();
    w.key(field::index).value(c.index);
    w.key(field::name).value(c.name);
    w.key(field::processes).value(c.processes);
    w.key(field::measurements).value(c.measurements);
    w.key(field::samples).numbers(c.samples);
    w.key(field::samples_min).numbers(c.samples_min);
    w.key(field::box).begin_object();
    w.key(field::min)
        .value(c.box.min)
        .key(field::q1)
        .value(c.box.q1)
        .key(field::median)
        .value(c.box.median);
    w.key(field::q3).value(c.box.q3).key(field::max).value(c.box.max);
    w.key(field::whisker_lo).value(c.box.whisker_lo).key(field::whisker_hi).value(c.box.whisker_hi);
    w.end_object();
    w.key(field::box_outliers).begin_array();
    for (std::size_t k : c.box.outliers) w.value(k);
    w.end_array();
    by_method(w, field::estimates, c.estimate);
    w.key(field::consensus).value(c.consensus);
    by_method(w, field::ranks, c.rank);
    w.key(field::outliers);
    outliers(w, c, ranks);
    w.key(field::range).numbers(std::vector<double>{c.range_lo, c.range_hi});
    w.key(field::overlaps).begin_array();
    for (int64_t d : c.overlaps) w.value(d);
    w.end_array();
    w.key(field::instability).value(c.instability);
    w.key(field::stability).value(c.stability);
    w.key(field::winner_set).value(c.winner_set);
    w.key(field::worst_set).value(c.worst_set);
    // A NaN filtered avg (every measurement an outlier on a process) is written as null.
    w.key(field::adcl).begin_inline_object();
    w.key(field::unfiltered_avg).value(c.adcl.unfiltered);
    w.key(field::filtered_avg).value(c.adcl.filtered);
    w.key(field::outlier_percent).value(c.adcl.outlier_percent);
    w.end_object();
    w.key(field::per_process_mean).numbers(c.per_process_mean);
    w.key(field::per_process_own).numbers(c.per_process_own);
    w.key(field::per_process_estimate).begin_object();
    for (Method m : kRobustMethods) w.key(method_key(m)).numbers(c.per_process_estimate[m]);
    w.end_object();
    w.end_object();
}

void operation(json::Writer& w, const OperationAudit& op, const std::vector<uint32_t>& ranks,
               const std::function<void()>& more) {
    w.begin_object();
    w.key(field::name).value(op.name);
    w.key(field::timing_technique).value(timing_technique_key(op.timing));
    w.key(field::verdict).value(verdict_name(op.verdict));
    w.key(field::reason).value(op.reason);
    w.key(field::tuner_winner);
    codelet_ref(w, op, op.tuner_winner);
    by_method(w, field::method_winners, op.method_winner);
    w.key(field::agreeing_methods).value(op.agreeing_methods);
    w.key(field::best).value(op.best); // an index (AUDIT_FORMAT.md), null without measurements
    w.key(field::penalty_percent).value(op.penalty_percent);
    w.key(field::search_seconds).value(op.search_seconds);
    w.key(field::search_cost_seconds).value(op.search_cost_seconds);
    w.key(field::search_share).value(op.search_share);
    w.key(field::search_cost_share).value(op.search_cost_share);
    w.key(field::production);
    if (op.production) {
        const ProductionCheck& p = *op.production;
        w.begin_object();
        w.key(field::executions).value(p.executions);
        w.key(field::mean).value(p.mean);
        w.key(field::search_estimate).value(p.search_estimate);
        w.key(field::ratio).value(p.ratio);
        w.key(field::flagged).value(p.flagged);
        w.end_object();
    } else {
        w.null();
    }
    w.key(field::adcl).begin_object();
    w.key(field::winner);
    codelet_ref(w, op, op.adcl.winner);
    w.key(field::basis).value(adcl_basis_key(op.adcl.basis));
    w.key(field::filtered_candidate).value(op.adcl.filtered_min);
    w.key(field::unfiltered_candidate).value(op.adcl.unfiltered_min);
    w.key(field::matches_tuner).value(op.adcl.matches_tuner);
    w.end_object();
    w.key(field::available_measurements).value(op.available_measurements);
    w.key(field::diagnostics).begin_array();
    for (const std::string& d : op.diagnostics) w.value(d);
    w.end_array();
    w.key(field::codelets).begin_array();
    for (const CodeletAudit& c : op.codelets) codelet(w, c, ranks);
    w.end_array();
    if (more) more();
    w.end_object();
}

// The parameters after b, nomax and nu: measurements (null: all), aggregate, ADCL's.
void parameters_tail(json::Writer& w, const AuditParameters& p) {
    w.key(field::measurements);
    if (p.measurements)
        w.value(p.measurements);
    else
        w.null();
    w.key(field::aggregate).value(aggregate_key(p.aggregate));
    w.key(field::outlier_factor).value(p.adcl.outlier_factor);
    w.key(field::outlier_fraction).value(p.adcl.outlier_fraction);
}

} // namespace

std::string to_json(const Audit& audit, const std::vector<uint32_t>& ranks) {
    return to_json(audit, ranks, OperationMembers{});
}

std::string to_json(const Audit& audit, const std::vector<uint32_t>& ranks,
                    const OperationMembers& more) {
    json::Writer w;
    w.begin_object();
    w.key(field::format).value(field::kAuditFormat);
    w.key(field::version).value(field::kVersion);
    w.key(field::parameters).begin_object();
    w.key(field::b).value(audit.parameters.b);
    w.key(field::nomax).value(audit.parameters.nomax);
    w.key(field::nu).value(audit.parameters.nu);
    parameters_tail(w, audit.parameters);
    w.end_object();
    w.key(field::run_seconds).value(audit.run_seconds);
    w.key(field::operations).begin_array();
    for (std::size_t k = 0; k < audit.operations.size(); ++k)
        operation(w, audit.operations[k], ranks, [&] {
            if (more) more(w, k);
        });
    w.end_array();
    w.end_object();
    return w.text() + "\n";
}

} // namespace topolens::patterns

namespace topolens::patterns {

std::string to_json(const std::vector<OperationSweep>& sweeps, const AuditParameters& parameters) {
    json::Writer w;
    w.begin_object();
    w.key(field::format).value(field::kSweepFormat);
    w.key(field::version).value(field::kVersion);
    w.key(field::parameters).begin_object();
    w.key(field::b).value(parameters.b);
    w.key(field::nomax).value(parameters.nomax);
    w.key(field::nu).value(parameters.nu);
    parameters_tail(w, parameters);
    w.end_object();
    w.key(field::deciders).begin_array();
    for (std::size_t d = 0; d < kDeciders; ++d) w.value(decider_key(d));
    w.end_array();
    w.key(field::operations).begin_array();
    for (const OperationSweep& op : sweeps) {
        w.begin_object();
        w.key(field::name).value(op.name);
        w.key(field::tuner_winner).value(op.tuner_winner);
        w.key(field::available_measurements).value(op.available);
        w.key(field::stable_from).begin_inline_object();
        for (std::size_t d = 0; d < kDeciders; ++d) w.key(decider_key(d)).value(op.stable_from[d]);
        w.end_object();
        w.key(field::steps).begin_array();
        for (const SweepStep& s : op.steps) {
            w.begin_inline_object();
            w.key(field::measurements).value(s.measurements);
            for (std::size_t d = 0; d < kDeciders; ++d) w.key(decider_key(d)).value(s.winner[d]);
            w.key(field::adcl_basis).value(adcl_basis_key(s.adcl_basis));
            w.end_object();
        }
        w.end_array();
        w.end_object();
    }
    w.end_array();
    w.end_object();
    return w.text() + "\n";
}

} // namespace topolens::patterns
