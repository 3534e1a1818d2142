// The audit's JSON reader beside its writer (patterns/audit/codelet_audit_json.h,
// verification_json.h): a real audit (ADCL's own measurements of its 3D neighbourhood
// example, adcl_decisions_fixture.h, with waits, production and verification runs added)
// written and read back is the same audit field for field; damaged documents give an
// AuditFormatError that says where and what is wrong.
#include "adcl_decisions_fixture.h"
#include "patterns/audit/codelet_audit.h"
#include "patterns/audit/codelet_audit_json.h"
#include "patterns/audit/json_object_reader.h"
#include "patterns/audit/verification.h"
#include "patterns/audit/verification_json.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <sstream>
#include <string>
#include <vector>

using namespace topolens;
using namespace topolens::patterns;
using ::testing::HasSubstr;

namespace {

constexpr uint32_t kLocations = 8;

std::string codelet_name(int64_t c) {
    return "method-" + std::to_string(c);
}

// The five emethods of ADCL's measurements as five tuned operations, each measurement taken
// three times over (m, m + 3, m + 6; the later ones 1 % and 2 % slower) so that the filters
// may drop outliers (n_o^max = 0.2 n). Operation 0: the
// processes 1 and 2 wait for most of their slow measurements (propagated outliers) and run
// the decided codelet in production; the operations cycle through the timing techniques.
CodeletMeasurements tuned_run() {
    CodeletMeasurements run;
    run.run_seconds = 12.5;
    const TimingTechnique techniques[] = {TimingTechnique::Unknown, TimingTechnique::BarrierBefore,
                                          TimingTechnique::NoBarrier, TimingTechnique::TimerObject};
    std::istringstream in(test::kAdclThreeDimMeasurements);
    int rank = 0, emethod = 0, method = 0;
    double t[3] = {};
    std::map<int, OperationMeasurements> ops;
    while (in >> rank >> emethod >> method >> t[0] >> t[1] >> t[2]) {
        OperationMeasurements& op = ops[emethod];
        op.name = "emethod " + std::to_string(emethod);
        op.technique = techniques[emethod % 4];
        op.codelets[method] = codelet_name(method);
        for (uint32_t m = 0; m < 9; ++m) {
            const double duration = t[m % 3] * 1e-6 * (1.0 + 0.01 * (m / 3));
            const bool waited = emethod == 0 && (rank == 1 || rank == 2) && t[m % 3] > 1000;
            op.search.push_back({static_cast<uint32_t>(rank), method, m, 10.0 * m + method,
                                 duration, waited ? duration - 100e-6 : 0.0});
        }
        op.decisions[static_cast<uint32_t>(rank)] = test::kAdclThreeDimDecisions[emethod].winner;
    }
    for (auto& [e, op] : ops) {
        op.codelets[12] = "never-measured";
        if (e == 0)
            for (uint32_t l = 0; l < kLocations; ++l)
                op.production.push_back({l, 2, 50, 50 * 210e-6, l == 3 ? 1e-3 : 0.0});
        run.operations.push_back(op);
    }
    return run;
}

// A run of `codelet` alone in emethod 0: `time` per execution on every process.
VerificationInput fixed_run(int64_t codelet, double time, const std::string& path) {
    OperationMeasurements op;
    op.name = "emethod 0";
    op.codelets[codelet] = codelet_name(codelet);
    for (uint32_t l = 0; l < kLocations; ++l) op.production.push_back({l, codelet, 4, 4 * time, 0});
    VerificationInput in;
    in.path = path;
    in.measurements.operations.push_back(op);
    return in;
}

std::vector<uint32_t> ranks() {
    std::vector<uint32_t> r(kLocations);
    for (uint32_t l = 0; l < kLocations; ++l) r[l] = l;
    return r;
}

// Equal, or both NaN (the writer writes NaN as null, the reader reads null as NaN).
void expect_same(double read, double written, const std::string& what) {
    if (std::isnan(written))
        EXPECT_TRUE(std::isnan(read)) << what;
    else
        EXPECT_EQ(read, written) << what;
}
void expect_same(const std::vector<double>& read, const std::vector<double>& written,
                 const std::string& what) {
    ASSERT_EQ(read.size(), written.size()) << what;
    for (std::size_t k = 0; k < read.size(); ++k)
        expect_same(read[k], written[k], what + "[" + std::to_string(k) + "]");
}

void expect_same(const CodeletAudit& r, const CodeletAudit& w) {
    const std::string c = "codelet " + std::to_string(w.index);
    EXPECT_EQ(r.index, w.index);
    EXPECT_EQ(r.name, w.name);
    EXPECT_EQ(r.processes, w.processes) << c;
    EXPECT_EQ(r.measurements, w.measurements) << c;
    expect_same(r.samples, w.samples, c + " samples");
    expect_same(r.samples_min, w.samples_min, c + " samples_min");
    for (auto [rv, wv] : {std::pair{r.box.min, w.box.min},
                          {r.box.q1, w.box.q1},
                          {r.box.median, w.box.median},
                          {r.box.q3, w.box.q3},
                          {r.box.max, w.box.max},
                          {r.box.whisker_lo, w.box.whisker_lo},
                          {r.box.whisker_hi, w.box.whisker_hi}})
        expect_same(rv, wv, c + " box");
    EXPECT_EQ(r.box.outliers, w.box.outliers) << c;
    for (std::size_t m = 0; m < kMethods; ++m) {
        expect_same(r.estimate[m], w.estimate[m], c + " estimate " + method_key(Method(m)));
        EXPECT_EQ(r.rank[m], w.rank[m]) << c << method_key(Method(m));
        ASSERT_EQ(r.outliers[m].size(), w.outliers[m].size()) << c << method_key(Method(m));
        for (std::size_t k = 0; k < w.outliers[m].size(); ++k) {
            const OutlierAt &ro = r.outliers[m][k], &wo = w.outliers[m][k];
            EXPECT_EQ(ro.location, wo.location);
            EXPECT_EQ(ro.number, wo.number);
            EXPECT_EQ(ro.start, wo.start);
            EXPECT_EQ(ro.time, wo.time);
            EXPECT_EQ(ro.wait, wo.wait);
            EXPECT_EQ(ro.propagated, wo.propagated);
            EXPECT_EQ(ro.slow, wo.slow);
            EXPECT_EQ(ro.global, wo.global);
        }
        EXPECT_EQ(r.per_process_estimate[m], w.per_process_estimate[m]) << c << m;
    }
    expect_same(r.consensus, w.consensus, c + " consensus");
    EXPECT_EQ(r.range_lo, w.range_lo) << c;
    EXPECT_EQ(r.range_hi, w.range_hi) << c;
    EXPECT_EQ(r.overlaps, w.overlaps) << c;
    EXPECT_EQ(r.instability, w.instability) << c;
    EXPECT_EQ(r.stability, w.stability) << c;
    EXPECT_EQ(r.winner_set, w.winner_set) << c;
    EXPECT_EQ(r.worst_set, w.worst_set) << c;
    expect_same(r.adcl.unfiltered, w.adcl.unfiltered, c + " adcl");
    expect_same(r.adcl.filtered, w.adcl.filtered, c + " adcl");
    expect_same(r.adcl.outlier_percent, w.adcl.outlier_percent, c + " adcl");
    EXPECT_EQ(r.per_process_mean, w.per_process_mean) << c;
    EXPECT_EQ(r.per_process_own, w.per_process_own) << c;
}

void expect_same(const OperationAudit& r, const OperationAudit& w) {
    SCOPED_TRACE(w.name);
    EXPECT_EQ(r.name, w.name);
    EXPECT_EQ(r.timing, w.timing);
    ASSERT_EQ(r.codelets.size(), w.codelets.size());
    for (std::size_t k = 0; k < w.codelets.size(); ++k) expect_same(r.codelets[k], w.codelets[k]);
    // The names the document gives: every measured codelet's and the tuner's.
    for (const CodeletAudit& c : w.codelets) EXPECT_EQ(r.codelet_names.at(c.index), c.name);
    if (w.tuner_winner) {
        EXPECT_EQ(r.codelet_names.at(*w.tuner_winner), w.codelet_names.at(*w.tuner_winner));
    }
    EXPECT_FALSE(r.codelet_names.contains(12)); // never measured, named by no member
    EXPECT_EQ(r.tuner_winner, w.tuner_winner);
    EXPECT_EQ(r.method_winner, w.method_winner);
    EXPECT_EQ(r.agreeing_methods, w.agreeing_methods);
    EXPECT_EQ(r.best, w.best);
    expect_same(r.penalty_percent, w.penalty_percent, "penalty");
    expect_same(r.search_seconds, w.search_seconds, "search_seconds");
    expect_same(r.search_cost_seconds, w.search_cost_seconds, "search_cost_seconds");
    expect_same(r.search_share, w.search_share, "search_share");
    expect_same(r.search_cost_share, w.search_cost_share, "search_cost_share");
    ASSERT_EQ(r.production.has_value(), w.production.has_value());
    if (w.production) {
        EXPECT_EQ(r.production->executions, w.production->executions);
        EXPECT_EQ(r.production->mean, w.production->mean);
        EXPECT_EQ(r.production->search_estimate, w.production->search_estimate);
        EXPECT_EQ(r.production->ratio, w.production->ratio);
        EXPECT_EQ(r.production->flagged, w.production->flagged);
    }
    EXPECT_EQ(r.verdict, w.verdict);
    EXPECT_EQ(r.reason, w.reason);
    EXPECT_EQ(r.diagnostics, w.diagnostics);
    EXPECT_EQ(r.adcl.winner, w.adcl.winner);
    EXPECT_EQ(r.adcl.basis, w.adcl.basis);
    EXPECT_EQ(r.adcl.filtered_min, w.adcl.filtered_min);
    EXPECT_EQ(r.adcl.unfiltered_min, w.adcl.unfiltered_min);
    EXPECT_EQ(r.adcl.matches_tuner, w.adcl.matches_tuner);
    EXPECT_EQ(r.available_measurements, w.available_measurements);
}

struct Written {
    Audit audit;
    Verification verification;
    std::string json;
};

const Written& written() {
    static const Written w = [] {
        const CodeletMeasurements tuned = tuned_run();
        AuditParameters p;
        p.b = 2.5;
        p.measurements = 8;
        p.aggregate = Aggregate::Min;
        p.adcl.outlier_factor = 4;
        p.adcl.outlier_fraction = 30;
        Written out;
        out.audit = audit(tuned, p, ranks());
        out.verification =
            verify(tuned, out.audit,
                   {fixed_run(2, 150e-6, "v-2a.cubex"), fixed_run(5, 190e-6, "v-5.cubex"),
                    fixed_run(2, 170e-6, "v-2b.cubex")});
        out.json = with_verification(out.audit, ranks(), out.verification);
        return out;
    }();
    return w;
}

// The error audit_from_json gives for `text` ("" when it gives none).
std::string audit_error(const std::string& text) {
    try {
        audit_from_json(text);
    } catch (const AuditFormatError& e) {
        return e.what();
    }
    return "";
}

// `text` with the first `from` after `after` replaced by `to` (which must be there).
std::string replaced(std::string text, const std::string& from, const std::string& to,
                     const std::string& after = "") {
    const auto at = text.find(from, text.find(after));
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) text.replace(at, from.size(), to);
    return text;
}

} // namespace

// The fixture covers what the round trip must carry: outliers of every kind the filters
// find, production, every timing technique, ADCL's replay, a NaN written as null.
TEST(AuditJsonRead, TheFixtureCoversTheFields) {
    const Audit& a = written().audit;
    ASSERT_EQ(a.operations.size(), 5u);
    std::size_t outliers = 0, propagated = 0;
    for (const OperationAudit& op : a.operations)
        for (const CodeletAudit& c : op.codelets)
            for (const auto& at : c.outliers) {
                outliers += at.size();
                for (const OutlierAt& o : at) propagated += o.propagated;
            }
    EXPECT_GT(outliers, 0u);
    EXPECT_GT(propagated, 0u);
    EXPECT_TRUE(a.operations[0].production.has_value());
    EXPECT_TRUE(a.operations[0].adcl.winner.has_value());
    EXPECT_TRUE(a.operations[0].tuner_winner.has_value());
    ASSERT_EQ(written().verification.operations.size(), 5u);
    EXPECT_EQ(written().verification.operations[0].codelets.size(), 2u);
    EXPECT_TRUE(written().verification.operations[0].ranking_error.has_value());
}

TEST(AuditJsonRead, RoundTripFieldForField) {
    const Written& w = written();
    const Audit r = audit_from_json(w.json);
    EXPECT_EQ(r.parameters.b, 2.5);
    EXPECT_EQ(r.parameters.nomax, w.audit.parameters.nomax);
    EXPECT_EQ(r.parameters.nu, w.audit.parameters.nu);
    EXPECT_EQ(r.parameters.measurements, 8u);
    EXPECT_EQ(r.parameters.aggregate, Aggregate::Min);
    EXPECT_EQ(r.parameters.adcl.outlier_factor, 4);
    EXPECT_EQ(r.parameters.adcl.outlier_fraction, 30);
    EXPECT_EQ(r.run_seconds, 12.5);
    ASSERT_EQ(r.operations.size(), w.audit.operations.size());
    for (std::size_t k = 0; k < r.operations.size(); ++k)
        expect_same(r.operations[k], w.audit.operations[k]);
    // Written again, the read audit gives the same document: nothing was lost.
    EXPECT_EQ(to_json(r, ranks()), to_json(w.audit, ranks()));
}

TEST(AuditJsonRead, VerificationRoundTrip) {
    const Written& w = written();
    const auto r = verification_from_json(w.json);
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->runs, (std::vector<std::string>{"v-2a.cubex", "v-5.cubex", "v-2b.cubex"}));
    ASSERT_EQ(r->operations.size(), w.verification.operations.size());
    for (std::size_t k = 0; k < r->operations.size(); ++k) {
        const OperationVerification &rv = r->operations[k], &wv = w.verification.operations[k];
        EXPECT_EQ(rv.name, wv.name);
        EXPECT_EQ(to_json(rv), to_json(wv)) << wv.name; // every member the writer writes
        EXPECT_EQ(rv.technique, wv.technique);
        ASSERT_EQ(rv.codelets.size(), wv.codelets.size());
        for (std::size_t c = 0; c < rv.codelets.size(); ++c) {
            EXPECT_EQ(rv.codelets[c].runs, wv.codelets[c].runs);
            EXPECT_EQ(rv.codelets[c].times, wv.codelets[c].times);
            EXPECT_EQ(rv.codelets[c].mean, wv.codelets[c].mean);
        }
        EXPECT_EQ(rv.tuner_penalty_percent, wv.tuner_penalty_percent);
        EXPECT_EQ(rv.ranking_error.has_value(), wv.ranking_error.has_value());
        if (wv.ranking_error) {
            EXPECT_EQ(rv.ranking_error->codelets, wv.ranking_error->codelets);
            EXPECT_EQ(rv.ranking_error->flips, wv.ranking_error->flips);
            EXPECT_EQ(rv.ranking_error->false_orderings.size(),
                      wv.ranking_error->false_orderings.size());
        }
    }
    // Without verification runs: none.
    EXPECT_FALSE(verification_from_json(to_json(w.audit, ranks())).has_value());
}

TEST(AuditJsonRead, MissingMemberIsNamed) {
    const std::string json = written().json;
    EXPECT_EQ(audit_error(replaced(json, "\"samples\": ", "\"samples_gone\": ")),
              "operation emethod 0 codelet method-0: the member \"samples\" is missing");
    EXPECT_EQ(audit_error(replaced(json, "\"operations\": ", "\"operation\": ")),
              "the document: the member \"operations\" is missing");
    EXPECT_EQ(audit_error(replaced(json, "\"whisker_hi\": ", "\"whisker\": ")),
              "operation emethod 0 codelet method-0 box: the member \"whisker_hi\" is missing");
}

TEST(AuditJsonRead, WrongTypeIsNamed) {
    const std::string json = written().json;
    EXPECT_EQ(audit_error(replaced(json, "\"verdict\": \"", "\"verdict\": 3, \"x\": \"")),
              "operation emethod 0: \"verdict\" is a number, not a string");
    EXPECT_EQ(audit_error(replaced(json, "\"samples\": [", "\"samples\": [\"fast\", ")),
              "operation emethod 0 codelet method-0: \"samples\" holds a string, not a number");
    EXPECT_EQ(audit_error(replaced(json, "\"box\": {", "\"box\": [], \"x\": {")),
              "operation emethod 0 codelet method-0: \"box\" is an array, not an object");
    EXPECT_EQ(audit_error(replaced(json, "\"index\": 0", "\"index\": 0.5", "\"codelets\": [")),
              "operation emethod 0 codelet method-0: \"index\" is not a whole number");
    EXPECT_EQ(audit_error(replaced(json, "\"box_outliers\": [", "\"box_outliers\": [99, ")),
              "operation emethod 0 codelet method-0: \"box_outliers\" names sample 99 of 8");
    EXPECT_EQ(audit_error(replaced(json, "\"topolens-audit\"", "\"topolens-audit-sweep\"")),
              "the document: \"format\" is \"topolens-audit-sweep\", not \"topolens-audit\"");
    EXPECT_EQ(audit_error(replaced(json, "\"version\": 1", "\"version\": 2")),
              "the document: version 2 is not the version this reader knows (1)");
    EXPECT_EQ(audit_error("[1, 2]"), "the document: is an array, not an object");
}

// Cut short anywhere before its end, the document is not JSON, and the reader says so.
TEST(AuditJsonRead, TruncatedDocumentsAreNotJson) {
    const std::string json = written().json;
    const std::size_t end = json.rfind('}');
    for (std::size_t cut = 0; cut < end; cut += 257) {
        const std::string error = audit_error(json.substr(0, cut));
        EXPECT_THAT(error, HasSubstr("not JSON: invalid JSON at offset")) << cut;
        EXPECT_THAT(error, HasSubstr("truncated")) << cut;
    }
    EXPECT_THAT(audit_error("{\"format\": \"topolens-audit\", \"operations\": [1,]}"),
                HasSubstr("not JSON: invalid JSON at offset 46: not a value"));
    try {
        verification_from_json(json.substr(0, json.size() / 2));
        ADD_FAILURE() << "no error";
    } catch (const AuditFormatError& e) {
        EXPECT_THAT(e.what(), HasSubstr("not JSON"));
    }
}

// Deeply nested input is refused, not a stack overflow.
TEST(AuditJsonRead, DeepNestingIsRefused) {
    EXPECT_THAT(audit_error(std::string(100000, '[')), HasSubstr("nested deeper than 256"));
}
