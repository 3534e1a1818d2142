#include "analyzer/cli/audit_verification.h"

#include "analyzer/cli/text.h"

#include "analyzer/report/cube4.h"
#include "patterns/analyze_file.h"

#include <algorithm>
#include <ostream>

namespace topolens::cli {
namespace {

namespace pt = topolens::patterns;

pt::CodeletMeasurements read_run(const std::string& path) {
    try {
        const report::Report report = pt::is_trace_path(path) ? pt::analyze_file(path).result.report
                                                              : report::read_cube4(path);
        auto found = report.attributes.find(pt::kMeasurementsAttribute);
        if (found == report.attributes.end())
            throw pt::VerificationError("verification run " + path +
                                        " holds no tuned operation (no codelet measurements)");
        return pt::parse_codelet_measurements(found->second);
    } catch (const pt::VerificationError&) {
        throw;
    } catch (const std::exception& e) {
        throw pt::VerificationError("verification run " + path + ": " + e.what());
    }
}

// One unit for the times of an operation, by the largest: s, ms, us or ns.
struct Unit {
    double scale = 1e3;
    const char* name = "ms";
    explicit Unit(const pt::OperationVerification& v) {
        double largest = 0;
        for (const pt::VerifiedCodelet& c : v.codelets) largest = std::max(largest, c.hi);
        if (largest >= 1)
            scale = 1, name = "s";
        else if (largest >= 1e-3)
            scale = 1e3, name = "ms";
        else if (largest >= 1e-6)
            scale = 1e6, name = "us";
        else
            scale = 1e9, name = "ns";
    }
    std::string operator()(double seconds) const { return fixed(seconds * scale, 3); }
};

std::string list(const std::vector<int64_t>& indices) {
    std::vector<std::string> items;
    for (int64_t i : indices) items.push_back(std::to_string(i));
    return items.empty() ? "none" : join(items, ", ");
}

std::string label(const pt::OperationVerification& v, int64_t index) {
    const pt::VerifiedCodelet* c = v.codelet(index);
    return std::to_string(index) + (c ? " " + c->name : "");
}

void ranking_lines(std::ostream& out, const pt::RankingError& e, pt::TimingTechnique t) {
    out << "  technique " << pt::timing_technique_key(t) << ", ranking error "
        << fixed(e.max_avg, 1) << "% (the largest e_avg; the search was timed with "
        << pt::timing_technique_words(t) << ")\n";
    out << "  ranking error of the search (Benkert 6.3.2; the search ranks by the consensus\n"
           "  estimate) against the verification runs, over codelets "
        << list(e.codelets) << ":\n";
    out << "    " << e.false_orderings.size() << " false ordering(s) (ranked otherwise, ranges "
        << "apart), " << e.flips << " flip(s) within overlapping ranges (acceptable)\n";
    out << "    max e_avg " << fixed(e.max_avg, 1) << "%, sum e_avg " << fixed(e.sum_avg, 1)
        << "%, max e_min " << fixed(e.max_min, 1) << "%, max e_max " << fixed(e.max_max, 1)
        << "%\n";
    for (const pt::FalseOrdering& f : e.false_orderings)
        out << "    " << f.faster << " is faster than " << f.slower
            << " by the verification runs, the search ranked it slower: e_min " << fixed(f.e_min, 1)
            << "%, e_avg " << fixed(f.e_avg, 1) << "%, e_max " << fixed(f.e_max, 1) << "%\n";
}

} // namespace

pt::Verification verify_against(const pt::CodeletMeasurements& tuned, const pt::Audit& audit,
                                const std::vector<std::string>& paths) {
    std::vector<pt::VerificationInput> runs;
    for (const std::string& path : paths) runs.push_back({path, read_run(path)});
    return pt::verify(tuned, audit, runs);
}

void print_verification(std::ostream& out, const pt::OperationVerification& v) {
    out << "\n  verification runs: " << v.runs.size() << " run(s) of one fixed codelet each";
    if (v.runs.empty()) {
        out << "; none ran " << v.name << "\n";
        return;
    }
    const Unit unit(v);
    out << "\n  a run's time: the slowest process's mean time of one execution of " << v.name
        << " in that run\n";
    Table table({"codelet", "", "runs", std::string("range (") + unit.name + ")",
                 std::string("mean (") + unit.name + ")", "instability", ""},
                {true, false, true, false, true, false, false});
    for (const pt::VerifiedCodelet& c : v.codelets) {
        std::vector<std::string> marks;
        if (c.winner_set) marks.push_back(v.best == c.index ? "best" : "winner set");
        if (c.worst_set) marks.push_back(v.worst == c.index ? "worst" : "worst set");
        if (v.tuner_choice == c.index) marks.push_back("tuner's choice");
        table.row({std::to_string(c.index), c.name, std::to_string(c.runs.size()),
                   unit(c.lo) + "-" + unit(c.hi), unit(c.mean),
                   fixed(c.instability, 2) + " " + c.stability, join(marks, ", ")});
    }
    out << table.render(2);
    out << "  range: the fastest and slowest of the codelet's runs; instability: the share of\n"
           "  the other verified codelets whose ranges overlap (they may swap places)\n";
    std::vector<int64_t> winners, worst;
    for (const pt::VerifiedCodelet& c : v.codelets) {
        if (c.winner_set) winners.push_back(c.index);
        if (c.worst_set) worst.push_back(c.index);
    }
    out << "  best verified codelet: " << label(v, *v.best)
        << " (lowest mean of its runs); winner set: " << list(winners) << "\n";
    out << "  worst verified codelet: " << label(v, *v.worst) << "; worst set: " << list(worst)
        << "\n";
    if (!v.tuner_choice)
        out << "  tuner's choice: none recorded\n";
    else if (!v.tuner_penalty_percent)
        out << "  tuner's choice: " << *v.tuner_choice << ", not verified: no penalty known\n";
    else if (v.tuner_choice == v.best)
        out << "  tuner's choice: " << label(v, *v.tuner_choice)
            << ", the best verified codelet (penalty 0%)\n";
    else
        out << "  tuner's choice: " << label(v, *v.tuner_choice) << ", penalty "
            << fixed(*v.tuner_penalty_percent, 1) << "% against the best verified"
            << (v.codelet(*v.tuner_choice)->winner_set ? " (in the winner set: the ranges overlap)"
                                                       : "")
            << "\n";
    if (!v.unverified.empty())
        out << "  searched but not verified (no run of them): " << list(v.unverified) << "\n";
    if (v.ranking_error)
        ranking_lines(out, *v.ranking_error, v.technique);
    else
        out << "  ranking error: needs two codelets both searched and verified\n";
}

} // namespace topolens::cli
