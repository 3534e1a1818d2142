#include "trace/matching.h"

#include "trace/huge_pages.h"

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

// A send waiting for its receive: where it is and its slot in sends_of[location].
struct PendingSend {
    EventRef send;
    uint32_t slot;
};

struct SendQueue {
    std::vector<PendingSend> sends;
    size_t next = 0;
};

// The queue of each channel, behind a small cache: a location talks to few channels in turn.
class ChannelQueues {
  public:
    SendQueue& get(const Channel& channel) {
        Cached& c = cache_[ChannelHash{}(channel) % kCacheSize];
        if (c.queue && c.channel == channel) return *c.queue;
        SendQueue& queue = queues_[channel]; // references into an unordered_map stay valid
        c = {channel, &queue};
        return queue;
    }
    SendQueue* find(const Channel& channel) {
        Cached& c = cache_[ChannelHash{}(channel) % kCacheSize];
        if (c.queue && c.channel == channel) return c.queue;
        auto found = queues_.find(channel);
        if (found == queues_.end()) return nullptr;
        c = {channel, &found->second};
        return &found->second;
    }
    const std::unordered_map<Channel, SendQueue, ChannelHash>& all() const { return queues_; }

  private:
    static constexpr size_t kCacheSize = 64;
    struct Cached {
        Channel channel{};
        SendQueue* queue = nullptr;
    };
    std::unordered_map<Channel, SendQueue, ChannelHash> queues_;
    Cached cache_[kCacheSize];
};

// A receive in MPI's matching order: by when it was posted (Irecv), not completed.
struct PostedReceive {
    uint32_t posted;
    uint32_t event;
};

// ---------------------------------------------------------------- one pass per location

// The trace is large and memory-bound to walk, so each location's events are read once:
// frames and call paths, sends (queued per channel), receives (collected in posting order)
// and collectives together. Receives are matched afterwards, touching only their records.
class Matcher {
  public:
    Matcher(const Trace& trace, Matching& m, Warnings& warn)
        : trace_(trace), m_(m), warn_(warn), ranks_(trace), children_(1),
          instances_of_comm_(trace.defs.communicators.size()),
          sequence_(trace.defs.communicators.size()) {
        for (uint32_t loc = 0; loc < trace.defs.locations.size(); ++loc) {
            const uint32_t rank = trace.defs.locations[loc].rank;
            auto& first = m_.location_of_rank;
            if (rank >= first.size()) first.resize(rank + 1, kNone);
            if (first[rank] == kNone) first[rank] = loc;
        }
        const size_t nloc = trace.locations.size();
        m_.frames.resize(nloc);
        m_.receives_of.assign(nloc, {});
        m_.sends_of.assign(nloc, {});
        m_.collectives_of.assign(nloc, {});
        posted_.resize(nloc);
    }

    void scan(uint32_t loc) {
        const LocationEvents& le = trace_.locations[loc];
        const auto& events = le.events;
        LocationFrames& f = m_.frames[loc];
        reserve_huge(f.frame, events.size());
        reserve_huge(f.callpath, events.size());
        f.frame.assign(events.size(), kNone);
        f.callpath.assign(events.size(), kNone);
        stack_.clear();
        post_of_request_.clear();
        std::fill(sequence_.begin(), sequence_.end(), 0);
        size_t next_request = 0;
        for (uint32_t i = 0; i < events.size(); ++i) {
            const Event& e = events[i];
            if (i > 0 && e.time < events[i - 1].time)
                warn_.add("time goes backwards", where(trace_, loc, i) + ": time goes backwards (" +
                                                     std::to_string(e.time) + " after " +
                                                     std::to_string(events[i - 1].time) +
                                                     " ticks); durations around it are unreliable");
            uint64_t request = 0;
            if (next_request < le.requests.size() && le.requests[next_request].event == i)
                request = le.requests[next_request++].request;
            switch (e.kind) {
            case EventKind::Enter:
                enter(f, i, e);
                break;
            case EventKind::Leave:
                leave(loc, f, events, i, e);
                break;
            default:
                if (!stack_.empty()) {
                    f.frame[i] = stack_.back();
                    f.callpath[i] = f.callpath[stack_.back()];
                }
                record(loc, i, e, request);
                break;
            }
        }
        if (!stack_.empty())
            warn_.add("unclosed region", where(trace_, loc, stack_.back()) + ": " +
                                             std::to_string(stack_.size()) +
                                             " region(s) never left (trace cut short?)");
    }

    void match_receives(uint32_t loc) {
        const auto& events = trace_.locations[loc].events;
        auto& posted = posted_[loc];
        // Blocking receives are posted where they complete; only nonblocking ones reorder.
        auto by_posting = [](const PostedReceive& x, const PostedReceive& y) {
            return x.posted < y.posted;
        };
        if (!std::is_sorted(posted.begin(), posted.end(), by_posting))
            std::sort(posted.begin(), posted.end(), by_posting);
        auto& received = m_.receives_of[loc];
        for (const PostedReceive& p : posted) {
            const Event& e = events[p.event];
            const uint32_t source = world_rank(trace_, e.b, e.a, loc);
            const uint32_t source_loc =
                source < m_.location_of_rank.size() ? m_.location_of_rank[source] : kNone;
            SendQueue* queue =
                source_loc == kNone ? nullptr : queues_.find(Channel{source_loc, loc, e.b, e.c});
            if (!queue || queue->next == queue->sends.size()) {
                ++m_.unmatched_receives;
                warn_.add("unmatched receive",
                          where(trace_, loc, p.event) + ": receive without a matching send");
                continue;
            }
            const PendingSend& send = queue->sends[queue->next++];
            const auto id = static_cast<uint32_t>(m_.messages.size());
            m_.messages.push_back({send.send, {loc, p.event}, p.posted});
            received.push_back({p.event, id});
            m_.sends_of[send.send.location][send.slot].second = id;
        }
        std::vector<PostedReceive>().swap(posted);
        if (!std::is_sorted(received.begin(), received.end()))
            std::sort(received.begin(), received.end());
    }

    void finish() {
        for (const auto& [channel, queue] : queues_.all())
            for (size_t k = queue.next; k < queue.sends.size(); ++k) {
                ++m_.unmatched_sends;
                const EventRef& send = queue.sends[k].send;
                warn_.add("unmatched send", where(trace_, send.location, send.event) +
                                                ": send without a matching receive");
            }
        for (const CollectiveMatch& c : m_.collectives) {
            const auto missing =
                std::count_if(c.members.begin(), c.members.end(),
                              [](const EventRef& r) { return r.location == kNone; });
            if (missing > 0) {
                ++m_.incomplete_collectives;
                warn_.add("incomplete collective",
                          "collective on communicator " + std::to_string(c.comm) + ": " +
                              std::to_string(missing) +
                              " member(s) never reached it (trace cut short?)");
            }
        }
    }

  private:
    // Children per call path (index parent + 1, 0 for roots): a node has few children, so
    // a short scan beats hashing on every Enter.
    uint32_t child(uint32_t parent, Ref region) {
        const size_t index = parent == kNone ? 0 : parent + 1;
        for (const auto& [r, node] : children_[index])
            if (r == region) return node;
        const auto node = static_cast<uint32_t>(m_.calltree.size());
        m_.calltree.push_back({region, parent});
        children_.emplace_back();
        children_[index].push_back({region, node});
        return node;
    }

    void enter(LocationFrames& f, uint32_t i, const Event& e) {
        const uint32_t parent = stack_.empty() ? kNone : f.callpath[stack_.back()];
        f.callpath[i] = child(parent, e.a);
        stack_.push_back(i);
    }

    void leave(uint32_t loc, LocationFrames& f, const std::vector<Event>& events, uint32_t i,
               const Event& e) {
        // Find the region being left; anything still open above it is closed here.
        auto open = std::find_if(stack_.rbegin(), stack_.rend(),
                                 [&](uint32_t j) { return events[j].a == e.a; });
        if (open == stack_.rend()) {
            warn_.add("unbalanced leave", where(trace_, loc, i) + ": leave of region " +
                                              std::to_string(e.a) + " that is not open; ignored");
            return;
        }
        if (open != stack_.rbegin())
            warn_.add("unbalanced leave",
                      where(trace_, loc, i) + ": leave skips open regions; they end here");
        const uint32_t enter = *open;
        stack_.erase(std::next(open).base(), stack_.end());
        f.frame[i] = enter;
        f.frame[enter] = i;
        f.callpath[i] = f.callpath[enter];
    }

    void record(uint32_t loc, uint32_t i, const Event& e, uint64_t request) {
        switch (e.kind) {
        case EventKind::MpiSend:
        case EventKind::MpiIsend: {
            const uint32_t dest = world_rank(trace_, e.b, e.a, loc);
            if (dest == kNone || dest >= m_.location_of_rank.size() ||
                m_.location_of_rank[dest] == kNone) {
                warn_.add("bad peer", where(trace_, loc, i) + ": send to a rank outside the trace");
                return;
            }
            const auto slot = static_cast<uint32_t>(m_.sends_of[loc].size());
            m_.sends_of[loc].push_back({i, kNone}); // the message id is set when matched
            queues_.get(Channel{loc, m_.location_of_rank[dest], e.b, e.c})
                .sends.push_back({{loc, i}, slot});
            return;
        }
        case EventKind::MpiIrecvRequest:
            post_of_request_[request] = i;
            return;
        case EventKind::MpiRecv:
            posted_[loc].push_back({i, i});
            return;
        case EventKind::MpiIrecv: {
            auto found = post_of_request_.find(request);
            posted_[loc].push_back({found == post_of_request_.end() ? i : found->second, i});
            if (found != post_of_request_.end()) post_of_request_.erase(found);
            return;
        }
        case EventKind::MpiCollectiveEnd:
            collective(loc, i, e);
            return;
        default:
            return;
        }
    }

    // The k-th collective of a location on a communicator is the k-th of every member.
    void collective(uint32_t loc, uint32_t i, const Event& e) {
        if (e.b >= trace_.defs.communicators.size()) return; // the reader rejects these
        const Communicator& comm = trace_.defs.communicators[e.b];
        const uint32_t rank = ranks_.rank_of(e.b, loc);
        if (rank == kNone) {
            warn_.add("collective outside communicator",
                      where(trace_, loc, i) + ": collective on a communicator it is not in");
            return;
        }
        uint32_t id;
        const uint32_t k = sequence_[e.b]++;
        if (comm.is_self) { // every location has its own MPI_COMM_SELF
            id = static_cast<uint32_t>(m_.collectives.size());
            m_.collectives.push_back({});
            m_.collectives.back().members.resize(1);
        } else {
            auto& list = instances_of_comm_[e.b];
            if (k == list.size()) {
                list.push_back(static_cast<uint32_t>(m_.collectives.size()));
                m_.collectives.push_back({});
                m_.collectives.back().members.resize(comm.members.size());
            }
            id = list[k];
        }
        CollectiveMatch& c = m_.collectives[id];
        const auto op = static_cast<CollectiveOp>(e.c);
        const uint32_t root = e.a == kNone ? kNone : world_rank(trace_, e.b, e.a, loc);
        if (c.comm == kNone) {
            c.op = op;
            c.comm = e.b;
            c.root = root;
        } else if (c.op != op || c.root != root) {
            warn_.add("collective mismatch",
                      where(trace_, loc, i) + ": collective " + std::to_string(k) +
                          " on this communicator differs from the other members' (operation "
                          "or root)");
        }
        c.members[rank] = {loc, i};
        m_.collectives_of[loc].push_back({i, id});
    }

    const Trace& trace_;
    Matching& m_;
    Warnings& warn_;
    CommRanks ranks_;
    std::vector<std::vector<std::pair<Ref, uint32_t>>> children_;
    std::vector<uint32_t> stack_;
    ChannelQueues queues_;
    std::vector<std::vector<PostedReceive>> posted_;
    std::unordered_map<uint64_t, uint32_t> post_of_request_;
    std::vector<std::vector<uint32_t>> instances_of_comm_; // comm -> collective ids in order
    std::vector<uint32_t> sequence_;                       // per comm, for the location scanned
};

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
    Matcher matcher(trace, m, warn);
    for (uint32_t loc = 0; loc < trace.locations.size(); ++loc) matcher.scan(loc);
    for (uint32_t loc = 0; loc < trace.locations.size(); ++loc) matcher.match_receives(loc);
    matcher.finish();
    return m;
}

} // namespace topolens::trace
