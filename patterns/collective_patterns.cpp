// Collective wait states (the waits: patterns/collective_waits.h; e = enter, l = leave):
//   Barrier / NxN Completion        l_p - min_q l_q        (the rest of the call after
//                                                           the first process could leave)
// completion at most what the wait left of it.
// Clock-condition violations: a process left a collective before a process it must wait for
// (by the data the operation moves) entered it — all members for Barrier and all-to-all
// operations, the root for 1-to-N, every member for the root of N-to-1 — and, for MPI_Init
// and MPI_Finalize (which topolens' measurement ends with a barrier, and Scalasca treats as
// synchronizing), any process left before the last entered.
#include "patterns/collective_waits.h"
#include "patterns/metric_catalogue.h"
#include "patterns/metric_names.h"
#include "patterns/registry.h"
#include "patterns/wait_state.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

namespace topolens::patterns {

namespace {

using analysis::CallInfo;
using analysis::CollectiveInstance;
using analysis::Context;
using analysis::Time;
using trace::CollectiveOp;

class CollectivePatterns : public CataloguedPattern {
  public:
    CollectivePatterns() : CataloguedPattern(PatternKind::Collective) {}
    std::unique_ptr<analysis::Pattern> clone() const override {
        return std::make_unique<CollectivePatterns>(*this);
    }
    // Its state is per location (or shared by the clones): nothing to merge.
    void merge(analysis::Pattern&) override {}

    void define_metrics(report::Report& r) override {
        barrier_wait_ = metric_id(r, metric::kBarrierWait);
        barrier_completion_ = metric_id(r, metric::kBarrierCompletion);
        wait_nxn_ = metric_id(r, metric::kWaitNxN);
        nxn_completion_ = metric_id(r, metric::kNxNCompletion);
        late_broadcast_ = metric_id(r, metric::kLateBroadcast);
        early_reduce_ = metric_id(r, metric::kEarlyReduce);
        violations_ = metric_id(r, metric::kClockViolations);
        collective_violations_ = metric_id(r, metric::kClockViolationsCollective);
    }

    void subscribe(analysis::Dispatcher& d) override {
        dispatcher_ = &d;
        d.on_collective([this](Context& c, const CollectiveInstance& instance, size_t member) {
            collective(c, instance, member);
        });
        // Each location's MPI_Init and MPI_Finalize call, for the clock condition of these two
        // collectives of all processes (found before the replay, as a collective's members
        // are).
        ends_ = d.location_facts<InitAndFinalizeCalls>("MPI_Init and MPI_Finalize calls",
                                                       analysis::FactPhase::round(0));
        latest_.reset();
        d.on_prepare(0, [this](Context& c, uint32_t loc) { find_init_and_finalize(c, loc); });
        d.on_location_done(
            [this](Context& c, uint32_t loc, Time, Time) { check_init_and_finalize(c, loc); });
    }

  private:
    // The last process's enter into MPI_Init and into MPI_Finalize.
    struct LatestEnters {
        Time init = 0, finalize = 0;
    };

    void find_init_and_finalize(Context& c, uint32_t loc) {
        ends_.set(loc, init_and_finalize_calls(c, loc));
    }

    void check_init_and_finalize(Context& c, uint32_t loc) {
        if (!latest_) { // once per worker, from every location's calls
            latest_.emplace();
            for (uint32_t l = 0; l < ends_.size(); ++l) {
                const InitAndFinalizeCalls& calls = ends_.get(l);
                if (calls.init.region != trace::kNone)
                    latest_->init = std::max(latest_->init, calls.init.enter);
                if (calls.finalize.region != trace::kNone)
                    latest_->finalize = std::max(latest_->finalize, calls.finalize.enter);
            }
        }
        const InitAndFinalizeCalls& ends = ends_.get(loc);
        for (const auto& [call, latest] :
             {std::pair{ends.init, latest_->init}, std::pair{ends.finalize, latest_->finalize}})
            if (call.region != trace::kNone && call.leave < latest)
                collective_violation(c, loc, c.callpath_of(call.callpath));
    }

    void collective_violation(Context& c, uint32_t loc, uint32_t callpath) {
        c.add(violations_, callpath, loc, 1.0);
        c.add(collective_violations_, callpath, loc, 1.0);
    }

    void collective(Context& c, const CollectiveInstance& instance, size_t member) {
        const CallInfo& me = instance.members[member];
        if (me.leave < must_follow(instance, member))
            collective_violation(c, me.location, me.callpath);
        switch (collective_shape(instance.op)) {
        case CollectiveShape::Barrier:
            all_to_all(c, instance, member, barrier_wait_, barrier_completion_);
            break;
        case CollectiveShape::AllToAll:
            all_to_all(c, instance, member, wait_nxn_, nxn_completion_);
            break;
        case CollectiveShape::OneToAll:
            record_wait(c, late_broadcast_, me, collective_wait(instance, member));
            break;
        case CollectiveShape::AllToOne:
            record_wait(c, early_reduce_, me, collective_wait(instance, member));
            break;
        case CollectiveShape::Other:
            break;
        }
    }

    // The latest enter that `member` cannot leave before, by the data the operation moves.
    static Time must_follow(const CollectiveInstance& instance, size_t member) {
        const bool root = instance.root >= 0 && static_cast<size_t>(instance.root) == member;
        switch (collective_shape(instance.op)) {
        case CollectiveShape::Barrier:
        case CollectiveShape::AllToAll:
            return instance.latest_enter;
        case CollectiveShape::OneToAll:
            return instance.root >= 0 && !root ? instance.members[instance.root].enter : 0;
        case CollectiveShape::AllToOne:
            return root ? instance.latest_enter : 0;
        case CollectiveShape::Other:
            break;
        }
        return 0;
    }

    void all_to_all(Context& c, const CollectiveInstance& instance, size_t member, int wait_metric,
                    int completion_metric) {
        const CallInfo& me = instance.members[member];
        const Time first_leave = instance.earliest_leave;
        const Time duration = me.leave - me.enter;
        const Time wait = collective_wait(instance, member);
        const Time completion =
            me.leave > first_leave ? std::min(me.leave - first_leave, duration - wait) : 0;
        record_wait(c, wait_metric, me, wait);
        c.add(completion_metric, me.callpath, me.location, c.seconds(completion));
    }

    // Counts a wait state and tells subscribers about it.
    void record_wait(Context& c, int metric, const CallInfo& call, Time ticks) {
        if (ticks == 0) return;
        c.add(metric, call.callpath, call.location, c.seconds(ticks));
        dispatcher_->publish(c, WaitStateInstance{call, ticks});
    }

    const analysis::Dispatcher* dispatcher_ = nullptr;
    int barrier_wait_ = -1, barrier_completion_ = -1, wait_nxn_ = -1, nxn_completion_ = -1;
    int late_broadcast_ = -1, early_reduce_ = -1, violations_ = -1, collective_violations_ = -1;
    analysis::LocationFacts<InitAndFinalizeCalls> ends_; // region kNone: no such call
    std::optional<LatestEnters> latest_;                 // this worker's, once known
};

} // namespace

std::unique_ptr<analysis::Pattern> collective_patterns() {
    return std::make_unique<CollectivePatterns>();
}

} // namespace topolens::patterns
