// The Late Sender and Late Receiver instances of each location (patterns/late_sender.h,
// patterns/late_receiver.h), found once per analysis: the root-cause analysis needs them in
// its preparation round (patterns/synchpoints.h), the point-to-point pattern in the
// location's replay. Found in the preparation round, they are kept for the replay only if a
// pattern reads them there; else the replay finds them.
#pragma once

#include "analyzer/engine/engine.h"
#include "patterns/late_receiver.h"
#include "patterns/late_sender.h"

#include <memory>
#include <mutex>
#include <vector>

namespace topolens::patterns {

class PointToPointWaits {
  public:
    struct Found {
        LateSenderFinder late_senders;
        LateReceiverFinder late_receivers;
    };

    // In define_metrics, by a pattern that reads them in the replay.
    void read_in_replay() { read_in_replay_ = true; }
    // In a preparation round, for the location's own use.
    std::shared_ptr<const Found> prepare(const analysis::Context& c, uint32_t location);
    // In the location's replay: what its preparation kept (let go of here), else found now.
    std::shared_ptr<const Found> replay(const analysis::Context& c, uint32_t location);

  private:
    static std::shared_ptr<const Found> find(const analysis::Context& c, uint32_t location);

    bool read_in_replay_ = false;
    std::once_flag sized_;
    // By location, from its preparation to its replay (each touched by its location only).
    std::vector<std::shared_ptr<const Found>> kept_;
};

// The analysis' one object (patterns/per_analysis.h).
std::shared_ptr<PointToPointWaits> point_to_point_waits_for(const report::Report& report);

} // namespace topolens::patterns
