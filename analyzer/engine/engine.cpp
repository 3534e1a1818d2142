#include "analyzer/engine/engine.h"

#include "analyzer/engine/backward_replay.h"
#include "analyzer/engine/metric_tree.h"
#include "analyzer/engine/mpi_calls.h"
#include "trace/location_shares.h"
#include "trace/threads.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <exception>
#include <limits>
#include <optional>
#include <ostream>
#include <span>
#include <stdexcept>
#include <thread>
#include <unordered_map>

namespace topolens::analysis {

using trace::Event;
using trace::EventKind;
using trace::kNone;

// ---------------------------------------------------------------- context

Context::Context(const trace::Trace& trace, const trace::Matching& matching, report::Report& report,
                 std::shared_ptr<const std::vector<uint32_t>> callpaths)
    : trace_(trace), matching_(matching), kinds_(std::make_shared<const MpiCallKinds>(trace)),
      node_callpaths_(std::move(callpaths)), location_of_rank_(matching.location_of_rank),
      report_(report),
      resolution_(static_cast<double>(std::max<uint64_t>(1, trace.defs.timer_resolution))) {}

void Context::add_to_report(int metric, uint32_t callpath, uint32_t location, double value) {
    std::unique_lock<std::mutex> lock;
    if (report_lock_) lock = std::unique_lock<std::mutex>(*report_lock_);
    report_.add_value(metric, static_cast<int>(callpath), static_cast<int>(location), value);
}

void Context::add_elsewhere(int metric, uint32_t callpath, uint32_t location, double value) {
    if (foreign_ && current_ != trace::kNone)
        (*foreign_)[current_].push_back({metric, callpath, location, value});
    else
        add_to_report(metric, callpath, location, value);
}

void Context::touch(size_t slot) {
    touched_.push_back(slot);
}

void Context::add_foreign(ForeignValues& values) {
    for (std::vector<ForeignValue>& found : values) {
        for (const ForeignValue& v : found)
            report_.add_value(v.metric, static_cast<int>(v.callpath), static_cast<int>(v.location),
                              v.value);
        std::vector<ForeignValue>().swap(found);
    }
}

std::vector<trace::Bytes> Context::gather(trace::Bytes mine) {
    if (!exchange_) return {std::move(mine)};
    return exchange_->all_gather(std::move(mine));
}

void Context::begin_location(uint32_t location) {
    warned_.clear(); // once per location: the warnings are merged in location order
    callpaths_ = report_.callpaths.size();
    // All zero after the previous location: end_location() zeroes every slot it touched (a
    // metric x call path array a location: with thousands of call paths, megabytes each).
    if (const size_t slots = report_.metrics.size() * callpaths_; local_.size() != slots)
        local_.assign(slots, 0.0);
    touched_.clear();
    current_ = location;
}

void Context::end_location() {
    std::unique_lock<std::mutex> lock;
    if (report_lock_) lock = std::unique_lock<std::mutex>(*report_lock_);
    for (size_t slot : touched_) {
        // A slot whose values cancelled to exactly zero was touched but holds nothing.
        if (local_[slot] != 0.0)
            report_.add_value(static_cast<int>(slot / callpaths_),
                              static_cast<int>(slot % callpaths_), static_cast<int>(current_),
                              local_[slot]);
        local_[slot] = 0.0;
    }
    touched_.clear();
    current_ = trace::kNone;
}

void Context::warn(const std::string& message) {
    if (++warned_[message] == 1) {
        warnings_.push_back(message);
        warning_locations_.push_back(current_);
    }
}

// ---------------------------------------------------------------- dispatcher

FactStore& Dispatcher::store() const {
    if (!facts_)
        throw std::logic_error(
            "fact tables are declared in a pattern's subscribe(), in an analysis");
    return *facts_;
}

// ---------------------------------------------------------------- report skeleton

namespace {

// CUBE's words for a region's paradigm and role (its region attributes), not the trace's.
const char* paradigm_word(trace::Paradigm paradigm) {
    switch (paradigm) {
    case trace::Paradigm::Mpi:
        return "mpi";
    case trace::Paradigm::User:
        return "user";
    case trace::Paradigm::Measurement:
        return "measurement";
    case trace::Paradigm::Unknown:
        return "unknown";
    case trace::Paradigm::Other:
        break;
    }
    return "unknown";
}

const char* role_word(trace::RegionRole role) {
    switch (role) {
    case trace::RegionRole::Function:
        return "function";
    case trace::RegionRole::PointToPoint:
        return "point2point";
    case trace::RegionRole::CollOneToAll:
        return "one2all";
    case trace::RegionRole::CollAllToOne:
        return "all2one";
    case trace::RegionRole::CollAllToAll:
        return "all2all";
    case trace::RegionRole::Barrier:
        return "barrier";
    case trace::RegionRole::CollOther:
        return "other collective";
    case trace::RegionRole::Artificial:
        return "artificial";
    case trace::RegionRole::Other:
        break;
    }
    return "unknown";
}

// The report's call tree has one root, so that time a process spends outside every
// recorded region has a place: the program region where the trace has one (the whole run,
// as Score-P records it, so the root's own time is the program's time between its calls),
// else an artificial root region of this name (application code between MPI calls has no
// region: it is Outside regions).
constexpr const char* kRootRegion = "program";

// Returns the report's call path of each call tree node.
std::vector<uint32_t> fill_definitions(const trace::Trace& trace, const trace::Matching& matching,
                                       report::Report& report) {
    for (const trace::Region& r : trace.defs.regions) {
        report::Region region;
        region.name = r.name;
        region.canonical_name = r.canonical_name;
        region.description = r.description;
        region.source_file = r.source_file;
        if (r.begin_line > 0) region.begin_line = static_cast<int>(r.begin_line);
        region.paradigm = r.is_mpi() ? "mpi" : paradigm_word(r.paradigm);
        region.role = role_word(r.role);
        report.add_region(std::move(region));
    }
    const trace::Ref program = trace.defs.program.region;
    int root_region = static_cast<int>(program);
    if (program == kNone) {
        report::Region root;
        root.name = kRootRegion;
        root.canonical_name = kRootRegion;
        root.description = "the whole run of each process, including time outside recorded regions";
        root_region = report.add_region(std::move(root));
    }
    report.add_callpath(root_region, -1); // call path 0
    // A node's parent comes before it. The program's own node is the root; calls outside it
    // (a thread's, which has no program region) hang below the root too, merged with the
    // program's calls of the same region.
    std::vector<uint32_t> callpaths;
    callpaths.reserve(matching.calltree.size());
    for (const trace::CallNode& node : matching.calltree) {
        if (node.parent == kNone && node.region == program) {
            callpaths.push_back(0);
            continue;
        }
        const int parent = node.parent == kNone ? 0 : static_cast<int>(callpaths[node.parent]);
        callpaths.push_back(
            static_cast<uint32_t>(report.add_callpath(static_cast<int>(node.region), parent)));
    }

    std::vector<int> threads_of_rank;
    for (const trace::Location& l : trace.defs.locations) {
        if (l.rank >= threads_of_rank.size()) threads_of_rank.resize(l.rank + 1, 0);
        report::Location location;
        location.name = l.name;
        location.host = l.host;
        location.process = "MPI Rank " + std::to_string(l.rank);
        location.rank = static_cast<int>(l.rank);
        location.thread = threads_of_rank[l.rank]++;
        report.add_location(std::move(location));
    }

    for (const trace::CartTopology& t : trace.defs.topologies) {
        report::CartTopology topology;
        topology.name = t.name;
        for (const trace::CartDimension& d : t.dims) {
            topology.dim_names.push_back(d.name);
            topology.sizes.push_back(d.size);
            topology.periodic.push_back(d.periodic);
        }
        topology.coords.resize(trace.locations.size());
        for (uint32_t rank = 0; rank < t.coords_by_rank.size(); ++rank) {
            if (t.coords_by_rank[rank].empty()) continue;
            // The process's first location stands for it.
            const uint32_t world = trace::world_rank(trace, t.communicator, rank, 0);
            if (world < matching.location_of_rank.size() &&
                matching.location_of_rank[world] != kNone)
                topology.coords[matching.location_of_rank[world]] = t.coords_by_rank[rank];
        }
        report.topologies.push_back(std::move(topology));
    }
    report.attributes["topolens.trace"] = trace.path;
    if (!trace.defs.creator.empty())
        report.attributes["topolens.trace_creator"] = trace.defs.creator;
    return callpaths;
}

// Records which grid explains the wait states; a declared or inferred one comes first.
void use_grid(GridChoice choice, report::Report& report) {
    report.attributes[report::kGridSourceAttribute] = std::string(grid_source_name(choice.source));
    report.attributes[report::kGridExplanationAttribute] = choice.explanation;
    if (!choice.grid) return;
    report.attributes[report::kGridAttribute] = choice.grid->name;
    if (choice.source != GridSource::Recorded)
        report.topologies.insert(report.topologies.begin(), std::move(*choice.grid));
}

} // namespace

// ---------------------------------------------------------------- replay

namespace {

// A collective instance as the members' replays share it.
struct PendingInstance {
    CollectiveInstance instance;
    bool incomplete = false; // a member never reached it
};

// Every member's replay sees the same instance: it is built by the first member that
// reaches it and dropped after the last, so memory holds only instances in flight. The
// replays of several threads share them (locks striped by instance id).
class SharedCollectives {
  public:
    // Each instance is used by the replays of its members here (an incomplete one is built
    // anew for each anyway).
    explicit SharedCollectives(const trace::Matching& m) : slots_(m.collectives.size()) {
        users_.reserve(m.collectives.size());
        for (uint32_t id = 0; id < m.collectives.size(); ++id)
            users_.push_back(trace::members_in_share(m, id));
    }

    template <class Build> std::shared_ptr<const PendingInstance> use(uint32_t id, Build&& build) {
        const std::lock_guard<std::mutex> lock(locks_[id % kStripes]);
        Slot& slot = slots_[id];
        if (slot.uses == 0) slot.instance = std::make_shared<const PendingInstance>(build());
        std::shared_ptr<const PendingInstance> instance = slot.instance;
        // An incomplete instance is built anew for each member (which warns each time).
        if (++slot.uses == users_[id] || instance->incomplete) slot = Slot{};
        return instance;
    }

  private:
    static constexpr size_t kStripes = 64;
    struct Slot {
        std::shared_ptr<const PendingInstance> instance;
        size_t uses = 0;
    };
    std::vector<Slot> slots_;
    std::vector<uint32_t> users_; // by instance
    std::mutex locks_[kStripes];
};

} // namespace

class Replay {
  public:
    Replay(const trace::Trace& trace, const trace::Matching& matching, const Dispatcher& dispatch,
           Context& context, SharedCollectives& collectives)
        : trace_(trace), m_(matching), d_(dispatch), ctx_(context), instances_(collectives) {}

    // Before any location's replay.
    void prepare(size_t round, uint32_t loc) {
        if (round >= d_.prepare_.size()) return;
        for (const auto& callback : d_.prepare_[round]) callback(ctx_, loc);
    }

    void location(uint32_t loc) {
        // Spans taken once: through the vectors, which the callbacks' writes might alias,
        // each size and data pointer was loaded again at every event.
        const std::span<const Event> events(trace_.locations[loc].events);
        const std::span<const trace::Frame> frames(m_.frames[loc]);
        const std::span<const std::pair<uint32_t, uint32_t>> receives(m_.receives_of[loc]);
        const auto& sends = m_.sends_of[loc];
        const std::span<const std::pair<uint32_t, uint32_t>> collectives(m_.collectives_of[loc]);
        child_time_.clear();
        open_closed_ = 0;
        // Calls are followed only for patterns that see them (the root causes' forward
        // replay, beside the others, has none that do: most of the events are calls).
        const bool calls = !d_.regions_.empty() || !d_.flushes_.empty();
        for (const auto& callback : d_.begin_) callback(ctx_, loc);
        size_t next_receive = 0, next_send = 0, next_collective = 0;
        for (uint32_t i = 0; i < events.size(); ++i) {
            switch (events[i].kind) {
            case EventKind::Enter:
                if (!calls) break;
                child_time_.push_back(0);
                if (frames[i].frame != kNone) ++open_closed_;
                break;
            case EventKind::Leave:
                if (calls) leave(loc, frames[i].frame);
                break;
            case EventKind::BufferFlush:
                if (calls) buffer_flush(loc, i);
                break;
            case EventKind::MpiRecv:
            case EventKind::MpiIrecv:
                if (next_receive < receives.size() && receives[next_receive].first == i) {
                    const MessageInstance msg = message(receives[next_receive++].second);
                    for (const auto& callback : d_.receives_) callback(ctx_, msg);
                }
                break;
            case EventKind::MpiSend:
            case EventKind::MpiIsend:
                if (next_send < sends.size() && sends[next_send].first == i) {
                    prefetch_message_ahead(sends, next_send);
                    const uint32_t completion = m_.send_completions[loc][next_send];
                    const uint32_t id = sends[next_send++].second;
                    if (id == kNone) break; // never received
                    MessageInstance msg = message(id);
                    if (completion != kNone) msg.send_complete = call_around(loc, completion);
                    for (const auto& callback : d_.sends_) callback(ctx_, msg);
                }
                break;
            case EventKind::MpiCollectiveEnd:
                if (next_collective < collectives.size() && collectives[next_collective].first == i)
                    collective(loc, collectives[next_collective++].second);
                break;
            default:
                break;
            }
        }
        const Time first = events.empty() ? 0 : events.front().time;
        const Time last = events.empty() ? 0 : events.back().time;
        for (const auto& callback : d_.done_) callback(ctx_, loc, first, last);
    }

    // After every location: results that need them all.
    void finish() {
        for (const auto& callback : d_.finish_) callback(ctx_);
    }

  private:
    // A send's message is at random among the messages: fetched `kAhead` sends early.
    static constexpr size_t kAhead = 8;

    void prefetch_message_ahead(const std::vector<std::pair<uint32_t, uint32_t>>& sends,
                                size_t next) const {
        if (next + kAhead >= sends.size() || sends[next + kAhead].second == kNone) return;
        const uint32_t id = sends[next + kAhead].second;
        __builtin_prefetch(&m_.messages[id]);
        __builtin_prefetch(&m_.message_calls[id]);
        __builtin_prefetch(reinterpret_cast<const char*>(&m_.message_calls[id]) + 64);
    }

    // A call as patterns see it.
    CallInfo call_info(uint32_t loc, const trace::CallSummary& summary) const {
        CallInfo call;
        call.location = loc;
        if (summary.callpath == kNone) return call; // outside any region: root call path
        call.region = summary.region;
        call.callpath = ctx_.callpath_of(summary.callpath);
        call.enter = summary.enter;
        call.leave = summary.leave;
        return call;
    }

    // The region instance that event `event` of `loc` belongs to (an Enter: its own).
    CallInfo call_around(uint32_t loc, uint32_t event) const {
        return call_info(loc, trace::call_around(trace_, m_, loc, event));
    }

    // The Leave of the region instance entered at `enter` (kNone: an unbalanced leave).
    void leave(uint32_t loc, uint32_t enter) {
        if (enter == kNone) return; // an unbalanced leave, reported by the matching
        CallInfo call = call_around(loc, enter);
        const Time duration = call.leave - call.enter;
        const Time nested = child_time_.empty() ? 0 : child_time_.back();
        if (!child_time_.empty()) child_time_.pop_back();
        if (!child_time_.empty()) child_time_.back() += duration;
        call.exclusive = duration > nested ? duration - nested : 0;
        call.outermost = --open_closed_ == 0;
        for (const auto& callback : d_.regions_) callback(ctx_, call);
    }

    void buffer_flush(uint32_t loc, uint32_t i) {
        const Event& e = trace_.locations[loc].events[i];
        const auto stop = static_cast<Time>(std::max<int64_t>(e.value, 0));
        CallInfo flush;
        flush.location = loc;
        flush.callpath = call_around(loc, i).callpath;
        flush.region = kNone;
        flush.enter = e.time;
        flush.leave = std::max(stop, e.time);
        flush.exclusive = flush.leave - flush.enter;
        flush.outermost = open_closed_ == 0;
        if (!child_time_.empty()) child_time_.back() += flush.exclusive;
        for (const auto& callback : d_.flushes_) callback(ctx_, flush);
    }

    // Everything about the other end was gathered while matching.
    MessageInstance message(uint32_t id) const {
        const trace::MessageMatch& mm = m_.messages[id];
        const trace::MessageCalls& calls = m_.message_calls[id];
        MessageInstance msg;
        msg.send_call = call_info(mm.send.location, calls.send_call);
        msg.recv_call = call_info(mm.recv.location, calls.recv_call);
        msg.recv_post = calls.recv_post;
        msg.send_event = calls.send_time;
        msg.recv_event = calls.recv_time;
        msg.recv_record = mm.recv.event;
        msg.id = id;
        return msg;
    }

    void collective(uint32_t loc, uint32_t id) {
        const trace::CollectiveMatch& c = m_.collectives[id];
        const std::shared_ptr<const PendingInstance> pending =
            instances_.use(id, [&] { return build_instance(c, id); });
        if (pending->incomplete) {
            ctx_.warn("collectives with members missing were left out of the analysis");
            return;
        }
        const uint32_t mine = trace::member_of(c, loc);
        if (mine == kNone) return; // this location's part was ignored (matching)
        for (const auto& callback : d_.collectives_) callback(ctx_, pending->instance, mine);
    }

    // A member's part of the operation (trace::collective_call); found in its events, or,
    // in an analysis shared out to ranks, as the matching brought it from the member's rank.
    CallInfo collective_call(uint32_t id, size_t member) const {
        const trace::EventRef& ref = m_.collectives[id].members[member];
        return call_info(ref.location, m_.member_calls.empty()
                                           ? trace::collective_call(trace_, m_, ref)
                                           : m_.member_calls[id][member]);
    }

    PendingInstance build_instance(const trace::CollectiveMatch& c, uint32_t id) const {
        PendingInstance pending;
        CollectiveInstance& instance = pending.instance;
        instance.op = c.op;
        instance.id = id;
        instance.comm = c.comm;
        instance.members.reserve(c.members.size());
        for (size_t k = 0; k < c.members.size(); ++k) {
            const trace::EventRef& member = c.members[k];
            if (member.location == kNone) {
                pending.incomplete = true;
                return pending;
            }
            if (c.root != kNone && trace_.defs.locations[member.location].rank == c.root)
                instance.root = static_cast<int>(instance.members.size());
            instance.members.push_back(collective_call(id, k));
        }
        instance.latest_enter = 0;
        instance.earliest_leave = std::numeric_limits<Time>::max();
        for (size_t k = 0; k < instance.members.size(); ++k) {
            const CallInfo& member = instance.members[k];
            if (instance.latest_member < 0 || member.enter > instance.latest_enter) {
                instance.latest_enter = member.enter;
                instance.latest_member = static_cast<int>(k);
            }
            instance.earliest_leave = std::min(instance.earliest_leave, member.leave);
        }
        return pending;
    }

    const trace::Trace& trace_;
    const trace::Matching& m_;
    const Dispatcher& d_;
    Context& ctx_;
    SharedCollectives& instances_;
    std::vector<Time> child_time_; // per open region instance: time in nested instances
    // Open region instances that are left later: none around a call makes it outermost (a
    // region never left, such as the program region of a rank that died, is not timed and
    // covers nothing).
    uint32_t open_closed_ = 0;
};

// ---------------------------------------------------------------- analyze

// Dispatcher::on_gather in one process: every location is replayed here, so each gather's
// bytes go from its writes (all of them first, as from the ranks) to its reads.
void gather_locations(const Dispatcher& d, Context& context) {
    const auto nloc = static_cast<uint32_t>(context.trace().locations.size());
    const uint32_t first = std::min(context.matching().share.first, nloc);
    const uint32_t last = std::min(context.matching().share.last, nloc);
    const bool shared = first != 0 || last != nloc;
    std::vector<trace::Bytes> facts(nloc);
    for (const Dispatcher::Gather& gather : d.gathers_) {
        // Written here for the locations replayed here; shared out to ranks, every rank's
        // (in rank order, which is location order) are read by every rank.
        trace::Bytes mine;
        for (uint32_t loc = first; loc < last; ++loc) {
            facts[loc].clear();
            trace::ByteWriter out(facts[loc]);
            gather.write(context, loc, out);
            if (shared) trace::ByteWriter(mine).put_all(std::span<const std::byte>(facts[loc]));
        }
        if (shared) {
            uint32_t loc = 0;
            for (const trace::Bytes& part : context.gather(std::move(mine))) {
                trace::ByteReader in(part, "gathered facts");
                while (!in.done()) facts[loc++] = in.get_all<std::byte>();
            }
            if (loc != nloc) throw std::logic_error("gathered facts of some locations only");
        }
        for (uint32_t loc = 0; loc < nloc; ++loc) {
            trace::ByteReader in(facts[loc], "facts gathered from a location");
            gather.read(context, loc, in);
            if (!in.done())
                throw std::logic_error("a location's gathered facts were not read to the end");
        }
    }
}

namespace {

// Progress lines for long runs: every 10% of the events.
class Progress {
  public:
    Progress(std::ostream* out, uint64_t total) : out_(out), total_(total), next_(total / 10) {}
    void update(uint64_t done) {
        if (!long_run() || done < next_) return;
        *out_ << "topolens: analyzed " << done << " of " << total_ << " events ("
              << (100 * done / total_) << "%)\n";
        next_ = done + total_ / 10;
    }
    // A phase without a count of its own (the backward replay: the forward replay's lines
    // end before it, and it can take as long).
    void phase(const std::string& what) {
        if (long_run()) *out_ << "topolens: " << what << "\n";
    }

  private:
    bool long_run() const { return out_ && total_ >= 1000000; }

    std::ostream* out_;
    uint64_t total_, next_;
};

// The patterns' callbacks in one dispatcher, or in two when the patterns that replay
// backward replay beside the others (see analyze): the others', then theirs.
enum Group : size_t { kForwardOnly = 0, kReplaysBackward = 1, kGroups = 2 };

// One thread of the replay: its own patterns (the analysis's own for the first, clones of
// them for the others), dispatchers and context. Each takes the next location not yet
// replayed.
struct Worker {
    std::vector<Pattern*> patterns;
    std::vector<std::unique_ptr<Pattern>> clones; // owned by the workers after the first
    std::array<Dispatcher, kGroups> groups;       // in one analysis, kForwardOnly has them all
    std::unique_ptr<Context> context;
    std::exception_ptr error;
    uint32_t error_location = 0; // where `error` happened
};

// The workers' warnings in location order (then as found), as a serial replay gives them;
// in an analysis shared out to ranks, every rank's.
void merge_warnings(const std::vector<std::unique_ptr<Worker>>& workers, Context& into,
                    trace::Exchange* exchange) {
    std::vector<std::pair<uint32_t, std::string>> all;
    for (const auto& worker : workers) {
        const Context& c = *worker->context;
        for (size_t k = 0; k < c.warnings().size(); ++k)
            all.push_back({c.warning_locations()[k], c.warnings()[k]});
    }
    if (exchange) {
        trace::Bytes mine;
        trace::ByteWriter out(mine);
        for (const auto& [location, message] : all) {
            out.put(location);
            out.put_string(message);
        }
        all.clear();
        for (const trace::Bytes& theirs : exchange->all_gather(std::move(mine))) {
            trace::ByteReader in(theirs, "warnings");
            while (!in.done()) {
                const auto location = in.get<uint32_t>();
                all.push_back({location, in.get_string()});
            }
        }
    }
    std::stable_sort(all.begin(), all.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [location, message] : all) into.warn(message);
}

// A phase's facts whose readers are on other ranks go there: a message's to the rank of its
// other end (under the whole trace's message id, which both ranks know it by), a location's
// to every other rank.
void publish_to_ranks(FactStore& facts, FactPhase done, const trace::Matching& matching,
                      trace::Exchange& exchange) {
    const trace::LocationShare mine = matching.share;
    std::unordered_map<const FactTable*, uint32_t> index;
    for (uint32_t k = 0; k < facts.tables().size(); ++k) index[facts.tables()[k].get()] = k;
    std::vector<trace::Bytes> out(exchange.size());
    auto send = [&](unsigned rank, uint32_t table, uint32_t key, std::span<const std::byte> bytes) {
        trace::ByteWriter to(out[rank]);
        to.put(table);
        to.put(key);
        to.put_all(bytes);
    };
    facts.publish(
        done, [&](uint32_t loc) { return loc >= mine.first && loc < mine.last; },
        [&](const FactTable& table, uint32_t entry, uint32_t reader) {
            const uint32_t k = index.at(&table);
            if (table.scope() == FactScope::Location) {
                for (unsigned r = 0; r < exchange.size(); ++r)
                    if (r != exchange.rank()) send(r, k, entry, table.bytes(entry));
                return;
            }
            send(trace::rank_holding(matching.shares, reader), k,
                 matching.global_message_ids[entry], table.bytes(entry));
        });
    for (const trace::Bytes& bytes : exchange.all_to_all(std::move(out))) {
        trace::ByteReader in(bytes, "facts");
        while (!in.done()) {
            FactTable& table = *facts.tables().at(in.get<uint32_t>());
            uint32_t entry = in.get<uint32_t>();
            if (table.scope() == FactScope::Message)
                entry = trace::local_message_id(matching, entry);
            const std::vector<std::byte> value = in.get_all<std::byte>();
            const std::span<std::byte> into = table.bytes(entry);
            if (value.size() != into.size())
                throw std::logic_error("fact table '" + table.name() + "': a value of " +
                                       std::to_string(value.size()) + " bytes");
            std::copy(value.begin(), value.end(), into.begin());
        }
    }
}

// Values a rank's replay found for locations of other ranks go to their ranks, kept with
// the location that found them, so that every rank adds them in location order.
void send_foreign_values(ForeignValues& foreign, trace::Exchange& exchange,
                         const trace::Matching& matching) {
    const trace::LocationShare mine = matching.share;
    std::vector<trace::Bytes> out(exchange.size());
    for (uint32_t loc = mine.first; loc < mine.last; ++loc) {
        std::vector<ForeignValue> kept;
        for (const ForeignValue& v : foreign[loc]) {
            if (v.location >= mine.first && v.location < mine.last) {
                kept.push_back(v);
                continue;
            }
            trace::ByteWriter to(out[trace::rank_holding(matching.shares, v.location)]);
            to.put(loc);
            to.put(v);
        }
        foreign[loc] = std::move(kept);
    }
    for (const trace::Bytes& bytes : exchange.all_to_all(std::move(out))) {
        trace::ByteReader in(bytes, "values for other locations");
        while (!in.done()) {
            const auto found_by = in.get<uint32_t>();
            foreign[found_by].push_back(in.get<ForeignValue>());
        }
    }
}

uint64_t sum_over_ranks(trace::Exchange& exchange, uint64_t mine) {
    trace::Bytes bytes;
    trace::ByteWriter(bytes).put(mine);
    uint64_t sum = 0;
    for (const trace::Bytes& theirs : exchange.all_gather(std::move(bytes)))
        sum += trace::ByteReader(theirs, "sum").get<uint64_t>();
    return sum;
}

} // namespace

AnalysisResult analyze(const trace::Trace& trace,
                       const std::vector<std::unique_ptr<Pattern>>& patterns,
                       const AnalysisOptions& options) {
    return analyze(trace, trace::match(trace, options.threads), patterns, options);
}

AnalysisResult analyze(const trace::Trace& trace, const trace::Matching& matching,
                       const std::vector<std::unique_ptr<Pattern>>& patterns,
                       const AnalysisOptions& options) {
    if (matching.time_goes_backwards) {
        // Time going backwards (warned about by the matching): the replay works on a copy
        // with clamped times and its matching, so that no duration wraps around.
        trace::Trace clamped = trace;
        const trace::Matching rematched =
            trace::clamp_and_rematch(clamped, matching.warnings, options.threads);
        return analyze(clamped, rematched, patterns, options);
    }
    AnalysisResult result;
    auto mark = std::chrono::steady_clock::now();
    auto lap = [&mark] { // seconds since the last lap
        const auto now = std::chrono::steady_clock::now();
        const double seconds = std::chrono::duration<double>(now - mark).count();
        mark = now;
        return seconds;
    };
    const unsigned threads = options.threads ? options.threads : trace::worker_threads();
    const auto callpaths = std::make_shared<const std::vector<uint32_t>>(
        fill_definitions(trace, matching, result.report));
    use_grid(choose_grid(trace, matching, options.declared_grid, options.exchange), result.report);
    Context context(trace, matching, result.report, callpaths);
    context.share_out(options.exchange);
    for (const std::string& w : matching.warnings) context.warn(w);
    // The analysis works on its own instances, clones of the patterns given, which stay
    // untouched: one set of patterns serves analysis after analysis. A serial-only pattern
    // (clone() gives nullptr) is used itself and keeps the replay in one thread.
    std::vector<std::unique_ptr<Pattern>> own;
    auto first = std::make_unique<Worker>();
    bool clonable = true;
    for (const auto& pattern : patterns) {
        own.push_back(pattern->clone());
        clonable = clonable && own.back();
        first->patterns.push_back(own.back() ? own.back().get() : pattern.get());
    }
    // The metrics, each catalogue's in its tree order (parents first); then the patterns
    // look up ids.
    std::vector<const MetricCatalogue*> catalogues;
    for (const Pattern* pattern : first->patterns)
        if (const MetricCatalogue* catalogue = pattern->catalogue();
            catalogue &&
            std::find(catalogues.begin(), catalogues.end(), catalogue) == catalogues.end())
            catalogues.push_back(catalogue);
    for (const MetricCatalogue* catalogue : catalogues)
        for (const MetricDefinition& metric : catalogue->metrics(result.report, first->patterns))
            define_metric(result.report, metric);
    for (Pattern* pattern : first->patterns) pattern->define_metrics(result.report);

    const auto nloc = static_cast<uint32_t>(trace.locations.size());
    // The locations replayed here: all, or this rank's share.
    const uint32_t first_loc = std::min(matching.share.first, nloc);
    const uint32_t count = std::min(matching.share.last, nloc) - first_loc;
    trace::Exchange* const exchange = options.exchange;
    // Shared out to ranks, the report keeps this rank's locations: values found for others
    // are copies of what their ranks find (gathered_report.h writes the whole report).
    if (exchange)
        result.report.keep_locations(static_cast<int>(first_loc),
                                     static_cast<int>(first_loc + count));
    const size_t wanted = clonable ? std::clamp<size_t>(count, 1, threads) : 1;
    std::vector<std::unique_ptr<Worker>> workers;
    workers.push_back(std::move(first));
    while (workers.size() < wanted) {
        auto worker = std::make_unique<Worker>();
        for (Pattern* pattern : workers.front()->patterns) {
            worker->clones.push_back(pattern->clone());
            worker->patterns.push_back(worker->clones.back().get());
        }
        workers.push_back(std::move(worker));
    }
    // With two workers or more in one process, the patterns that replay backward (the root
    // causes: most of an analysis's time, in one thread) replay forward first, alone; their
    // backward replay then runs beside the others' forward replay, which needs nothing of
    // it, on the cores it would leave idle. They come last in the patterns' order, so each
    // callback still runs in that order: the values are the same bit for bit (none of
    // theirs reaches the report before on_finish). Shared out to ranks, both run in turn:
    // the exchanges between ranks are made by one thread.
    size_t first_backward = workers.front()->patterns.size();
    for (size_t p = first_backward; p-- > 0 && workers.front()->patterns[p]->replays_backward();)
        first_backward = p;
    const bool beside = workers.size() > 1 && !exchange && first_backward > 0 &&
                        first_backward < workers.front()->patterns.size();
    auto group_of = [&](size_t p) {
        return beside && p >= first_backward ? kReplaysBackward : kForwardOnly;
    };
    std::mutex report_lock;
    ForeignValues foreign(nloc);
    FactStore facts(matching, nloc);
    for (auto& worker : workers) {
        for (size_t p = 0; p < worker->patterns.size(); ++p) {
            Dispatcher& d = worker->groups[group_of(p)];
            const bool backward_before = d.replays_backward();
            d.keep_facts(&facts, p);
            worker->patterns[p]->subscribe(d);
            if (beside && group_of(p) == kForwardOnly && !backward_before && d.replays_backward())
                throw std::logic_error("pattern '" + worker->patterns[p]->name() +
                                       "' subscribes to the backward replay but does not say "
                                       "so (Pattern::replays_backward)");
        }
        worker->context = std::make_unique<Context>(trace, matching, result.report, callpaths);
        worker->context->keep_foreign(&foreign);
        if (workers.size() > 1) worker->context->share_report(&report_lock);
    }

    SharedCollectives collectives(matching);
    uint64_t total = 0;
    for (uint32_t loc = first_loc; loc < first_loc + count; ++loc)
        total += trace.locations[loc].events.size();
    std::atomic<uint64_t> done{0};
    std::atomic<uint32_t> next{0};
    Progress progress(options.progress, total);
    // Each phase runs over every location, the locations shared out to the workers (each
    // takes the next one not yet done): first the rounds of preparation (every group's),
    // then the replay of `group`. `report_progress`: a replay in one thread reports from it;
    // `counted`: its events count as done (the first replay of each location only).
    constexpr size_t kReplay = std::numeric_limits<size_t>::max();
    auto run = [&](Worker& w, size_t round, Group group, bool report_progress, bool counted) {
        const bool preparing = round != kReplay;
        uint32_t loc = 0, index = 0;
        try {
            Replay replay(trace, matching, w.groups[group], *w.context, collectives);
            while ((index = next++) < count) {
                loc = first_loc + index;
                if (preparing) {
                    for (const Dispatcher& d : w.groups) // every group's, in the patterns' order
                        Replay(trace, matching, d, *w.context, collectives).prepare(round, loc);
                    continue;
                }
                w.context->begin_location(loc);
                replay.location(loc);
                w.context->end_location();
                if (!counted) continue;
                done += trace.locations[loc].events.size();
                if (report_progress) progress.update(done);
            }
        } catch (...) {
            w.error = std::current_exception();
            w.error_location = loc;
            next = count; // the others stop too
        }
    };
    // The first `nworkers` workers.
    auto phase = [&](size_t round, Group group, size_t nworkers, bool counted) {
        const bool preparing = round != kReplay;
        next = 0;
        if (nworkers == 1) {
            run(*workers.front(), round, group, counted, counted);
            return;
        }
        std::vector<std::jthread> pool; // joined when left, also when starting one throws
        std::atomic<size_t> finished{0};
        for (size_t k = 0; k < nworkers; ++k)
            pool.emplace_back([&, w = workers[k].get()] {
                run(*w, round, group, false, counted);
                ++finished;
            });
        while (finished < nworkers) {
            std::this_thread::sleep_for(std::chrono::milliseconds(preparing ? 1 : 20));
            if (!preparing && counted) progress.update(done);
        }
        for (std::jthread& t : pool) t.join();
    };
    // After each phase: the error of the lowest location, as a replay in one thread would
    // meet it first; shared out to ranks, every rank stops with the lowest rank's.
    auto stop_if_failed = [&] {
        const Worker* failed = nullptr;
        for (const auto& worker : workers)
            if (worker->error && (!failed || worker->error_location < failed->error_location))
                failed = worker.get();
        if (!exchange) {
            if (failed) std::rethrow_exception(failed->error);
            return;
        }
        std::optional<std::string> mine;
        if (failed) try {
                std::rethrow_exception(failed->error);
            } catch (const std::exception& e) {
                mine = e.what();
            }
        if (const std::optional<std::string> first = exchange->first_error(mine))
            throw std::runtime_error(*first);
    };
    // After a phase, its facts can be read. In one process every location is here: no fact
    // has a reader elsewhere (an MPI-parallel analysis sends them to the readers' ranks).
    auto publish = [&](FactPhase done) {
        if (exchange) return publish_to_ranks(facts, done, matching, *exchange);
        facts.publish(
            done, [](uint32_t) { return true; },
            [](const FactTable& table, uint32_t, uint32_t) {
                throw std::logic_error("fact table '" + table.name() +
                                       "' has a reader outside a one-process analysis");
            });
    };
    // The threads' results of patterns [from, to) taken over by the first worker's.
    auto merge_patterns = [&](size_t from, size_t to) {
        for (size_t w = 1; w < workers.size(); ++w)
            for (size_t p = from; p < to; ++p)
                workers.front()->patterns[p]->merge(*workers[w]->patterns[p]);
    };
    size_t rounds = 0;
    for (const auto& worker : workers)
        for (const Dispatcher& d : worker->groups)
            rounds = std::max(rounds, d.preparation_rounds());
    result.phases.setup = lap();
    for (size_t round = 0; round < rounds; ++round) {
        phase(round, kForwardOnly, workers.size(), false);
        stop_if_failed();
        publish(FactPhase::round(round));
    }
    result.phases.preparation = lap();
    const Group backward_group = beside ? kReplaysBackward : kForwardOnly;
    const size_t npatterns = patterns.size();
    phase(kReplay, backward_group, workers.size(), true);
    stop_if_failed();
    publish(FactPhase::forward_replay());
    result.phases.replay = lap();
    const Dispatcher& backward = workers.front()->groups[backward_group];
    const unsigned backward_threads =
        std::clamp<unsigned>(options.backward_threads, 1, static_cast<unsigned>(workers.size()));
    if (backward.replays_backward()) {
        std::string names;
        for (const auto& pattern : patterns)
            if (pattern->replays_backward()) names += (names.empty() ? "" : ", ") + pattern->name();
        progress.phase("replaying backward: " + names);
    }
    if (beside) {
        merge_patterns(first_backward, npatterns);
        std::exception_ptr others_error, backward_error;
        {
            // The others' forward replay in all workers but one's worth of threads.
            std::jthread others([&] {
                try {
                    phase(kReplay, kForwardOnly, workers.size() - 1, false);
                } catch (...) { // (starting its threads failed)
                    others_error = std::current_exception();
                }
            });
            context.share_report(&report_lock);
            try {
                if (backward.replays_backward())
                    BackwardReplay(trace, matching, backward, context, backward_threads).run();
            } catch (...) {
                backward_error = std::current_exception();
            }
        }
        context.share_report(nullptr);
        if (others_error) std::rethrow_exception(others_error);
        stop_if_failed(); // a forward replay's error first, as an analysis in one thread
        if (backward_error) std::rethrow_exception(backward_error);
        context.add_foreign(foreign);
        merge_warnings(workers, context, exchange);
        merge_patterns(0, first_backward);
    } else {
        if (exchange) send_foreign_values(foreign, *exchange, matching);
        context.add_foreign(foreign);
        merge_warnings(workers, context, exchange);
        merge_patterns(0, npatterns);
        // The backward replay, over the merged patterns (what it needs of the forward
        // replay is kept per location, shared by a pattern's clones).
        if (backward.replays_backward())
            BackwardReplay(trace, matching, backward, context, backward_threads, exchange).run();
    }
    // After every location: results that need them all.
    for (const Dispatcher& d : workers.front()->groups) gather_locations(d, context);
    result.phases.backward = lap();
    for (const Dispatcher& d : workers.front()->groups)
        Replay(trace, matching, d, context, collectives).finish();
    make_metrics_exclusive(result.report);
    if (exchange) total = sum_over_ranks(*exchange, total);
    result.phases.finish = lap();
    result.warnings = context.warnings();
    result.events = total;
    return result;
}

} // namespace topolens::analysis
