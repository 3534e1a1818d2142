// The critical path: Scalasca 2.6's CriticalPath pattern (Böhme et al.) on the backward
// replay. The path starts at the MPI_Finalize of the location that entered it last and is
// followed backward: a location on the path keeps it until a synchpoint where it waited
// (patterns/synchpoints.h); there its time since (the interval up to the path's previous
// event on it, minus the wait) joins the path's profile, and the path continues at the
// event it waited for: the send of a Late Sender (against the message), the request of a
// Late Receiver's receive, the delaying member of a collective. At MPI_Init the location
// holding the path adds the rest. Exactly one location holds it at any time; what a location
// learns of it travels with a message or a collective (a token flag).
//
// From the profile, after the replay (Scalasca's reductions over all processes): G = the
// path's profile summed over locations, T_p = location p's time per call path minus its
// synchpoints' waits. critical_path_activities = min(G, T_p) where G > 0;
// non_critical_path_activities = max(T_p - G, 0); critical_imbalance_impact: per p, the
// excess max(G - T_p, 0) scaled to sum to sum(G) - sum(T_p), summed over p, then given to
// the path's holders by their share of G; inter_partition_imbalance the same with p's
// "headroom" (G of the call paths p never runs). At a Late Receiver (a send that waited for
// its receive to be posted) the path moves from the send's completion to the receive's
// request.
#include "patterns/catalogued_pattern.h"
#include "patterns/metric_catalogue.h"
#include "patterns/metric_names.h"
#include "patterns/registry.h"
#include "patterns/synchpoints.h"

#include <algorithm>
#include <memory>
#include <mutex>
#include <vector>

namespace topolens::patterns {

namespace {

using analysis::BackwardStep;
using analysis::Context;

class CriticalPath : public CataloguedPattern {
  public:
    CriticalPath() : CataloguedPattern(PatternKind::CriticalPath) {}
    std::unique_ptr<analysis::Pattern> clone() const override {
        return std::make_unique<CriticalPath>(*this);
    }
    // Its state is per location, in the object the clones share: nothing to merge.
    void merge(analysis::Pattern&) override {}
    bool replays_backward() const override { return true; }

    void define_metrics(report::Report& r) override {
        using namespace metric;
        critical_path_ = metric_id(r, kCriticalPath);
        activities_ = metric_chain(r, kCriticalPathActivities);
        imbalance_ = metric_chain(r, kCriticalImbalanceImpact);
        inter_ = metric_chain(r, kInterPartitionImbalance);
        non_critical_ = metric_chain(r, kNonCriticalPathActivities);
        shared_ = std::make_shared<Shared>();
        const SharedSynchpoints shared = synchpoints_for(r);
        points_ = shared.points;
        fills_ = shared.fills;
    }

    void subscribe(analysis::Dispatcher& d) override {
        if (fills_) fill_synchpoints(d, points_);
        d.on_backward_begin([this](Context& c, uint32_t) { start(c); });
        d.on_backward([this](const Context&, const BackwardStep& step,
                             trace::ByteWriter& out) { post(step, out); },
                      [this](const Context&, const BackwardStep& step,
                             const analysis::BackwardPayloads& posted, trace::ByteWriter*) {
                          if (step.partners_posted) take(step, posted);
                      },
                      nullptr,
                      [this](BackwardStep::Kind kind, uint32_t id) {
                          return points_->travels_backward(kind, id);
                      });
        d.on_backward_done([this](Context&, uint32_t loc) { done(loc); });
        d.on_gather(
            [this](const Context&, uint32_t loc, trace::ByteWriter& out) {
                write_profiles(loc, out);
            },
            [this](Context&, uint32_t loc, trace::ByteReader& in) { read_profiles(loc, in); });
        d.on_finish([this](Context& c) { finish(c); });
    }

  private:
    struct Holder {
        bool on_path = false;
        size_t end = Synchpoints::npos; // the point where the path left this location
        TimeMap profile;                // its part of the path, per call path (ticks)
    };
    // Steps of different locations run at once: a holder is written only by its location's
    // steps; the path moves as a step's payload (one byte, kToken).
    struct Shared {
        std::once_flag started;
        std::vector<Holder> holders; // by location
        // Gathered from every location after the backward replay, by location: its part of
        // the path and its time per call path without its waits (T_p).
        std::vector<TimeMap> profiles, times;
    };
    static constexpr uint8_t kToken = 1;
    // Whether one of the other ends handed the path over.
    static bool handed_over(const analysis::BackwardPayloads& posted) {
        for (size_t k = 0; k < posted.size(); ++k)
            if (!posted[k].empty()) return true;
        return false;
    }

    // Once, before the first location's steps: the path starts at the MPI_Finalize entered
    // last (the lowest location of a tie). A trace without MPI_Finalize has no path.
    void start(const Context& c) {
        Shared& s = *shared_;
        std::call_once(s.started, [&] {
            const size_t nloc = c.trace().locations.size();
            s.holders.assign(nloc, {});
            uint32_t latest_location = trace::kNone;
            analysis::Time latest = 0;
            for (uint32_t l = 0; l < nloc; ++l)
                if (const FinalizePoint& f = points_->finalize_point(l);
                    f.found && (latest_location == trace::kNone || f.enter > latest)) {
                    latest_location = l;
                    latest = f.enter;
                }
            if (latest_location == trace::kNone) return;
            // Its own point (a location has one MPI_Finalize point at most).
            const auto& points = points_->of(latest_location).points;
            for (size_t k = 0; k < points.size(); ++k)
                if (points[k].kind == Synchpoint::Kind::Finalize) {
                    s.holders[latest_location].on_path = true;
                    s.holders[latest_location].end = k;
                    break;
                }
        });
    }

    // The path leaves `loc` at point `from`: its time since, up to the path's previous event
    // there, joins the profile, without the wait at `from` (Scalasca's rule: at most the time
    // of that call path in the interval).
    void leave(uint32_t loc, size_t from) {
        Holder& h = shared_->holders[loc];
        const TimeMap times = points_->runtimes(loc, from, h.end);
        for (const auto& [cp, t] : times) h.profile[cp] += t;
        if (from != Synchpoints::npos) {
            const Synchpoint& p = points_->of(loc).points[from];
            h.profile[p.callpath] -= std::min(static_cast<double>(p.wait), times.at(p.callpath));
        }
        h.on_path = false;
    }

    // A waiting end on the path hands it over: a Late Sender's receive to the send, a Late
    // Receiver's send to the receive's request, a collective member to the delaying member.
    void post(const BackwardStep& step, trace::ByteWriter& out) {
        Shared& s = *shared_;
        const uint32_t loc = step.location;
        if (!s.holders[loc].on_path) return;
        size_t point = Synchpoints::npos;
        switch (step.kind) {
        case BackwardStep::Kind::Receive:
            point = points_->receive_point(step.id);
            break;
        case BackwardStep::Kind::SendCompletion:
            point = points_->completion_point(step.id);
            break;
        case BackwardStep::Kind::Collective:
            point = points_->collective_point(loc, step.id);
            break;
        default:
            return;
        }
        if (point == Synchpoints::npos) return;
        const Synchpoint& p = points_->of(loc).points[point];
        if (!p.synchronises || p.wait == 0 || p.partner == loc) return;
        leave(loc, point);
        out.put(kToken);
    }

    // The end the path was handed to takes it, from its event on.
    void take(const BackwardStep& step, const analysis::BackwardPayloads& posted) {
        Shared& s = *shared_;
        const uint32_t loc = step.location;
        size_t point = Synchpoints::npos;
        switch (step.kind) {
        case BackwardStep::Kind::Send:
            if (!handed_over(posted)) return;
            point = points_->send_point(step.id);
            break;
        case BackwardStep::Kind::ReceiveRequest:
            if (!handed_over(posted)) return;
            point = points_->request_point(step.id);
            break;
        case BackwardStep::Kind::Collective:
            point = points_->collective_point(loc, step.id);
            if (point == Synchpoints::npos) return;
            if (points_->of(loc).points[point].partner != loc) return; // not the delaying one
            if (!handed_over(posted)) return;
            break;
        default:
            return;
        }
        if (point == Synchpoints::npos) return;
        Holder& h = s.holders[loc];
        h.on_path = true;
        h.end = point;
    }

    // At the location's start: the path, if it holds it, goes back to MPI_Init's enter.
    void done(uint32_t loc) {
        Shared& s = *shared_;
        if (!s.holders[loc].on_path) return;
        const auto& points = points_->of(loc).points;
        size_t init = Synchpoints::npos;
        for (size_t k = 0; k < points.size() && init == Synchpoints::npos; ++k)
            if (points[k].kind == Synchpoint::Kind::Init) init = k;
        leave(loc, init);
    }

    void add(Context& c, const std::vector<int>& metrics, uint32_t cp, uint32_t loc, double ticks) {
        for (int metric : metrics) c.add(metric, cp, loc, ticks * c.seconds(1));
    }

    // Each location's part of the path and T_p (its time per call path without its
    // synchpoints' waits), for the sums over all locations.
    void write_profiles(uint32_t loc, trace::ByteWriter& out) const {
        const Shared& s = *shared_;
        if (loc >= s.holders.size()) return; // no backward replay
        s.holders[loc].profile.write(out);
        TimeMap T;
        const size_t npoints = points_->of(loc).points.size();
        const TimeMap waits = points_->waits_between(loc, Synchpoints::npos, npoints).map;
        for (const auto& [cp, t] : points_->runtimes(loc)) T[cp] = t - std::min(t, waits.at(cp));
        T.write(out);
    }
    void read_profiles(uint32_t loc, trace::ByteReader& in) {
        Shared& s = *shared_;
        if (in.done()) return;
        const size_t nloc = s.holders.size();
        s.profiles.resize(nloc);
        s.times.resize(nloc);
        s.profiles[loc] = TimeMap::read(in);
        s.times[loc] = TimeMap::read(in);
    }

    void finish(Context& c) {
        Shared& s = *shared_;
        const auto nloc = static_cast<uint32_t>(s.profiles.size());
        if (nloc == 0) return; // no backward replay
        TimeMap G;             // the path's profile over all locations
        for (uint32_t l = 0; l < nloc; ++l)
            for (const auto& [cp, t] : s.profiles[l]) {
                G[cp] += t;
                if (t != 0) c.add(critical_path_, cp, l, t * c.seconds(1));
            }
        const double G_sum = G.sum();
        const std::vector<TimeMap>& T = s.times;
        TimeMap imbalance, headroom; // summed over locations
        for (uint32_t l = 0; l < nloc; ++l) {
            for (const auto& [cp, t] : T[l]) {
                const double g = G.at(cp);
                if (g > 0 && std::min(g, t) > 0) add(c, activities_, cp, l, std::min(g, t));
                if (t - g > 0) add(c, non_critical_, cp, l, t - g);
            }
            // The excess of the path over p's time, scaled to p's aggregate wait.
            TimeMap excess;
            double excess_sum = 0;
            for (const auto& [cp, g] : G) {
                const double x = std::max(g - T[l].at(cp), 0.0);
                excess[cp] = x;
                excess_sum += x;
            }
            const double wait = G_sum - T[l].sum();
            if (excess_sum > 0)
                for (const auto& [cp, x] : excess) imbalance[cp] += x * wait / excess_sum;
            // Headroom: the path's time in call paths p never runs, scaled to what is left
            // of the path beside p's own (at least the path's) time in the others.
            TimeMap room;
            double own = 0, room_sum = 0;
            for (const auto& [cp, g] : G)
                if (T[l].at(cp) > 0) {
                    own += std::max(T[l].at(cp), g);
                } else {
                    room[cp] = g;
                    room_sum += g;
                }
            for (const auto& [cp, t] : T[l])
                if (t > 0 && G.find(cp) == G.end()) own += t;
            if (room_sum > 0)
                for (const auto& [cp, g] : room) headroom[cp] += g * (G_sum - own) / room_sum;
        }
        // Both go to the path's holders by their share of the path's profile.
        for (uint32_t l = 0; l < nloc; ++l)
            for (const auto& [cp, t] : s.profiles[l]) {
                if (!(t > 0)) continue;
                const double inter = t / G[cp] * headroom.at(cp);
                const double costs = t / G[cp] * imbalance.at(cp);
                if (costs > 0) add(c, imbalance_, cp, l, costs);
                if (inter > 0) add(c, inter_, cp, l, inter);
            }
    }

    std::shared_ptr<Shared> shared_;
    std::shared_ptr<Synchpoints> points_; // shared with the other root-cause pattern
    bool fills_ = false;                  // this pattern fills points_
    int critical_path_ = -1;
    // Each leaf, then the metrics above it (the values are inclusive).
    std::vector<int> activities_, imbalance_, inter_, non_critical_;
};

} // namespace

std::unique_ptr<analysis::Pattern> critical_path() {
    return std::make_unique<CriticalPath>();
}

} // namespace topolens::patterns
