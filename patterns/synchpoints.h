// Synchronisation points ("synchpoints", as Scalasca's root-cause analysis calls them) of
// each location, and the time it spent per call path between them: what the delay costs
// and the critical path compare between a process that waited and the one it waited for.
//
// A synchpoint is an MPI call where a location synchronised with others: a receive that
// waited as Late Sender and the send it waited for, a collective operation where members
// waited (by the operation's shape, patterns/collective_waits.h), MPI_Init and
// MPI_Finalize. Each has its wait, its duration ("total") and its completion (the part of
// the call after the synchronisation, which starts the next interval). The time map of an
// interval is the location's time per call path between the enters of two calls, as
// Scalasca splits it (a call's own time belongs to the interval after it).
//
// One object per analysis, shared by the clones of the patterns that use it: each location
// fills its own part in its forward replay and reads only its own part later. What a
// location finds for others (a Late Sender's wait for its sender, MPI_Init and MPI_Finalize
// for everyone) is a fact in the engine's tables (analyzer/engine/facts.h).
#pragma once

#include "analyzer/engine/engine.h"
#include "patterns/collective_waits.h"
#include "patterns/point_to_point_waits.h"
#include "patterns/time_map.h"

#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <vector>

namespace topolens::patterns {

struct TimeMapSum {
    TimeMap map;
    double sum = 0.0;
};

// Per call path of `minuend`, the positive part of it minus `subtrahend` (call paths where
// the difference is not positive are left out), and the sum (Scalasca's CalculateDiff).
TimeMapSum positive_difference(const TimeMap& minuend, const TimeMap& subtrahend);

// The kinds of wait a synchpoint can hold, each a channel of long-term delay costs.
enum class WaitKind : uint8_t {
    LateSender,
    LateReceiver,
    Barrier,
    NxN,
    LateBroadcast,
    EarlyReduce
};
inline constexpr size_t kWaitKinds = 6;

struct Synchpoint {
    // SendCompletion: the call that completed a send that waited as Late Receiver;
    // ReceiveRequest: the call that posted that message's receive.
    enum class Kind : uint8_t {
        Receive,
        Send,
        Collective,
        Init,
        Finalize,
        SendCompletion,
        ReceiveRequest
    };
    Kind kind = Kind::Receive;
    bool synchronises = false; // a synchpoint (the other kinds of candidate only split time)
    WaitKind wait_kind = WaitKind::LateSender;
    uint32_t id = trace::kNone; // message or collective id
    uint32_t callpath = 0;      // the call around it
    uint32_t call = 0;          // the enter record of that call
    analysis::Time total = 0, completion = 0, wait = 0;
    // Point-to-point: the other end's location; collective: the delaying member's.
    uint32_t partner = trace::kNone;
    // Collective: the locations it synchronised with, unless it synchronised with every
    // member (with_members: the common case, kept once per collective): an index into its
    // location's LocationSynchpoints::groups (few points have one: a list in every point was
    // a third of its size). Init, Finalize: with every location.
    uint32_t group = trace::kNone;
    bool with_members = false;
    bool with_everyone = false;
    uint32_t times_end = 0; // its segment of LocationSynchpoints::times ends here
};

struct LocationSynchpoints {
    std::vector<Synchpoint> points; // in event order
    // The time since the previous point (or the first event), per point: (call path, ticks)
    // runs, point k's in [points[k-1].times_end, points[k].times_end); the runs after the
    // last point's are the tail, after the location's last point.
    std::vector<std::pair<uint32_t, analysis::Time>> times;
    // (collective id, point), ascending by id: looked up at every collective step of the
    // backward replay, where a hash map cost more than a binary search.
    std::vector<std::pair<uint32_t, uint32_t>> collective_points;
    // The locations some collective points synchronised with (Synchpoint::group), sorted.
    std::vector<std::vector<uint32_t>> groups;
};

// A location's MPI_Finalize synchpoint, as the critical path looks for where it starts.
struct FinalizePoint {
    bool found = false; // the location has one
    analysis::Time enter = 0;
};

struct SharedSynchpoints;

class Synchpoints {
  public:
    static constexpr size_t npos = static_cast<size_t>(-1);

    // In the filling pattern's subscribe(): the facts that travel between locations.
    void declare_facts(analysis::Dispatcher& d);

    // Prepare round 0, per location: its Late Sender waits (by message id, for the senders)
    // and its MPI_Init and MPI_Finalize calls.
    void prepare(const analysis::Context& c, uint32_t location);
    // Before the location's replay: its candidate points and the time between them.
    void scan(const analysis::Context& c, uint32_t location);
    // During its replay: what makes each candidate a synchpoint.
    void receive(const analysis::MessageInstance& m);
    void send(const analysis::MessageInstance& m);
    void collective(const analysis::CollectiveInstance& instance, size_t member);

    const LocationSynchpoints& of(uint32_t location) const { return locations_[location]; }
    // Every location's MPI_Finalize point, after the forward replay.
    const FinalizePoint& finalize_point(uint32_t location) const {
        return finalize_point_.get(location);
    }
    // Whether the backward replay needs the steps of a message or collective (the
    // Dispatcher::on_backward `needs` of the patterns that read these points): the points of
    // messages are at Late Sender (kind Receive) and Late Receiver ones (kind
    // SendCompletion) only; every collective has one. From facts both ends of a message have.
    bool travels_backward(analysis::BackwardStep::Kind kind, uint32_t id) const;
    // Late Sender messages only; npos for the others.
    size_t receive_point(uint32_t message) const { return point_or_npos(receive_point_[message]); }
    size_t send_point(uint32_t message) const { return point_or_npos(send_point_[message]); }
    // Late Receiver messages only; npos for the others.
    size_t completion_point(uint32_t message) const;
    size_t request_point(uint32_t message) const;
    size_t collective_point(uint32_t location, uint32_t collective) const;

    // The last synchpoint before point `at` that synchronised with `partner`; npos: none.
    size_t previous_with(uint32_t location, size_t at, uint32_t partner) const;
    // The location's time per call path from point `from` (npos: the start) to point `to`.
    TimeMap runtimes(uint32_t location, size_t from, size_t to) const;
    // The location's time per call path over its whole run (the tail after its last point
    // included).
    TimeMap runtimes(uint32_t location) const;
    // The waits of the synchpoints strictly between `from` and `to`, per call path.
    TimeMapSum waits_between(uint32_t location, size_t from, size_t to) const;
    // runtimes minus `waits` (positive parts), and minus the part of `from`'s call before it
    // completed; the sum is over the map.
    TimeMapSum pruned(uint32_t location, size_t from, size_t to, const TimeMap& waits) const;
    // The pruned time since the last synchpoint with `partner` (Scalasca's interval of a
    // location that waited, or of a collective member, up to point `at`).
    TimeMap interval_with(uint32_t location, size_t at, uint32_t partner) const;

    // Whether point `at` of `location` synchronised with `other`.
    bool synchronises_with(uint32_t location, size_t at, uint32_t other) const;
    // The other locations collective point `at` of `location` synchronised with, sorted.
    std::vector<uint32_t> synchronised_with(uint32_t location, size_t at) const;

  private:
    static size_t point_or_npos(uint32_t point) { return point == trace::kNone ? npos : point; }
    bool synchronises_with(const LocationSynchpoints& mine, const Synchpoint& point,
                           uint32_t other) const;
    void size_for(const analysis::Context& c);
    void set_init_and_finalize(const analysis::Context& c, uint32_t location);

    friend SharedSynchpoints synchpoints_for(const report::Report& report);
    std::shared_ptr<PointToPointWaits> waits_; // the Late Sender and Late Receiver instances
    std::once_flag sized_, ends_known_;
    std::vector<LocationSynchpoints> locations_;
    // Facts of the preparation round: the wait of each Late Sender message (left by the
    // receiver, for the sender); of each Late Receiver message, the leave of the call that
    // completed the send (left by the sender, for the receiver); each location's MPI_Init
    // and MPI_Finalize calls. Of the forward replay: each location's MPI_Finalize point.
    struct SendCompletion {
        analysis::Time leave = kNotLate; // kNotLate: not a Late Receiver message
        static constexpr analysis::Time kNotLate = std::numeric_limits<analysis::Time>::max();
    };
    analysis::MessageFacts<analysis::Time> late_sender_wait_;
    analysis::MessageFacts<SendCompletion> late_receiver_completion_;
    analysis::LocationFacts<InitAndFinalizeCalls> ends_;
    analysis::LocationFacts<FinalizePoint> finalize_point_;
    // Each location's own Late Receiver sends, (message id, wait) in send order, from its
    // preparation round to its replay.
    std::vector<std::vector<std::pair<uint32_t, analysis::Time>>> late_receiver_waits_;
    // Points of a location's own messages, for its backward replay (by message id).
    std::vector<uint32_t> completion_point_, request_point_;
    std::vector<uint32_t> receive_point_, send_point_;
    std::vector<std::vector<uint32_t>> collective_members_; // by collective id, sorted
    analysis::Time latest_init_enter_ = 0, earliest_init_leave_ = 0;
    analysis::Time latest_finalize_enter_ = 0, earliest_finalize_leave_ = 0;
};

// The synchpoints of one analysis, shared by the patterns that use them (delay costs and the
// critical path): each pattern asks for them in define_metrics; the first to ask fills them
// (subscribes Synchpoints::prepare, scan, receive, send and collective), the others only
// read, so one analysis scans each location once.
struct SharedSynchpoints {
    std::shared_ptr<Synchpoints> points;
    bool fills = false;
};
SharedSynchpoints synchpoints_for(const report::Report& report);
// What the filling pattern subscribes.
void fill_synchpoints(analysis::Dispatcher& d, const std::shared_ptr<Synchpoints>& points);

} // namespace topolens::patterns
