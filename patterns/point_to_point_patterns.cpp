// Point-to-point wait states: Late Sender (and its Wrong Order part), Late Receiver, and
// clock-condition violations (a receive that completes before its send began).
#include "analyzer/metric_tree.h"
#include "patterns/late_sender.h"
#include "patterns/metric_names.h"
#include "patterns/registry.h"
#include "patterns/wait_state.h"
#include "patterns/waits.h"

#include <algorithm>

namespace topolens::patterns {

namespace {

using analysis::Context;
using analysis::MessageInstance;

class PointToPointPatterns : public analysis::Pattern {
  public:
    std::string name() const override { return "point-to-point"; }
    std::unique_ptr<analysis::Pattern> clone() const override {
        return std::make_unique<PointToPointPatterns>(*this);
    }

    void define_metrics(report::Report& r) override {
        using analysis::define_metric;
        late_sender_ = define_metric(
            r, metric::kPointToPoint, metric::kLateSender, "Late Sender",
            "Time a blocking receive (or the wait completing a nonblocking one) spent waiting "
            "because the matching send started later: e(send) - e(recv), at most the "
            "receiving call's duration.");
        wrong_order_ = define_metric(
            r, metric::kLateSender, metric::kLateSenderWrongOrder, "LS, Wrong Order",
            "Late Sender time while a message sent earlier to the same receiver was still "
            "waiting to be received: the receives are in a different order than the sends.");
        late_receiver_ = define_metric(
            r, metric::kPointToPoint, metric::kLateReceiver, "Late Receiver",
            "Time a blocking send spent waiting because the matching receive was posted "
            "later: e(recv) - e(send), at most the sending call's duration.");
        violations_ =
            define_metric(r, "", metric::kClockViolations, "Clock condition violations",
                          "Receives that completed before their send began: the clocks of the two "
                          "processes disagree, and times derived from them are unreliable.",
                          "occ");
    }

    void subscribe(analysis::Dispatcher& d) override {
        dispatcher_ = &d;
        d.on_receive([this](Context& c, const MessageInstance& m) { receive(c, m); });
        d.on_send([this](Context& c, const MessageInstance& m) { send(c, m); });
    }

  private:
    void receive(Context& c, const MessageInstance& m) {
        const analysis::CallInfo& call = m.recv_call;
        if (m.recv_event < m.send_event) c.add(violations_, call.callpath, call.location, 1.0);
        if (!m.recv_blocking || !m.representative) return;
        const analysis::Time wait = wait_in_call(m.send_call.enter, call);
        if (wait == 0) return;
        const double seconds = c.seconds(wait);
        c.add(late_sender_, call.callpath, call.location, seconds);
        dispatcher_->publish(c, WaitStateInstance{call, wait});
        const LateSenderInstance instance{m, wait};
        dispatcher_->publish(c, instance);
        if (m.wrong_order && !instance.claimed)
            c.add(wrong_order_, call.callpath, call.location, seconds);
    }

    void send(Context& c, const MessageInstance& m) {
        if (!m.send_blocking) return;
        const analysis::Time wait = wait_in_call(m.recv_post, m.send_call);
        if (wait == 0) return;
        c.add(late_receiver_, m.send_call.callpath, m.send_call.location, c.seconds(wait));
        dispatcher_->publish(c, WaitStateInstance{m.send_call, wait});
    }

    const analysis::Dispatcher* dispatcher_ = nullptr;
    int late_sender_ = -1, wrong_order_ = -1, late_receiver_ = -1, violations_ = -1;
};

} // namespace

std::unique_ptr<analysis::Pattern> point_to_point_patterns() {
    return std::make_unique<PointToPointPatterns>();
}

} // namespace topolens::patterns
