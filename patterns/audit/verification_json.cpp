#include "patterns/audit/verification_json.h"

#include "analyzer/report/json.h"
#include "patterns/audit/audit_json_fields.h"
#include "patterns/audit/codelet_audit_json.h"

#include <stdexcept>

namespace topolens::patterns {

namespace {

void indices(json::Writer& w, const char* key, const std::vector<int64_t>& values) {
    w.key(key).begin_packed_array();
    for (int64_t i : values) w.value(static_cast<long long>(i));
    w.end_array();
}

void ranking_error(json::Writer& w, const RankingError& e) {
    w.begin_object();
    w.key(field::estimate).value("consensus");
    indices(w, field::codelets, e.codelets);
    w.key(field::max_avg_percent).value(e.max_avg);
    w.key(field::sum_avg_percent).value(e.sum_avg);
    w.key(field::max_min_percent).value(e.max_min);
    w.key(field::max_max_percent).value(e.max_max);
    w.key(field::flips).value(e.flips);
    w.key(field::false_orderings).begin_array();
    for (const FalseOrdering& f : e.false_orderings) {
        w.begin_inline_object();
        w.key(field::faster).value(static_cast<long long>(f.faster));
        w.key(field::slower).value(static_cast<long long>(f.slower));
        w.key(field::e_min)
            .value(f.e_min)
            .key(field::e_avg)
            .value(f.e_avg)
            .key(field::e_max)
            .value(f.e_max);
        w.end_object();
    }
    w.end_array();
    w.end_object();
}

void codelet(json::Writer& w, const VerifiedCodelet& c) {
    w.begin_object();
    w.key(field::index).value(static_cast<long long>(c.index));
    w.key(field::name).value(c.name);
    w.key(field::runs).begin_packed_array();
    for (std::size_t r : c.runs) w.value(static_cast<unsigned long long>(r));
    w.end_array();
    w.key(field::times).numbers(c.times);
    w.key(field::range).numbers(std::vector<double>{c.lo, c.hi});
    w.key(field::mean).value(c.mean);
    indices(w, field::overlaps, c.overlaps);
    w.key(field::instability).value(c.instability);
    w.key(field::stability).value(c.stability);
    w.key(field::winner_set).value(c.winner_set);
    w.key(field::worst_set).value(c.worst_set);
    w.end_object();
}

void verification(json::Writer& w, const OperationVerification& v) {
    w.begin_object();
    w.key(field::runs).begin_array();
    for (const std::string& path : v.runs) w.value(path);
    w.end_array();
    auto index = [&](const std::optional<int64_t>& i) {
        if (i)
            w.value(static_cast<long long>(*i));
        else
            w.null();
    };
    w.key(field::best);
    index(v.best);
    w.key(field::worst);
    index(v.worst);
    w.key(field::tuner_choice);
    index(v.tuner_choice);
    w.key(field::tuner_penalty_percent).value(v.tuner_penalty_percent);
    w.key(field::technique).value(timing_technique_key(v.technique));
    w.key(field::ranking_error);
    if (v.ranking_error)
        ranking_error(w, *v.ranking_error);
    else
        w.null();
    w.key(field::codelets).begin_array();
    for (const VerifiedCodelet& c : v.codelets) codelet(w, c);
    w.end_array();
    indices(w, field::unverified, v.unverified);
    w.end_object();
}

} // namespace

std::string to_json(const OperationVerification& v) {
    json::Writer w;
    verification(w, v);
    return w.text();
}

std::string with_verification(const Audit& audit, const std::vector<uint32_t>& ranks,
                              const Verification& v) {
    if (audit.operations.size() != v.operations.size())
        throw std::invalid_argument(
            "with_verification: the audit has " + std::to_string(audit.operations.size()) +
            " operation(s), the verification " + std::to_string(v.operations.size()));
    for (std::size_t k = 0; k < v.operations.size(); ++k)
        if (audit.operations[k].name != v.operations[k].name)
            throw std::invalid_argument("with_verification: operation " + std::to_string(k) +
                                        " of the audit is not " + v.operations[k].name);
    return to_json(audit, ranks, [&](json::Writer& w, std::size_t k) {
        w.key(field::verification);
        verification(w, v.operations[k]);
    });
}

} // namespace topolens::patterns
