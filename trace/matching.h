// What a replay needs beyond the raw events: the call tree, each event's enclosing call,
// point-to-point messages matched send to receive, and collective operations matched
// across the members of their communicator.
#pragma once

#include "trace/model.h"

#include <iosfwd>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace topolens::trace {

struct CallNode {
    Ref region = kNone;
    uint32_t parent = kNone; // kNone for roots
};

// Per location, parallel to its events.
// Per event; both in one array, as they are read together (also for the other end of a
// message, where every page touched costs).
struct Frame {
    // Enter: index of its Leave (or kNone if never left); Leave: index of its Enter;
    // any other event: index of the innermost enclosing Enter (kNone at top level).
    uint32_t frame = kNone;
    // Enter and Leave: the call path of that region instance; others: enclosing call path.
    // The location's own number for it: Matching::callpath_nodes maps it to the call tree
    // (each location numbers the call paths it reaches, so locations are scanned alone).
    uint32_t callpath = kNone;
};
using LocationFrames = std::vector<Frame>;

struct EventRef {
    uint32_t location = kNone;
    uint32_t event = kNone;
};

// A matched message: the MpiSend/MpiIsend record and the MpiRecv/MpiIrecv record.
struct MessageMatch {
    EventRef send;
    EventRef recv;
    uint32_t recv_posted = kNone; // MpiIrecvRequest of a nonblocking receive, else = recv
};

// The region instance around a record, as the other end of a message needs it.
struct CallSummary {
    Time enter = 0;
    Time leave = 0; // the location's last event time if the call never ends
    Ref region = kNone;
    uint32_t callpath = kNone; // call tree node; kNone: the record is outside every region
};

// What the replay of each end of a message needs of the other end, gathered once per
// message while matching (in passes that fetch ahead), so that neither end's replay has to
// look into the other's events.
struct MessageCalls {
    CallSummary send_call, recv_call;
    Time send_time = 0, recv_time = 0; // of the MpiSend/MpiIsend and MpiRecv/MpiIrecv records
    Time recv_post = 0;                // enter of the call that posted the receive
};

// One member's part of a collective: its MpiCollectiveEnd record.
struct CollectiveMatch {
    CollectiveOp op = CollectiveOp::Other;
    Ref comm = kNone;
    uint32_t root = kNone;         // world rank of the root, kNone if rootless
    std::vector<EventRef> members; // communicator rank order; kNone where missing
};

struct Matching {
    // World rank -> the process's first location; kNone for ranks without a location. With
    // threads (several locations per process) messages and collectives are matched between
    // processes: each end is the location (thread) that recorded it.
    std::vector<uint32_t> location_of_rank;
    std::vector<CallNode> calltree;
    std::vector<LocationFrames> frames; // parallel to trace.locations
    // Per location: its call path numbers (Frame::callpath) -> call tree node. A shared
    // matching holds them for its share's locations only (the others' are empty).
    std::vector<std::vector<uint32_t>> callpath_nodes;
    std::vector<MessageMatch> messages;
    std::vector<MessageCalls> message_calls; // parallel to messages
    // Per location, ascending by event: (receive or send record index, message id); an
    // unmatched send has message id kNone.
    std::vector<std::vector<std::pair<uint32_t, uint32_t>>> receives_of, sends_of;
    // Per location, parallel to sends_of: the record that completed each send (the MpiSend
    // itself, or the MpiIsendComplete of an MpiIsend's request), kNone if none did.
    std::vector<std::vector<uint32_t>> send_completions;
    // Per location, ascending: every MpiSend, MpiIsend, MpiRecv and MpiIrecv record, matched
    // or not (for patterns that look at a location's messages without walking its events).
    std::vector<std::vector<uint32_t>> message_records;
    std::vector<CollectiveMatch> collectives;
    // Per location, ascending by event: (MpiCollectiveEnd index, collective id).
    std::vector<std::vector<std::pair<uint32_t, uint32_t>>> collectives_of;
    uint64_t unmatched_sends = 0;
    uint64_t unmatched_receives = 0;
    uint64_t incomplete_collectives = 0;
    // Problems found (unbalanced regions, unmatched messages, ...), each naming location
    // and event index; the matching goes on past them.
    std::vector<std::string> warnings;
    // Some location's events are not in time order (warned about): the trace must be
    // clamped (clamp_if_backwards) before a replay, or durations would wrap around.
    bool time_goes_backwards = false;

    // A matching of one rank's share of the trace (Matcher::finish with an Exchange): the
    // per-location lists above are filled for the share's locations only (the call tree is
    // the whole trace's); `messages` and `collectives` are those with an end (a member) in
    // the share, in the order of the whole trace's numbering, whose ids the two lists below
    // give. The counts and warnings are the whole trace's, on every rank. For a whole trace
    // the share is every location and both lists are empty (ids are the whole trace's).
    LocationShare share;
    std::vector<LocationShare> shares; // every rank's, by rank; empty for a whole trace
    std::vector<uint32_t> global_message_ids, global_collective_ids;
    // Per collective of the share, per member (communicator rank order): its part of the
    // operation (collective_call), as members on other ranks recorded it. Empty for a whole
    // trace, where each member's part is found in its events.
    std::vector<std::vector<CallSummary>> member_calls;
    // A shared matching: the other ranks' collective ends (members' parts) this rank
    // received, and the bytes of its collective exchange (for measurement and tests).
    uint64_t collective_ends_received = 0;
    uint64_t collective_bytes_received = 0;
    // A shared matching: the call tree nodes this rank received, each other rank's
    // locations' trees merged into one (for measurement and tests).
    uint64_t calltree_nodes_received = 0;
};

class Exchange;

// World rank (location index) of `rank` in communicator `comm`, as seen from `location`
// (MPI_COMM_SELF maps rank 0 to the location itself); kNone if out of range.
uint32_t world_rank(const Trace& trace, Ref comm, uint32_t rank, uint32_t location);

// Locations are scanned by `threads` threads (0: trace::worker_threads()); the result does
// not depend on the number.
Matching match(const Trace& trace, unsigned threads = 0);

// Matching in steps, so that each location is scanned while its events are fresh in the
// caches (right after reading it): scan() every location once, from any threads, then
// finish(). `trace` must have its definitions and its list of locations; a location's
// events must be complete when it is scanned.
class Matcher {
  public:
    explicit Matcher(const Trace& trace, unsigned threads = 0);
    // One rank's part of a matching shared out among ranks: only `share`'s locations are
    // scanned (the trace holds only their events), and what the matcher holds per location
    // it holds for these only. The share must hold whole processes (share_locations gives
    // such shares): one that splits a process's threads is a logic_error.
    Matcher(const Trace& trace, LocationShare share, unsigned threads = 0);
    ~Matcher();
    Matcher(const Matcher&) = delete;
    Matcher& operator=(const Matcher&) = delete;
    void scan(uint32_t location);
    Matching finish();
    // The matching of the share (whose locations were scanned), the other ranks of
    // `exchange` finishing theirs at once: collective.
    Matching finish(Exchange& exchange);

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// read_trace and match in one go, each location scanned by the thread that read it;
// progress lines every 10% of the locations (traces of 20 locations or more), if asked.
// A trace whose time goes backwards comes back clamped (clamp_if_backwards).
std::pair<Trace, Matching> read_and_match(const std::string& path, unsigned threads = 0,
                                          std::ostream* progress = nullptr);

// read_and_match for one rank of an analysis shared out by `exchange`: this rank reads and
// matches its share of the locations (share_locations, weighed by the size of their event
// files). Collective; every rank gets the same TraceError if any rank's share is damaged.
std::pair<Trace, Matching> read_and_match_share(const std::string& path, Exchange& exchange,
                                                unsigned threads = 0);

// Time going backwards: each event stamped before its predecessor on the same location
// is taken to happen at the predecessor's time (the running maximum per location), so no
// duration can wrap around. Returns whether any time changed.
bool clamp_times(Trace& trace);

// Clamps `trace` and matches it again (the message and call times then agree with the
// clamped events); the matching keeps `warnings`, those of the matching that found time
// going backwards, which name the times as recorded.
Matching clamp_and_rematch(Trace& trace, std::vector<std::string> warnings, unsigned threads = 0);

// If `matching` found time going backwards, clamp_and_rematch. Normal traces: nothing done.
// read_and_match does this.
void clamp_if_backwards(Trace& trace, Matching& matching, unsigned threads = 0);

// The region instance that event `event` of `location` belongs to (an Enter: its own).
// Inline: the replay asks this for every region instance.
inline CallSummary call_around(const Trace& trace, const Matching& matching, uint32_t location,
                               uint32_t event) {
    const auto& events = trace.locations[location].events;
    const LocationFrames& f = matching.frames[location];
    const uint32_t enter = events[event].kind == EventKind::Enter ? event : f[event].frame;
    CallSummary call;
    if (enter == kNone) return call; // a record outside any region
    const uint32_t leave = f[enter].frame;
    call.region = events[enter].region();
    call.callpath = matching.callpath_nodes[location][f[enter].callpath];
    call.enter = events[enter].time;
    call.leave = leave == kNone ? events.back().time : events[leave].time;
    return call;
}

// A shared matching's id of the message (collective) the whole trace numbers `global`; a
// logic_error if it has no end (member) in the share.
uint32_t local_message_id(const Matching& matching, uint32_t global);
uint32_t local_collective_id(const Matching& matching, uint32_t global);

// The member of `c` that `location` is, or kNone. Members come in communicator rank order,
// which is mostly location order too: found by halving there (a search member by member at
// every member was quadratic in the members, a third of the analysis of 1024 processes).
uint32_t member_of(const CollectiveMatch& c, uint32_t location);

// How many of collective `id`'s members the matching's share holds (every present member
// for a whole trace): the replays of an instance here.
uint32_t members_in_share(const Matching& matching, uint32_t id);

// A collective member's part of the operation: its call, from its MpiCollectiveBegin record
// (where the trace has one; Scalasca times collective wait states by these records) to its
// MpiCollectiveEnd record. Call path and region are the call's.
CallSummary collective_call(const Trace& trace, const Matching& matching, EventRef member);

} // namespace topolens::trace
