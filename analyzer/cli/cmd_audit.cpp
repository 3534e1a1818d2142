// topolens audit TRACE|REPORT [--format text|json] [--b B] [--nomax F] [--nu NU]
// [--rule audit|adcl] [--measurements N] [--sweep] [--aggregate max|min] [--outlier-factor F]
// [--outlier-fraction P]: did the autotuner decide well, what did its search cost, were its
// measurements trustworthy, what would ADCL's own rule have decided, and how many
// measurements does each method need? (docs/audit.md; definitions in
// patterns/audit/codelet_audit.h, adcl_rule.h and measurement_sweep.h).
#include "analyzer/cli/audit_verification.h"
#include "analyzer/cli/commands.h"
#include "analyzer/cli/options.h"
#include "analyzer/cli/report_input.h"
#include "analyzer/cli/text.h"

#include "patterns/audit/codelet_audit.h"
#include "patterns/audit/codelet_audit_json.h"
#include "patterns/audit/codelet_measurements.h"
#include "patterns/audit/measurement_sweep.h"
#include "patterns/audit/verification_json.h"

#include <charconv>
#include <cmath>
#include <iostream>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>

namespace topolens::cli {
namespace {

namespace pt = topolens::patterns;

struct AuditOptions {
    std::string input;
    std::vector<std::string> verification_runs; // runs that each used one fixed codelet
    std::string format = "text";
    std::string rule = "audit"; // the text view: the audit, or ADCL's rule replayed
    bool sweep = false;
    pt::AuditParameters parameters;
};

double parse_number(const std::string& option, const std::string& text) {
    double v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v))
        throw UsageError{option + " needs a number, not '" + text + "'"};
    return v;
}

// A whole number from `lo` to `hi`.
long long parse_whole(const std::string& option, const std::string& text, long long lo,
                      long long hi, const std::string& what) {
    long long v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size() || v < lo || v > hi)
        throw UsageError{option + " needs " + what + ", not '" + text + "'", false};
    return v;
}

AuditOptions parse(const std::vector<std::string>& args) {
    AuditOptions o;
    const auto number = [](const char* option, double& target) {
        return [option, &target](const std::string& text) { target = parse_number(option, text); };
    };
    OptionParser()
        .option({"--format"}, [&](const std::string& v) { o.format = v; })
        .option({"--b"}, number("--b", o.parameters.b))
        .option({"--nomax"}, number("--nomax", o.parameters.nomax))
        .option({"--nu"}, number("--nu", o.parameters.nu))
        .option({"--rule"}, [&](const std::string& v) { o.rule = v; })
        .option({"--measurements"},
                [&](const std::string& v) {
                    o.parameters.measurements = static_cast<std::size_t>(
                        parse_whole("--measurements", v, 1, std::numeric_limits<long long>::max(),
                                    "a whole number >= 1"));
                })
        .flag({"--sweep"}, [&] { o.sweep = true; })
        .option({"--aggregate"},
                [&](const std::string& v) {
                    const auto a = pt::parse_aggregate(v);
                    if (!a)
                        throw UsageError{"--aggregate must be max or min, not '" + v + "'", false};
                    o.parameters.aggregate = *a;
                })
        .option({"--outlier-factor"},
                [&](const std::string& v) {
                    o.parameters.adcl.outlier_factor = static_cast<int>(
                        parse_whole("--outlier-factor", v, 1, std::numeric_limits<int>::max(),
                                    "a whole number >= 1"));
                })
        .option({"--outlier-fraction"},
                [&](const std::string& v) {
                    o.parameters.adcl.outlier_fraction = static_cast<int>(parse_whole(
                        "--outlier-fraction", v, 0, 100, "a whole number from 0 to 100"));
                })
        .positional([&](const std::string& v) {
            if (o.input.empty())
                o.input = v;
            else
                o.verification_runs.push_back(v);
        })
        .parse(args);
    if (o.input.empty()) throw UsageError{"a trace or a report is needed"};
    if (o.sweep && !o.verification_runs.empty())
        throw UsageError{"verification runs go with the audit, not with --sweep", false};
    if (o.format != "text" && o.format != "json")
        throw UsageError{"--format must be text or json, not '" + o.format + "'"};
    if (o.rule != "audit" && o.rule != "adcl")
        throw UsageError{"--rule must be audit or adcl, not '" + o.rule + "'", false};
    if (!(o.parameters.b >= 1)) throw UsageError{"--b must be at least 1"};
    if (!(o.parameters.nomax >= 0 && o.parameters.nomax <= 1))
        throw UsageError{"--nomax must be a fraction between 0 and 1"};
    if (!(o.parameters.nu > 0)) throw UsageError{"--nu must be positive"};
    return o;
}

// One unit for all the times of an operation, chosen by the largest estimate, so that the
// columns compare at a glance: ms for the usual codelets, us or ns for tiny ones.
class TimeUnit {
  public:
    explicit TimeUnit(const pt::OperationAudit& op) {
        double largest = 0;
        for (const pt::CodeletAudit& c : op.codelets)
            for (double e : c.estimate) largest = std::max(largest, e);
        if (largest >= 1) {
            scale_ = 1, name_ = "s";
        } else if (largest >= 1e-3) {
            scale_ = 1e3, name_ = "ms";
        } else if (largest >= 1e-6) {
            scale_ = 1e6, name_ = "us";
        } else {
            scale_ = 1e9, name_ = "ns";
        }
    }
    std::string number(double seconds) const { return fixed(seconds * scale_, 3); }
    std::string operator()(double seconds) const { return number(seconds) + " " + name_; }
    const char* name() const { return name_; }

  private:
    double scale_ = 1e3;
    const char* name_ = "ms";
};

std::string percent(double fraction) {
    return fixed(fraction * 100, 1) + "%";
}

std::string upper(std::string s) {
    for (char& ch : s) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    return s;
}

std::string index_text(const std::optional<int64_t>& i) {
    return i ? std::to_string(*i) : "-";
}

// The process with the largest estimate, and the one that caused the wait where the audit
// finds one (pt::slowest_process).
std::string slowest_rank(const pt::CodeletAudit& c, const std::vector<uint32_t>& ranks) {
    const auto slowest = pt::slowest_process(c);
    if (!slowest) return "-";
    std::string text = std::to_string(ranks[slowest->location]);
    if (slowest->own) text += " (own: " + std::to_string(ranks[*slowest->own]) + ")";
    return text;
}

// Per robust method: how many outliers the process caused, and how many others waited.
void outlier_lines(std::ostream& out, const pt::CodeletAudit& c, const std::vector<uint32_t>& ranks,
                   const TimeUnit& time) {
    bool header = false;
    for (pt::Method m : pt::kRobustMethods) {
        const auto& list = c.outliers[m];
        if (list.empty()) continue;
        if (!header) {
            out << "    " << c.index << " " << c.name << ":\n";
            header = true;
        }
        std::map<uint32_t, std::size_t> own, waited, fast;
        std::set<uint32_t> global; // measurements
        std::size_t n_global = 0;
        for (const pt::OutlierAt& o : list) {
            if (o.global) {
                global.insert(o.number);
                ++n_global;
                continue;
            }
            ++(!o.slow ? fast : o.propagated ? waited : own)[ranks[o.location]];
        }
        std::string line = std::string(pt::method_name(m)) + ": " + std::to_string(list.size());
        std::vector<std::string> parts;
        for (const auto& [rank, n] : own)
            parts.push_back(std::to_string(n) + " at rank " + std::to_string(rank));
        if (!waited.empty()) {
            std::vector<uint32_t> who;
            std::size_t n = 0;
            for (const auto& [rank, k] : waited) {
                who.push_back(rank);
                n += k;
            }
            parts.push_back(std::to_string(n) + " propagated at rank(s) " + rank_ranges(who) +
                            " (waiting for others)");
        }
        if (n_global)
            parts.push_back(std::to_string(n_global) + " on most ranks at once (measurement(s) " +
                            rank_ranges({global.begin(), global.end()}) + ": the whole run)");
        for (const auto& [rank, n] : fast)
            parts.push_back(std::to_string(n) + " unusually fast at rank " + std::to_string(rank));
        out << "      " << line << " — " << join(parts, ", ") << "\n";
        if (m != pt::Heuristic) continue;
        for (const pt::OutlierAt& o : list)
            if (o.caused())
                out << "        rank " << ranks[o.location] << ", measurement " << o.number
                    << " at " << fixed(o.start, 3) << " s: " << time(o.time) << "\n";
    }
}

// "0 fast (filtered avg); the tuner chose the same" (adcl_rule.h).
template <typename Label>
std::string adcl_sentence(const pt::OperationAudit& op, const Label& label) {
    if (!op.adcl.winner) return "no winner (no codelet has a non-zero, defined filtered avg)";
    std::string text = label(op.adcl.winner) + " (" + pt::adcl_basis_key(op.adcl.basis) + " avg)";
    if (!op.adcl.matches_tuner) return text + "; the tuner recorded no decision";
    return text + (*op.adcl.matches_tuner ? "; the tuner chose the same"
                                          : "; the tuner chose " + label(op.tuner_winner));
}

void print_operation(std::ostream& out, const pt::OperationAudit& op, double run_seconds,
                     const std::vector<uint32_t>& ranks, pt::Aggregate aggregate) {
    const TimeUnit time(op);
    out << op.name << ": " << upper(pt::verdict_name(op.verdict)) << "\n";
    out << wrap(op.reason, 92, 2, 2, " ");
    auto label = [&](const std::optional<int64_t>& i) {
        if (!i) return std::string("none");
        const pt::CodeletAudit* c = op.codelet(*i);
        return std::to_string(*i) + (c ? " " + c->name : "");
    };
    Table facts;
    facts.row({"timing", pt::timing_technique_words(op.timing)});
    facts.row({"tuner's choice", label(op.tuner_winner)});
    std::vector<std::string> winners;
    for (std::size_t m = 0; m < pt::kMethods; ++m)
        winners.push_back(std::string(pt::method_name(pt::Method(m))) + " " +
                          index_text(op.method_winner[m]));
    facts.row({"method winners", join(winners, ", ")});
    if (op.tuner_winner)
        facts.row({"agreement", std::to_string(op.agreeing_methods) +
                                    " of 4 robust methods pick the tuner's choice"});
    facts.row({"ADCL's rule", adcl_sentence(op, label)});
    facts.row({"audit's winner",
               label(op.best) + (op.tuner_winner ? "; the tuner's choice costs " +
                                                       fixed(op.penalty_percent, 1) + "% more"
                                                 : "")});
    facts.row({"search phase", fixed(op.search_seconds, 3) + " s, " + percent(op.search_share) +
                                   " of the run (" + fixed(run_seconds, 3) + " s); " +
                                   fixed(op.search_cost_seconds, 3) + " s (" +
                                   percent(op.search_cost_share) +
                                   ") beyond running the chosen codelet every time"});
    if (op.production)
        facts.row(
            {"production",
             std::to_string(op.production->executions) + " executions over all processes, mean " +
                 time(op.production->mean) + " (slowest process) vs search estimate " +
                 time(op.production->search_estimate) + " (" + fixed(op.production->ratio, 2) +
                 "x)" + (op.production->flagged ? "  <-- slower than searched" : "")});
    else
        facts.row({"production", "none recorded"});
    out << "\n" << facts.render(2);

    Table table({"codelet", "", "procs", "n", "raw", "heuristic", "IQR", "cluster", "Student-t",
                 "rank", "outliers h/I/c/t", "range", "instability", "slowest", ""},
                {true, false, true, true, true, true, true, true, true, true, false, false, false,
                 true, false});
    for (const pt::CodeletAudit& c : op.codelets) {
        std::string outliers;
        for (pt::Method m : pt::kRobustMethods)
            outliers += (outliers.empty() ? "" : "/") + std::to_string(c.outliers[m].size());
        std::string mark = c.winner_set ? "winner set" : "";
        if (op.tuner_winner == c.index) mark += std::string(mark.empty() ? "" : ", ") + "chosen";
        table.row({std::to_string(c.index), c.name, std::to_string(c.processes),
                   std::to_string(c.measurements), time.number(c.estimate[pt::Raw]),
                   time.number(c.estimate[pt::Heuristic]), time.number(c.estimate[pt::Iqr]),
                   time.number(c.estimate[pt::Cluster]), time.number(c.estimate[pt::StudentT]),
                   std::to_string(pt::consensus_rank(op, c)), outliers,
                   time.number(c.range_lo) + "-" + time.number(c.range_hi),
                   fixed(c.instability, 2) + " " + c.stability, slowest_rank(c, ranks), mark});
    }
    out << "\n  estimates in " << time.name()
        << (aggregate == pt::Aggregate::Min ? ": the fastest" : ": the slowest")
        << " process's estimate of one execution, per method\n"
        << table.render(2)
        << "  rank: by the median of the four robust estimates; range: 10th-90th percentile of\n"
           "  the measurements (max over processes, without heuristic outliers); slowest: the\n"
           "  rank with the largest heuristic estimate (own: the largest without waiting time)\n";
    bool any = false;
    for (const pt::CodeletAudit& c : op.codelets)
        for (pt::Method m : pt::kRobustMethods) any = any || !c.outliers[m].empty();
    if (any) {
        out << "\n  outliers, and where they happened:\n";
        for (const pt::CodeletAudit& c : op.codelets) outlier_lines(out, c, ranks, time);
    }
    if (!op.diagnostics.empty()) {
        out << "\n  diagnostics:\n";
        for (const std::string& d : op.diagnostics) out << wrap("- " + d, 92, 4, 6, " ");
    }
}

// --rule adcl: ADCL's three values per codelet and its decision (adcl_rule.h).
void print_adcl_operation(std::ostream& out, const pt::OperationAudit& op,
                          const pt::AuditParameters& par) {
    const TimeUnit time(op);
    auto label = [&](const std::optional<int64_t>& i) {
        if (!i) return std::string("none");
        const pt::CodeletAudit* c = op.codelet(*i);
        return std::to_string(*i) + (c ? " " + c->name : "");
    };
    out << op.name << ": ADCL's rule picks " << adcl_sentence(op, label) << "\n";
    out << "  timing: " << pt::timing_technique_words(op.timing) << "\n";
    const std::string over =
        par.aggregate == pt::Aggregate::Max ? "max over processes" : "min over processes";
    Table table({"codelet", "", "procs", "n", "unfiltered avg", "filtered avg", "outliers", ""},
                {true, false, true, true, true, true, true, false});
    for (const pt::CodeletAudit& c : op.codelets) {
        std::string mark;
        if (op.adcl.winner == c.index) mark = "ADCL's winner";
        if (op.tuner_winner == c.index) mark += std::string(mark.empty() ? "" : ", ") + "chosen";
        table.row({std::to_string(c.index), c.name, std::to_string(c.processes),
                   std::to_string(c.measurements), time.number(c.adcl.unfiltered),
                   std::isnan(c.adcl.filtered) ? "undefined" : time.number(c.adcl.filtered),
                   fixed(c.adcl.outlier_percent, 0) + "%", mark});
    }
    out << "\n  averages in " << time.name() << ", each value the " << over << " separately\n"
        << table.render(2);
    const int factor = par.adcl.outlier_factor, fraction = par.adcl.outlier_fraction;
    std::string why;
    if (op.adcl.filtered_min) {
        const pt::CodeletAudit* f = op.codelet(*op.adcl.filtered_min);
        why = "The smallest non-zero filtered avg is " + label(op.adcl.filtered_min) + "'s; its " +
              fixed(f->adcl.outlier_percent, 0) + "% outliers are " +
              (op.adcl.basis == pt::AdclBasis::Filtered
                   ? "below " + std::to_string(fraction) + "%, so it wins (filtered)."
                   : "not below " + std::to_string(fraction) +
                         "%, so the smallest non-zero unfiltered avg wins: " +
                         label(op.adcl.unfiltered_min) + " (unfiltered).");
    } else {
        why = "No codelet has a non-zero, defined filtered avg, so ADCL's rule has no winner (ADCL "
              "itself would read codelet -1).";
    }
    out << wrap("outliers: t >= " + std::to_string(factor) +
                    " x the process's fastest measurement, in whole percent (truncated); "
                    "undefined: every measurement an outlier on a process (min 0). " +
                    why,
                92, 2, 2, " ");
}

// "0" or "-"; ADCL's winner with its basis: "0 f", "1 u".
std::string sweep_cell(const pt::SweepStep& s, std::size_t d) {
    std::string text = index_text(s.winner[d]);
    if (d == pt::kAdclDecider && s.winner[d])
        text += s.adcl_basis == pt::AdclBasis::Filtered ? " f" : " u";
    return text;
}

// --sweep: the winners by number of measurements (Benkert 2011, Fig. 5.7).
void print_sweep(std::ostream& out, const pt::OperationSweep& op) {
    out << op.name << ": the winner from the first N measurements of each codelet per process";
    if (op.steps.empty()) {
        out << "\n  no measurements\n";
        return;
    }
    out << " (N = 1-" << op.steps.back().measurements << " of " << op.available
        << " available; tuner's choice " << index_text(op.tuner_winner) << ")\n";
    std::vector<std::string> header = {"N"};
    std::vector<bool> right = {true};
    for (std::size_t d = 0; d < pt::kDeciders; ++d) {
        header.push_back(pt::decider_name(d));
        right.push_back(true);
    }
    Table table(header, right);
    for (const pt::SweepStep& s : op.steps) {
        std::vector<std::string> row = {std::to_string(s.measurements)};
        for (std::size_t d = 0; d < pt::kDeciders; ++d) row.push_back(sweep_cell(s, d));
        table.row(row);
    }
    std::vector<std::string> stable = {"stable from N"};
    for (std::size_t d = 0; d < pt::kDeciders; ++d)
        stable.push_back(std::to_string(op.stable_from[d]));
    table.row(stable);
    out << table.render(2)
        << "  ADCL: f = filtered avg, u = unfiltered avg; consensus: the audit's winner (median\n"
           "  of the four robust estimates); stable from N: the smallest N from which the winner\n"
           "  stays the one of the last row\n";
}

// The header's account of the parameters.
std::string parameters_text(const pt::AuditParameters& p) {
    std::string text;
    if (p.measurements)
        text += "; the first " + std::to_string(p.measurements) + " measurement(s) per process";
    if (p.aggregate == pt::Aggregate::Min) text += "; estimates of the fastest process (min)";
    return text;
}

} // namespace

void audit_usage(std::ostream& out) {
    out << "usage: topolens audit TRACE|REPORT [VERIFY...] [--format text|json] [--b B]\n"
           "         [--nomax F] [--nu NU] [--rule audit|adcl] [--measurements N] [--sweep]\n"
           "         [--aggregate max|min] [--outlier-factor F] [--outlier-fraction P]\n\n"
           "TRACE, a trace directory (or its .otf2 anchor), stands for its report.cubex, which\n"
           "is written first (as topolens analyze does, saying so on stderr) when it is\n"
           "missing or older than the trace (verification runs given as traces are analyzed\n"
           "without writing a report).\n\n"
           "Audits the decisions of runtime autotuners recorded in a trace (ADCL-style tuned\n"
           "operations, see docs/audit.md): per tuned operation and codelet the\n"
           "search-phase measurements, estimates by the raw mean and four robust methods,\n"
           "outliers and where they happened, ranking, overlap and instability; per operation\n"
           "the tuner's choice against each method's, the penalty of the choice, what the\n"
           "search cost, production against the search estimate, and a verdict (confirmed,\n"
           "questionable, wrong, undecided) with the reason.\n\n"
           "TRACE (archive directory or .otf2 anchor) is analyzed first; a REPORT written by\n"
           "`topolens analyze` holds the measurements, so the audit can be redone with other\n"
           "parameters without the trace.\n\n"
           "VERIFY... are verification runs (traces or reports) of the same program that each\n"
           "ran one fixed codelet (ADCL_EMETHOD_SELECTION, autotune_halo --codelet C): per\n"
           "codelet the min-max range of the runs' times, the best and worst sets, instability\n"
           "and its class, the penalty of the tuner's choice against the best verified codelet,\n"
           "and the ranking error of the search's timing technique (Benkert 2011, ch. 6).\n\n"
           "  --format text|json  output (default text; JSON: patterns/audit/AUDIT_FORMAT.md)\n"
           "  --b B               heuristic: outliers are t > B * min t (default 3, >= 1)\n"
           "  --nomax F           most outliers, as a fraction of the measurements, the heuristic\n"
           "                      and the cluster method remove (default 0.2)\n"
           "  --nu NU             degrees of freedom of the Student-t model (default 5)\n"
           "  --rule audit|adcl   text view: the audit (default), or ADCL's own decision rule\n"
           "                      replayed: per codelet ADCL's unfiltered avg, filtered avg and\n"
           "                      outlier percentage, its winner (filtered or unfiltered) and\n"
           "                      whether it is the tuner's recorded decision (the JSON always\n"
           "                      holds both)\n"
           "  --outlier-factor F  ADCL_OUTLIER_FACTOR: ADCL's outliers are t >= F * min t\n"
           "                      (whole number, default 3)\n"
           "  --outlier-fraction P  ADCL_OUTLIER_FRACTION: ADCL keeps the filtered avg when\n"
           "                      fewer than P percent are outliers (0-100, default 20)\n"
           "  --measurements N    decide from the first N measurements of each codelet per\n"
           "                      process (fewer where fewer exist; a diagnostic says so)\n"
           "  --sweep             per N = 1, 2, ... the winner of ADCL's rule, of each method\n"
           "                      and of the audit, and from which N each stays its full-data\n"
           "                      winner (up to --measurements N when given)\n"
           "  --aggregate max|min how per-process estimates become a codelet's: the slowest\n"
           "                      process (max, default, as ADCL) or the fastest (min)\n";
}

int audit_main(const std::vector<std::string>& args) {
    if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
        audit_usage(std::cout);
        return kExitOk;
    }
    AuditOptions o;
    try {
        o = parse(args);
    } catch (const UsageError& e) {
        return report_usage_error(e, "audit: ", audit_usage);
    }
    try {
        const report::Report report = open_report_input(o.input);
        auto found = report.attributes.find(pt::kMeasurementsAttribute);
        if (found == report.attributes.end()) {
            print_error("audit: " + o.input +
                        " holds no tuned operations (no codelet measurements; was the autotuner "
                        "traced through the topolens autotuner API?)");
            return kExitFailure;
        }
        const pt::CodeletMeasurements measurements = pt::parse_codelet_measurements(found->second);
        const std::vector<uint32_t> ranks = report.location_ranks();
        if (o.sweep) {
            const auto sweeps = pt::sweep_measurements(measurements, o.parameters, ranks);
            if (o.format == "json") {
                std::cout << pt::to_json(sweeps, o.parameters);
                return kExitOk;
            }
            std::cout << "Decision by number of measurements, " << o.input
                      << " (b = " << fixed(o.parameters.b, 2)
                      << ", n_o^max = " << percent(o.parameters.nomax)
                      << ", nu = " << fixed(o.parameters.nu, 1)
                      << "; ADCL_OUTLIER_FACTOR = " << o.parameters.adcl.outlier_factor
                      << ", ADCL_OUTLIER_FRACTION = " << o.parameters.adcl.outlier_fraction
                      << parameters_text(o.parameters) << ")\n";
            for (const pt::OperationSweep& op : sweeps) {
                std::cout << "\n";
                print_sweep(std::cout, op);
            }
            return kExitOk;
        }
        const pt::Audit audit = pt::audit(measurements, o.parameters, ranks);
        std::optional<pt::Verification> verification;
        if (!o.verification_runs.empty())
            verification = verify_against(measurements, audit, o.verification_runs);
        if (o.format == "json") {
            std::cout << (verification ? pt::with_verification(audit, ranks, *verification)
                                       : pt::to_json(audit, ranks));
            return kExitOk;
        }
        if (o.rule == "adcl") {
            std::cout << "ADCL's decision rule replayed on " << o.input
                      << " (ADCL_OUTLIER_FACTOR = " << o.parameters.adcl.outlier_factor
                      << ", ADCL_OUTLIER_FRACTION = " << o.parameters.adcl.outlier_fraction
                      << parameters_text(o.parameters) << ")\n";
            for (std::size_t i = 0; i < audit.operations.size(); ++i) {
                const pt::OperationAudit& op = audit.operations[i];
                std::cout << "\n";
                print_adcl_operation(std::cout, op, o.parameters);
                if (!op.diagnostics.empty()) {
                    std::cout << "\n  diagnostics:\n";
                    for (const std::string& d : op.diagnostics)
                        std::cout << wrap("- " + d, 92, 4, 6, " ");
                }
                if (verification) print_verification(std::cout, verification->operations[i]);
            }
            return kExitOk;
        }
        std::cout << "Codelet audit of " << o.input << " (b = " << fixed(o.parameters.b, 2)
                  << ", n_o^max = " << percent(o.parameters.nomax)
                  << " of the measurements, nu = " << fixed(o.parameters.nu, 1)
                  << parameters_text(o.parameters) << ")\n";
        for (std::size_t i = 0; i < audit.operations.size(); ++i) {
            std::cout << "\n";
            print_operation(std::cout, audit.operations[i], audit.run_seconds, ranks,
                            o.parameters.aggregate);
            if (!verification) continue;
            std::cout << "\n";
            print_verification(std::cout, verification->operations[i]);
        }
    } catch (const std::exception& e) {
        print_error("audit: " + std::string(e.what()));
        return kExitFailure;
    }
    return kExitOk;
}

} // namespace topolens::cli
