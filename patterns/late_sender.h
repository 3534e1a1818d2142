// Late Sender as Scalasca 2.6 defines it (MPI_LATESENDER, MPI_LATESENDER_WO), found ahead
// over one location's receives, and the instance it publishes for patterns that take a part of it.
#pragma once

#include "analyzer/engine/engine.h"

#include <cstdint>
#include <deque>
#include <vector>

namespace topolens::patterns {

enum class WrongOrder : uint8_t { None, SameSource, DifferentSources };

// Published (Dispatcher::publish<LateSenderInstance>) once per Late Sender instance, Wrong
// Order ones included, on the receiver's replay, for patterns that take a part of Late
// Sender into metrics of their own (the wavefront corners).
struct LateSenderInstance {
    // The receive that waited; for a call completing several receives (MPI_Waitall), the
    // one that waited longest.
    analysis::MessageInstance message;
    analysis::Time wait = 0; // clamped to the receiving call, in ticks
    WrongOrder wrong_order = WrongOrder::None;
};

// The Late Sender instances of one location, parallel to Matching::receives_of:
//  - a receive completed by a call other than MPI_Test* waited min(e(send call),
//    l(receive call)) - e(receive call), if positive;
//  - MPI_Waitall and MPI_Waitsome count once per call: the receive that waited longest
//    (the first of equal ones), known when the call ends;
//  - Wrong Order: an instance is wrong order when a later receive of the location (also one
//    completed by MPI_Test*) takes a message whose send record is earlier than the
//    instance's; "same source" when both came from the same location. As in Scalasca, the
//    instances looked back on are the last 100 not yet found wrong order.
// Uses the location's own receives and what travels with each matched message.
class LateSenderFinder {
  public:
    struct Verdict {
        analysis::Time wait = 0; // > 0: this receive is an instance
        WrongOrder wrong_order = WrongOrder::None;
    };

    void find(const analysis::Context& context, uint32_t location);
    const std::vector<Verdict>& verdicts() const { return verdicts_; }

  private:
    struct Pending {
        analysis::Time send_time;
        uint32_t receive; // index into verdicts_
        uint32_t source;  // sending location
    };
    void reveal(analysis::Time send_time, uint32_t source);
    void remember(analysis::Time send_time, uint32_t receive, uint32_t source);

    static constexpr size_t kLookBack = 100; // Scalasca's buffer
    std::vector<Verdict> verdicts_;
    std::deque<Pending> pending_;
    analysis::Time latest_pending_ = 0; // at least the latest send time in pending_
};

} // namespace topolens::patterns
