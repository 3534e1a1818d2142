// Late Receiver as Scalasca 2.6 defines it (MPI_LATERECEIVER), found ahead over one
// location's sends, the one place the Late Receiver pattern and the root-cause analysis
// take it from:
//  - a send completed by MPI_Send/MPI_Ssend or MPI_Wait* waited min(receive posted,
//    l(completing call)) - e(completing call) for its receive to be posted, if the completing
//    call left after the receive was posted (one that left before was buffered);
//  - MPI_Waitall and MPI_Waitsome count once per call: the send that waited longest (the
//    first of equal ones); not at all in a call that also completed a receive that waited as
//    Late Sender;
//  - sends completed by other calls (buffered, ready, combined sends, MPI_Test*) or never
//    completed: none.
// Uses the location's own sends and receives and what travels with each matched message.
#pragma once

#include "analyzer/engine/engine.h"
#include "patterns/late_sender.h"

#include <vector>

namespace topolens::patterns {

class LateReceiverFinder {
  public:
    // `late_senders`: the location's Late Sender verdicts (LateSenderFinder::find).
    void find(const analysis::Context& context, uint32_t location,
              const LateSenderFinder& late_senders);
    // Parallel to Matching::sends_of[location]: the wait of each send, > 0 for an instance.
    const std::vector<analysis::Time>& waits() const { return waits_; }

  private:
    std::vector<analysis::Time> waits_;
};

} // namespace topolens::patterns
