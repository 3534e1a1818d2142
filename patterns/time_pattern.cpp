// Time, Visits and where MPI time goes (Init/Exit, Synchronization, Point-to-point,
// Collective): the categories every wait-state metric is a part of.
#include "analyzer/engine/mpi_calls.h"
#include "patterns/metric_catalogue.h"
#include "patterns/metric_names.h"
#include "patterns/registry.h"

#include <memory>
#include <vector>

namespace topolens::patterns {

namespace {

using analysis::CallInfo;
using analysis::Context;
using analysis::MpiCallKind;

class TimePattern : public CataloguedPattern {
  public:
    TimePattern() : CataloguedPattern(PatternKind::Time) {}
    std::unique_ptr<analysis::Pattern> clone() const override {
        return std::make_unique<TimePattern>(*this);
    }
    // Its state is per location: nothing to merge.
    void merge(analysis::Pattern&) override {}

    void define_metrics(report::Report& r) override {
        time_ = metric_id(r, metric::kTime);
        outside_ = metric_id(r, metric::kOutsideRegions);
        visits_ = metric_id(r, metric::kVisits);
        mpi_ = metric_id(r, metric::kMpi);
        init_exit_ = metric_id(r, metric::kInitExit);
        synchronization_ = metric_id(r, metric::kSynchronization);
        communication_ = metric_id(r, metric::kCommunication);
        point_to_point_ = metric_id(r, metric::kPointToPoint);
        collective_ = metric_id(r, metric::kCollective);
    }

    void subscribe(analysis::Dispatcher& d) override {
        d.on_region([this](Context& c, const CallInfo& call) { region(c, call); });
        d.on_location_done([this](Context& c, uint32_t loc, analysis::Time first,
                                  analysis::Time last) { done(c, loc, first, last); });
    }

  private:
    void region(Context& c, const CallInfo& call) {
        const double exclusive = c.seconds(call.exclusive);
        c.add(time_, call.callpath, call.location, exclusive);
        c.add(visits_, call.callpath, call.location, 1.0);
        if (call.parent_callpath == 0) {
            if (call.location >= top_level_.size()) top_level_.resize(call.location + 1, 0);
            top_level_[call.location] += call.leave - call.enter;
        }
        const MpiCallKind kind = c.mpi_kinds().of(call.region);
        if (kind == MpiCallKind::NotMpi) return;
        c.add(mpi_, call.callpath, call.location, exclusive);
        switch (kind) {
        case MpiCallKind::InitFinalize:
            c.add(init_exit_, call.callpath, call.location, exclusive);
            break;
        case MpiCallKind::Barrier:
            c.add(synchronization_, call.callpath, call.location, exclusive);
            break;
        case MpiCallKind::BlockingSend:
        case MpiCallKind::BufferedSend:
        case MpiCallKind::BlockingReceive:
        case MpiCallKind::SendReceive:
        case MpiCallKind::Wait:
        case MpiCallKind::WaitMany:
        case MpiCallKind::Test:
        case MpiCallKind::OtherPointToPoint:
            c.add(communication_, call.callpath, call.location, exclusive);
            c.add(point_to_point_, call.callpath, call.location, exclusive);
            break;
        case MpiCallKind::Collective:
            c.add(communication_, call.callpath, call.location, exclusive);
            c.add(collective_, call.callpath, call.location, exclusive);
            break;
        case MpiCallKind::NotMpi:
        case MpiCallKind::Other:
            break;
        }
    }

    // The artificial root call path holds the time outside every top-level region (it is
    // not a region the program entered: no visit).
    void done(Context& c, uint32_t loc, analysis::Time first, analysis::Time last) {
        const analysis::Time inside = loc < top_level_.size() ? top_level_[loc] : 0;
        const analysis::Time span = last - first;
        c.add(outside_, 0, loc, c.seconds(span > inside ? span - inside : 0));
    }

    int time_ = -1, outside_ = -1, visits_ = -1, mpi_ = -1, init_exit_ = -1, synchronization_ = -1;
    int communication_ = -1, point_to_point_ = -1, collective_ = -1;
    std::vector<analysis::Time> top_level_; // per location: time in top-level regions
};

} // namespace

std::unique_ptr<analysis::Pattern> time_pattern() {
    return std::make_unique<TimePattern>();
}

} // namespace topolens::patterns
