#include "patterns/synchpoints.h"

#include "patterns/collective_waits.h"
#include "patterns/late_receiver.h"
#include "patterns/late_sender.h"
#include "patterns/per_analysis.h"

#include <algorithm>
#include <limits>
#include <span>

namespace topolens::patterns {

using analysis::CallInfo;
using analysis::CollectiveInstance;
using analysis::Context;
using analysis::MessageInstance;
using analysis::Time;
using trace::kNone;

namespace {

// After the synchronisation: the call's time since `synchronised`, within the call.
Time completion_after(Time synchronised, Time enter, Time leave) {
    const Time from = std::clamp(synchronised, enter, leave);
    return leave - from;
}

// A collective's completion at a member leaving at `leave` (Scalasca's rule): from when the
// first member whose end counts was out (`first_out`) and the last one waited for was in
// (`waited_for`).
Time collective_completion(Time first_out, Time waited_for, Time leave) {
    const Time begin = std::max(first_out, std::min(waited_for, leave));
    return leave > begin ? leave - begin : 0;
}

// The members of an operation without full overlap whose ends count, ascending, and the
// first of them out: of an all-to-all one those that waited and the delaying member, of a
// broadcast those that waited for the root. The same for every member: worked out once per
// instance.
struct EndingMembers {
    std::vector<size_t> members;
    Time first_out = std::numeric_limits<Time>::max();
};
const EndingMembers& ending_members(const CollectiveInstance& instance, int delaying) {
    return instance.derived<EndingMembers>([&] {
        EndingMembers ending;
        const bool all_to_all = collective_shape(instance.op) == CollectiveShape::AllToAll;
        for (size_t q = 0; q < instance.members.size(); ++q)
            if ((all_to_all && q == size_t(delaying)) || collective_wait(instance, q) > 0) {
                ending.members.push_back(q);
                ending.first_out = std::min(ending.first_out, instance.members[q].leave);
            }
        return ending;
    });
}

} // namespace

void Synchpoints::size_for(const Context& c) {
    std::call_once(sized_, [&] {
        const size_t nloc = c.trace().locations.size();
        const size_t messages = c.matching().messages.size();
        locations_.resize(nloc);
        late_receiver_waits_.resize(nloc);
        receive_point_.assign(messages, kNone);
        send_point_.assign(messages, kNone);
        completion_point_.assign(messages, kNone);
        request_point_.assign(messages, kNone);
        collective_members_.resize(c.matching().collectives.size());
        for (size_t id = 0; id < collective_members_.size(); ++id) {
            auto& members = collective_members_[id];
            for (const trace::EventRef& member : c.matching().collectives[id].members)
                if (member.location != kNone) members.push_back(member.location);
            std::sort(members.begin(), members.end());
        }
    });
}

void Synchpoints::declare_facts(analysis::Dispatcher& d) {
    using analysis::FactPhase;
    using analysis::MessageEnd;
    late_sender_wait_ =
        d.message_facts<Time>("Late Sender wait", MessageEnd::Receiver, FactPhase::round(0));
    late_receiver_completion_ = d.message_facts<SendCompletion>(
        "Late Receiver send completion", MessageEnd::Sender, FactPhase::round(0));
    ends_ = d.location_facts<InitAndFinalizeCalls>("MPI_Init and MPI_Finalize calls",
                                                   FactPhase::round(0));
    finalize_point_ =
        d.location_facts<FinalizePoint>("MPI_Finalize point", FactPhase::forward_replay());
}

void Synchpoints::prepare(const Context& c, uint32_t loc) {
    size_for(c);
    const std::shared_ptr<const PointToPointWaits::Found> found = waits_->prepare(c, loc);
    const LateSenderFinder& finder = found->late_senders;
    const auto& receives = c.matching().receives_of[loc];
    for (size_t k = 0; k < receives.size(); ++k)
        late_sender_wait_.set(receives[k].second, finder.verdicts()[k].wait);
    const LateReceiverFinder& late_receivers = found->late_receivers;
    const auto& sends = c.matching().sends_of[loc];
    std::vector<std::pair<uint32_t, Time>>& waits = late_receiver_waits_[loc];
    waits.clear();
    for (size_t k = 0; k < sends.size(); ++k) {
        const Time wait = late_receivers.waits()[k];
        if (wait == 0) continue; // also every unmatched send
        const trace::CallSummary done =
            trace::call_around(c.trace(), c.matching(), loc, c.matching().send_completions[loc][k]);
        late_receiver_completion_.set(sends[k].second, {done.leave});
        waits.push_back({sends[k].second, wait});
    }
    ends_.set(loc, init_and_finalize_calls(c, loc));
}

void Synchpoints::set_init_and_finalize(const Context& c, uint32_t loc) {
    // Every location's calls are known after the preparation round.
    std::call_once(ends_known_, [&] {
        earliest_init_leave_ = earliest_finalize_leave_ = std::numeric_limits<Time>::max();
        for (uint32_t l = 0; l < ends_.size(); ++l) {
            const InitAndFinalizeCalls& e = ends_.get(l);
            if (e.init.region != kNone) {
                latest_init_enter_ = std::max(latest_init_enter_, e.init.enter);
                earliest_init_leave_ = std::min(earliest_init_leave_, e.init.leave);
            }
            if (e.finalize.region != kNone) {
                latest_finalize_enter_ = std::max(latest_finalize_enter_, e.finalize.enter);
                earliest_finalize_leave_ = std::min(earliest_finalize_leave_, e.finalize.leave);
            }
        }
    });
    for (Synchpoint& p : locations_[loc].points) {
        if (p.kind != Synchpoint::Kind::Init && p.kind != Synchpoint::Kind::Finalize) continue;
        const bool init = p.kind == Synchpoint::Kind::Init;
        const trace::CallSummary& call = init ? ends_.get(loc).init : ends_.get(loc).finalize;
        p.synchronises = true;
        p.with_everyone = true;
        p.callpath = c.callpath_of(call.callpath);
        // No wait at either (Scalasca: delay costs would stop at MPI_Init, never assigned),
        // but the part after the earliest leave (not before the latest enter) completes it.
        const Time latest = init ? latest_init_enter_ : latest_finalize_enter_;
        const Time earliest = init ? earliest_init_leave_ : earliest_finalize_leave_;
        const Time begin = std::max(earliest, std::min(latest, call.leave));
        p.completion = call.leave > begin ? call.leave - begin : 0;
    }
}

void Synchpoints::scan(const Context& c, uint32_t loc) {
    size_for(c);
    const trace::Trace& t = c.trace();
    const trace::Matching& m = c.matching();
    const auto& events = t.locations[loc].events;
    const trace::LocationFrames& frames = m.frames[loc];
    LocationSynchpoints& mine = locations_[loc];
    mine = {};
    // A point to be: what is known of it before the walk (small: the candidates are sorted).
    struct Candidate {
        uint32_t call, record; // the enter record of the call around it, its own record
        uint32_t id = kNone;
        Synchpoint::Kind kind = Synchpoint::Kind::Receive;
        Time wait = 0;
    };
    std::vector<Candidate> found;
    auto add = [&](uint32_t record, Synchpoint::Kind kind, uint32_t id) {
        const uint32_t call = frames[record].frame == kNone ? record : frames[record].frame;
        found.push_back({call, record, id, kind});
    };
    // Only messages whose receive waited as Late Sender synchronise their ends (known from
    // the preparation round); the others would only split the time between points.
    std::vector<size_t> run_ends; // each kind's candidates, a run in record order
    for (const auto& [record, id] : m.receives_of[loc])
        if (late_sender_wait_.get(id) > 0) add(record, Synchpoint::Kind::Receive, id);
    run_ends.push_back(found.size());
    for (const auto& [record, id] : m.sends_of[loc])
        if (id != kNone && late_sender_wait_.get(id) > 0) add(record, Synchpoint::Kind::Send, id);
    run_ends.push_back(found.size());
    for (const auto& [record, id] : m.collectives_of[loc])
        add(record, Synchpoint::Kind::Collective, id);
    run_ends.push_back(found.size());
    // Late Receiver: the sender's completing call (it waited: the wait is known) and the
    // receiver's posting call. The location's waits are in send order.
    const auto& late_sends = late_receiver_waits_[loc];
    for (size_t k = 0, next = 0; k < m.sends_of[loc].size() && next < late_sends.size(); ++k) {
        if (m.sends_of[loc][k].second != late_sends[next].first) continue;
        const Time wait = late_sends[next++].second;
        if (m.send_completions[loc][k] == kNone) continue;
        add(m.send_completions[loc][k], Synchpoint::Kind::SendCompletion,
            m.sends_of[loc][k].second);
        found.back().wait = wait;
    }
    run_ends.push_back(found.size());
    std::vector<std::pair<uint32_t, Time>>().swap(late_receiver_waits_[loc]);
    for (const auto& [record, id] : m.receives_of[loc])
        if (late_receiver_completion_.get(id).leave != SendCompletion::kNotLate &&
            m.messages[id].recv_posted != kNone)
            add(m.messages[id].recv_posted, Synchpoint::Kind::ReceiveRequest, id);
    run_ends.push_back(found.size());
    // Init and Finalize split at their enter (an Enter record is its own frame).
    auto enter_of = [&](const trace::CallSummary& call) -> uint32_t {
        for (uint32_t i = 0; i < events.size(); ++i)
            if (events[i].kind == trace::EventKind::Enter && events[i].time == call.enter &&
                events[i].region() == call.region)
                return i;
        return kNone;
    };
    const InitAndFinalizeCalls& ends = ends_.get(loc);
    if (ends.init.region != kNone)
        if (const uint32_t at = enter_of(ends.init); at != kNone) {
            found.push_back({at, at, kNone, Synchpoint::Kind::Init});
        }
    FinalizePoint finalize;
    if (ends.finalize.region != kNone)
        for (uint32_t i = static_cast<uint32_t>(events.size()); i-- > 0;)
            if (events[i].kind == trace::EventKind::Enter &&
                events[i].time == ends.finalize.enter &&
                events[i].region() == ends.finalize.region) {
                found.push_back({i, i, kNone, Synchpoint::Kind::Finalize});
                finalize = {true, events[i].time};
                break;
            }
    finalize_point_.set(loc, finalize);
    run_ends.push_back(found.size());
    // By call, then record: no two candidates share a record (a message is not both Late
    // Sender and Late Receiver; each send completes at its own record), so the order is
    // one. Each run is in record order, nearly in call order: sorted only if it is not, then
    // merged (a sort of them all was 3% of the analysis's instructions).
    auto by_call = [](const Candidate& a, const Candidate& b) {
        return a.call != b.call ? a.call < b.call : a.record < b.record;
    };
    for (size_t r = 0, begin = 0; r < run_ends.size(); begin = run_ends[r++]) {
        const auto first = found.begin() + static_cast<std::ptrdiff_t>(begin);
        const auto last = found.begin() + static_cast<std::ptrdiff_t>(run_ends[r]);
        if (!std::is_sorted(first, last, by_call)) std::sort(first, last, by_call);
        std::inplace_merge(found.begin(), first, last, by_call);
    }
    auto point_of = [](const Candidate& candidate) {
        Synchpoint p;
        p.kind = candidate.kind;
        p.id = candidate.id;
        p.call = candidate.call;
        p.wait = candidate.wait;
        return p;
    };

    // Walk the events: time between two enter/leave records goes to the call path open
    // between them; a candidate closes the segment at the enter of its call. The walk reads
    // through spans and the report's call path of each of the location's own, taken once:
    // through the vectors (which its writes might alias) every size and data pointer was
    // loaded again at each event.
    const std::span<const trace::Event> walked(events);
    const std::span<const trace::Frame> frame_of(frames);
    const std::span<const Candidate> candidates(found);
    thread_local std::vector<uint32_t> report_callpaths;
    report_callpaths.clear();
    for (const uint32_t node : m.callpath_nodes[loc])
        report_callpaths.push_back(c.callpath_of(node));
    const std::span<const uint32_t> report_callpath(report_callpaths);
    std::vector<uint32_t> stack;
    std::vector<std::pair<uint32_t, Time>> segment;
    auto account = [&](uint32_t callpath, Time ticks) {
        if (ticks == 0) return;
        for (auto& [cp, t2] : segment)
            if (cp == callpath) {
                t2 += ticks;
                return;
            }
        segment.push_back({callpath, ticks});
    };
    Time last = walked.empty() ? 0 : walked.front().time;
    size_t next = 0;
    mine.points.reserve(found.size());
    for (uint32_t i = 0; i < walked.size(); ++i) {
        const trace::Event& e = walked[i];
        if (e.kind == trace::EventKind::Enter) {
            // Time outside every region belongs to no call path here (as in Scalasca, whose
            // replay has no root above a trace's first region).
            if (!stack.empty()) account(stack.back(), e.time - last);
            last = e.time;
            const uint32_t local = frame_of[i].callpath;
            stack.push_back(local == kNone ? 0 : report_callpath[local]);
            for (; next < candidates.size() && candidates[next].call == i; ++next) {
                Synchpoint p = point_of(candidates[next]);
                mine.times.insert(mine.times.end(), segment.begin(), segment.end());
                segment.clear();
                p.times_end = static_cast<uint32_t>(mine.times.size());
                p.callpath = stack.back();
                // The whole call, from its enter to its leave (also for a collective, whose
                // wait counts from its MpiCollectiveBegin).
                const uint32_t leave = frame_of[i].frame;
                p.total = leave == kNone ? 0 : walked[leave].time - e.time;
                mine.points.push_back(std::move(p));
            }
        } else if (e.kind == trace::EventKind::Leave) {
            if (!stack.empty()) {
                account(stack.back(), e.time - last);
                stack.pop_back();
            }
            last = e.time;
        }
    }
    // Candidates outside every region (a record without enter) close nothing.
    for (; next < found.size(); ++next) {
        Synchpoint p = point_of(found[next]);
        p.times_end = static_cast<uint32_t>(mine.times.size());
        mine.points.push_back(std::move(p));
    }
    // The tail after the last point: part of the whole run, of no interval.
    mine.times.insert(mine.times.end(), segment.begin(), segment.end());
    for (size_t k = 0; k < mine.points.size(); ++k) {
        const Synchpoint& p = mine.points[k];
        const auto index = static_cast<uint32_t>(k);
        if (p.kind == Synchpoint::Kind::Receive) receive_point_[p.id] = index;
        if (p.kind == Synchpoint::Kind::Send) send_point_[p.id] = index;
        if (p.kind == Synchpoint::Kind::Collective) mine.collective_points.push_back({p.id, index});
        if (p.kind == Synchpoint::Kind::SendCompletion) completion_point_[p.id] = index;
        if (p.kind == Synchpoint::Kind::ReceiveRequest) request_point_[p.id] = index;
    }
    // Collectives are numbered in the order they happen, so this is sorted already, but for
    // odd traces; of one collective twice, the later point counts.
    auto& collectives = mine.collective_points;
    if (std::adjacent_find(collectives.begin(), collectives.end(),
                           [](const auto& a, const auto& b) { return a.first >= b.first; }) !=
        collectives.end()) {
        std::stable_sort(collectives.begin(), collectives.end(),
                         [](const auto& a, const auto& b) { return a.first < b.first; });
        std::reverse(collectives.begin(), collectives.end()); // the later first
        collectives.erase(
            std::unique(collectives.begin(), collectives.end(),
                        [](const auto& a, const auto& b) { return a.first == b.first; }),
            collectives.end());
        std::reverse(collectives.begin(), collectives.end());
    }
    // Late Receiver points: everything is known from the preparation round.
    for (Synchpoint& p : mine.points) {
        if (p.kind != Synchpoint::Kind::SendCompletion &&
            p.kind != Synchpoint::Kind::ReceiveRequest)
            continue;
        p.synchronises = true;
        p.wait_kind = WaitKind::LateReceiver;
        if (p.kind == Synchpoint::Kind::SendCompletion) {
            p.partner = m.messages[p.id].recv.location;
            // None: Scalasca gives the send of a Late Receiver no completion time, so the
            // whole call is cut off an interval that starts at it (checked against its
            // reports of wavefront2d and autotune_halo).
            p.completion = 0;
        } else {
            // After the later of the send's completion and the receive's request.
            const Time completed = late_receiver_completion_.get(p.id).leave;
            const Time requested =
                trace::call_around(t, m, loc, m.messages[p.id].recv_posted).leave;
            p.partner = m.messages[p.id].send.location;
            p.completion = std::min(p.total, requested > completed ? requested - completed : 0);
        }
    }
    set_init_and_finalize(c, loc);
}

void Synchpoints::receive(const MessageInstance& m) {
    if (receive_point_[m.id] == kNone) return; // not a Late Sender message
    Synchpoint& p = locations_[m.recv_call.location].points[receive_point_[m.id]];
    const Time wait = late_sender_wait_.get(m.id);
    if (wait == 0) return;
    p.synchronises = true;
    p.wait_kind = WaitKind::LateSender;
    p.wait = wait;
    p.partner = m.send_call.location;
    // After the send call left (Scalasca's rule), the rest of the receive completes it.
    p.completion = completion_after(m.send_call.leave, m.recv_call.enter, m.recv_call.leave);
}

void Synchpoints::send(const MessageInstance& m) {
    if (send_point_[m.id] == kNone) return;
    Synchpoint& p = locations_[m.send_call.location].points[send_point_[m.id]];
    if (late_sender_wait_.get(m.id) == 0) return; // the receiver did not wait for this send
    p.synchronises = true;
    p.partner = m.recv_call.location;
    p.completion = completion_after(m.recv_call.leave, m.send_call.enter, m.send_call.leave);
}

void Synchpoints::collective(const CollectiveInstance& instance, size_t member) {
    const CallInfo& me = instance.members[member];
    const size_t at = collective_point(me.location, instance.id);
    if (at == npos) return;
    Synchpoint& p = locations_[me.location].points[at];
    const int delaying = delaying_member(instance);
    if (delaying < 0) return; // an operation that synchronises nobody (MPI_Scan, ...)
    const auto& members = instance.members;
    const size_t n = members.size();
    p.partner = members[delaying].location;
    p.wait = collective_wait(instance, member);
    const CollectiveShape shape = collective_shape(instance.op);
    if (shape == CollectiveShape::Barrier ||
        (shape == CollectiveShape::AllToAll && instance.earliest_leave > instance.latest_enter)) {
        // Every member synchronised with every other and every end counts (the general case
        // below, with all members in both lists): the first out is the earliest leave. Each
        // member needs only its own wait, not every member's (64 members: 4,096 a collective).
        p.wait_kind = shape == CollectiveShape::Barrier ? WaitKind::Barrier : WaitKind::NxN;
        p.synchronises = true;
        p.with_members = true;
        p.completion =
            collective_completion(instance.earliest_leave, instance.latest_enter, me.leave);
        return;
    }
    // The members it synchronised with (kept by each thread from member to member: every
    // member of every collective comes here). The completion (Scalasca's rule) starts when
    // the last member the others waited for was in (`waited_for`) and the first of the
    // synchronising members whose ends count was out (`first_out`): for a broadcast only the
    // members that waited for the root, for a reduction only the root and its latest sender.
    thread_local std::vector<size_t> with;
    with.clear();
    const bool delayer = static_cast<size_t>(delaying) == member;
    Time waited_for = instance.latest_enter;
    Time first_out = std::numeric_limits<Time>::max();
    switch (shape) {
    case CollectiveShape::AllToAll: {
        p.wait_kind = WaitKind::NxN;
        // Not a full overlap (above): those that waited and the latest.
        const EndingMembers& ending = ending_members(instance, delaying);
        first_out = ending.first_out;
        if (delayer || p.wait > 0) with = ending.members;
        break;
    }
    case CollectiveShape::OneToAll: { // the root and the members that waited for it
        p.wait_kind = WaitKind::LateBroadcast;
        waited_for = members[delaying].enter;
        const EndingMembers& ending = ending_members(instance, delaying);
        first_out = ending.first_out;
        if (delayer) {
            with = ending.members;
            if (!with.empty()) with.push_back(member);
        } else if (p.wait > 0) {
            with = {member, size_t(delaying)};
        }
        break;
    }
    case CollectiveShape::AllToOne: { // the root, if it waited, and the latest sender
        p.wait_kind = WaitKind::EarlyReduce;
        const size_t root = instance.root >= 0 ? size_t(instance.root) : n;
        waited_for = members[delaying].enter;
        if (root < n && members[root].enter < members[delaying].enter) {
            first_out = std::min(members[root].leave, members[delaying].leave);
            if (member == root || delayer) with = {root, size_t(delaying)};
        }
        break;
    }
    case CollectiveShape::Barrier: // above
    case CollectiveShape::Other:
        break;
    }
    if (with.empty()) return;
    p.synchronises = true;
    if (with.size() == n) {
        p.with_members = true;
    } else {
        std::vector<uint32_t>& group = locations_[me.location].groups.emplace_back();
        for (size_t q : with)
            if (q != member) group.push_back(members[q].location);
        std::sort(group.begin(), group.end());
        group.erase(std::unique(group.begin(), group.end()), group.end());
        p.group = static_cast<uint32_t>(locations_[me.location].groups.size() - 1);
    }
    p.completion = collective_completion(first_out, waited_for, me.leave);
}

bool Synchpoints::travels_backward(analysis::BackwardStep::Kind kind, uint32_t id) const {
    switch (kind) {
    case analysis::BackwardStep::Kind::Receive:
        return late_sender_wait_.get(id) > 0;
    case analysis::BackwardStep::Kind::SendCompletion:
        return late_receiver_completion_.get(id).leave != SendCompletion::kNotLate;
    default:
        return true;
    }
}

size_t Synchpoints::completion_point(uint32_t message) const {
    return completion_point_[message] == kNone ? npos : completion_point_[message];
}

size_t Synchpoints::request_point(uint32_t message) const {
    return request_point_[message] == kNone ? npos : request_point_[message];
}

size_t Synchpoints::collective_point(uint32_t location, uint32_t collective) const {
    const auto& points = locations_[location].collective_points;
    const auto found = std::lower_bound(points.begin(), points.end(), collective,
                                        [](const auto& e, uint32_t id) { return e.first < id; });
    return found == points.end() || found->first != collective ? npos : found->second;
}

bool Synchpoints::synchronises_with(uint32_t location, size_t at, uint32_t other) const {
    const LocationSynchpoints& mine = locations_[location];
    return synchronises_with(mine, mine.points[at], other);
}

bool Synchpoints::synchronises_with(const LocationSynchpoints& mine, const Synchpoint& p,
                                    uint32_t other) const {
    if (!p.synchronises) return false;
    if (p.with_everyone) return true;
    if (p.kind == Synchpoint::Kind::Collective) {
        const std::vector<uint32_t>& with =
            p.with_members ? collective_members_[p.id] : mine.groups[p.group];
        return std::binary_search(with.begin(), with.end(), other);
    }
    return p.partner == other;
}

std::vector<uint32_t> Synchpoints::synchronised_with(uint32_t location, size_t at) const {
    const LocationSynchpoints& mine = locations_[location];
    const Synchpoint& p = mine.points[at];
    std::vector<uint32_t> out = p.with_members ? collective_members_[p.id] : mine.groups[p.group];
    std::erase(out, location);
    return out;
}

size_t Synchpoints::previous_with(uint32_t location, size_t at, uint32_t partner) const {
    const LocationSynchpoints& mine = locations_[location];
    for (size_t k = at; k-- > 0;)
        if (synchronises_with(mine, mine.points[k], partner)) return k;
    return npos;
}

TimeMap Synchpoints::runtimes(uint32_t location, size_t from, size_t to) const {
    const LocationSynchpoints& mine = locations_[location];
    const size_t begin = from == npos ? 0 : mine.points[from].times_end;
    const size_t end = mine.points[to].times_end;
    TimeMap map;
    // One allocation instead of one per doubling: an interval has a few call paths.
    map.reserve(std::min<size_t>(end - begin, 16));
    for (size_t k = begin; k < end; ++k)
        map[mine.times[k].first] += static_cast<double>(mine.times[k].second);
    return map;
}

TimeMap Synchpoints::runtimes(uint32_t location) const {
    TimeMap map;
    for (const auto& [cp, ticks] : locations_[location].times)
        map[cp] += static_cast<double>(ticks);
    return map;
}

TimeMapSum Synchpoints::waits_between(uint32_t location, size_t from, size_t to) const {
    const auto& points = locations_[location].points;
    TimeMapSum waits;
    for (size_t k = from == npos ? 0 : from + 1; k < to; ++k)
        if (points[k].synchronises && points[k].wait > 0) {
            waits.map[points[k].callpath] += static_cast<double>(points[k].wait);
            waits.sum += static_cast<double>(points[k].wait);
        }
    return waits;
}

TimeMapSum positive_difference(const TimeMap& minuend, const TimeMap& subtrahend) {
    TimeMapSum d;
    d.map.reserve(minuend.size());
    // Both ascending by call path: one walk over the two, appending to the result.
    auto sub = subtrahend.begin();
    for (const auto& [cp, t] : minuend) {
        while (sub != subtrahend.end() && sub->first < cp) ++sub;
        const double taken = sub != subtrahend.end() && sub->first == cp ? sub->second : 0.0;
        if (const double x = t - taken; x > 0) {
            d.map[cp] = x;
            d.sum += x;
        }
    }
    return d;
}

TimeMapSum Synchpoints::pruned(uint32_t location, size_t from, size_t to,
                               const TimeMap& waits) const {
    TimeMapSum m = positive_difference(runtimes(location, from, to), waits);
    if (from != npos) {
        // The interval starts when the previous synchronisation completed.
        const Synchpoint& p = locations_[location].points[from];
        const double before = static_cast<double>(p.total) - static_cast<double>(p.completion);
        double& at = m.map[p.callpath];
        m.sum -= std::min(before, at);
        at = std::max(at - before, 0.0);
    }
    return m;
}

TimeMap Synchpoints::interval_with(uint32_t location, size_t at, uint32_t partner) const {
    const size_t from = previous_with(location, at, partner);
    return pruned(location, from, at, waits_between(location, from, at).map).map;
}

SharedSynchpoints synchpoints_for(const report::Report& report) {
    const PerAnalysis<Synchpoints> shared = per_analysis<Synchpoints>(report);
    if (shared.first) shared.object->waits_ = point_to_point_waits_for(report);
    return {shared.object, shared.first};
}

void fill_synchpoints(analysis::Dispatcher& d, const std::shared_ptr<Synchpoints>& points) {
    Synchpoints* p = points.get();
    p->declare_facts(d);
    d.on_prepare(0, [p](Context& c, uint32_t loc) { p->prepare(c, loc); });
    d.on_location_begin([p](Context& c, uint32_t loc) { p->scan(c, loc); });
    d.on_receive([p](Context&, const MessageInstance& m) { p->receive(m); });
    d.on_send([p](Context&, const MessageInstance& m) { p->send(m); });
    d.on_collective(
        [p](Context&, const CollectiveInstance& i, size_t member) { p->collective(i, member); });
}

} // namespace topolens::patterns
