#include "patterns/late_sender.h"

#include <algorithm>

namespace topolens::patterns {

using analysis::MpiCallKind;
using analysis::Time;

void LateSenderFinder::find(const analysis::Context& c, uint32_t loc) {
    const trace::Matching& m = c.matching();
    const auto& receives = m.receives_of[loc];
    const trace::LocationFrames& frames = m.frames[loc];
    verdicts_.assign(receives.size(), {});
    pending_.clear();
    latest_pending_ = 0;
    for (size_t k = 0; k < receives.size();) {
        const trace::CallSummary& call = m.message_calls[receives[k].second].recv_call;
        const MpiCallKind kind = c.mpi_kinds().of(call.region);
        // The receives one MPI_Waitall completed are one group; any other call completes one.
        size_t end = k + 1;
        if (kind == MpiCallKind::WaitMany)
            while (end < receives.size() &&
                   frames[receives[end].first].frame == frames[receives[k].first].frame)
                ++end;
        size_t longest = end;
        Time longest_wait = 0;
        for (size_t j = k; j < end; ++j) {
            const uint32_t id = receives[j].second;
            const trace::MessageCalls& calls = m.message_calls[id];
            const uint32_t source = m.messages[id].send.location;
            reveal(calls.send_time, source);
            if (kind == MpiCallKind::Test) continue;
            const Time started = calls.send_call.enter;
            const Time wait = started > call.enter ? std::min(started, call.leave) - call.enter : 0;
            if (wait > longest_wait) {
                longest = j;
                longest_wait = wait;
            }
        }
        if (longest != end) {
            verdicts_[longest].wait = longest_wait;
            const uint32_t id = receives[longest].second;
            remember(m.message_calls[id].send_time, static_cast<uint32_t>(longest),
                     m.messages[id].send.location);
        }
        k = end;
    }
}

void LateSenderFinder::reveal(Time send_time, uint32_t source) {
    if (pending_.empty() || send_time >= latest_pending_) return; // messages in order
    latest_pending_ = 0;
    for (auto it = pending_.begin(); it != pending_.end();) {
        if (it->send_time > send_time) {
            verdicts_[it->receive].wrong_order =
                it->source == source ? WrongOrder::SameSource : WrongOrder::DifferentSources;
            it = pending_.erase(it);
        } else {
            latest_pending_ = std::max(latest_pending_, it->send_time);
            ++it;
        }
    }
}

void LateSenderFinder::remember(Time send_time, uint32_t receive, uint32_t source) {
    // latest_pending_ may stay above the true latest after the oldest leaves: an upper bound
    // still lets reveal() skip exactly the receives that reveal nothing.
    if (pending_.size() == kLookBack) pending_.pop_front();
    pending_.push_back({send_time, receive, source});
    latest_pending_ = std::max(latest_pending_, send_time);
}

} // namespace topolens::patterns
