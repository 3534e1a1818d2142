#include "patterns/point_to_point_waits.h"

#include "patterns/per_analysis.h"

namespace topolens::patterns {

std::shared_ptr<const PointToPointWaits::Found> PointToPointWaits::find(const analysis::Context& c,
                                                                        uint32_t location) {
    auto found = std::make_shared<Found>();
    found->late_senders.find(c, location);
    found->late_receivers.find(c, location, found->late_senders);
    return found;
}

std::shared_ptr<const PointToPointWaits::Found>
PointToPointWaits::prepare(const analysis::Context& c, uint32_t location) {
    std::shared_ptr<const Found> found = find(c, location);
    if (read_in_replay_) {
        std::call_once(sized_, [&] { kept_.resize(c.trace().locations.size()); });
        kept_[location] = found;
    }
    return found;
}

std::shared_ptr<const PointToPointWaits::Found>
PointToPointWaits::replay(const analysis::Context& c, uint32_t location) {
    if (location < kept_.size() && kept_[location]) return std::move(kept_[location]);
    return find(c, location);
}

std::shared_ptr<PointToPointWaits> point_to_point_waits_for(const report::Report& report) {
    return per_analysis<PointToPointWaits>(report).object;
}

} // namespace topolens::patterns
