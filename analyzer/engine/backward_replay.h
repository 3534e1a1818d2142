// The backward replay: each location's message ends and collective parts visited in reverse
// event order, the patterns exchanging values against the direction of the messages (see
// BackwardStep in engine.h). Locations are scheduled as a parallel replay would run them: a
// location goes on until it must read what another has not posted yet, and waits there.
#pragma once

#include "analyzer/engine/engine.h"

namespace topolens::analysis {

class BackwardReplay {
  public:
    BackwardReplay(const trace::Trace& trace, const trace::Matching& matching,
                   const Dispatcher& dispatch, Context& context);
    // Runs every location's steps; a cycle of waits (which clock-condition violations can
    // make) is broken at its lowest location, whose step then reads without its partners
    // (BackwardStep::partners_posted false), with one warning.
    void run();

  private:
    struct Step {
        uint32_t call = 0; // enter record of the call around the step: its steps post together
        BackwardStep step;
    };
    struct LocationState {
        size_t next = 0;        // steps still to visit: [0, next)
        size_t group_begin = 0; // first step of the call being visited; posted up to `next`
        bool group_posted = false;
        bool parked = false;
        bool done = false;
    };

    void build_steps();
    std::vector<uint8_t> completed_after_posted() const;
    bool advance(uint32_t loc, bool force); // false: parked
    bool ready(const BackwardStep& step) const;
    void post(const BackwardStep& step);
    void take(BackwardStep step, bool forced);
    void wake_partners(const BackwardStep& step);

    const trace::Trace& trace_;
    const trace::Matching& m_;
    const Dispatcher& d_;
    Context& ctx_;
    std::vector<std::vector<Step>> steps_; // by location, in event order
    std::vector<LocationState> state_;
    std::vector<uint8_t> receive_posted_, completion_posted_; // by message id
    std::vector<uint32_t> collective_posted_;                 // by collective id: members posted
    std::vector<uint32_t> runnable_;
};

} // namespace topolens::analysis
