#include "patterns/late_receiver.h"

#include "patterns/waits.h"

#include <algorithm>
#include <unordered_map>
#include <vector>

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
    // The calls (by enter record) that completed a receive waiting as Late Sender, sorted for
    // look-ups (a hash set here cost more than the rest of the search): receives are in record
    // order, so their calls are too, but for receives outside any call or in nested regions.
    // Looked at for MPI_Waitall only.
    std::vector<uint32_t> waited_for_senders;
    const auto& receives = m.receives_of[loc];
    for (size_t k = 0; k < receives.size(); ++k) {
        const uint32_t enter = frames[receives[k].first].frame;
        if (late_senders.verdicts()[k].wait > 0 &&
            (waited_for_senders.empty() || waited_for_senders.back() != enter))
            waited_for_senders.push_back(enter);
    }
    if (!std::is_sorted(waited_for_senders.begin(), waited_for_senders.end()))
        std::sort(waited_for_senders.begin(), waited_for_senders.end());
    // Per MPI_Waitall (enter record): the send that waited longest so far.
    std::unordered_map<uint32_t, size_t> longest;
    // A send's message is at random among the messages, its completion far from the last:
    // both fetched `kAhead` sends early (waiting for them was most of this search).
    constexpr size_t kAhead = 8;
    const auto& events = c.trace().locations[loc].events;
    for (size_t k = 0; k < sends.size(); ++k) {
        if (k + kAhead < sends.size()) {
            if (const uint32_t ahead = sends[k + kAhead].second; ahead != kNone)
                __builtin_prefetch(&m.message_calls[ahead].recv_post);
            if (const uint32_t ahead = m.send_completions[loc][k + kAhead]; ahead != kNone) {
                __builtin_prefetch(&events[ahead]);
                __builtin_prefetch(&frames[ahead]);
            }
        }
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
        if (std::binary_search(waited_for_senders.begin(), waited_for_senders.end(), enter))
            continue;
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
