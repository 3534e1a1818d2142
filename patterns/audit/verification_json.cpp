#include "patterns/audit/verification_json.h"

#include "analyzer/report/json.h"
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
    w.key("estimate").value("consensus");
    indices(w, "codelets", e.codelets);
    w.key("max_avg_percent").value(e.max_avg);
    w.key("sum_avg_percent").value(e.sum_avg);
    w.key("max_min_percent").value(e.max_min);
    w.key("max_max_percent").value(e.max_max);
    w.key("flips").value(e.flips);
    w.key("false_orderings").begin_array();
    for (const FalseOrdering& f : e.false_orderings) {
        w.begin_inline_object();
        w.key("faster").value(static_cast<long long>(f.faster));
        w.key("slower").value(static_cast<long long>(f.slower));
        w.key("e_min").value(f.e_min).key("e_avg").value(f.e_avg).key("e_max").value(f.e_max);
        w.end_object();
    }
    w.end_array();
    w.end_object();
}

void codelet(json::Writer& w, const VerifiedCodelet& c) {
    w.begin_object();
    w.key("index").value(static_cast<long long>(c.index));
    w.key("name").value(c.name);
    w.key("runs").begin_packed_array();
    for (std::size_t r : c.runs) w.value(static_cast<unsigned long long>(r));
    w.end_array();
    w.key("times").numbers(c.times);
    w.key("range").numbers(std::vector<double>{c.lo, c.hi});
    w.key("mean").value(c.mean);
    indices(w, "overlaps", c.overlaps);
    w.key("instability").value(c.instability);
    w.key("stability").value(c.stability);
    w.key("winner_set").value(c.winner_set);
    w.key("worst_set").value(c.worst_set);
    w.end_object();
}

void verification(json::Writer& w, const OperationVerification& v) {
    w.begin_object();
    w.key("runs").begin_array();
    for (const std::string& path : v.runs) w.value(path);
    w.end_array();
    auto index = [&](const std::optional<int64_t>& i) {
        if (i)
            w.value(static_cast<long long>(*i));
        else
            w.null();
    };
    w.key("best");
    index(v.best);
    w.key("worst");
    index(v.worst);
    w.key("tuner_choice");
    index(v.tuner_choice);
    w.key("tuner_penalty_percent").value(v.tuner_penalty_percent);
    w.key("technique").value(timing_technique_key(v.technique));
    w.key("ranking_error");
    if (v.ranking_error)
        ranking_error(w, *v.ranking_error);
    else
        w.null();
    w.key("codelets").begin_array();
    for (const VerifiedCodelet& c : v.codelets) codelet(w, c);
    w.end_array();
    indices(w, "unverified", v.unverified);
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
        w.key("verification");
        verification(w, v.operations[k]);
    });
}

} // namespace topolens::patterns
