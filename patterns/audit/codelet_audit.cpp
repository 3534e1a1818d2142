#include "patterns/audit/codelet_audit.h"

#include "analyzer/report/rank_ranges.h"
#include "patterns/audit/codelet_estimators.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <stdexcept>

namespace topolens::patterns {

namespace {

// `value` with `decimals` digits and a unit: "16.7%", "2.04x".
std::string fixed_text(double value, int decimals, const char* unit) {
    char text[64];
    std::snprintf(text, sizeof text, "%.*f%s", decimals, value, unit);
    return text;
}

// t(c, p, ·) of one codelet on one location, in measurement order.
using ProcessSample = std::vector<const SearchMeasurement*>;

class OperationAuditor {
  public:
    OperationAuditor(const OperationMeasurements& in, const AuditParameters& parameters,
                     const std::vector<uint32_t>& ranks)
        : in_(in), par_(parameters), ranks_(ranks) {}

    OperationAudit run() {
        out_.name = in_.name;
        out_.timing = in_.technique;
        out_.codelet_names = in_.codelets;
        group_measurements();
        first_measurements();
        check_codelet_sets();
        for (auto& [index, by_location] : samples_)
            out_.codelets.push_back(codelet(index, by_location));
        rank_and_choose();
        replay_adcl();
        tuner_decision();
        search_cost();
        production();
        verdict();
        return std::move(out_);
    }

  private:
    uint32_t rank_of(uint32_t location) const {
        return location < ranks_.size() ? ranks_[location] : location;
    }

    // "3 (sendrecv-pairwise)"
    std::string label(int64_t index) const { return out_.codelet_label(index); }

    void note(std::string text) { out_.diagnostics.push_back(std::move(text)); }

    void group_measurements() {
        std::set<uint32_t> unknown;
        std::size_t ignored = 0;
        for (const SearchMeasurement& s : in_.search) {
            if (s.location >= ranks_.size()) {
                unknown.insert(s.location);
                ++ignored;
                continue;
            }
            samples_[s.codelet][s.location].push_back(&s);
        }
        if (ignored)
            note(std::to_string(ignored) + " measurement(s) name " +
                 (unknown.size() == 1 ? "location " : "locations ") +
                 analysis::rank_ranges({unknown.begin(), unknown.end()}) +
                 ", which the report does not have; ignored");
        for (auto& [index, by_location] : samples_)
            for (auto& [location, sample] : by_location)
                std::stable_sort(sample.begin(), sample.end(),
                                 [](auto* a, auto* b) { return a->number < b->number; });
        for (const auto& [index, name] : in_.codelets)
            if (!samples_.count(index))
                note("codelet " + label(index) + " was never measured in the search phase");
        if (in_.unfinished)
            note(std::to_string(in_.unfinished) +
                 " execution(s) were entered but never left (trace cut short?); not counted");
    }

    // With --measurements N: the first N measurements of each codelet per process; say where
    // fewer exist.
    void first_measurements() {
        for (const auto& [index, by_location] : samples_)
            for (const auto& [location, sample] : by_location)
                out_.available_measurements = std::max(out_.available_measurements, sample.size());
        const std::size_t n = par_.measurements;
        if (n == 0) return;
        for (auto& [index, by_location] : samples_) {
            std::size_t most = 0;
            for (auto& [location, sample] : by_location) {
                most = std::max(most, sample.size());
                if (sample.size() > n) sample.resize(n);
            }
            if (most < n)
                note("codelet " + label(index) + " has only " + std::to_string(most) +
                     " measurement(s) per process, fewer than the " + std::to_string(n) +
                     " asked for; all of them are used");
        }
    }

    // Every process should measure the same codelets; say which did not.
    void check_codelet_sets() {
        std::map<uint32_t, std::set<int64_t>> measured;
        for (const auto& [index, by_location] : samples_)
            for (const auto& [location, sample] : by_location) measured[location].insert(index);
        std::map<std::set<int64_t>, std::vector<uint32_t>> groups;
        for (const auto& [location, set] : measured) groups[set].push_back(rank_of(location));
        if (groups.size() <= 1) return;
        std::string text = "the processes measured different codelet sets:";
        for (const auto& [set, group] : groups) {
            std::vector<std::string> names;
            for (int64_t i : set) names.push_back(std::to_string(i));
            std::string list;
            for (const std::string& n : names) list += (list.empty() ? "" : " ") + n;
            text += " rank(s) " + analysis::rank_ranges(group) + " measured {" + list + "};";
        }
        text.back() = '.';
        note(text + " Each codelet is judged by the processes that measured it.");
        unreliable_.push_back("the processes measured different codelet sets");
    }

    CodeletAudit codelet(int64_t index, const std::map<uint32_t, ProcessSample>& by_location) {
        CodeletAudit c;
        c.index = index;
        auto name = in_.codelets.find(index);
        c.name = name != in_.codelets.end() ? name->second : "codelet " + std::to_string(index);
        c.processes = by_location.size();
        c.per_process_mean.assign(ranks_.size(), std::nullopt);
        for (auto& v : c.per_process_estimate) v.assign(ranks_.size(), std::nullopt);
        c.per_process_own.assign(ranks_.size(), std::nullopt);
        std::set<std::size_t> counts;
        std::map<uint32_t, double> sample_max;   // measurement number -> max over processes
        std::map<uint32_t, double> sample_min;   // measurement number -> min over processes
        std::map<uint32_t, double> filtered_max; // the same without heuristic outliers
        std::vector<double> t;
        std::vector<uint32_t> kept_by_heuristic; // ranks where the heuristic fell back
        for (const auto& [location, sample] : by_location) {
            counts.insert(sample.size());
            t.clear();
            for (const SearchMeasurement* s : sample) {
                t.push_back(s->duration);
                double& m = sample_max[s->number];
                m = std::max(m, s->duration);
                const auto [low, fresh] = sample_min.try_emplace(s->number, s->duration);
                if (!fresh) low->second = std::min(low->second, s->duration);
            }
            const AdclValues adcl = adcl_filter_timings(t, par_.adcl.outlier_factor);
            const bool first = location == by_location.begin()->first;
            c.adcl = first
                         ? adcl
                         : AdclValues{aggregate(par_.aggregate, c.adcl.unfiltered, adcl.unfiltered),
                                      aggregate(par_.aggregate, c.adcl.filtered, adcl.filtered),
                                      aggregate(par_.aggregate, c.adcl.outlier_percent,
                                                adcl.outlier_percent)};
            std::array<Estimate, kMethods> e;
            e[Raw] = Estimate{mean(t), mean(t), {}, false};
            e[Heuristic] = heuristic_estimate(t, par_.b, par_.nomax);
            e[Iqr] = iqr_estimate(t);
            e[Cluster] = cluster_estimate(t, par_.nomax);
            e[StudentT] = student_t_estimate(t, par_.nu);
            c.per_process_mean[location] = e[Raw].value;
            std::vector<double> own;
            for (const SearchMeasurement* s : sample)
                own.push_back(std::max(0.0, s->duration - s->wait));
            c.per_process_own[location] = heuristic_estimate(own, par_.b, par_.nomax).value;
            for (std::size_t k = 0, o = 0; k < sample.size(); ++k) {
                const auto& dropped = e[Heuristic].outliers;
                if (e[Heuristic].filtered && o < dropped.size() && dropped[o] == k) {
                    ++o;
                    continue;
                }
                double& f = filtered_max[sample[k]->number];
                f = std::max(f, sample[k]->duration);
            }
            const double med = median(t);
            for (std::size_t m = 0; m < kMethods; ++m) {
                c.per_process_estimate[m][location] = e[m].value;
                c.estimate[m] =
                    first ? e[m].value : aggregate(par_.aggregate, c.estimate[m], e[m].value);
                if (m == Raw) continue;
                // The heuristic drops its outliers only when there are at most n_o^max of
                // them; with more it keeps them all as real behaviour (said below).
                if (m == Heuristic && !e[m].filtered) {
                    kept_by_heuristic.push_back(ranks_[location]);
                    continue;
                }
                for (std::size_t k : e[m].outliers) {
                    const SearchMeasurement& s = *sample[k];
                    const double excess = s.duration - med;
                    c.outliers[m].push_back({location, s.number, s.start, s.duration, s.wait,
                                             excess > 0 && s.wait >= 0.5 * excess, excess > 0});
                }
            }
        }
        mark_global(c);
        if (!kept_by_heuristic.empty())
            note("codelet " + label(index) + ": on rank(s) " +
                 analysis::rank_ranges(kept_by_heuristic) +
                 " more than n_o^max of the measurements exceed b times the fastest, so the "
                 "heuristic takes them as real behaviour and uses the raw mean (no outliers "
                 "dropped there)");
        c.measurements = counts.empty() ? 0 : *counts.rbegin();
        if (counts.size() > 1)
            note("codelet " + label(index) +
                 ": the processes have different numbers of measurements (" +
                 std::to_string(*counts.begin()) + " to " + std::to_string(*counts.rbegin()) + ")");
        if (c.measurements == 1) {
            note("codelet " + label(index) +
                 " has a single measurement per process: outliers cannot be told from its "
                 "real cost");
            single_measurement_ = true;
        }
        for (const auto& [number, value] : sample_max) c.samples.push_back(value);
        for (const auto& [number, value] : sample_min) c.samples_min.push_back(value);
        c.box = box_plot(c.samples);
        // The range: per measurement the max over processes of what each process's
        // heuristic kept, so one process's outlier does not widen the codelet's range.
        std::vector<double> kept;
        for (const auto& [number, value] : filtered_max) kept.push_back(value);
        if (kept.empty()) kept = c.samples;
        const Range r = percentile_range(kept);
        c.range_lo = r.lo;
        c.range_hi = r.hi;
        std::array<double, 4> robust{};
        for (std::size_t k = 0; k < kRobustMethods.size(); ++k)
            robust[k] = c.estimate[kRobustMethods[k]];
        c.consensus = median(robust);
        return c;
    }

    // A slow outlier that most processes (more than half) have at the same measurement (and
    // did not merely wait for) disturbed the whole run at once, e.g. the operating system or
    // the network: no single process caused it.
    static void mark_global(CodeletAudit& c) {
        if (c.processes < 2) return;
        for (auto& list : c.outliers) {
            std::map<uint32_t, std::size_t> slow_at; // measurement -> processes
            // Processes that merely waited at that measurement do not count: they point to
            // a cause, which is then not global.
            for (const OutlierAt& o : list)
                if (o.slow && !o.propagated) ++slow_at[o.number];
            for (OutlierAt& o : list)
                o.global = o.slow && !o.propagated && 2 * slow_at[o.number] > c.processes;
        }
    }

    static BoxPlot box_plot(const std::vector<double>& s) {
        BoxPlot b;
        const IqrFences f = iqr_fences(s);
        b.min = *std::min_element(s.begin(), s.end());
        b.max = *std::max_element(s.begin(), s.end());
        b.q1 = f.q1;
        b.q3 = f.q3;
        b.median = median(s);
        b.whisker_lo = b.max;
        b.whisker_hi = b.min;
        for (std::size_t k = 0; k < s.size(); ++k) {
            if (s[k] < f.lo || s[k] > f.hi) {
                b.outliers.push_back(k);
                continue;
            }
            b.whisker_lo = std::min(b.whisker_lo, s[k]);
            b.whisker_hi = std::max(b.whisker_hi, s[k]);
        }
        return b;
    }

    // Ranks per method, the audit's winner, overlap and instability.
    void rank_and_choose() {
        auto& cs = out_.codelets;
        if (cs.empty()) return;
        for (std::size_t m = 0; m < kMethods; ++m) {
            std::vector<std::size_t> order(cs.size());
            for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
            std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
                return cs[a].estimate[m] < cs[b].estimate[m];
            });
            for (std::size_t k = 0; k < order.size(); ++k) cs[order[k]].rank[m] = int(k) + 1;
            out_.method_winner[m] = cs[order.front()].index;
        }
        std::vector<Range> ranges;
        std::vector<double> consensus;
        for (const CodeletAudit& c : cs) {
            ranges.push_back({c.range_lo, c.range_hi});
            consensus.push_back(c.consensus);
        }
        const std::size_t fastest =
            std::min_element(consensus.begin(), consensus.end()) - consensus.begin();
        out_.best = cs[fastest].index;
        for (std::size_t k : winners(ranges, consensus)) cs[k].winner_set = true;
        // The mirror: the slowest by consensus and whatever overlaps it (winners() of the
        // negated estimates picks the largest, ties at the lowest index).
        std::vector<double> negated;
        for (double e : consensus) negated.push_back(-e);
        for (std::size_t k : winners(ranges, negated)) cs[k].worst_set = true;
        for (std::size_t k = 0; k < cs.size(); ++k) {
            cs[k].instability = instability(ranges, k);
            cs[k].stability = std::string(stability_name(stability_class(cs[k].instability)));
            for (std::size_t d = 0; d < cs.size(); ++d)
                if (d != k && overlaps(ranges[k], ranges[d])) cs[k].overlaps.push_back(cs[d].index);
        }
    }

    // ADCL_statistics_get_winner_v3 on the codelets' aggregated values, in index order.
    void replay_adcl() {
        std::vector<AdclValues> global;
        for (const CodeletAudit& c : out_.codelets) global.push_back(c.adcl);
        const AdclWinner w = adcl_winner(global, par_.adcl.outlier_fraction);
        const auto index = [&](const std::optional<std::size_t>& k) -> std::optional<int64_t> {
            if (!k) return std::nullopt;
            return out_.codelets[*k].index;
        };
        out_.adcl.winner = index(w.winner);
        out_.adcl.basis = w.basis;
        out_.adcl.filtered_min = index(w.filtered_min);
        out_.adcl.unfiltered_min = index(w.unfiltered_min);
        if (!out_.codelets.empty() && !w.winner)
            note("ADCL's rule has no winner: no codelet has a non-zero, defined filtered "
                 "average (every measurement 0?); ADCL itself would read codelet -1 here");
    }

    // The tuner's choice: what the processes decided (the most common decision).
    void tuner_decision() {
        std::map<int64_t, std::vector<uint32_t>> by_choice;
        for (const auto& [location, index] : in_.decisions)
            by_choice[index].push_back(rank_of(location));
        if (by_choice.empty()) return;
        auto most = std::max_element(by_choice.begin(), by_choice.end(), [](auto& a, auto& b) {
            return a.second.size() < b.second.size();
        });
        out_.tuner_winner = most->first;
        out_.adcl.matches_tuner = out_.adcl.winner == out_.tuner_winner;
        if (by_choice.size() > 1) {
            std::string text = "the processes decided differently:";
            for (const auto& [index, group] : by_choice)
                text += " rank(s) " + analysis::rank_ranges(group) + " chose " + label(index) + ";";
            text.back() = '.';
            note(text + " The audit takes the most common choice, " + label(most->first) + ".");
            unreliable_.push_back("the processes decided differently");
        }
        std::size_t decided = 0;
        for (const auto& [index, group] : by_choice) decided += group.size();
        // The processes whose measurements the audit uses (not those it ignored).
        std::set<uint32_t> measuring;
        for (const auto& [index, by_location] : samples_)
            for (const auto& [location, sample] : by_location) measuring.insert(location);
        if (decided < measuring.size())
            note(std::to_string(measuring.size() - decided) + " of " +
                 std::to_string(measuring.size()) + " measuring processes recorded no decision");
        for (std::size_t m = 0; m < kRobustMethods.size(); ++m)
            if (out_.method_winner[kRobustMethods[m]] == out_.tuner_winner) ++out_.agreeing_methods;
        const CodeletAudit* chosen = out_.codelet(*out_.tuner_winner);
        const CodeletAudit* best = out_.best ? out_.codelet(*out_.best) : nullptr;
        if (chosen && best && best->consensus > 0)
            out_.penalty_percent = 100.0 * (chosen->consensus - best->consensus) / best->consensus;
    }

    // The codelet the run went on with: the tuner's, else the audit's.
    std::optional<int64_t> used_codelet() const {
        if (out_.tuner_winner && out_.codelet(*out_.tuner_winner)) return out_.tuner_winner;
        return out_.best;
    }

    void search_cost() {
        std::size_t samples = 0;
        for (const CodeletAudit& c : out_.codelets)
            for (double s : c.samples) {
                out_.search_seconds += s;
                ++samples;
            }
        if (const auto used = used_codelet()) {
            const double would_cost = double(samples) * out_.codelet(*used)->consensus;
            out_.search_cost_seconds = std::max(0.0, out_.search_seconds - would_cost);
        }
    }

    void production() {
        std::map<int64_t, std::vector<const ProductionTotal*>> by_codelet;
        for (const ProductionTotal& p : in_.production)
            if (p.executions) by_codelet[p.codelet].push_back(&p);
        if (by_codelet.empty()) return;
        // Production should run the tuner's choice (measured or not); without a decision,
        // the audit's winner stands in.
        const auto chosen = out_.tuner_winner ? out_.tuner_winner : out_.best;
        for (const auto& [index, totals] : by_codelet)
            if (index != chosen)
                note("the production phase also ran " + label(index) + ", not the chosen codelet");
        // The check needs a search estimate: none for a choice the search never measured.
        const auto used = used_codelet();
        if (!used || used != chosen || !by_codelet.count(*used)) return;
        ProductionCheck p;
        for (const ProductionTotal* t : by_codelet[*used]) {
            p.executions += t->executions;
            p.mean = std::max(p.mean, t->duration / double(t->executions));
        }
        p.search_estimate = out_.codelet(*used)->consensus;
        p.ratio = p.search_estimate > 0 ? p.mean / p.search_estimate : 0;
        p.flagged = p.ratio > kProductionRatioFlag;
        out_.production = p;
    }

    void verdict() {
        if (!out_.tuner_winner) {
            out_.verdict = Verdict::Undecided;
            out_.reason = "No process recorded a decision for this operation";
            if (out_.best)
                out_.reason += "; by its measurements the fastest codelet is " + label(*out_.best);
            out_.reason += ".";
            return;
        }
        const std::string chosen = label(*out_.tuner_winner);
        if (out_.codelets.empty()) {
            out_.verdict = Verdict::Questionable;
            out_.reason = "The tuner chose " + chosen +
                          ", but the trace holds no search-phase measurements to check it with.";
            return;
        }
        const CodeletAudit* c = out_.codelet(*out_.tuner_winner);
        if (!c) {
            out_.verdict = Verdict::Questionable;
            out_.reason = "The tuner chose " + chosen + ", which the search phase never measured.";
            return;
        }
        const std::string best = label(*out_.best);
        const bool is_best = *out_.tuner_winner == *out_.best;
        const bool good =
            is_best || (c->winner_set && out_.penalty_percent <= kPenaltyTolerancePercent);
        if (!good && !c->winner_set && out_.penalty_percent > kPenaltyTolerancePercent) {
            out_.verdict = Verdict::Wrong;
            out_.reason = "The tuner chose " + chosen + ", but " + best + " is faster: " + chosen +
                          " costs " + fixed_text(out_.penalty_percent, 1, "%") +
                          " more per execution and their measurement ranges do not overlap";
            if (out_.method_winner[Raw] == out_.tuner_winner)
                out_.reason += " (the raw mean, distorted by outliers, favours " + chosen + ")";
            out_.reason += ".";
            return;
        }
        std::vector<std::string> doubts = unreliable_;
        if (!good)
            doubts.push_back(best + " is faster: " + chosen + " costs " +
                             fixed_text(out_.penalty_percent, 1, "%") + " more" +
                             (c->winner_set ? ", within the measurements' spread"
                                            : ", and their measurement ranges do not overlap"));
        if (single_measurement_) doubts.push_back("codelets were measured only once per process");
        if (out_.production && out_.production->flagged)
            doubts.push_back("in production " + chosen + " took " +
                             fixed_text(out_.production->ratio, 2, "x") +
                             " its search-phase estimate, so the search mispredicted production");
        if (doubts.empty()) {
            out_.verdict = Verdict::Confirmed;
            if (is_best)
                out_.reason = "The tuner chose " + chosen + ", the fastest codelet by the audit (" +
                              std::to_string(out_.agreeing_methods) +
                              " of 4 robust methods agree).";
            else
                out_.reason = "The tuner chose " + chosen + "; " + best + " is faster, but " +
                              chosen + " costs only " + fixed_text(out_.penalty_percent, 1, "%") +
                              " more and their measurement ranges overlap, so either is a "
                              "good choice.";
            return;
        }
        out_.verdict = Verdict::Questionable;
        out_.reason = "The tuner chose " + chosen + ", but ";
        for (std::size_t k = 0; k < doubts.size(); ++k)
            out_.reason += (k == 0 ? "" : k + 1 == doubts.size() ? " and " : ", ") + doubts[k];
        out_.reason += ".";
    }

    const OperationMeasurements& in_;
    const AuditParameters& par_;
    const std::vector<uint32_t>& ranks_;
    OperationAudit out_;
    std::map<int64_t, std::map<uint32_t, ProcessSample>> samples_;
    std::vector<std::string> unreliable_;
    bool single_measurement_ = false;
};

} // namespace

const char* method_key(Method m) {
    static const char* keys[] = {"raw", "heuristic", "iqr", "cluster", "student_t"};
    return keys[m];
}

const char* method_name(Method m) {
    static const char* names[] = {"raw mean", "heuristic", "IQR", "cluster", "Student-t"};
    return names[m];
}

const char* verdict_name(Verdict v) {
    switch (v) {
    case Verdict::Confirmed:
        return "confirmed";
    case Verdict::Questionable:
        return "questionable";
    case Verdict::Wrong:
        return "wrong";
    case Verdict::Undecided:
        return "undecided";
    }
    return "undecided";
}

const CodeletAudit* OperationAudit::codelet(int64_t index) const {
    for (const CodeletAudit& c : codelets)
        if (c.index == index) return &c;
    return nullptr;
}

const CodeletAudit* OperationAudit::codelet_named(const std::string& wanted) const {
    for (const CodeletAudit& c : codelets)
        if (c.name == wanted) return &c;
    return nullptr;
}

const OperationAudit* Audit::operation(const std::string& wanted) const {
    for (const OperationAudit& op : operations)
        if (op.name == wanted) return &op;
    return nullptr;
}

std::vector<BoxOutlierCause> box_outlier_causes(const CodeletAudit& c) {
    // Measurement -> the locations slow there, by what the filters found.
    std::map<std::size_t, std::set<uint32_t>> caused, propagated, global;
    for (const std::vector<OutlierAt>& method : c.outliers)
        for (const OutlierAt& o : method) {
            if (!o.slow) continue; // unusually fast: not why the measurement is high
            (o.global ? global : o.propagated ? propagated : caused)[o.number].insert(o.location);
        }
    std::vector<BoxOutlierCause> causes;
    for (const std::size_t i : c.box.outliers) {
        using Cause = CodeletAudit::OutlierCause;
        BoxOutlierCause cause;
        if (const auto found = caused.find(i); found != caused.end()) {
            cause.cause = Cause::Caused;
            cause.locations.assign(found->second.begin(), found->second.end());
        } else {
            cause.cause = global.count(i)       ? Cause::Global
                          : propagated.count(i) ? Cause::Propagated
                                                : Cause::Unflagged;
        }
        causes.push_back(std::move(cause));
    }
    return causes;
}

std::string OperationAudit::codelet_label(int64_t index) const {
    auto name = codelet_names.find(index);
    return std::to_string(index) + (name != codelet_names.end() ? " (" + name->second + ")" : "");
}

namespace {

// The location where `per` is largest.
std::optional<std::size_t> largest_at(const std::vector<std::optional<double>>& per) {
    std::optional<std::size_t> worst;
    for (std::size_t l = 0; l < per.size(); ++l)
        if (per[l] && (!worst || *per[l] > *per[*worst])) worst = l;
    return worst;
}

} // namespace

std::optional<SlowestProcess> slowest_process(const CodeletAudit& c) {
    const auto by_estimate = largest_at(c.per_process_estimate[Heuristic]);
    if (!by_estimate) return std::nullopt;
    SlowestProcess slowest{*by_estimate, std::nullopt};
    const auto by_own = largest_at(c.per_process_own);
    if (by_own && *by_own != *by_estimate && c.per_process_own[*by_estimate] &&
        *c.per_process_own[*by_own] > kOwnTimeMargin * *c.per_process_own[*by_estimate])
        slowest.own = by_own;
    return slowest;
}

int consensus_rank(const OperationAudit& op, const CodeletAudit& c) {
    int rank = 1;
    for (const CodeletAudit& d : op.codelets)
        if (d.consensus < c.consensus) ++rank;
    return rank;
}

Audit audit(const CodeletMeasurements& input, const AuditParameters& parameters,
            const std::vector<uint32_t>& ranks) {
    if (!(parameters.b >= 1) || !std::isfinite(parameters.b))
        throw std::invalid_argument("--b must be a number >= 1");
    if (!(parameters.nomax >= 0 && parameters.nomax <= 1))
        throw std::invalid_argument("--nomax must be a fraction between 0 and 1");
    if (!(parameters.nu > 0) || !std::isfinite(parameters.nu))
        throw std::invalid_argument("--nu must be a positive number");
    if (parameters.adcl.outlier_factor < 1)
        throw std::invalid_argument("--outlier-factor must be a whole number >= 1");
    if (parameters.adcl.outlier_fraction < 0 || parameters.adcl.outlier_fraction > 100)
        throw std::invalid_argument("--outlier-fraction must be a whole number from 0 to 100");
    Audit a;
    a.parameters = parameters;
    a.run_seconds = input.run_seconds;
    for (const OperationMeasurements& op : input.operations) {
        OperationAudit o = OperationAuditor(op, parameters, ranks).run();
        if (a.run_seconds > 0) {
            o.search_share = o.search_seconds / a.run_seconds;
            o.search_cost_share = o.search_cost_seconds / a.run_seconds;
        }
        a.operations.push_back(std::move(o));
    }
    return a;
}

} // namespace topolens::patterns
