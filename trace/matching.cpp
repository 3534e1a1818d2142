#include "trace/matching.h"

#include "trace/clock_range.h"
#include "trace/exchange.h"
#include "trace/location_shares.h"
#include "trace/matching_parts.h"
#include "trace/prefault.h"
#include "trace/reader.h"
#include "trace/shared_collectives.h"
#include "trace/threads.h"

#include <algorithm>
#include <exception>
#include <filesystem>
#include <iterator>
#include <memory>
#include <mutex>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <thread>
#include <unordered_map>
#include <utility>

namespace topolens::trace {

namespace {

using namespace detail;

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

// What a receiver's rank needs of a send another rank read.
struct SendSide {
    CallSummary call;
    Time time = 0;
};

struct SendQueue {
    std::vector<PendingSend> sends;
    size_t next = 0;
    std::vector<SendSide> sides; // parallel to sends, for sends another rank read; else empty
};

// The queues last looked up, by channel: a location talks to few channels in turn.
class ChannelCache {
  public:
    // The cached queue of `channel`, else (and then cached) what `find` gives.
    template <class Find> SendQueue* get(const Channel& channel, Find&& find) {
        Cached& c = slots_[ChannelHash{}(channel) % kSize];
        if (!c.queue || !(c.channel == channel)) c = {channel, find()};
        return c.queue;
    }

  private:
    static constexpr size_t kSize = 64;
    struct Cached {
        Channel channel{};
        SendQueue* queue = nullptr;
    };
    Cached slots_[kSize];
};

// The queue of each channel of one sender.
class ChannelQueues {
  public:
    // Creates it if needed; references into an unordered_map stay valid.
    SendQueue& get(const Channel& channel) {
        if (!cache_) cache_ = std::make_unique<ChannelCache>();
        return *cache_->get(channel, [&] { return &queues_[channel]; });
    }
    // Once the sender is scanned (and its threads' queues merged): nothing more is queued,
    // so its cache (1.5 KB a location) goes.
    void drop_cache() { cache_.reset(); }
    // Once the sender is scanned, from any thread (the map no longer changes).
    SendQueue* find(const Channel& channel) {
        auto found = queues_.find(channel);
        return found == queues_.end() ? nullptr : &found->second;
    }
    const std::unordered_map<Channel, SendQueue, ChannelHash>& all() const { return queues_; }
    // Hands every queue over (to the process's first location, see merge_thread_sends).
    std::unordered_map<Channel, SendQueue, ChannelHash> release() {
        cache_.reset();
        return std::exchange(queues_, {});
    }

  private:
    std::unordered_map<Channel, SendQueue, ChannelHash> queues_;
    std::unique_ptr<ChannelCache> cache_; // used by the scanning thread only, while it sends
};

struct PostedReceive {
    uint32_t posted;
    uint32_t event;
};

// A call tree merged from trees in turn: each node is found under its parent by region, or
// appended, so nodes are numbered in the order in which the trees (then their nodes) first
// reach them. First appearance survives concatenation: merging the locations' trees in
// location order, or first those of contiguous runs of locations and then these in order,
// numbers the nodes alike (what a shared analysis's ranks rely on, see complete_shared).
class CallTreeMerge {
  public:
    explicit CallTreeMerge(std::vector<CallNode>& nodes) : nodes_(nodes), children_(1) {}
    // `tree`'s node ids (parents before children) -> the merged tree's.
    std::vector<uint32_t> add(const std::vector<CallNode>& tree) {
        std::vector<uint32_t> merged(tree.size());
        for (size_t k = 0; k < tree.size(); ++k) {
            const uint32_t parent = tree[k].parent == kNone ? kNone : merged[tree[k].parent];
            const size_t index = parent == kNone ? 0 : parent + 1;
            uint32_t found = kNone;
            for (const auto& [r, node] : children_[index])
                if (r == tree[k].region) found = node;
            if (found == kNone) {
                found = static_cast<uint32_t>(nodes_.size());
                nodes_.push_back({tree[k].region, parent});
                children_.emplace_back();
                children_[index].push_back({tree[k].region, found});
            }
            merged[k] = found;
        }
        return merged;
    }

  private:
    std::vector<CallNode>& nodes_;
    // Children per node (index parent + 1, 0 for roots).
    std::vector<std::vector<std::pair<Ref, uint32_t>>> children_;
};

// ---------------------------------------------------------------- matching in passes

// What the per-location pass finds besides frames: the location's call tree (local ids,
// in order of first appearance), its sends queued per channel, its receives in posting
// order, its collective records, then its matched receives; and its warnings.
struct LocationScan {
    using Node = CallNode; // parent: a local id
    struct Matched {
        PendingSend send;
        uint32_t recv_event, posted;
        const SendSide* side; // a send another rank read: what is known of it; else nullptr
    };
    std::vector<Node> nodes;
    ChannelQueues queues; // sender = this location: only its receivers' passes pop them
    std::vector<PostedReceive> posted;
    std::vector<CollectiveEnd> collective_ends;
    std::vector<Matched> matched; // by posting
    // Threads: receive requests posted here and not completed here (request -> the
    // MpiIrecvRequest), and receives completed here whose request was not posted here.
    std::vector<std::pair<uint64_t, uint32_t>> open_posts;
    std::vector<std::pair<uint32_t, uint64_t>> posted_elsewhere; // (MpiIrecv, request)
    uint64_t unmatched_receives = 0;
    LocationWarnings warnings, receive_warnings;
    // A shared analysis: the process's collective warnings, at its first location.
    LocationWarnings collective_warnings;
    bool scanned = false;
    bool time_goes_backwards = false;
};

// The trace is large and memory-bound to walk, so each location's events are read once,
// and locations in parallel: frames and call paths, sends (queued per channel), receives
// (collected in posting order) and collectives together. Then, serially, the call trees
// are merged and collectives assembled; receives are matched in parallel again (a channel
// has one receiver), touching only their records.
class MatcherImpl {
  public:
    // `share`: the locations this matcher scans (every location, or a rank's share of a
    // shared matching); it holds their scans only.
    MatcherImpl(const Trace& trace, Matching& m, Warnings& warn, unsigned threads,
                LocationShare share)
        : trace_(trace), m_(m), warn_(warn), workers_(threads), ranks_(trace),
          calltree_(m.calltree), instances_of_comm_(trace.defs.communicators.size()),
          sequence_(trace.defs.communicators.size()),
          share_{share.first, std::min(share.last, static_cast<uint32_t>(trace.locations.size()))} {
        if (share_.first > share_.last)
            throw std::logic_error("trace::Matcher: a share beyond the trace's locations");
        scans_.resize(share_.last - share_.first);
        for (uint32_t loc = 0; loc < trace.defs.locations.size(); ++loc) {
            const uint32_t rank = trace.defs.locations[loc].rank;
            auto& first = m_.location_of_rank;
            if (rank >= first.size()) first.resize(rank + 1, kNone);
            if (first[rank] == kNone) first[rank] = loc;
        }
        // Threads: a process's locations share its messages and collectives.
        first_of_process_.resize(trace.defs.locations.size());
        locations_of_rank_.resize(m_.location_of_rank.size());
        for (uint32_t loc = 0; loc < trace.defs.locations.size(); ++loc) {
            const uint32_t rank = trace.defs.locations[loc].rank;
            first_of_process_[loc] = m_.location_of_rank[rank];
            locations_of_rank_[rank].push_back(loc);
            if (locations_of_rank_[rank].size() > 1) threads_ = true;
        }
        // The scans of a process's threads are read together (its collectives, its sends
        // and receives): a share holds whole processes.
        for (uint32_t loc = share_.first; loc < share_.last; ++loc) {
            const auto& process = locations_of_rank_[trace.defs.locations[loc].rank];
            if (process.front() < share_.first || process.back() >= share_.last)
                throw std::logic_error("trace::Matcher: the share [" +
                                       std::to_string(share_.first) + ", " +
                                       std::to_string(share_.last) +
                                       ") splits the process of location " + std::to_string(loc));
        }
        const size_t nloc = trace.locations.size();
        m_.frames.resize(nloc);
        m_.receives_of.assign(nloc, {});
        m_.sends_of.assign(nloc, {});
        m_.send_completions.assign(nloc, {});
        m_.collectives_of.assign(nloc, {});
        m_.message_records.assign(nloc, {});
    }

    // One location's pass, from any thread (each location once).
    void scan(uint32_t loc) {
        thread_local Scratch scratch;
        scan(loc, scratch);
    }

    // After every location's scan.
    void complete() {
        const size_t nloc = trace_.locations.size();
        for (size_t loc = 0; loc < nloc; ++loc)
            if (!scan_of(loc).scanned)
                throw std::logic_error("trace::Matcher: location " + std::to_string(loc) +
                                       " was never scanned");
        // The call trees and collectives are merged in location order while the receives
        // are matched (neither needs the other).
        std::exception_ptr merge_error;
        std::jthread merge([&] {
            try {
                m_.callpath_nodes.resize(nloc);
                for (uint32_t loc = 0; loc < nloc; ++loc) {
                    m_.callpath_nodes[loc] = calltree_.add(scan_of(loc).nodes);
                    scan_of(loc).warnings.hand_to(warn_);
                    if (scan_of(loc).time_goes_backwards) m_.time_goes_backwards = true;
                    if (threads_) {
                        process_collectives(loc);
                        continue;
                    }
                    sequence_.restart();
                    for (const CollectiveEnd& end : scan_of(loc).collective_ends)
                        collective(loc, end);
                }
            } catch (...) {
                merge_error = std::current_exception();
            }
        });
        if (threads_) merge_thread_sends();
        parallel_for(nloc, workers_,
                     [&](size_t loc, unsigned) { match_receives(static_cast<uint32_t>(loc)); });
        merge.join(); // (a jthread: also joined if the receives' matching throws)
        if (merge_error) std::rethrow_exception(merge_error);
        number_messages();
        finish();
    }

  private:
    struct Scratch {
        std::vector<uint32_t> stack;
        std::vector<std::vector<std::pair<Ref, uint32_t>>> children; // by local parent + 1
        std::unordered_map<uint64_t, uint32_t> post_of_request;
        std::unordered_map<uint64_t, uint32_t> isend_of_request; // -> slot in sends_of
    };

    void scan(uint32_t loc, Scratch& x) {
        if (!is_local(loc))
            throw std::logic_error("trace::Matcher: location " + std::to_string(loc) +
                                   " is not in the share it matches");
        const LocationEvents& le = trace_.locations[loc];
        const auto& events = le.events;
        LocationScan& out = scan_of(loc);
        if (out.scanned) throw std::logic_error("trace::Matcher: location scanned twice");
        out.scanned = true;
        LocationFrames& f = m_.frames[loc];
        reserve_prefaulted(f, events.size());
        f.assign(events.size(), Frame{});
        x.stack.clear();
        x.children.assign(1, {});
        // Scratch lives on with its thread: a map a big location made large is dropped.
        if (x.post_of_request.bucket_count() > 4096)
            std::unordered_map<uint64_t, uint32_t>().swap(x.post_of_request);
        if (x.isend_of_request.bucket_count() > 4096)
            std::unordered_map<uint64_t, uint32_t>().swap(x.isend_of_request);
        x.post_of_request.clear();
        x.isend_of_request.clear();
        size_t next_request = 0;
        for (uint32_t i = 0; i < events.size(); ++i) {
            const Event& e = events[i];
            if (i > 0 && e.time < events[i - 1].time) {
                out.time_goes_backwards = true;
                out.warnings.add("time goes backwards",
                                 where(trace_, loc, i) + ": time goes backwards (" +
                                     std::to_string(e.time) + " after " +
                                     std::to_string(events[i - 1].time) +
                                     " ticks); clamped: the analysis takes each event as "
                                     "no earlier than the one before it on its location");
            }
            uint64_t request = 0;
            if (next_request < le.requests.size() && le.requests[next_request].event == i)
                request = le.requests[next_request++].request;
            switch (e.kind) {
            case EventKind::Enter:
                enter(out, x, f, i, e);
                break;
            case EventKind::Leave:
                leave(loc, out, x, f, events, i, e);
                break;
            default:
                if (!x.stack.empty()) {
                    f[i].frame = x.stack.back();
                    f[i].callpath = f[x.stack.back()].callpath;
                }
                record(loc, out, x, i, e, request);
                break;
            }
        }
        unfinished_at_end(loc, out, x);
        out.queues.drop_cache();
        if (auto outside = clock_range_warning(trace_, loc))
            out.warnings.add("outside clock range", *outside);
        if (!x.stack.empty())
            out.warnings.add("unclosed region", where(trace_, loc, x.stack.back()) + ": " +
                                                    std::to_string(x.stack.size()) +
                                                    " region(s) never left (trace cut short?)");
        // Blocking receives are posted where they complete; only nonblocking ones reorder.
        auto by_posting = [](const PostedReceive& a, const PostedReceive& b) {
            return a.posted < b.posted;
        };
        if (!std::is_sorted(out.posted.begin(), out.posted.end(), by_posting))
            std::sort(out.posted.begin(), out.posted.end(), by_posting);
        if (in_threaded_process(loc))
            out.open_posts.assign(x.post_of_request.begin(), x.post_of_request.end());
    }

    // Children per call path (index parent + 1, 0 for roots): a node has few children, so
    // a short scan beats hashing on every Enter.
    static uint32_t child(std::vector<std::vector<std::pair<Ref, uint32_t>>>& children,
                          std::vector<LocationScan::Node>& nodes, uint32_t parent, Ref region) {
        const size_t index = parent == kNone ? 0 : parent + 1;
        for (const auto& [r, node] : children[index])
            if (r == region) return node;
        const auto node = static_cast<uint32_t>(nodes.size());
        nodes.push_back({region, parent});
        children.emplace_back();
        children[index].push_back({region, node});
        return node;
    }

    void enter(LocationScan& out, Scratch& x, LocationFrames& f, uint32_t i, const Event& e) {
        const uint32_t parent = x.stack.empty() ? kNone : f[x.stack.back()].callpath;
        f[i].callpath = child(x.children, out.nodes, parent, e.region());
        x.stack.push_back(i);
    }

    void leave(uint32_t loc, LocationScan& out, Scratch& x, LocationFrames& f,
               const std::vector<Event>& events, uint32_t i, const Event& e) {
        // Find the region being left; anything still open above it is closed here.
        auto open = std::find_if(x.stack.rbegin(), x.stack.rend(),
                                 [&](uint32_t j) { return events[j].region() == e.region(); });
        if (open == x.stack.rend()) {
            out.warnings.add("unbalanced leave", where(trace_, loc, i) + ": leave of region " +
                                                     std::to_string(e.region()) +
                                                     " that is not open; ignored");
            return;
        }
        if (open != x.stack.rbegin())
            out.warnings.add("unbalanced leave",
                             where(trace_, loc, i) + ": leave skips open regions; they end here");
        const uint32_t enter = *open;
        x.stack.erase(std::next(open).base(), x.stack.end());
        f[i].frame = enter;
        f[enter].frame = i;
        f[i].callpath = f[enter].callpath;
    }

    void record(uint32_t loc, LocationScan& out, Scratch& x, uint32_t i, const Event& e,
                uint64_t request) {
        if (e.kind == EventKind::MpiSend || e.kind == EventKind::MpiIsend ||
            e.kind == EventKind::MpiRecv || e.kind == EventKind::MpiIrecv)
            m_.message_records[loc].push_back(i);
        switch (e.kind) {
        case EventKind::MpiSend:
        case EventKind::MpiIsend: {
            const uint32_t dest = world_rank(trace_, e.comm(), e.peer(), loc);
            if (dest == kNone || dest >= m_.location_of_rank.size() ||
                m_.location_of_rank[dest] == kNone) {
                out.warnings.add("bad peer",
                                 where(trace_, loc, i) + ": send to a rank outside the trace");
                // Its request is known (its completion is no unknown request), not queued.
                if (e.kind == EventKind::MpiIsend) x.isend_of_request[request] = kNone;
                return;
            }
            const auto slot = static_cast<uint32_t>(m_.sends_of[loc].size());
            m_.sends_of[loc].push_back({i, kNone}); // the message id is set when matched
            // A blocking send completes in its own call; an Isend where its request does.
            m_.send_completions[loc].push_back(e.kind == EventKind::MpiSend ? i : kNone);
            if (e.kind == EventKind::MpiIsend) {
                auto [at, added] = x.isend_of_request.try_emplace(request, slot);
                if (!added) { // the id is reused: the request it named never completed
                    if (at->second != kNone)
                        unfinished(loc, out, m_.sends_of[loc][at->second].first, "MPI_Isend",
                                   request);
                    at->second = slot;
                }
            }
            // Channels are between processes: any thread may receive what any sent.
            out.queues
                .get(Channel{first_of_process_[loc], m_.location_of_rank[dest], e.comm(), e.tag()})
                .sends.push_back({{loc, i}, slot});
            return;
        }
        case EventKind::MpiIrecvRequest: {
            auto [at, added] = x.post_of_request.try_emplace(request, i);
            if (!added) { // the id is reused: the request it named never completed
                unfinished(loc, out, at->second, "MPI_Irecv", request);
                at->second = i;
            }
            return;
        }
        case EventKind::MpiIsendComplete: {
            auto found = x.isend_of_request.find(request);
            if (found == x.isend_of_request.end()) {
                if (in_threaded_process(loc))
                    started_elsewhere(loc, out, i);
                else
                    unknown_request(loc, out, i, e, "MPI_Isend completion", request);
                return;
            }
            if (found->second != kNone) m_.send_completions[loc][found->second] = i;
            x.isend_of_request.erase(found);
            return;
        }
        case EventKind::MpiRequestCancelled: // a cancelled request ends here
            x.post_of_request.erase(request);
            x.isend_of_request.erase(request);
            return;
        case EventKind::MpiRecv:
            out.posted.push_back({i, i});
            return;
        case EventKind::MpiIrecv: {
            auto found = x.post_of_request.find(request);
            if (found == x.post_of_request.end()) {
                if (in_threaded_process(loc))
                    out.posted_elsewhere.push_back({i, request});
                else
                    unknown_request(loc, out, i, e, "MPI_Irecv completion", request);
            }
            out.posted.push_back({found == x.post_of_request.end() ? i : found->second, i});
            if (found != x.post_of_request.end()) x.post_of_request.erase(found);
            return;
        }
        case EventKind::MpiCollectiveEnd:
            out.collective_ends.push_back({i, e.comm(), e.root(), e.op(), e.time});
            return;
        default:
            return;
        }
    }

    // Threads: the sends of each channel from all threads of a process, in one queue (at the
    // process's first location) in the order they were made (by time; MPI orders the
    // messages of a channel as their sends are ordered).
    void merge_thread_sends() {
        auto by_time = [&](const PendingSend& a, const PendingSend& b) {
            return trace_.locations[a.send.location].events[a.send.event].time <
                   trace_.locations[b.send.location].events[b.send.event].time;
        };
        for (const auto& locations : locations_of_rank_) {
            if (locations.size() < 2 || !is_local(locations[0])) continue;
            ChannelQueues& first = scan_of(locations[0]).queues;
            for (size_t k = 1; k < locations.size(); ++k)
                for (auto& [channel, queue] : scan_of(locations[k]).queues.release()) {
                    std::vector<PendingSend>& sends = first.get(channel).sends;
                    std::vector<PendingSend> merged;
                    merged.reserve(sends.size() + queue.sends.size());
                    std::merge(sends.begin(), sends.end(), queue.sends.begin(), queue.sends.end(),
                               std::back_inserter(merged), by_time);
                    sends = std::move(merged);
                }
            first.drop_cache();
        }
    }

    bool in_threaded_process(uint32_t loc) const {
        return threads_ && locations_of_rank_[trace_.defs.locations[loc].rank].size() > 1;
    }

    // Threads may complete a request another thread of their process started (OTF2 request
    // ids are per process). A receive's posting is found on the other thread (for the
    // order of the process's receives); a send's completion is not followed there.
    void started_elsewhere(uint32_t loc, LocationScan& out, uint32_t i) {
        if (!in_threaded_process(loc)) return;
        out.warnings.add("request of another thread",
                         where(trace_, loc, i) +
                             ": completes a send request this thread did not start (another "
                             "thread of the process did?); the analysis does not see when "
                             "that send completed");
    }

    // A completion (MpiIsendComplete, MpiIrecv) of a request the location never issued.
    void unknown_request(uint32_t loc, LocationScan& out, uint32_t i, const Event& e,
                         const char* what, uint64_t request) {
        out.warnings.add("unknown request", where(trace_, loc, i) + ": " + what + " of request " +
                                                std::to_string(request) + " at tick " +
                                                std::to_string(e.time) +
                                                ", a request never issued on this location");
    }

    // A request issued at event `i` (MpiIsend, MpiIrecvRequest) that never completed.
    void unfinished(uint32_t loc, LocationScan& out, uint32_t i, const char* what,
                    uint64_t request) {
        out.warnings.add(
            "unfinished request",
            where(trace_, loc, i) + ": " + what + " request " + std::to_string(request) +
                " issued at tick " + std::to_string(trace_.locations[loc].events[i].time) +
                " never completed in the trace (no completion or cancellation record)");
    }

    // The requests still open when the location's events end, in event order.
    void unfinished_at_end(uint32_t loc, LocationScan& out, const Scratch& x) {
        // Not per thread: another thread of the process may complete what this one started.
        if (in_threaded_process(loc)) return;
        std::vector<std::pair<uint32_t, std::pair<const char*, uint64_t>>> open;
        for (const auto& [request, i] : x.post_of_request)
            open.push_back({i, {"MPI_Irecv", request}});
        for (const auto& [request, slot] : x.isend_of_request)
            if (slot != kNone) // (a send to a bad peer is warned about as such)
                open.push_back({m_.sends_of[loc][slot].first, {"MPI_Isend", request}});
        std::sort(open.begin(), open.end());
        for (const auto& [i, request] : open)
            unfinished(loc, out, i, request.first, request.second);
    }

    // The sends of `channel` waiting for their receives: the sender's queue, or the one
    // another rank sent this rank (a shared analysis, see complete_shared).
    SendQueue* find_queue(const Channel& channel) {
        if (is_local(channel.sender)) return scan_of(channel.sender).queues.find(channel);
        auto found = imported_.find(channel);
        return found == imported_.end() ? nullptr : &found->second;
    }

    static LocationScan::Matched matched(SendQueue& queue, uint32_t recv_event, uint32_t posted) {
        const size_t k = queue.next++;
        return {queue.sends[k], recv_event, posted,
                queue.sides.empty() ? nullptr : &queue.sides[k]};
    }

    bool is_local(uint32_t loc) const { return loc >= share_.first && loc < share_.last; }
    // The scans are held for the share's locations only.
    LocationScan& scan_of(uint32_t loc) { return scans_[loc - share_.first]; }
    const LocationScan& scan_of(uint32_t loc) const { return scans_[loc - share_.first]; }

    uint32_t owner_of(uint32_t loc) const { return rank_holding(m_.shares, loc); }

  public:
    // The matching of one rank's share, the other ranks completing theirs at once: every
    // rank learns every rank's call tree (its locations' merged) and every location's
    // warnings (small), shares each collective end with the ranks of the other members
    // (SharedCollectives), sends its sends to the rank of their receiver, and hears back
    // where each was received. Message and collective ids, and call tree nodes, are the
    // serial matching's (Matching::global_message_ids).
    void complete_shared(Exchange& exchange) {
        for (uint32_t loc = share_.first; loc < share_.last; ++loc)
            if (!scan_of(loc).scanned)
                throw std::logic_error("trace::Matcher: location " + std::to_string(loc) +
                                       " was never scanned");
        std::vector<CallNode> rank_tree = merge_own_call_trees();
        SharedCollectives collectives(trace_, m_, ranks_, first_of_process_, share_);
        for (uint32_t loc = share_.first; loc < share_.last; ++loc)
            if (first_of_process_[loc] == loc) collectives.add_process(loc, process_ends(loc));
        const std::vector<Bytes> shares_and_counts = learn_shares(exchange, collectives.counts());
        if (threads_) merge_thread_sends();
        SharedCollectives::Found found = collectives.assemble(exchange, shares_and_counts);
        for (auto& [first, warnings] : found.warnings)
            scan_of(first).collective_warnings = std::move(warnings);
        incomplete_ = std::move(found.incomplete);
        std::vector<std::vector<uint32_t>> nodes_of_rank =
            learn_every_location(exchange, std::move(rank_tree));
        for (uint32_t loc = share_.first; loc < share_.last; ++loc)
            for (uint32_t& node : m_.callpath_nodes[loc])
                node = nodes_of_rank[exchange.rank()][node];
        for (size_t k = 0; k < m_.collectives.size(); ++k)
            for (size_t member = 0; member < m_.member_calls[k].size(); ++member) {
                CallSummary& call = m_.member_calls[k][member];
                if (call.callpath == kNone) continue;
                call.callpath = nodes_of_rank[owner_of(m_.collectives[k].members[member].location)]
                                             [call.callpath];
                // (Not sent with the end: the call path's region.)
                call.region = m_.calltree[call.callpath].region;
            }
        std::vector<std::vector<uint32_t>>().swap(nodes_of_rank); // (all ranks' trees: let go)
        send_sends_to_receivers(exchange);
        parallel_for(share_.last - share_.first, workers_, [&](size_t k, unsigned) {
            match_receives(share_.first + static_cast<uint32_t>(k));
        });
        number_shared_messages(exchange);
        finish_shared(exchange);
        m_.share = share_;
    }

  private:
    // This rank's locations' call trees merged in location order, into the rank's tree,
    // returned; each location's call path numbers lead into it (Matching::callpath_nodes,
    // until learn_every_location leads them into the trace's tree). The scans' trees go.
    std::vector<CallNode> merge_own_call_trees() {
        std::vector<CallNode> tree;
        CallTreeMerge merge(tree);
        m_.callpath_nodes.assign(trace_.locations.size(), {});
        for (uint32_t loc = share_.first; loc < share_.last; ++loc) {
            m_.callpath_nodes[loc] = merge.add(scan_of(loc).nodes);
            std::vector<CallNode>().swap(scan_of(loc).nodes);
        }
        return tree;
    }

    // Every rank's share, gathered with `more` (what follows the share in each buffer).
    std::vector<Bytes> learn_shares(Exchange& exchange, const Bytes& more) {
        Bytes mine;
        ByteWriter(mine).put(share_);
        mine.insert(mine.end(), more.begin(), more.end());
        m_.shares.clear();
        std::vector<Bytes> all = exchange.all_gather(std::move(mine));
        for (const Bytes& theirs : all)
            m_.shares.push_back(ByteReader(theirs, "shares").get<LocationShare>());
        for (size_t r = 0; r < m_.shares.size(); ++r)
            if ((r == 0 ? 0 : m_.shares[r - 1].last) != m_.shares[r].first ||
                m_.shares[r].first >= m_.shares[r].last)
                throw std::logic_error("trace::Matcher: the ranks' shares are not contiguous");
        if (m_.shares.back().last != trace_.locations.size())
            throw std::logic_error("trace::Matcher: the ranks' shares leave locations out");
        const LocationShare& said = m_.shares[exchange.rank()];
        if (said.first != share_.first || said.last != share_.last)
            throw std::logic_error("trace::Matcher: this rank's share came back changed");
        return all;
    }

    // Each rank's call tree (`tree`: this rank's), each location's scan and collective
    // warnings, to every rank; and each rank's incomplete collectives (those its processes
    // made). The ranks' trees are merged in rank order into the trace's (as the serial
    // matching merges the locations' trees, see CallTreeMerge); returns, per rank, its
    // tree's nodes -> the trace's. The warnings are handed over as they come, in location
    // order (the ranks' shares are runs of locations in rank order): a location's scan
    // warnings, then its process's collectives', as the serial matching hands them.
    std::vector<std::vector<uint32_t>> learn_every_location(Exchange& exchange,
                                                            std::vector<CallNode> tree) {
        Bytes mine;
        ByteWriter out(mine);
        out.put_all(tree);
        for (uint32_t loc = share_.first; loc < share_.last; ++loc) {
            LocationScan& scan = scan_of(loc);
            scan.warnings.write(out);
            scan.collective_warnings.write(out);
            out.put<uint8_t>(scan.time_goes_backwards);
        }
        out.put_all(incomplete_);
        std::vector<Bytes> all = exchange.all_gather(std::move(mine));
        std::vector<std::vector<uint32_t>> nodes_of_rank(all.size());
        for (uint32_t r = 0; r < all.size(); ++r) {
            if (r == exchange.rank()) {
                nodes_of_rank[r] = calltree_.add(tree);
                for (uint32_t loc = share_.first; loc < share_.last; ++loc) {
                    LocationScan& scan = scan_of(loc);
                    scan.warnings.hand_to(warn_);
                    scan.collective_warnings.hand_to(warn_);
                    if (scan.time_goes_backwards) m_.time_goes_backwards = true;
                }
                continue;
            }
            ByteReader in(all[r], "location summaries");
            const auto theirs = in.get_all<CallNode>();
            m_.calltree_nodes_received += theirs.size();
            nodes_of_rank[r] = calltree_.add(theirs);
            for (uint32_t loc = m_.shares[r].first; loc < m_.shares[r].last; ++loc) {
                // (Handed over as they come: the other ranks' locations have no scans here.)
                LocationWarnings scan_warnings, collective_warnings;
                scan_warnings.read(in);
                scan_warnings.hand_to(warn_);
                collective_warnings.read(in);
                collective_warnings.hand_to(warn_);
                if (in.get<uint8_t>() != 0) m_.time_goes_backwards = true;
            }
            const auto incomplete = in.get_all<IncompleteCollective>();
            incomplete_.insert(incomplete_.end(), incomplete.begin(), incomplete.end());
            Bytes().swap(all[r]);
        }
        std::sort(incomplete_.begin(), incomplete_.end(),
                  [](const IncompleteCollective& a, const IncompleteCollective& b) {
                      return a.id < b.id;
                  });
        return nodes_of_rank;
    }

    // Every sender's queues of channels received on another rank, to that rank, with what
    // its receives need of each send.
    void send_sends_to_receivers(Exchange& exchange) {
        std::vector<Bytes> out(exchange.size());
        for (uint32_t loc = share_.first; loc < share_.last; ++loc)
            for (const auto& [channel, queue] : scan_of(loc).queues.all()) {
                if (is_local(channel.receiver)) continue;
                ByteWriter to(out[owner_of(channel.receiver)]);
                to.put(channel);
                to.put_all(queue.sends);
                std::vector<SendSide> sides;
                sides.reserve(queue.sends.size());
                for (const PendingSend& send : queue.sends)
                    sides.push_back(
                        {call_around(trace_, m_, send.send.location, send.send.event),
                         trace_.locations[send.send.location].events[send.send.event].time});
                to.put_all(sides);
            }
        const std::vector<Bytes> in = exchange.all_to_all(std::move(out));
        for (const Bytes& bytes : in) {
            ByteReader from(bytes, "sends");
            while (!from.done()) {
                const auto channel = from.get<Channel>();
                SendQueue& queue = imported_[channel];
                queue.sends = from.get_all<PendingSend>();
                queue.sides = from.get_all<SendSide>();
            }
        }
    }

    struct SharedMessage {
        uint32_t id; // the whole trace's
        MessageMatch match;
        MessageCalls calls;
        uint32_t slot; // in the sender's sends_of
    };

    // Message ids as the serial matching gives them (by receiving location, then posting);
    // the rank of each sender on another rank hears its messages' ids and receive sides.
    void number_shared_messages(Exchange& exchange) {
        const auto nloc = static_cast<uint32_t>(trace_.locations.size());
        Bytes mine;
        ByteWriter out(mine);
        for (uint32_t loc = share_.first; loc < share_.last; ++loc) {
            out.put<uint64_t>(scan_of(loc).matched.size());
            out.put<uint64_t>(scan_of(loc).unmatched_receives);
            scan_of(loc).receive_warnings.write(out);
        }
        std::vector<uint32_t> first_id(nloc + 1, 0);
        uint64_t messages = 0;
        const std::vector<Bytes> all = exchange.all_gather(std::move(mine));
        for (uint32_t r = 0; r < all.size(); ++r) {
            ByteReader in(all[r], "message counts");
            for (uint32_t loc = m_.shares[r].first; loc < m_.shares[r].last; ++loc) {
                messages += in.get<uint64_t>();
                if (messages >= kNone) throw_more_than_numbered(trace_, "matched messages");
                first_id[loc + 1] = static_cast<uint32_t>(messages);
                m_.unmatched_receives += in.get<uint64_t>();
                LocationWarnings warnings;
                warnings.read(in);
                warnings.hand_to(warn_);
            }
        }
        std::vector<SharedMessage> mine_all; // messages with an end here
        std::vector<Bytes> back(exchange.size());
        for (uint32_t loc = share_.first; loc < share_.last; ++loc) {
            uint32_t id = first_id[loc];
            for (const LocationScan::Matched& x : scan_of(loc).matched) {
                const EventRef send = x.send.send;
                const SharedMessage msg{
                    id++, {send, {loc, x.recv_event}, x.posted}, calls_of(loc, x), x.send.slot};
                if (!is_local(send.location)) ByteWriter(back[owner_of(send.location)]).put(msg);
                mine_all.push_back(msg);
            }
            std::vector<LocationScan::Matched>().swap(scan_of(loc).matched);
        }
        for (const auto& [channel, queue] : imported_) taken_.push_back({channel, queue.next});
        imported_.clear();
        for (const Bytes& bytes : exchange.all_to_all(std::move(back))) {
            ByteReader from(bytes, "received messages");
            while (!from.done()) mine_all.push_back(from.get<SharedMessage>());
        }
        std::sort(mine_all.begin(), mine_all.end(),
                  [](const SharedMessage& a, const SharedMessage& b) { return a.id < b.id; });
        m_.messages.reserve(mine_all.size());
        m_.message_calls.reserve(mine_all.size());
        m_.global_message_ids.reserve(mine_all.size());
        for (const SharedMessage& msg : mine_all) {
            const auto id = static_cast<uint32_t>(m_.messages.size());
            m_.messages.push_back(msg.match);
            m_.message_calls.push_back(msg.calls);
            m_.global_message_ids.push_back(msg.id);
            if (is_local(msg.match.recv.location))
                m_.receives_of[msg.match.recv.location].push_back({msg.match.recv.event, id});
            if (is_local(msg.match.send.location))
                m_.sends_of[msg.match.send.location][msg.slot].second = id;
        }
        for (uint32_t loc = share_.first; loc < share_.last; ++loc)
            std::sort(m_.receives_of[loc].begin(), m_.receives_of[loc].end());
    }

    // Sends never received and collectives with members missing, warned about as the serial
    // matching does: the receivers' ranks tell the senders' how far each queue was taken.
    void finish_shared(Exchange& exchange) {
        // (Imported queues were dropped after numbering; how far each was taken went back
        // with it: see taken_.)
        std::vector<Bytes> out(exchange.size());
        for (const auto& [channel, next] : taken_)
            ByteWriter(out[owner_of(channel.sender)]).put(Taken{channel, next});
        for (const Bytes& bytes : exchange.all_to_all(std::move(out))) {
            ByteReader from(bytes, "queues taken");
            while (!from.done()) {
                const auto taken = from.get<Taken>();
                if (SendQueue* queue = scan_of(taken.channel.sender).queues.find(taken.channel))
                    queue->next = taken.next;
            }
        }
        Bytes mine;
        ByteWriter counts(mine);
        for (uint32_t loc = share_.first; loc < share_.last; ++loc) {
            LocationWarnings warnings;
            uint64_t unmatched = 0;
            for (const auto& [channel, queue] : scan_of(loc).queues.all())
                for (size_t k = queue.next; k < queue.sends.size(); ++k) {
                    ++unmatched;
                    const EventRef& send = queue.sends[k].send;
                    warnings.add("unmatched send", where(trace_, send.location, send.event) +
                                                       ": send without a matching receive");
                }
            counts.put(unmatched);
            warnings.write(counts);
        }
        for (const Bytes& bytes : exchange.all_gather(std::move(mine))) {
            ByteReader in(bytes, "unmatched sends");
            while (!in.done()) {
                m_.unmatched_sends += in.get<uint64_t>();
                LocationWarnings warnings;
                warnings.read(in);
                warnings.hand_to(warn_);
            }
        }
        for (const IncompleteCollective& c : incomplete_) warn_incomplete(c.comm, c.missing);
    }

    // Pops, for each receive of `loc` in posting order, the next send of its channel. Each
    // channel has one receiving process, so processes may do this in parallel; the threads
    // of a process are matched together, by the first of its locations, their receives
    // in the order they were posted (by time).
    void match_receives(uint32_t loc) {
        if (threads_ && locations_of_rank_[trace_.defs.locations[loc].rank].size() > 1) {
            if (first_of_process_[loc] == loc) match_process_receives(loc);
            return;
        }
        const auto& events = trace_.locations[loc].events;
        LocationScan& out = scan_of(loc);
        out.matched.reserve(out.posted.size());
        ChannelCache cache;
        for (size_t k = 0; k < out.posted.size(); ++k) {
            // Receives are far apart in the events (pages apart): fetched ahead.
            if (k + 8 < out.posted.size()) __builtin_prefetch(&events[out.posted[k + 8].event]);
            const PostedReceive& p = out.posted[k];
            const Event& e = events[p.event];
            const uint32_t source = world_rank(trace_, e.comm(), e.peer(), loc);
            const uint32_t source_loc =
                source < m_.location_of_rank.size() ? m_.location_of_rank[source] : kNone;
            SendQueue* queue = nullptr;
            if (source_loc != kNone) {
                const Channel channel{source_loc, loc, e.comm(), e.tag()};
                queue = cache.get(channel, [&] { return find_queue(channel); });
            }
            if (!queue || queue->next == queue->sends.size()) {
                ++out.unmatched_receives;
                out.receive_warnings.add("unmatched receive",
                                         where(trace_, loc, p.event) +
                                             ": receive without a matching send");
                continue;
            }
            out.matched.push_back(matched(*queue, p.event, p.posted));
        }
        std::vector<PostedReceive>().swap(out.posted);
    }

    void match_process_receives(uint32_t first) {
        struct Posted {
            Time time;
            uint32_t location;
            PostedReceive receive;
        };
        std::vector<Posted> posted;
        const auto& locations = locations_of_rank_[trace_.defs.locations[first].rank];
        // A receive is posted when its call begins (a blocking one's record is at its end).
        auto call_start = [&](uint32_t loc, uint32_t event) {
            const uint32_t call = m_.frames[loc][event].frame;
            return trace_.locations[loc].events[call == kNone ? event : call].time;
        };
        // Receives completed by another thread than the one that posted them: posted then.
        std::unordered_map<uint64_t, std::pair<uint32_t, uint32_t>> open_posts;
        for (uint32_t loc : locations)
            for (const auto& [request, event] : scan_of(loc).open_posts)
                open_posts[request] = {loc, event};
        std::unordered_map<uint64_t, Time> posted_at; // key: location << 32 | MpiIrecv
        for (uint32_t loc : locations)
            for (const auto& [event, request] : scan_of(loc).posted_elsewhere) {
                auto post = open_posts.find(request);
                if (post == open_posts.end()) continue;
                posted_at[uint64_t{loc} << 32 | event] =
                    call_start(post->second.first, post->second.second);
            }
        for (uint32_t loc : locations) {
            for (const PostedReceive& p : scan_of(loc).posted) {
                Time time = call_start(loc, p.posted);
                if (!posted_at.empty())
                    if (auto at = posted_at.find(uint64_t{loc} << 32 | p.event);
                        at != posted_at.end())
                        time = at->second;
                posted.push_back({time, loc, p});
            }
            std::vector<PostedReceive>().swap(scan_of(loc).posted);
        }
        std::stable_sort(posted.begin(), posted.end(),
                         [](const Posted& a, const Posted& b) { return a.time < b.time; });
        for (const Posted& p : posted) {
            LocationScan& out = scan_of(p.location);
            const Event& e = trace_.locations[p.location].events[p.receive.event];
            const uint32_t source = world_rank(trace_, e.comm(), e.peer(), p.location);
            const uint32_t source_loc =
                source < m_.location_of_rank.size() ? m_.location_of_rank[source] : kNone;
            SendQueue* queue = nullptr;
            if (source_loc != kNone)
                queue = find_queue(Channel{source_loc, first, e.comm(), e.tag()});
            if (!queue || queue->next == queue->sends.size()) {
                ++out.unmatched_receives;
                out.receive_warnings.add("unmatched receive",
                                         where(trace_, p.location, p.receive.event) +
                                             ": receive without a matching send");
                continue;
            }
            out.matched.push_back(matched(*queue, p.receive.event, p.receive.posted));
        }
    }

    // Threads: the k-th collective of a process on a communicator, whichever of its threads
    // made it, is its part of the communicator's k-th collective. Done for all of the
    // process's locations at its first one.
    void process_collectives(uint32_t loc) {
        if (first_of_process_[loc] != loc) return;
        sequence_.restart();
        for (const auto& [location, end] : process_ends(loc)) collective(location, *end);
    }

    // The collective ends of the process whose first location is `first`, in the order the
    // matching takes them: its threads' by time.
    std::vector<ProcessEnd> process_ends(uint32_t first) const {
        const auto& locations = locations_of_rank_[trace_.defs.locations[first].rank];
        std::vector<ProcessEnd> ends;
        for (uint32_t l : locations)
            for (const CollectiveEnd& end : scan_of(l).collective_ends) ends.push_back({l, &end});
        if (locations.size() > 1)
            std::stable_sort(ends.begin(), ends.end(), [](const auto& a, const auto& b) {
                return a.second->time < b.second->time;
            });
        return ends;
    }

    void prefault_in_parallel(const void* data, size_t bytes) const {
        constexpr size_t kChunk = size_t{8} << 20;
        const auto* begin = static_cast<const char*>(data);
        parallel_for((bytes + kChunk - 1) / kChunk, workers_, [&](size_t chunk, unsigned) {
            prefault(begin + chunk * kChunk, std::min(kChunk, bytes - chunk * kChunk));
        });
    }

    // What each end's replay needs of the other, for a receive of `receiver` and its send
    // (from the sender's events, or as the sender's rank sent it: x.side).
    MessageCalls calls_of(uint32_t receiver, const LocationScan::Matched& x) const {
        MessageCalls calls;
        const EventRef send = x.send.send;
        if (x.side) {
            calls.send_call = x.side->call;
            calls.send_time = x.side->time;
        } else {
            calls.send_call = call_around(trace_, m_, send.location, send.event);
            calls.send_time = trace_.locations[send.location].events[send.event].time;
        }
        calls.recv_call = call_around(trace_, m_, receiver, x.recv_event);
        calls.recv_time = trace_.locations[receiver].events[x.recv_event].time;
        calls.recv_post = x.posted == x.recv_event
                              ? calls.recv_call.enter
                              : call_around(trace_, m_, receiver, x.posted).enter;
        return calls;
    }

    // Message ids in order of receiving location, then posting; both ends learn theirs.
    void number_messages() {
        const size_t nloc = trace_.locations.size();
        std::vector<uint32_t> first_id(nloc + 1, 0);
        uint64_t messages = 0;
        for (size_t loc = 0; loc < nloc; ++loc) {
            // Message ids are 32 bits (kNone reserved), as the sends' slots hold them.
            messages += scan_of(loc).matched.size();
            if (messages >= kNone) throw_more_than_numbered(trace_, "matched messages");
            first_id[loc + 1] = static_cast<uint32_t>(messages);
            m_.unmatched_receives += scan_of(loc).unmatched_receives;
            scan_of(loc).receive_warnings.hand_to(warn_);
        }
        // Hundreds of megabytes for large traces: their pages are mapped by all threads
        // before the (then cheap) zeroing.
        m_.messages.reserve(first_id[nloc]);
        m_.message_calls.reserve(first_id[nloc]);
        prefault_in_parallel(m_.messages.data(), first_id[nloc] * sizeof(MessageMatch));
        prefault_in_parallel(m_.message_calls.data(), first_id[nloc] * sizeof(MessageCalls));
        m_.messages.resize(first_id[nloc]);
        m_.message_calls.resize(first_id[nloc]);
        parallel_for(nloc, workers_, [&](size_t loc, unsigned) {
            auto& received = m_.receives_of[loc];
            const auto& matched = scan_of(loc).matched;
            received.reserve(matched.size());
            uint32_t id = first_id[loc];
            const auto receiver = static_cast<uint32_t>(loc);
            for (size_t k = 0; k < matched.size(); ++k) {
                // The sends are in other locations' arrays, at random: fetched ahead.
                if (k + 8 < matched.size()) {
                    const EventRef& ahead = matched[k + 8].send.send;
                    __builtin_prefetch(&trace_.locations[ahead.location].events[ahead.event]);
                    __builtin_prefetch(&m_.frames[ahead.location][ahead.event]);
                }
                const LocationScan::Matched& x = matched[k];
                const EventRef send = x.send.send;
                m_.messages[id] = {send, {receiver, x.recv_event}, x.posted};
                m_.message_calls[id] = calls_of(receiver, x);
                received.push_back({x.recv_event, id});
                // Distinct slots of the senders' lists: no two receivers write the same one.
                m_.sends_of[x.send.send.location][x.send.slot].second = id;
                ++id;
            }
            std::vector<LocationScan::Matched>().swap(scan_of(loc).matched);
            if (!std::is_sorted(received.begin(), received.end()))
                std::sort(received.begin(), received.end());
        });
    }

    void finish() {
        for (const LocationScan& scan : scans_)
            for (const auto& [channel, queue] : scan.queues.all())
                for (size_t k = queue.next; k < queue.sends.size(); ++k) {
                    ++m_.unmatched_sends;
                    const EventRef& send = queue.sends[k].send;
                    warn_.add("unmatched send", where(trace_, send.location, send.event) +
                                                    ": send without a matching receive");
                }
        warn_incomplete_collectives();
    }

    void warn_incomplete_collectives() {
        for (const CollectiveMatch& c : m_.collectives)
            if (const uint64_t missing = missing_members(c); missing > 0)
                warn_incomplete(c.comm, missing);
    }

    void warn_incomplete(Ref comm, uint64_t missing) {
        ++m_.incomplete_collectives;
        warn_.add("incomplete collective", "collective on communicator " + std::to_string(comm) +
                                               ": " + std::to_string(missing) +
                                               " member(s) never reached it (trace cut short?)");
    }

    // The k-th collective of a process on a communicator is the k-th of every member.
    void collective(uint32_t loc, const CollectiveEnd& e) {
        const uint32_t i = e.event;
        if (e.comm >= trace_.defs.communicators.size()) return; // the reader rejects these
        const Communicator& comm = trace_.defs.communicators[e.comm];
        const auto [rank, k] = sequence_.take(ranks_, loc, e);
        if (rank == kNone) {
            warn_outside_communicator(warn_, trace_, loc, i);
            return;
        }
        uint32_t id;
        if (comm.is_self) { // every location has its own MPI_COMM_SELF
            id = static_cast<uint32_t>(m_.collectives.size());
            m_.collectives.push_back({});
            m_.collectives.back().members.resize(1);
        } else {
            auto& list = instances_of_comm_[e.comm];
            if (k == list.size()) {
                list.push_back(static_cast<uint32_t>(m_.collectives.size()));
                m_.collectives.push_back({});
                m_.collectives.back().members.resize(comm.members.size());
            }
            id = list[k];
        }
        CollectiveMatch& c = m_.collectives[id];
        const uint32_t root = collective_root(trace_, loc, e);
        if (c.comm == kNone) {
            c.op = e.op;
            c.comm = e.comm;
            c.root = root;
        } else if (c.op != e.op || c.root != root) {
            warn_collective_mismatch(warn_, trace_, loc, i, k);
        }
        // A member's place is taken once: a process numbers its own ends on a communicator
        // (one per instance, whichever thread made it), distinct processes have distinct
        // world ranks, and these distinct communicator ranks (CommRanks maps each world rank
        // to one); MPI_COMM_SELF's collectives have one member each.
        if (c.members[rank].location != kNone)
            throw std::logic_error("trace::Matcher: a member's place in collective " +
                                   std::to_string(id) + " taken twice");
        c.members[rank] = {loc, i};
        m_.collectives_of[loc].push_back({i, id});
    }

    const Trace& trace_;
    Matching& m_;
    Warnings& warn_;
    const unsigned workers_;
    CommRanks ranks_;
    // Several locations (threads) in some process; then, per location, its process's first
    // location, and per rank its locations in order.
    bool threads_ = false;
    std::vector<uint32_t> first_of_process_;
    std::vector<std::vector<uint32_t>> locations_of_rank_;
    CallTreeMerge calltree_; // the locations' trees into the trace's (Matching::calltree)
    std::vector<std::vector<uint32_t>> instances_of_comm_; // comm -> collective ids in order
    CollectiveSequence sequence_;                          // of the process merged
    // The locations this matcher scans, whose scans it holds (scan_of): the whole trace's,
    // or a rank's share of a shared analysis (complete_shared; every rank's are the
    // matching's `shares`).
    LocationShare share_;
    std::vector<LocationScan> scans_;
    // A shared analysis: the queues of sends other ranks read for receives here (then how
    // far each was taken).
    std::unordered_map<Channel, SendQueue, ChannelHash> imported_;
    struct Taken {
        Channel channel;
        uint64_t next;
    };
    std::vector<Taken> taken_;
    // The incomplete collectives this rank's processes made (then every rank's, by id).
    std::vector<IncompleteCollective> incomplete_;
};

} // namespace

uint32_t world_rank(const Trace& trace, Ref comm, uint32_t rank, uint32_t location) {
    if (comm >= trace.defs.communicators.size() || rank == kNone) return kNone;
    const Communicator& c = trace.defs.communicators[comm];
    if (c.is_self) return rank == 0 ? trace.defs.locations[location].rank : kNone;
    return rank < c.members.size() ? c.members[rank] : kNone;
}

struct Matcher::Impl {
    Matching matching;
    Warnings warnings{matching.warnings};
    MatcherImpl matcher;
    bool shared;
    bool finished = false;
    Impl(const Trace& trace, unsigned threads, LocationShare share, bool shared)
        : matcher(trace, matching, warnings, threads == 0 ? worker_threads() : threads, share),
          shared(shared) {}
};

Matcher::Matcher(const Trace& trace, unsigned threads)
    : impl_(std::make_unique<Impl>(trace, threads, LocationShare{}, false)) {}

Matcher::Matcher(const Trace& trace, LocationShare share, unsigned threads)
    : impl_(std::make_unique<Impl>(trace, threads, share, true)) {}

Matcher::~Matcher() = default;

void Matcher::scan(uint32_t location) {
    impl_->matcher.scan(location);
}

Matching Matcher::finish() {
    if (impl_->finished) throw std::logic_error("trace::Matcher: finish() called twice");
    if (impl_->shared)
        throw std::logic_error("trace::Matcher: a share's matching is finished with the exchange");
    impl_->finished = true;
    impl_->matcher.complete();
    return std::move(impl_->matching);
}

Matching Matcher::finish(Exchange& exchange) {
    if (impl_->finished) throw std::logic_error("trace::Matcher: finish() called twice");
    if (!impl_->shared)
        throw std::logic_error("trace::Matcher: a matching without a share is finished alone");
    impl_->finished = true;
    impl_->matcher.complete_shared(exchange);
    return std::move(impl_->matching);
}

namespace {

uint32_t local_id(const std::vector<uint32_t>& ids, uint32_t global, const char* what) {
    const auto at = std::lower_bound(ids.begin(), ids.end(), global);
    if (at == ids.end() || *at != global)
        throw std::logic_error(std::string(what) + " " + std::to_string(global) +
                               " has no end in this rank's share");
    return static_cast<uint32_t>(at - ids.begin());
}

} // namespace

uint32_t local_message_id(const Matching& matching, uint32_t global) {
    return local_id(matching.global_message_ids, global, "message");
}

uint32_t local_collective_id(const Matching& matching, uint32_t global) {
    return local_id(matching.global_collective_ids, global, "collective");
}

uint32_t member_of(const CollectiveMatch& c, uint32_t location) {
    const auto& m = c.members;
    const auto guess =
        std::lower_bound(m.begin(), m.end(), location, [](const EventRef& member, uint32_t loc) {
            return member.location < loc;
        });
    if (guess != m.end() && guess->location == location)
        return static_cast<uint32_t>(guess - m.begin());
    for (uint32_t k = 0; k < m.size(); ++k) // not in location order
        if (m[k].location == location) return k;
    return kNone;
}

uint32_t members_in_share(const Matching& matching, uint32_t id) {
    uint32_t here = 0;
    for (const EventRef& member : matching.collectives[id].members)
        here += member.location != kNone && member.location >= matching.share.first &&
                member.location < matching.share.last;
    return here;
}

CallSummary collective_call(const Trace& trace, const Matching& matching, EventRef member) {
    CallSummary call = call_around(trace, matching, member.location, member.event);
    const uint32_t enter = matching.frames[member.location][member.event].frame;
    if (enter != kNone)
        collective_records(trace.locations[member.location].events, enter, member.event, call);
    return call;
}

Matching match(const Trace& trace, unsigned threads) {
    if (threads == 0) threads = worker_threads();
    Matcher matcher(trace, threads);
    parallel_for(trace.locations.size(), threads,
                 [&](size_t loc, unsigned) { matcher.scan(static_cast<uint32_t>(loc)); });
    return matcher.finish();
}

std::pair<Trace, Matching> read_and_match(const std::string& path, unsigned threads,
                                          std::ostream* progress) {
    std::pair<Trace, Matching> result;
    std::unique_ptr<Matcher> matcher;
    std::mutex progress_lock;
    size_t done = 0, total = 0, next_line = 0;
    ReadHooks hooks;
    hooks.definitions_read = [&](const Trace& t) {
        matcher = std::make_unique<Matcher>(t, threads);
        total = t.locations.size();
        next_line = total / 10;
    };
    hooks.location_read = [&](const Trace&, uint32_t location) {
        matcher->scan(location);
        if (!progress || total < 20) return;
        const std::lock_guard<std::mutex> lock(progress_lock);
        if (++done < next_line) return;
        *progress << "topolens: read " << done << " of " << total << " locations ("
                  << 100 * done / total << "%)\n";
        next_line = done + total / 10;
    };
    read_trace_into(path, result.first, threads, hooks);
    result.second = matcher->finish();
    clamp_if_backwards(result.first, result.second, threads);
    return result;
}

namespace {

// Each location's weight when locations are shared out: the size of its event file.
std::vector<uint64_t> event_file_sizes(const Trace& trace) {
    const std::filesystem::path anchor(trace.path);
    const std::filesystem::path dir = anchor.parent_path() / anchor.stem();
    std::vector<uint64_t> sizes;
    for (const Location& l : trace.defs.locations) {
        std::error_code error; // a missing file is the reader's to report
        const auto size =
            std::filesystem::file_size(dir / (std::to_string(l.otf2_id) + ".evt"), error);
        sizes.push_back(error ? 0 : size);
    }
    return sizes;
}

// This rank's share scanned anew after its times were clamped (every rank does it too).
Matching rematch_share(const Trace& trace, Exchange& exchange, LocationShare share,
                       unsigned threads) {
    Matcher matcher(trace, share, threads);
    parallel_for(share.last - share.first, threads == 0 ? worker_threads() : threads,
                 [&](size_t k, unsigned) { matcher.scan(share.first + static_cast<uint32_t>(k)); });
    return matcher.finish(exchange);
}

} // namespace

std::pair<Trace, Matching> read_and_match_share(const std::string& path, Exchange& exchange,
                                                unsigned threads) {
    std::pair<Trace, Matching> result;
    std::unique_ptr<Matcher> matcher;
    LocationShare share;
    ReadHooks hooks;
    hooks.choose_share = [&](const Trace& t) {
        std::vector<uint32_t> process;
        for (const Location& l : t.defs.locations) process.push_back(l.rank);
        share = share_locations(process, event_file_sizes(t), exchange.size())[exchange.rank()];
        return share;
    };
    hooks.definitions_read = [&](const Trace& t) {
        matcher = std::make_unique<Matcher>(t, share, threads);
    };
    hooks.location_read = [&](const Trace&, uint32_t location) { matcher->scan(location); };
    // A rank that cannot read its share stops every rank, with its error.
    std::optional<std::string> error;
    try {
        read_trace_into(path, result.first, threads, hooks);
    } catch (const std::exception& e) {
        error = e.what();
    }
    if (const std::optional<std::string> first = exchange.first_error(error))
        throw TraceError(*first);
    result.second = matcher->finish(exchange);
    if (result.second.time_goes_backwards) {
        clamp_times(result.first);
        std::vector<std::string> warnings = std::move(result.second.warnings);
        result.second = rematch_share(result.first, exchange, share, threads);
        result.second.warnings = std::move(warnings);
    }
    return result;
}

bool clamp_times(Trace& trace) {
    bool clamped = false;
    for (LocationEvents& le : trace.locations) {
        Time latest = 0;
        for (Event& e : le.events) {
            if (e.time < latest) {
                e.time = latest;
                clamped = true;
            }
            latest = e.time;
        }
    }
    return clamped;
}

Matching clamp_and_rematch(Trace& trace, std::vector<std::string> warnings, unsigned threads) {
    clamp_times(trace);
    Matching matching = match(trace, threads);
    // The clamped trace's matching has no "time goes backwards" to tell.
    matching.warnings = std::move(warnings);
    return matching;
}

void clamp_if_backwards(Trace& trace, Matching& matching, unsigned threads) {
    if (matching.time_goes_backwards)
        matching = clamp_and_rematch(trace, std::move(matching.warnings), threads);
}

} // namespace topolens::trace
