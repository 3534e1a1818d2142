#include "patterns/audit/verification.h"

#include "patterns/audit/codelet_estimators.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

namespace topolens::patterns {

namespace {

// "3, 5, 7": codelet indices in a message.
std::string index_list(const std::set<int64_t>& indices) {
    std::string text;
    for (int64_t i : indices) text += (text.empty() ? "" : ", ") + std::to_string(i);
    return text;
}

std::string quoted(const std::string& name) {
    return "'" + name + "'";
}

// (t − min) / min · 100: a time in percent above the fastest, as §6.3.2 scales all times.
std::vector<double> percent_above_min(const std::vector<double>& t) {
    const double min = *std::min_element(t.begin(), t.end());
    std::vector<double> p;
    for (double v : t) p.push_back(min > 0 ? (v - min) / min * 100 : 0);
    return p;
}

int sign(double v) {
    return (v > 0) - (v < 0);
}

// The tuned run's index of a verification run's codelet `index` named `name`: the same index
// with the same name, else the one codelet of the tuned run with that name (a tuner such as
// ADCL numbers codelets in the order it first runs them, so a run of one fixed codelet calls
// it 0); nullopt when the tuned run has no such codelet or several with that name.
std::optional<int64_t> tuned_index(const OperationMeasurements& tuned_op, int64_t index,
                                   const std::string& name) {
    if (auto same = tuned_op.codelets.find(index);
        same != tuned_op.codelets.end() && same->second == name)
        return index;
    std::optional<int64_t> found;
    for (const auto& [i, n] : tuned_op.codelets) {
        if (n != name) continue;
        if (found) return std::nullopt;
        found = i;
    }
    return found;
}

// Checks one verification run's operation against the tuned run's and returns its time, its
// codelet given by the tuned run's index.
RunTime checked_run_time(const OperationMeasurements& run_op, const OperationMeasurements& tuned_op,
                         const std::string& path) {
    std::map<int64_t, int64_t> to_tuned;
    for (const auto& [index, name] : run_op.codelets) {
        const std::optional<int64_t> tuned = tuned_index(tuned_op, index, name);
        if (auto same = tuned_op.codelets.find(index); !tuned && same != tuned_op.codelets.end())
            throw VerificationError("verification run " + path + ": codelet " +
                                    std::to_string(index) + " of " + quoted(run_op.name) + " is " +
                                    quoted(name) + ", in the tuned run it is " +
                                    quoted(same->second) + " (another codelet set)");
        if (!tuned)
            throw VerificationError("verification run " + path + ": codelet " +
                                    std::to_string(index) + " " + quoted(name) + " of " +
                                    quoted(run_op.name) +
                                    " is not a codelet of the tuned run (another codelet set)");
        to_tuned[index] = *tuned;
    }
    RunTime t = verification_run_time(run_op, path);
    auto tuned = to_tuned.find(t.codelet);
    if (tuned == to_tuned.end())
        throw VerificationError("verification run " + path + ": it ran codelet " +
                                std::to_string(t.codelet) + " of " + quoted(run_op.name) +
                                ", which the tuned run does not have (another codelet set)");
    t.codelet = tuned->second;
    return t;
}

// Overlap, instability, winner and worst sets of the verified codelets (t_v^avg decides best
// and worst; the thesis's "minimum verification run time", ranked by average as in eqn. 6.1).
void rank_verified(OperationVerification& v) {
    auto& cs = v.codelets;
    if (cs.empty()) return;
    std::vector<Range> ranges;
    std::vector<double> means, negated;
    for (const VerifiedCodelet& c : cs) {
        ranges.push_back({c.lo, c.hi});
        means.push_back(c.mean);
        negated.push_back(-c.mean);
    }
    for (std::size_t k : winners(ranges, means)) cs[k].winner_set = true;
    for (std::size_t k : winners(ranges, negated)) cs[k].worst_set = true;
    v.best = cs[std::min_element(means.begin(), means.end()) - means.begin()].index;
    v.worst = cs[std::max_element(means.begin(), means.end()) - means.begin()].index;
    for (std::size_t k = 0; k < cs.size(); ++k) {
        cs[k].instability = instability(ranges, k);
        cs[k].stability = std::string(stability_name(stability_class(cs[k].instability)));
        for (std::size_t d = 0; d < cs.size(); ++d)
            if (d != k && overlaps(ranges[k], ranges[d])) cs[k].overlaps.push_back(cs[d].index);
    }
}

} // namespace

RunTime verification_run_time(const OperationMeasurements& op, const std::string& path) {
    const std::string where = "verification run " + path + ": ";
    std::set<int64_t> searched, used;
    for (const SearchMeasurement& s : op.search) searched.insert(s.codelet);
    if (searched.size() > 1)
        throw VerificationError(where + quoted(op.name) + " is a tuned search (codelets " +
                                index_list(searched) +
                                " searched), not a run of one fixed codelet");
    used = searched;
    for (const ProductionTotal& p : op.production)
        if (p.executions) used.insert(p.codelet);
    if (used.size() > 1)
        throw VerificationError(where + quoted(op.name) + " ran several codelets (" +
                                index_list(used) + "); a verification run runs one fixed codelet");
    if (used.empty())
        throw VerificationError(where + "no execution of " + quoted(op.name) + " finished");
    // Per location: summed duration and executions over every execution of the operation.
    std::map<uint32_t, std::pair<double, uint64_t>> by_location;
    for (const SearchMeasurement& s : op.search) {
        by_location[s.location].first += s.duration;
        ++by_location[s.location].second;
    }
    for (const ProductionTotal& p : op.production) {
        by_location[p.location].first += p.duration;
        by_location[p.location].second += p.executions;
    }
    RunTime t;
    t.codelet = *used.begin();
    for (const auto& [location, sum] : by_location) {
        if (!sum.second) continue;
        t.time = std::max(t.time, sum.first / double(sum.second));
        t.executions += sum.second;
    }
    return t;
}

RankingError ranking_error(const std::vector<VerifiedCodelet>& verified,
                           const std::vector<double>& search) {
    if (verified.size() != search.size() || verified.empty())
        throw std::invalid_argument("ranking_error: need one search estimate per verified codelet");
    RankingError e;
    const std::size_t n = verified.size();
    std::vector<double> avg, lo, hi;
    std::vector<Range> ranges;
    for (const VerifiedCodelet& c : verified) {
        e.codelets.push_back(c.index);
        avg.push_back(c.mean);
        lo.push_back(c.lo);
        hi.push_back(c.hi);
        ranges.push_back({c.lo, c.hi});
    }
    const std::vector<double> p_avg = percent_above_min(avg), p_min = percent_above_min(lo),
                              p_max = percent_above_min(hi), p_m = percent_above_min(search);
    for (std::size_t c = 0; c < n; ++c)
        for (std::size_t d = c + 1; d < n; ++d) {
            // Eqn. (6.1): the search orders c and d otherwise than the verification runs.
            if (sign(p_m[c] - p_m[d]) == sign(p_avg[c] - p_avg[d])) continue;
            if (overlaps(ranges[c], ranges[d])) {
                ++e.flips; // o(c,d) = 1: either order is right, every weight is 0
                continue;
            }
            // The weights of both ordered pairs; max(0, w) keeps the one that counts.
            auto w_min = [&](std::size_t a, std::size_t b) {
                const double x = p_min[b] - p_max[a], y = p_max[b] - p_min[a];
                return x < y ? x : y;
            };
            auto w_max = [&](std::size_t a, std::size_t b) {
                const double x = p_min[b] - p_max[a], y = p_max[b] - p_min[a];
                return x > y ? x : y;
            };
            FalseOrdering f;
            const bool c_faster = avg[c] < avg[d];
            f.faster = verified[c_faster ? c : d].index;
            f.slower = verified[c_faster ? d : c].index;
            f.e_avg = std::max(0.0, p_avg[c] - p_avg[d]) + std::max(0.0, p_avg[d] - p_avg[c]);
            f.e_min = std::max(0.0, w_min(c, d)) + std::max(0.0, w_min(d, c));
            f.e_max = std::max(0.0, w_max(c, d)) + std::max(0.0, w_max(d, c));
            e.false_orderings.push_back(f);
            e.max_avg = std::max(e.max_avg, f.e_avg);
            e.max_min = std::max(e.max_min, f.e_min);
            e.max_max = std::max(e.max_max, f.e_max);
            e.sum_avg += f.e_avg;
        }
    std::sort(e.false_orderings.begin(), e.false_orderings.end(), [](const auto& a, const auto& b) {
        return std::pair(a.faster, a.slower) < std::pair(b.faster, b.slower);
    });
    return e;
}

const VerifiedCodelet* OperationVerification::codelet(int64_t index) const {
    for (const VerifiedCodelet& c : codelets)
        if (c.index == index) return &c;
    return nullptr;
}

Verification verify(const CodeletMeasurements& tuned, const Audit& audit,
                    const std::vector<VerificationInput>& runs) {
    std::map<std::string, const OperationMeasurements*> tuned_ops;
    std::string tuned_names;
    for (const OperationMeasurements& op : tuned.operations) {
        tuned_ops[op.name] = &op;
        tuned_names += (tuned_names.empty() ? "" : ", ") + quoted(op.name);
    }
    // Per operation: the runs that ran it, and per codelet (run, time) in the given order.
    struct Collected {
        std::vector<std::string> runs;
        std::map<int64_t, std::vector<std::pair<std::size_t, double>>> times;
    };
    std::map<std::string, Collected> collected;
    Verification v;
    for (const VerificationInput& run : runs) {
        v.runs.push_back(run.path);
        if (run.measurements.operations.empty())
            throw VerificationError("verification run " + run.path + " has no tuned operation");
        for (const OperationMeasurements& op : run.measurements.operations) {
            auto tuned_op = tuned_ops.find(op.name);
            if (tuned_op == tuned_ops.end())
                throw VerificationError(
                    "verification run " + run.path + ": operation " + quoted(op.name) +
                    " is not tuned in the tuned run (which tunes " +
                    (tuned_names.empty() ? std::string("nothing") : tuned_names) +
                    "): a run of another program?");
            const RunTime t = checked_run_time(op, *tuned_op->second, run.path);
            Collected& c = collected[op.name];
            c.times[t.codelet].push_back({c.runs.size(), t.time});
            c.runs.push_back(run.path);
        }
    }
    for (const OperationAudit& op : audit.operations) {
        OperationVerification& out = v.operations.emplace_back();
        out.name = op.name;
        out.tuner_choice = op.tuner_winner;
        if (auto tuned_op = tuned_ops.find(op.name); tuned_op != tuned_ops.end())
            out.technique = tuned_op->second->technique;
        const Collected& c = collected[op.name];
        out.runs = c.runs;
        for (const auto& [index, times] : c.times) {
            VerifiedCodelet& vc = out.codelets.emplace_back();
            vc.index = index;
            auto name = op.codelet_names.find(index);
            vc.name =
                name != op.codelet_names.end() ? name->second : "codelet " + std::to_string(index);
            for (const auto& [run, time] : times) {
                vc.runs.push_back(run);
                vc.times.push_back(time);
            }
            vc.lo = *std::min_element(vc.times.begin(), vc.times.end());
            vc.hi = *std::max_element(vc.times.begin(), vc.times.end());
            vc.mean = mean(vc.times);
        }
        rank_verified(out);
        std::vector<VerifiedCodelet> compared;
        std::vector<double> search;
        for (const CodeletAudit& searched : op.codelets) {
            const VerifiedCodelet* vc = out.codelet(searched.index);
            if (!vc) {
                out.unverified.push_back(searched.index);
                continue;
            }
            compared.push_back(*vc);
            search.push_back(searched.consensus);
        }
        if (compared.size() >= 2) out.ranking_error = ranking_error(compared, search);
        if (out.tuner_choice && out.best) {
            const VerifiedCodelet* chosen = out.codelet(*out.tuner_choice);
            const VerifiedCodelet* best = out.codelet(*out.best);
            if (chosen && best->mean > 0)
                out.tuner_penalty_percent = (chosen->mean - best->mean) / best->mean * 100;
        }
    }
    return v;
}

} // namespace topolens::patterns
