// Delay costs: Scalasca 2.6's root-cause analysis of wait states (Böhme et al.; its
// Delay.MPI pattern). At every wait state, the waiting process and the one it waited for
// compare their time per call path since they last synchronised (patterns/synchpoints.h):
// what the late process spent more there ("delay"), scaled to the wait it caused, is its
// short-term delay cost. Part of the late process's lateness may itself be waiting (it
// waited for a third process in that interval): that part of the wait is not blamed on the
// late process but passed on as a cost to the wait states inside its interval, and in the
// backward replay reaches the process that caused those, as long-term delay cost. Each
// long-term metric is the channel of the wait at the end of the chain (the wait that was
// finally caused), whatever kind of wait the cost passed through on the way.
//
// Late Sender: scale = min(wait / (d + w), 1) for a delay d and the late process's own
// waits w in the interval. Collectives (Scalasca's rule, no cap): the delaying member
// (patterns/collective_waits.h) compares its interval with each waiting member's;
// scale = wait / (d + w).
#include "patterns/catalogued_pattern.h"
#include "patterns/metric_catalogue.h"
#include "patterns/metric_names.h"
#include "patterns/registry.h"
#include "patterns/synchpoints.h"

#include <algorithm>
#include <array>
#include <map>
#include <memory>
#include <span>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace topolens::patterns {

namespace {

using analysis::BackwardPayloads;
using analysis::BackwardStep;
using analysis::Context;
using Costs = std::array<double, kWaitKinds>; // by WaitKind

size_t channel(WaitKind kind) {
    return static_cast<size_t>(kind);
}

// What a waiting process posts for the one it waited for (the backward step's payload).
struct Posted {
    double wait = 0;
    TimeMap interval; // its pruned time since it last synchronised with the late process
    Costs costs{};    // long-term costs that reached this wait, by channel

    void write(trace::ByteWriter& out) const {
        out.put(wait);
        interval.write(out);
        out.put(costs);
    }
    static Posted read(std::span<const std::byte> payload) {
        trace::ByteReader in(payload, "delay costs: what a wait posted");
        Posted p;
        p.wait = in.get<double>();
        p.interval = TimeMap::read(in);
        p.costs = in.get<Costs>();
        return p;
    }
};

class DelayCosts : public CataloguedPattern {
  public:
    DelayCosts() : CataloguedPattern(PatternKind::Delay) {}
    std::unique_ptr<analysis::Pattern> clone() const override {
        return std::make_unique<DelayCosts>(*this);
    }
    // Its state is per location, in the object the clones share: nothing to merge.
    void merge(analysis::Pattern&) override {}
    bool replays_backward() const override { return true; }

    void define_metrics(report::Report& r) override {
        using namespace metric;
        const char* const short_term[kWaitKinds] = {kDelayLateSender,    kDelayLateReceiver,
                                                    kDelayBarrier,       kDelayNxN,
                                                    kDelayLateBroadcast, kDelayEarlyReduce};
        const char* const long_term[kWaitKinds] = {
            kDelayLateSenderLongTerm, kDelayLateReceiverLongTerm,  kDelayBarrierLongTerm,
            kDelayNxNLongTerm,        kDelayLateBroadcastLongTerm, kDelayEarlyReduceLongTerm};
        for (size_t k = 0; k < kWaitKinds; ++k) {
            short_term_[k] = metric_chain(r, short_term[k]);
            long_term_[k] = metric_chain(r, long_term[k]);
        }
        direct_ = {metric_chain(r, kWaitDirectLateSender),
                   metric_chain(r, kWaitDirectLateReceiver)};
        indirect_ = {metric_chain(r, kWaitIndirectLateSender),
                     metric_chain(r, kWaitIndirectLateReceiver)};
        propagating_ = {metric_chain(r, kWaitPropagatingLateSender),
                        metric_chain(r, kWaitPropagatingLateReceiver)};
        terminal_ = {metric_chain(r, kWaitTerminalLateSender),
                     metric_chain(r, kWaitTerminalLateReceiver)};
        shared_ = std::make_shared<Shared>();
        const SharedSynchpoints shared = synchpoints_for(r);
        points_ = shared.points;
        fills_ = shared.fills;
    }

    void subscribe(analysis::Dispatcher& d) override {
        if (fills_) fill_synchpoints(d, points_);
        d.on_backward_begin([this](Context& c, uint32_t loc) {
            Shared& s = *shared_;
            if (s.costs.empty()) {
                const size_t nloc = c.trace().locations.size();
                s.costs.resize(nloc);
                s.propagating.resize(nloc);
                s.sums.resize(nloc);
                s.indirect.resize(nloc);
            }
            s.costs[loc].assign(points_->of(loc).points.size(), Costs{});
            s.indirect[loc].assign(points_->of(loc).points.size(), 0.0);
            s.propagating[loc].assign(points_->of(loc).points.size(), 0.0);
        });
        d.on_backward([this](const Context& c, const BackwardStep& step,
                             trace::ByteWriter& out) { post(c, step, out); },
                      [this](const Context& c, const BackwardStep& step,
                             const BackwardPayloads& posted, trace::ByteWriter* reply) {
                          if (!step.partners_posted) return;
                          if (step.kind == BackwardStep::Kind::Send)
                              late_sender(step, posted, *reply);
                          if (step.kind == BackwardStep::Kind::ReceiveRequest)
                              late_receiver(step, posted, *reply);
                          if (step.kind == BackwardStep::Kind::Collective)
                              collective(c, step, posted);
                      },
                      [this](Context&, const BackwardStep& step, std::span<const std::byte> reply) {
                          indirect_arrived(step, reply);
                      },
                      [this](BackwardStep::Kind kind, uint32_t id) {
                          return points_->travels_backward(kind, id);
                      });
        d.on_gather(
            [this](const Context&, uint32_t loc, trace::ByteWriter& out) {
                write_wait_edges(loc, out);
            },
            [this](Context&, uint32_t loc, trace::ByteReader& in) { read_wait_edges(loc, in); });
        d.on_finish([this](Context& c) {
            flush_sums(c);
            classify_waits(c);
            record_wait_edges(c);
        });
    }

  private:
    // Each point-to-point wait split into direct and indirect, propagating and terminal, at
    // the waiting call: Late Sender at the receive, Late Receiver at the completing call.
    void classify_waits(Context& c) {
        const Shared& s = *shared_;
        for (uint32_t loc = 0; loc < c.trace().locations.size(); ++loc) {
            const auto& points = points_->of(loc).points;
            for (size_t k = 0; k < points.size(); ++k) {
                const Synchpoint& p = points[k];
                const bool ls = p.kind == Synchpoint::Kind::Receive;
                if (!p.synchronises || p.wait == 0 ||
                    (!ls && p.kind != Synchpoint::Kind::SendCompletion))
                    continue;
                const int which = ls ? 0 : 1;
                const double wait = static_cast<double>(p.wait);
                double indirect = 0, propagating = 0;
                if (loc < s.indirect.size() && k < s.indirect[loc].size())
                    indirect = s.indirect[loc][k];
                if (loc < s.propagating.size() && k < s.propagating[loc].size())
                    propagating = s.propagating[loc][k];
                const double tick = c.seconds(1);
                for (int m : indirect_[which]) c.add(m, p.callpath, loc, indirect * tick);
                for (int m : direct_[which]) c.add(m, p.callpath, loc, (wait - indirect) * tick);
                for (int m : propagating_[which]) c.add(m, p.callpath, loc, propagating * tick);
                for (int m : terminal_[which])
                    c.add(m, p.callpath, loc, (wait - propagating) * tick);
            }
        }
    }

    // Every wait of every location, summed per kind and the process that caused it directly
    // (its synchpoint's partner: the sender, the receiver, the collective's delaying member):
    // each location's sums, gathered in location order.
    void write_wait_edges(uint32_t loc, trace::ByteWriter& out) const {
        std::map<std::pair<uint32_t, uint32_t>, analysis::Time> sums; // (kind, partner)
        for (const Synchpoint& p : points_->of(loc).points)
            if (p.synchronises && p.wait > 0 && p.partner != trace::kNone && p.partner != loc)
                sums[{static_cast<uint32_t>(channel(p.wait_kind)), p.partner}] += p.wait;
        out.put<uint32_t>(static_cast<uint32_t>(sums.size()));
        for (const auto& [key, ticks] : sums) {
            out.put(key.first);
            out.put(key.second);
            out.put(ticks);
        }
    }
    void read_wait_edges(uint32_t loc, trace::ByteReader& in) {
        const auto n = in.get<uint32_t>();
        for (uint32_t k = 0; k < n; ++k) {
            const auto kind = in.get<uint32_t>(), partner = in.get<uint32_t>();
            shared_->edges[{kind, loc, partner}] += in.get<analysis::Time>();
        }
    }
    void record_wait_edges(Context& c) {
        static constexpr const char* kKinds[kWaitKinds] = {"latesender", "latereceiver", "barrier",
                                                           "n2n",        "12n",          "n21"};
        auto& edges = c.report().wait_edges;
        edges.clear();
        for (const auto& [key, ticks] : shared_->edges)
            edges.push_back({kKinds[std::get<0>(key)], static_cast<int>(std::get<1>(key)),
                             static_cast<int>(std::get<2>(key)), c.seconds(ticks)});
        shared_->edges.clear();
    }

    // Steps of different locations run at once: what a wait tells the late process travels
    // as the step's payload (Posted), the late process's answer as its reply; the rest is
    // kept per location and written only by that location's steps.
    struct Shared {
        std::vector<std::vector<Costs>> costs; // by location, point
        // Point-to-point waits: the part of each wait the late process's own waits explain
        // (its reply; by location, point), and per location the part of each of its waits
        // that made someone wait later (by point; a vector as `indirect`: a hash map there cost
        // 5% of the whole analysis).
        std::vector<std::vector<double>> indirect;
        std::vector<std::vector<double>> propagating;
        // Delay costs in ticks per location and (metric chain's leaf << 32 | call path), see
        // add(); flushed in key order, so that the report gets them in the same order in every
        // analysis (a hash map: an ordered map's insertions were 4% of the analysis of 1024
        // processes).
        std::vector<std::unordered_map<uint64_t, double>> sums;
        // Waits in ticks by (kind, waiting location, partner), gathered from every location.
        std::map<std::tuple<uint32_t, uint32_t, uint32_t>, analysis::Time> edges;
    };

    // A waiting end posts what its wait was and its interval: at a point-to-point wait, at
    // a collective member that waited for another (the delaying one reads them all).
    void post(const Context&, const BackwardStep& step, trace::ByteWriter& out) const {
        const uint32_t loc = step.location;
        size_t at = Synchpoints::npos;
        if (step.kind == BackwardStep::Kind::Receive) at = points_->receive_point(step.id);
        if (step.kind == BackwardStep::Kind::SendCompletion)
            at = points_->completion_point(step.id);
        if (step.kind == BackwardStep::Kind::Collective)
            at = points_->collective_point(loc, step.id);
        if (at == Synchpoints::npos) return;
        const Synchpoint& p = points_->of(loc).points[at];
        if (!p.synchronises) return;
        if (step.kind == BackwardStep::Kind::Collective ? p.partner == loc : p.wait == 0) return;
        Posted{static_cast<double>(p.wait), points_->interval_with(loc, at, p.partner),
               shared_->costs[loc][at]}
            .write(out);
    }

    // The late process's answer at a waiting end: the part of its wait that is indirect.
    void indirect_arrived(const BackwardStep& step, std::span<const std::byte> reply) {
        const size_t at = step.kind == BackwardStep::Kind::Receive
                              ? points_->receive_point(step.id)
                              : points_->completion_point(step.id);
        trace::ByteReader in(reply, "delay costs: an indirect wait");
        shared_->indirect[step.location][at] = in.get<double>();
    }

    // Delay costs are summed here per (metric, call path, location) during the backward
    // replay and reach the report, with every ancestor metric, once at the end: far fewer
    // report updates than one per delay and metric.
    void add(const std::vector<int>& metrics, const TimeMap& delays, double scale, uint32_t loc) {
        if (!(scale > 0)) return;
        auto& sums = shared_->sums[loc];
        const uint64_t leaf = uint64_t(uint32_t(metrics.front())) << 32;
        for (const auto& [cp, ticks] : delays) sums[leaf | cp] += scale * ticks;
    }

    void flush_sums(Context& c) {
        std::vector<std::pair<uint64_t, double>> ordered;
        for (uint32_t location = 0; location < shared_->sums.size(); ++location) {
            const auto& sums = shared_->sums[location];
            ordered.assign(sums.begin(), sums.end());
            std::sort(ordered.begin(), ordered.end(),
                      [](const auto& a, const auto& b) { return a.first < b.first; });
            for (const auto& [key, ticks] : ordered) {
                const auto leaf = static_cast<int>(key >> 32);
                const auto callpath = static_cast<uint32_t>(key);
                for (int metric : metric_chain(c.report(), leaf))
                    c.add(metric, callpath, location, ticks * c.seconds(1));
            }
        }
        shared_->sums.clear();
    }

    // Passes `scale` times each wait strictly between `from` and `to` on `loc` on as a cost.
    void add_costs(uint32_t loc, size_t from, size_t to, size_t ch, double scale) {
        if (!(scale > 0)) return;
        Shared& s = *shared_;
        const auto& points = points_->of(loc).points;
        for (size_t k = from == Synchpoints::npos ? 0 : from + 1; k < to; ++k)
            if (points[k].synchronises && points[k].wait > 0)
                s.costs[loc][k][ch] += scale * static_cast<double>(points[k].wait);
    }

    // At the send a receiver waited for.
    void late_sender(const BackwardStep& step, const BackwardPayloads& posted,
                     trace::ByteWriter& reply) {
        if (posted.size() == 0 || posted[0].empty()) return;
        point_to_point(step.location, points_->send_point(step.id), Posted::read(posted[0]),
                       WaitKind::LateSender, reply);
    }

    // At the receive request a sender waited for.
    void late_receiver(const BackwardStep& step, const BackwardPayloads& posted,
                       trace::ByteWriter& reply) {
        if (posted.size() == 0 || posted[0].empty()) return;
        const size_t at = points_->request_point(step.id);
        if (at == Synchpoints::npos) return;
        point_to_point(step.location, at, Posted::read(posted[0]), WaitKind::LateReceiver, reply);
    }

    // The late process `loc` at its point `at` against the waiting `partner`'s interval: its
    // own interval since the two last synchronised (from), its own waits in there, and
    // per call path what it spent more than the waiting one (the delay).
    struct Comparison {
        size_t from;
        TimeMapSum waits, delay;
    };
    // The late process's side of a comparison: its waits and pruned time from `from` to `at`.
    struct OwnInterval {
        size_t from;
        TimeMapSum waits;
        TimeMap pruned;
    };
    OwnInterval own_interval(uint32_t loc, size_t from, size_t at) const {
        TimeMapSum waits = points_->waits_between(loc, from, at);
        TimeMap pruned = points_->pruned(loc, from, at, waits.map).map;
        return {from, std::move(waits), std::move(pruned)};
    }
    Comparison compare(uint32_t loc, size_t at, uint32_t partner, const TimeMap& waiting) const {
        OwnInterval own = own_interval(loc, points_->previous_with(loc, at, partner), at);
        TimeMapSum delay = positive_difference(own.pruned, waiting);
        return {own.from, std::move(own.waits), std::move(delay)};
    }

    // The late end `loc` of a message, at its point `at`, and what the waiting end posted;
    // the indirect part of its wait goes back to it as `reply`.
    void point_to_point(uint32_t loc, size_t at, const Posted& posted, WaitKind kind,
                        trace::ByteWriter& reply) {
        Shared& s = *shared_;
        if (at == Synchpoints::npos) return;
        const Synchpoint& p = points_->of(loc).points[at];
        if (!p.synchronises) return;
        const auto [from, waits, d] = compare(loc, at, p.partner, posted.interval);
        const double denominator = d.sum + waits.sum;
        if (!(denominator > 0)) return;
        const size_t own = channel(kind);
        const double scale = std::min(posted.wait / denominator, 1.0);
        add(short_term_[own], d.map, scale, loc);
        if (waits.sum > 0) {
            // The late process's own waits explain this part of the wait (indirect), and
            // each of them propagated (Scalasca keeps the largest share any wait took).
            reply.put(scale * waits.sum);
            const auto& points = points_->of(loc).points;
            for (size_t k = from == Synchpoints::npos ? 0 : from + 1; k < at; ++k)
                if (scale > 0 && points[k].synchronises && points[k].wait > 0) {
                    double& share = s.propagating[loc][k];
                    share = std::max(share, scale * static_cast<double>(points[k].wait));
                }
        }
        for (size_t ch = 0; ch < kWaitKinds; ++ch) {
            const double carried = posted.costs[ch] / denominator;
            add(long_term_[ch], d.map, carried, loc);
            add_costs(loc, from, at, ch, carried + (ch == own ? scale : 0.0));
        }
    }

    // At the delaying member of a collective operation.
    void collective(const Context& c, const BackwardStep& step, const BackwardPayloads& taken) {
        const uint32_t loc = step.location;
        const size_t at = points_->collective_point(loc, step.id);
        if (at == Synchpoints::npos) return;
        const Synchpoint& p = points_->of(loc).points[at];
        if (!p.synchronises || p.partner != loc) return;
        const auto& members = c.matching().collectives[step.id].members;
        const size_t kind = channel(p.wait_kind);
        std::vector<std::pair<uint32_t, Costs>> scales; // (member location, scale by channel)
        // The members mostly last synchronised with it at the same point: its own interval
        // since each such point is found once.
        std::vector<OwnInterval> own;
        for (size_t m = 0; m < taken.size(); ++m) {
            if (taken[m].empty()) continue; // a member that did not wait for another
            const Posted posted = Posted::read(taken[m]);
            const uint32_t member = members[m].location;
            const size_t from = points_->previous_with(loc, at, member);
            auto mine = std::find_if(own.begin(), own.end(),
                                     [&](const OwnInterval& o) { return o.from == from; });
            if (mine == own.end()) mine = own.insert(own.end(), own_interval(loc, from, at));
            const TimeMapSum& waits = mine->waits;
            const TimeMapSum d = positive_difference(mine->pruned, posted.interval);
            const double denominator = d.sum + waits.sum;
            if (!(denominator > 0)) continue;
            const double scale = posted.wait / denominator;
            add(short_term_[kind], d.map, scale, loc);
            Costs sigma{};
            for (size_t ch = 0; ch < kWaitKinds; ++ch) {
                const double carried = posted.costs[ch] / denominator;
                add(long_term_[ch], d.map, carried, loc);
                sigma[ch] = carried + (ch == kind ? scale : 0.0);
            }
            scales.push_back({member, sigma});
        }
        spread_collective_costs(loc, at, scales);
    }

    // Scalasca's rule for the delaying member's own waits in its interval: the interval
    // since it last synchronised with every member, where members it synchronised with in
    // between (intermediate points) add their scale from the next such point on.
    void spread_collective_costs(uint32_t loc, size_t at,
                                 const std::vector<std::pair<uint32_t, Costs>>& scales) {
        if (scales.empty()) return;
        Shared& s = *shared_;
        const auto& points = points_->of(loc).points;
        std::vector<uint32_t> remaining = points_->synchronised_with(loc, at);
        std::unordered_map<uint32_t, size_t> intermediate; // member location -> point
        size_t group_from = Synchpoints::npos;
        for (size_t k = at; k-- > 0 && !remaining.empty();) {
            if (!points[k].synchronises) continue;
            std::vector<uint32_t> left, met;
            for (uint32_t q : remaining)
                (points_->synchronises_with(loc, k, q) ? met : left).push_back(q);
            if (left.empty()) {
                group_from = k;
                remaining.clear();
                break;
            }
            for (uint32_t q : met) intermediate[q] = k;
            remaining = std::move(left);
        }
        for (size_t ch = 0; ch < kWaitKinds; ++ch) {
            double scale = 0;               // of the members without intermediate points
            std::map<size_t, double> later; // intermediate point -> its members' scales
            // Every intermediate point takes up the scales of the points before it, also one
            // whose members added nothing (no delay, or no wait): Scalasca's scale map has a
            // key at each (CalculateScales), where the scale of the interval switches.
            for (const auto& [member, k] : intermediate) later[k];
            for (const auto& [member, sigma] : scales) {
                const auto in = intermediate.find(member);
                if (in == intermediate.end())
                    scale += sigma[ch];
                else
                    later[in->second] += sigma[ch];
            }
            std::map<size_t, double> from_point; // the scale from each intermediate point on
            double running = scale;
            for (const auto& [k, sum] : later) {
                from_point[k] = running;
                running += sum;
            }
            for (size_t k = group_from == Synchpoints::npos ? 0 : group_from + 1; k < at; ++k) {
                if (const auto f = from_point.find(k); f != from_point.end()) scale = f->second;
                if (scale > 0 && points[k].synchronises && points[k].wait > 0)
                    s.costs[loc][k][ch] += scale * static_cast<double>(points[k].wait);
            }
        }
    }

    std::shared_ptr<Shared> shared_;
    std::shared_ptr<Synchpoints> points_; // shared with the other root-cause pattern
    bool fills_ = false;                  // this pattern fills points_
    std::array<std::vector<int>, kWaitKinds> short_term_, long_term_; // leaf, then above
    // Late Sender, Late Receiver: leaf, then above.
    std::array<std::vector<int>, 2> direct_, indirect_, propagating_, terminal_;
};

} // namespace

std::unique_ptr<analysis::Pattern> delay_costs() {
    return std::make_unique<DelayCosts>();
}

} // namespace topolens::patterns
