#include "trace/matching.h"

#include <algorithm>
#include <unordered_map>

namespace topolens::trace {

namespace {

constexpr size_t kMaxWarningsPerKind = 20; // enough to diagnose, not enough to drown

class Warnings {
  public:
    explicit Warnings(std::vector<std::string>& out) : out_(out) {}
    void add(const std::string& kind, const std::string& message) {
        const size_t n = ++counts_[kind];
        if (n <= kMaxWarningsPerKind) out_.push_back(message);
        if (n == kMaxWarningsPerKind + 1) out_.push_back(kind + ": further cases not listed");
    }

  private:
    std::vector<std::string>& out_;
    std::unordered_map<std::string, size_t> counts_;
};

std::string where(const Trace& trace, uint32_t location, uint32_t event) {
    return "location " + std::to_string(location) + " (rank " +
           std::to_string(trace.defs.locations[location].rank) + "), event " +
           std::to_string(event);
}

// ---------------------------------------------------------------- call tree and frames

void build_frames(const Trace& trace, Matching& m, Warnings& warn) {
    std::unordered_map<uint64_t, uint32_t> children; // (parent + 1) << 32 | region -> node
    auto child = [&](uint32_t parent, Ref region) {
        const uint64_t key = (static_cast<uint64_t>(parent) + 1) << 32 | region;
        auto [it, inserted] = children.emplace(key, static_cast<uint32_t>(m.calltree.size()));
        if (inserted) m.calltree.push_back({region, parent});
        return it->second;
    };
    m.frames.resize(trace.locations.size());
    std::vector<uint32_t> stack;
    for (uint32_t loc = 0; loc < trace.locations.size(); ++loc) {
        const auto& events = trace.locations[loc].events;
        LocationFrames& f = m.frames[loc];
        f.frame.assign(events.size(), kNone);
        f.callpath.assign(events.size(), kNone);
        stack.clear();
        for (uint32_t i = 0; i < events.size(); ++i) {
            const Event& e = events[i];
            if (i > 0 && e.time < events[i - 1].time)
                warn.add("time goes backwards", where(trace, loc, i) + ": time goes backwards (" +
                                                    std::to_string(e.time) + " after " +
                                                    std::to_string(events[i - 1].time) +
                                                    " ticks); durations around it are unreliable");
            if (e.kind == EventKind::Enter) {
                const uint32_t parent = stack.empty() ? kNone : f.callpath[stack.back()];
                f.callpath[i] = child(parent, e.a);
                stack.push_back(i);
            } else if (e.kind == EventKind::Leave) {
                // Find the region being left; anything still open above it is closed here.
                auto open = std::find_if(stack.rbegin(), stack.rend(),
                                         [&](uint32_t j) { return events[j].a == e.a; });
                if (open == stack.rend()) {
                    warn.add("unbalanced leave", where(trace, loc, i) + ": leave of region " +
                                                     std::to_string(e.a) +
                                                     " that is not open; ignored");
                    continue;
                }
                if (open != stack.rbegin())
                    warn.add("unbalanced leave",
                             where(trace, loc, i) + ": leave skips open regions; they end here");
                const uint32_t enter = *open;
                stack.erase(std::next(open).base(), stack.end());
                f.frame[i] = enter;
                f.frame[enter] = i;
                f.callpath[i] = f.callpath[enter];
            } else if (!stack.empty()) {
                f.frame[i] = stack.back();
                f.callpath[i] = f.callpath[stack.back()];
            }
        }
        if (!stack.empty())
            warn.add("unclosed region", where(trace, loc, stack.back()) + ": " +
                                            std::to_string(stack.size()) +
                                            " region(s) never left (trace cut short?)");
    }
}

// ---------------------------------------------------------------- ranks

// Per communicator: world rank -> communicator rank, built on first use.
class CommRanks {
  public:
    explicit CommRanks(const Trace& trace)
        : trace_(trace), maps_(trace.defs.communicators.size()) {}
    // Communicator rank of `location` in `comm`, kNone if it is not a member.
    uint32_t rank_of(Ref comm, uint32_t location) {
        const Communicator& c = trace_.defs.communicators[comm];
        if (c.is_self) return 0;
        auto& map = maps_[comm];
        if (map.empty())
            for (uint32_t r = 0; r < c.members.size(); ++r) map.emplace(c.members[r], r);
        auto found = map.find(trace_.defs.locations[location].rank);
        return found == map.end() ? kNone : found->second;
    }

  private:
    const Trace& trace_;
    std::vector<std::unordered_map<uint32_t, uint32_t>> maps_;
};

// ---------------------------------------------------------------- messages

struct Channel {
    uint32_t sender, receiver, comm, tag;
    bool operator==(const Channel&) const = default;
};

struct ChannelHash {
    size_t operator()(const Channel& c) const {
        uint64_t h = c.sender;
        h = h * 0x9E3779B97F4A7C15ULL ^ c.receiver;
        h = h * 0x9E3779B97F4A7C15ULL ^ c.comm;
        h = h * 0x9E3779B97F4A7C15ULL ^ c.tag;
        return static_cast<size_t>(h ^ (h >> 29));
    }
};

struct SendQueue {
    std::vector<EventRef> sends;
    size_t next = 0;
};

// A receive in MPI's matching order: by when it was posted (Irecv), not completed.
struct PostedReceive {
    uint32_t posted;
    uint32_t event;
};

void match_messages(const Trace& trace, const std::vector<uint32_t>& location_of_rank, Matching& m,
                    Warnings& warn) {
    std::unordered_map<Channel, SendQueue, ChannelHash> queues;
    const size_t nloc = trace.locations.size();
    for (uint32_t loc = 0; loc < nloc; ++loc) {
        const auto& events = trace.locations[loc].events;
        for (uint32_t i = 0; i < events.size(); ++i) {
            const Event& e = events[i];
            if (e.kind != EventKind::MpiSend && e.kind != EventKind::MpiIsend) continue;
            const uint32_t dest = world_rank(trace, e.b, e.a, loc);
            if (dest == kNone || dest >= location_of_rank.size() ||
                location_of_rank[dest] == kNone) {
                warn.add("bad peer", where(trace, loc, i) + ": send to a rank outside the trace");
                continue;
            }
            queues[Channel{loc, location_of_rank[dest], e.b, e.c}].sends.push_back({loc, i});
        }
    }

    m.receives_of.assign(nloc, {});
    m.sends_of.assign(nloc, {});
    std::vector<PostedReceive> posted;
    std::unordered_map<uint64_t, uint32_t> post_of_request;
    for (uint32_t loc = 0; loc < nloc; ++loc) {
        const LocationEvents& le = trace.locations[loc];
        posted.clear();
        post_of_request.clear();
        size_t next_request = 0;
        for (uint32_t i = 0; i < le.events.size(); ++i) {
            const EventKind kind = le.events[i].kind;
            uint64_t request = 0;
            if (next_request < le.requests.size() && le.requests[next_request].event == i)
                request = le.requests[next_request++].request;
            if (kind == EventKind::MpiIrecvRequest) {
                post_of_request[request] = i;
            } else if (kind == EventKind::MpiRecv) {
                posted.push_back({i, i});
            } else if (kind == EventKind::MpiIrecv) {
                auto found = post_of_request.find(request);
                posted.push_back({found == post_of_request.end() ? i : found->second, i});
                if (found != post_of_request.end()) post_of_request.erase(found);
            }
        }
        std::sort(posted.begin(), posted.end(), [](const PostedReceive& x, const PostedReceive& y) {
            return x.posted < y.posted;
        });
        for (const PostedReceive& p : posted) {
            const Event& e = le.events[p.event];
            const uint32_t source = world_rank(trace, e.b, e.a, loc);
            const uint32_t source_loc =
                source < location_of_rank.size() ? location_of_rank[source] : kNone;
            auto queue = source_loc == kNone ? queues.end()
                                             : queues.find(Channel{source_loc, loc, e.b, e.c});
            if (queue == queues.end() || queue->second.next == queue->second.sends.size()) {
                ++m.unmatched_receives;
                warn.add("unmatched receive",
                         where(trace, loc, p.event) + ": receive without a matching send");
                continue;
            }
            const EventRef send = queue->second.sends[queue->second.next++];
            const auto id = static_cast<uint32_t>(m.messages.size());
            m.messages.push_back({send, {loc, p.event}, p.posted});
            m.receives_of[loc].push_back({p.event, id});
            m.sends_of[send.location].push_back({send.event, id});
        }
    }
    for (const auto& [channel, queue] : queues)
        for (size_t k = queue.next; k < queue.sends.size(); ++k) {
            ++m.unmatched_sends;
            warn.add("unmatched send", where(trace, queue.sends[k].location, queue.sends[k].event) +
                                           ": send without a matching receive");
        }
    for (auto& list : m.receives_of) std::sort(list.begin(), list.end());
    for (auto& list : m.sends_of) std::sort(list.begin(), list.end());
}

// ---------------------------------------------------------------- collectives

void match_collectives(const Trace& trace, Matching& m, Warnings& warn) {
    CommRanks ranks(trace);
    const size_t ncomm = trace.defs.communicators.size();
    // instances_of_comm[comm][k] = id of the k-th collective on comm (self: per location).
    std::vector<std::vector<uint32_t>> instances_of_comm(ncomm);
    m.collectives_of.assign(trace.locations.size(), {});
    std::vector<uint32_t> sequence(ncomm);
    for (uint32_t loc = 0; loc < trace.locations.size(); ++loc) {
        std::fill(sequence.begin(), sequence.end(), 0);
        const auto& events = trace.locations[loc].events;
        for (uint32_t i = 0; i < events.size(); ++i) {
            const Event& e = events[i];
            if (e.kind != EventKind::MpiCollectiveEnd) continue;
            if (e.b >= ncomm) continue; // the reader rejects undefined communicators
            const Communicator& comm = trace.defs.communicators[e.b];
            const uint32_t rank = ranks.rank_of(e.b, loc);
            if (rank == kNone) {
                warn.add("collective outside communicator",
                         where(trace, loc, i) + ": collective on a communicator it is not in");
                continue;
            }
            uint32_t id;
            const uint32_t k = sequence[e.b]++;
            if (comm.is_self) { // every location has its own MPI_COMM_SELF
                id = static_cast<uint32_t>(m.collectives.size());
                m.collectives.push_back({});
                m.collectives.back().members.resize(1);
            } else {
                auto& list = instances_of_comm[e.b];
                if (k == list.size()) {
                    list.push_back(static_cast<uint32_t>(m.collectives.size()));
                    m.collectives.push_back({});
                    m.collectives.back().members.resize(comm.members.size());
                }
                id = list[k];
            }
            CollectiveMatch& c = m.collectives[id];
            const auto op = static_cast<CollectiveOp>(e.c);
            const uint32_t root = e.a == kNone ? kNone : world_rank(trace, e.b, e.a, loc);
            if (c.comm == kNone) {
                c.op = op;
                c.comm = e.b;
                c.root = root;
            } else if (c.op != op || c.root != root) {
                warn.add("collective mismatch",
                         where(trace, loc, i) + ": collective " + std::to_string(k) +
                             " on this communicator differs from the other members' (operation "
                             "or root)");
            }
            c.members[rank] = {loc, i};
            m.collectives_of[loc].push_back({i, id});
        }
    }
    for (const CollectiveMatch& c : m.collectives) {
        const auto missing = std::count_if(c.members.begin(), c.members.end(),
                                           [](const EventRef& r) { return r.location == kNone; });
        if (missing > 0) {
            ++m.incomplete_collectives;
            warn.add("incomplete collective", "collective on communicator " +
                                                  std::to_string(c.comm) + ": " +
                                                  std::to_string(missing) +
                                                  " member(s) never reached it (trace cut short?)");
        }
    }
}

} // namespace

uint32_t world_rank(const Trace& trace, Ref comm, uint32_t rank, uint32_t location) {
    if (comm >= trace.defs.communicators.size() || rank == kNone) return kNone;
    const Communicator& c = trace.defs.communicators[comm];
    if (c.is_self) return rank == 0 ? trace.defs.locations[location].rank : kNone;
    return rank < c.members.size() ? c.members[rank] : kNone;
}

Matching match(const Trace& trace) {
    Matching m;
    Warnings warn(m.warnings);
    // World rank -> the location that does its MPI (the first location of the process).
    std::vector<uint32_t> location_of_rank;
    for (uint32_t loc = 0; loc < trace.defs.locations.size(); ++loc) {
        const uint32_t rank = trace.defs.locations[loc].rank;
        if (rank >= location_of_rank.size()) location_of_rank.resize(rank + 1, kNone);
        if (location_of_rank[rank] == kNone) location_of_rank[rank] = loc;
    }
    build_frames(trace, m, warn);
    match_messages(trace, location_of_rank, m, warn);
    match_collectives(trace, m, warn);
    return m;
}

} // namespace topolens::trace
