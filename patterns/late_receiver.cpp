#include "patterns/late_receiver.h"

#include "patterns/waits.h"

#include <unordered_map>
#include <unordered_set>

namespace topolens::patterns {

using analysis::MpiCallKind;
using analysis::Time;
using trace::kNone;

void LateReceiverFinder::find(const analysis::Context& c, uint32_t loc,
                              const LateSenderFinder& late_senders) {
    const trace::Matching& m = c.matching();
    const trace::LocationFrames& frames = m.frames[loc];
    const auto& sends = m.sends_of[loc];
    waits_.assign(sends.size(), 0);
    // The MPI_Waitall calls (by enter record) that completed a receive waiting as Late Sender.
    std::unordered_set<uint32_t> waited_for_senders;
    const auto& receives = m.receives_of[loc];
    for (size_t k = 0; k < receives.size(); ++k)
        if (late_senders.verdicts()[k].wait > 0)
            waited_for_senders.insert(frames[receives[k].first].frame);
    // Per MPI_Waitall (enter record): the send that waited longest so far.
    std::unordered_map<uint32_t, size_t> longest;
    for (size_t k = 0; k < sends.size(); ++k) {
        const uint32_t id = sends[k].second;
        const uint32_t completion = m.send_completions[loc][k];
        if (id == kNone || completion == kNone) continue;
        const trace::CallSummary done = trace::call_around(c.trace(), m, loc, completion);
        if (done.region == kNone) continue;
        const MpiCallKind kind = c.mpi_kinds().of(done.region);
        if (kind != MpiCallKind::BlockingSend && kind != MpiCallKind::Wait &&
            kind != MpiCallKind::WaitMany)
            continue;
        const Time posted = m.message_calls[id].recv_post;
        if (done.leave <= posted) continue; // buffered: it did not wait
        analysis::CallInfo call;
        call.enter = done.enter;
        call.leave = done.leave;
        const Time wait = wait_in_call(posted, call);
        if (kind != MpiCallKind::WaitMany) {
            waits_[k] = wait;
            continue;
        }
        const uint32_t enter = frames[completion].frame;
        if (waited_for_senders.count(enter)) continue;
        const auto [at, added] = longest.try_emplace(enter, k);
        if (added) {
            waits_[k] = wait;
        } else if (wait > waits_[at->second]) {
            waits_[at->second] = 0;
            waits_[k] = wait;
            at->second = k;
        }
    }
}

} // namespace topolens::patterns
