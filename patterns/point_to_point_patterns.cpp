// Point-to-point wait states as Scalasca 2.6 defines them: Late Sender with its Wrong Order
// part (from the same source, from different sources), Late Receiver, and clock-condition
// violations (a receive that completes before its send began).
#include "patterns/late_sender.h"
#include "patterns/metric_catalogue.h"
#include "patterns/metric_names.h"
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
        late_senders_.find(c, loc);
        next_receive_ = 0;
        pending_sends_.clear();
        waited_for_senders_.clear();
        next_waited_ = 0;
        // Calls completing several requests that already waited as Late Sender are not
        // counted again as Late Receiver (Scalasca's rule).
        const auto& receives = c.matching().receives_of[loc];
        for (size_t k = 0; k < receives.size(); ++k) {
            if (late_senders_.verdicts()[k].wait == 0) continue;
            const trace::CallSummary& call =
                c.matching().message_calls[receives[k].second].recv_call;
            if (c.mpi_kinds().of(call.region) == MpiCallKind::WaitMany)
                waited_for_senders_.push_back(call.enter);
        }
    }

    void receive(Context& c, const MessageInstance& m) {
        const CallInfo& call = m.recv_call;
        if (m.recv_event < m.send_event) {
            c.add(violations_, call.callpath, call.location, 1.0);
            c.add(p2p_violations_, call.callpath, call.location, 1.0);
        }
        const LateSenderFinder::Verdict verdict = late_senders_.verdicts()[next_receive_++];
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
        const CallInfo& done = m.send_complete;
        const MpiCallKind kind = c.mpi_kinds().of(done.region);
        if (kind != MpiCallKind::BlockingSend && kind != MpiCallKind::Wait &&
            kind != MpiCallKind::WaitMany)
            return; // buffered, ready or combined sends, Test*, never completed
        // A send that left before the receive was posted was buffered: it did not wait.
        const Time wait = done.leave > m.recv_post ? wait_in_call(m.recv_post, done) : 0;
        if (kind != MpiCallKind::WaitMany) {
            late_receiver(c, done, wait);
            return;
        }
        // MPI_Waitall: the longest wait of the sends it completed, once, when it ends.
        auto [it, added] = pending_sends_.try_emplace(done.enter, PendingSends{done, wait});
        if (!added) it->second.wait = std::max(it->second.wait, wait);
    }

    void region(Context& c, const CallInfo& call) {
        if (pending_sends_.empty()) return;
        auto found = pending_sends_.find(call.enter);
        if (found == pending_sends_.end() || found->second.call.callpath != call.callpath) return;
        // Calls are left in the order they were entered (a Waitall nests no other Waitall).
        while (next_waited_ < waited_for_senders_.size() &&
               waited_for_senders_[next_waited_] < call.enter)
            ++next_waited_;
        const bool waited_as_receiver = next_waited_ < waited_for_senders_.size() &&
                                        waited_for_senders_[next_waited_] == call.enter;
        if (!waited_as_receiver) late_receiver(c, found->second.call, found->second.wait);
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
    LateSenderFinder late_senders_;
    size_t next_receive_ = 0;
    // This location's MPI_Waitall calls (by enter time) with sends waiting to be judged.
    std::unordered_map<Time, PendingSends> pending_sends_;
    std::vector<Time> waited_for_senders_; // enter times of Waitalls with a Late Sender, ascending
    size_t next_waited_ = 0;
};

} // namespace

std::unique_ptr<analysis::Pattern> point_to_point_patterns() {
    return std::make_unique<PointToPointPatterns>();
}

} // namespace topolens::patterns
