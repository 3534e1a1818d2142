// Point-to-point wait states as Scalasca 2.6 defines them: Late Sender with its Wrong Order
// part (from the same source, from different sources), Late Receiver, and clock-condition
// violations (a receive that completes before its send began).
#include "patterns/metric_catalogue.h"
#include "patterns/metric_names.h"
#include "patterns/point_to_point_waits.h"
#include "patterns/registry.h"
#include "patterns/wait_state.h"
#include "patterns/waits.h"

#include <algorithm>
#include <unordered_map>

namespace topolens::patterns {

namespace {

using analysis::CallInfo;
using analysis::Context;
using analysis::MessageInstance;
using analysis::MpiCallKind;
using analysis::Time;

class PointToPointPatterns : public CataloguedPattern {
  public:
    PointToPointPatterns() : CataloguedPattern(PatternKind::PointToPoint) {}
    std::unique_ptr<analysis::Pattern> clone() const override {
        return std::make_unique<PointToPointPatterns>(*this);
    }
    // Its state is per location: nothing to merge.
    void merge(analysis::Pattern&) override {}

    void define_metrics(report::Report& r) override {
        late_sender_ = metric_id(r, metric::kLateSender);
        wrong_order_ = metric_id(r, metric::kLateSenderWrongOrder);
        wrong_order_same_ = metric_id(r, metric::kWrongOrderSameSource);
        wrong_order_different_ = metric_id(r, metric::kWrongOrderDifferentSources);
        late_receiver_ = metric_id(r, metric::kLateReceiver);
        violations_ = metric_id(r, metric::kClockViolations);
        p2p_violations_ = metric_id(r, metric::kClockViolationsP2P);
        waits_ = point_to_point_waits_for(r);
        waits_->read_in_replay();
    }

    void subscribe(analysis::Dispatcher& d) override {
        dispatcher_ = &d;
        d.on_location_begin([this](Context& c, uint32_t loc) { begin(c, loc); });
        d.on_receive([this](Context& c, const MessageInstance& m) { receive(c, m); });
        d.on_send([this](Context& c, const MessageInstance& m) { send(c, m); });
        d.on_region([this](Context& c, const CallInfo& call) { region(c, call); });
    }

  private:
    void begin(Context& c, uint32_t loc) {
        found_ = waits_->replay(c, loc);
        next_receive_ = 0;
        next_send_ = 0;
        pending_sends_.clear();
    }

    void receive(Context& c, const MessageInstance& m) {
        const CallInfo& call = m.recv_call;
        if (m.recv_event < m.send_event) {
            c.add(violations_, call.callpath, call.location, 1.0);
            c.add(p2p_violations_, call.callpath, call.location, 1.0);
        }
        const LateSenderFinder::Verdict verdict = found_->late_senders.verdicts()[next_receive_++];
        if (verdict.wait == 0) return;
        const double seconds = c.seconds(verdict.wait);
        c.add(late_sender_, call.callpath, call.location, seconds);
        dispatcher_->publish(c, WaitStateInstance{call, verdict.wait});
        dispatcher_->publish(c, LateSenderInstance{m, verdict.wait, verdict.wrong_order});
        if (verdict.wrong_order == WrongOrder::None) return;
        c.add(wrong_order_, call.callpath, call.location, seconds);
        c.add(verdict.wrong_order == WrongOrder::SameSource ? wrong_order_same_
                                                            : wrong_order_different_,
              call.callpath, call.location, seconds);
    }

    void send(Context& c, const MessageInstance& m) {
        const auto& sends = c.matching().sends_of[m.send_call.location];
        while (sends[next_send_].second != m.id) ++next_send_; // unmatched sends have no call
        const Time wait = found_->late_receivers.waits()[next_send_++];
        if (wait == 0) return;
        const CallInfo& done = m.send_complete;
        if (c.mpi_kinds().of(done.region) != MpiCallKind::WaitMany) {
            late_receiver(c, done, wait);
            return;
        }
        // MPI_Waitall: counted once, when it ends.
        pending_sends_.try_emplace(done.enter, PendingSends{done, wait});
    }

    void region(Context& c, const CallInfo& call) {
        if (pending_sends_.empty()) return;
        auto found = pending_sends_.find(call.enter);
        if (found == pending_sends_.end() || found->second.call.callpath != call.callpath) return;
        late_receiver(c, found->second.call, found->second.wait);
        pending_sends_.erase(found);
    }

    void late_receiver(Context& c, const CallInfo& call, Time wait) {
        if (wait == 0) return;
        c.add(late_receiver_, call.callpath, call.location, c.seconds(wait));
        dispatcher_->publish(c, WaitStateInstance{call, wait});
    }

    struct PendingSends {
        CallInfo call;
        Time wait = 0;
    };

    const analysis::Dispatcher* dispatcher_ = nullptr;
    int late_sender_ = -1, wrong_order_ = -1, wrong_order_same_ = -1, wrong_order_different_ = -1,
        late_receiver_ = -1, violations_ = -1, p2p_violations_ = -1;
    // Shared with the root-cause analysis, which finds them first if it runs.
    std::shared_ptr<PointToPointWaits> waits_;
    std::shared_ptr<const PointToPointWaits::Found> found_; // the location's

    size_t next_receive_ = 0, next_send_ = 0;
    // This location's MPI_Waitall calls (by enter time) with a Late Receiver, counted when
    // the call ends.
    std::unordered_map<Time, PendingSends> pending_sends_;
};

} // namespace

std::unique_ptr<analysis::Pattern> point_to_point_patterns() {
    return std::make_unique<PointToPointPatterns>();
}

} // namespace topolens::patterns
