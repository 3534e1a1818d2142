// The backward replay: each location's message ends and collective parts visited in reverse
// event order, the patterns exchanging values against the direction of the messages (see
// BackwardStep in engine.h). Locations are scheduled as a parallel replay runs them: a
// location goes on until it must read what another has not posted yet, and waits there;
// threads take the locations that can go on. What a step reads was posted before it, so the
// values do not depend on the threads.
#pragma once

#include "analyzer/engine/engine.h"

#include <atomic>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>

namespace topolens::analysis {

class BackwardReplay {
  public:
    // `exchange`: an analysis shared out to ranks (AnalysisOptions::exchange): this rank
    // replays its share's locations, in one thread, in rounds: between rounds what a step
    // posted for a location of another rank goes there, until every rank is done.
    BackwardReplay(const trace::Trace& trace, const trace::Matching& matching,
                   const Dispatcher& dispatch, Context& context, unsigned threads = 1,
                   trace::Exchange* exchange = nullptr);
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
        bool done = false;
    };

    // Bytes kept for another location's step: one pointer, null while empty (most are).
    class Slot {
      public:
        void assign(std::span<const std::byte> bytes); // reuses the memory when it fits
        std::span<const std::byte> bytes() const;
        void release() { data_.reset(); }

      private:
        std::unique_ptr<std::byte[]> data_; // 4-byte size, 4-byte capacity, the bytes
    };
    // What a thread reuses from step to step.
    struct Scratch {
        trace::Bytes payload, reply;
        std::vector<uint32_t> sections; // write_sections' table
    };

    // Whether some channel needs the steps of a message or collective (Dispatcher::on_backward).
    bool needed(BackwardStep::Kind kind, uint32_t id) const;
    void build_steps();
    std::vector<uint8_t> completed_after_posted() const;
    void work(); // one thread's share, until every location is done
    bool advance(uint32_t loc, bool force, Scratch& scratch); // false: parked
    bool ready(const BackwardStep& step) const;
    void post(const BackwardStep& step, Scratch& scratch);
    void take(BackwardStep step, bool forced, Scratch& scratch);
    void wake_partners(const BackwardStep& step);
    void wake(uint32_t loc);
    void deliver_replies(uint32_t loc);
    // Shared out to ranks: the rounds, and what travels between them.
    void run_rounds();
    bool local(uint32_t loc) const { return loc >= first_ && loc < last_; }
    void learn_completed_after(std::vector<uint8_t>& after) const;
    void send_post(const BackwardStep& step, const trace::Bytes& payload);
    bool exchange_posts();
    void exchange_replies();
    uint32_t owner_of(uint32_t loc) const;
    const std::vector<uint32_t>& other_ranks_of(uint32_t collective);
    size_t local_members(uint32_t collective) const { return local_members_[collective]; }

    const trace::Trace& trace_;
    const trace::Matching& m_;
    const Dispatcher& d_;
    Context& ctx_;
    unsigned threads_;
    trace::Exchange* exchange_;
    uint32_t first_ = 0, last_ = 0; // the locations replayed here
    uint32_t target_ = 0;           // locations to finish here
    // Shared out to ranks: posts for other ranks' locations, by rank, until the next round;
    // steps taken in this round.
    std::vector<trace::Bytes> outbox_;
    // By collective, once one of its members posted: the other ranks that replay a member
    // (so that each member's post does not look at every member again).
    std::vector<std::pair<bool, std::vector<uint32_t>>> other_ranks_;
    uint64_t progress_ = 0;
    std::vector<uint32_t> local_members_;  // by collective: its members replayed here
    std::vector<std::vector<Step>> steps_; // by location, in event order
    // A location's steps are visited by one thread at a time. What is posted and who is
    // parked are atomic: a post sets its flag, then wakes a parked reader; a reader parks,
    // then looks at the flag again, so one of the two sees the other (both sequentially
    // consistent) and no post is missed. The rest is under lock_.
    std::vector<LocationState> state_;
    std::unique_ptr<std::atomic<bool>[]> parked_; // by location
    // By message: whether its receive posted, its send read it, and what the slot keeps
    // (see backward_replay.cpp); the same for its send completion and receive request.
    std::unique_ptr<std::atomic<uint8_t>[]> receive_posted_, completion_posted_;
    std::unique_ptr<std::atomic<uint32_t>[]> collective_posted_; // by collective: members posted
    std::unique_ptr<std::atomic<uint32_t>[]> collective_taken_;  // by collective: members read
    // The payloads: by message, what its receive posted for the send, then what the send
    // replied; what its send completion posted for the receive request, then the reply; by
    // collective member (the collective's members from member_begin_[id] on), what it posted.
    // Written by the posting step before it counts as posted, read by the reader after;
    // freed once read.
    std::vector<Slot> to_sender_, to_receiver_, to_members_;
    std::vector<size_t> member_begin_; // by collective
    std::mutex lock_;
    std::condition_variable changed_;
    std::vector<uint32_t> runnable_;
    uint32_t forced_ = trace::kNone; // the location a broken cycle lets go on without its partners
    uint32_t finished_ = 0;
    unsigned busy_ = 0; // threads visiting a location's steps
    unsigned idle_ = 0; // threads waiting for a location to take
    std::exception_ptr error_;
};

} // namespace topolens::analysis
