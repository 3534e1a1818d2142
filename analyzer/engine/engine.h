// The analysis engine: replays each location's events in order and hands patterns what
// they need — region enters/leaves with call paths, matched messages, matched collective
// instances — in the spirit of KOJAK's EXPERT and Scalasca's replay. Patterns may publish
// instances of their own for other patterns (every wait state, for the codelet metrics; every
// Late Sender instance, for the wavefront corners).
//
// Everything a pattern sees about another location travels with a matched message or
// collective (the send call's enter time, the members' enter/leave times, the facts an
// earlier phase left in the engine's tables: analyzer/engine/facts.h), forward or, in the
// backward replay that follows the forward one, against the message's direction, so the
// same pattern code can later run in an MPI-parallel replay, one analyzer rank per group of
// locations.
#pragma once

#include "analyzer/engine/facts.h"
#include "analyzer/engine/grid.h"
#include "analyzer/engine/metric_tree.h"
#include "analyzer/engine/mpi_calls.h"
#include "analyzer/report/report.h"
#include "analyzer/report/report_grid.h"
#include "trace/bytes.h"
#include "trace/exchange.h"
#include "trace/matching.h"
#include "trace/model.h"

#include <algorithm>
#include <functional>
#include <iosfwd>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <typeindex>
#include <typeinfo>
#include <unordered_map>
#include <utility>
#include <vector>

namespace topolens::analysis {

using trace::Time;

// One MPI call on one location, as a pattern sees it.
struct CallInfo {
    uint32_t location = 0;
    uint32_t callpath = 0; // report call path id
    uint32_t region = 0;   // trace (and report) region id
    Time enter = 0;
    Time leave = 0;
    Time exclusive = 0; // leave - enter minus the time in directly nested region instances
                        // and buffer flushes
    // on_region, on_buffer_flush: no region instance that is left is around it.
    bool outermost = false;
};

// A matched point-to-point message, seen from the receiver (on_receive) and from the
// sender (on_send). Times are global ticks.
struct MessageInstance {
    CallInfo send_call; // the call that sent (MPI_Send, MPI_Isend, MPI_Sendrecv, ...)
    CallInfo recv_call; // the call that completed the receive (MPI_Recv, MPI_Wait*, ...)
    // In on_send only: the call that completed the send (the sending call itself for
    // blocking sends, the MPI_Wait* of an MPI_Isend); region trace::kNone if none did.
    CallInfo send_complete;
    Time recv_post = 0;         // enter of the call that posted the receive (Recv, or Irecv)
    Time send_event = 0;        // time of the MpiSend/MpiIsend record
    Time recv_event = 0;        // time of the MpiRecv/MpiIrecv record
    uint32_t id = trace::kNone; // index into Matching::messages
    uint32_t recv_record = trace::kNone; // index of the MpiRecv/MpiIrecv on the receiver
};

// What patterns work out from all members of a collective instance, once for every member's
// replay (each member working it out alone is quadratic in the members), kept by type. The
// replays of an instance's members may run in different threads at once.
class InstanceMemo {
  public:
    template <class T, class Derive> const T& get(Derive&& derive) {
        const std::lock_guard<std::mutex> hold(lock_);
        for (const auto& [type, value] : values_)
            if (type == std::type_index(typeid(T))) return *static_cast<const T*>(value.get());
        auto value = std::make_shared<const T>(derive());
        const T& kept = *value;
        values_.emplace_back(std::type_index(typeid(T)), std::move(value));
        return kept;
    }

  private:
    std::mutex lock_;
    std::vector<std::pair<std::type_index, std::shared_ptr<const void>>> values_;
};

// One collective operation: every member's call, in communicator rank order.
struct CollectiveInstance {
    trace::CollectiveOp op = trace::CollectiveOp::Other;
    uint32_t id = trace::kNone; // index into Matching::collectives
    uint32_t comm = 0;
    int root = -1; // index into members, -1 for rootless operations
    std::vector<CallInfo> members;
    // Over all members, computed once per instance (every member's replay needs them).
    Time latest_enter = 0;
    Time earliest_leave = 0;
    int latest_member = -1; // the member that entered last (the lowest on ties)

    // `derive()`'s T for this instance, worked out by the first member's replay that asks.
    // Copies of an instance share what was derived: derive from the members only.
    template <class T, class Derive> const T& derived(Derive&& derive) const {
        return memo_->get<T>(std::forward<Derive>(derive));
    }

  private:
    std::shared_ptr<InstanceMemo> memo_ = std::make_shared<InstanceMemo>();
};

// A value a location's replay found for another location (a Late Receiver's sender, a
// collective's members).
struct ForeignValue {
    int metric = -1;
    uint32_t callpath = 0, location = 0;
    double value = 0;
};
// Per replayed location, the values it found for others.
using ForeignValues = std::vector<std::vector<ForeignValue>>;

// Severity bookkeeping and shared facts for patterns during one analysis.
class Context {
  public:
    // `callpaths`: the report's call path of each call tree node (Matching::calltree).
    Context(const trace::Trace& trace, const trace::Matching& matching, report::Report& report,
            std::shared_ptr<const std::vector<uint32_t>> callpaths);
    const trace::Trace& trace() const { return trace_; }
    // The report's call path of a call tree node (trace::CallSummary::callpath); the root
    // call path 0 for kNone (a record outside every region).
    uint32_t callpath_of(uint32_t node) const {
        return node == trace::kNone ? 0 : (*node_callpaths_)[node];
    }
    const trace::Matching& matching() const { return matching_; }
    // What kind of MPI call each region is.
    const MpiCallKinds& mpi_kinds() const { return *kinds_; }
    // The location that does the MPI of world rank `rank` (its process's first location),
    // or trace::kNone.
    uint32_t location_of_rank(uint32_t rank) const {
        return rank < location_of_rank_.size() ? location_of_rank_[rank] : trace::kNone;
    }
    double seconds(Time ticks) const { return static_cast<double>(ticks) / resolution_; }
    // Inclusive severity of `metric` (its value before children are subtracted).
    // The location being replayed is inline (millions of values); any other, out of line.
    void add(int metric, uint32_t callpath, uint32_t location, double value) {
        if (value == 0.0) return;
        if (location != current_) [[unlikely]]
            return add_elsewhere(metric, callpath, location, value);
        const size_t slot = static_cast<size_t>(metric) * callpaths_ + callpath;
        if (local_[slot] == 0.0) touch(slot); // once per slot and location: out of line
        local_[slot] += value;
    }
    // Values for other locations are kept with the replayed location, for add_foreign():
    // added in location order after the replay, every sum is the same bit for bit however
    // the locations were shared out to threads.
    void keep_foreign(ForeignValues* values) { foreign_ = values; }
    void add_foreign(ForeignValues& values);
    // Once per message (per location while replaying one).
    void warn(const std::string& message);
    const std::vector<std::string>& warnings() const { return warnings_; }
    // Parallel to warnings(): the location being replayed when each was given (or kNone).
    const std::vector<uint32_t>& warning_locations() const { return warning_locations_; }
    // In a parallel replay every worker has its own context; they add to the one report
    // under `lock`.
    void share_report(std::mutex* lock) { report_lock_ = lock; }
    report::Report& report() { return report_; }
    // On an analysis shared out to ranks (AnalysisOptions::exchange), in on_finish: every
    // rank's `mine` (its locations' part of a result over all locations), by rank, which is
    // location order; in one process just `mine`. Every rank calls it, as often.
    std::vector<trace::Bytes> gather(trace::Bytes mine);
    void share_out(trace::Exchange* exchange) { exchange_ = exchange; }
    // The process grid the analysis explains wait states with (see analyzer/engine/grid.h), or
    // nullptr; coords are indexed by location.
    const report::CartTopology* grid() const { return report::analysis_grid(report_); }

    // The engine replays one location at a time; its severities are summed in a dense
    // buffer and moved into the report when the location is done.
    void begin_location(uint32_t location);
    void end_location();

  private:
    void add_to_report(int metric, uint32_t callpath, uint32_t location, double value);
    void add_elsewhere(int metric, uint32_t callpath, uint32_t location, double value);
    void touch(size_t slot);

    const trace::Trace& trace_;
    const trace::Matching& matching_;
    std::shared_ptr<const MpiCallKinds> kinds_;
    std::shared_ptr<const std::vector<uint32_t>> node_callpaths_;
    const std::vector<uint32_t>& location_of_rank_;
    report::Report& report_;
    double resolution_;
    uint32_t current_ = trace::kNone;
    ForeignValues* foreign_ = nullptr;
    trace::Exchange* exchange_ = nullptr;
    size_t callpaths_ = 0;
    std::vector<double> local_;   // [metric * callpaths + callpath]
    std::vector<size_t> touched_; // slots of local_ that hold a value
    std::vector<std::string> warnings_;
    std::vector<uint32_t> warning_locations_;
    std::unordered_map<std::string, int> warned_;
    std::mutex* report_lock_ = nullptr;
};

class Dispatcher;
class Pattern;

// One step of the backward replay: one end of a matched message, or one member's part of a
// matched collective instance. Each location visits its steps in reverse event order; at
// each step a pattern first posts what the other end(s) need (a channel's post, see
// Dispatcher::on_backward), then, once the other end(s) posted, reads what they posted (its
// take), as a backward replay
// across processes exchanges it:
//  - against the message: the receive (Receive, at the record that completed it) posts, the
//    send (Send, at the send record) reads;
//  - from the call that completed a send to the call that posted its receive, for a send
//    whose completing call left after the receive was posted (where the sender can have
//    waited for the receiver): SendCompletion posts, ReceiveRequest reads;
//  - among a collective's members: each reads every member's post.
// The steps of one call (MPI_Sendrecv, MPI_Waitall) post together before any of them reads.
struct BackwardStep {
    enum class Kind : uint8_t { Send, Receive, Collective, SendCompletion, ReceiveRequest };
    Kind kind = Kind::Send;
    uint32_t location = 0;
    uint32_t id = 0;     // message id (Matching::messages) or collective id
    uint32_t member = 0; // Collective: the location's index among the instance's members
    // At a take: false when the other end(s) could not post first (a cycle of waits,
    // as clock-condition violations make): the pattern reads nothing of them (the engine
    // warns once).
    bool partners_posted = true;
};

// What the other end(s) of a backward step posted for it, as one channel's post wrote it
// (Dispatcher::on_backward): one payload for a message's step (the receive's for a Send, the
// send completion's for a ReceiveRequest), one per member in member order for a collective's
// (empty where a member posted nothing). None (size 0) when the partners could not post first
// (BackwardStep::partners_posted false). Valid during the take only.
class BackwardPayloads {
  public:
    size_t size() const { return size_; }
    std::span<const std::byte> operator[](size_t end) const;

  private:
    friend class BackwardReplay;
    // Each end's bytes (every channel's section, see backward_replay.cpp), looked up only
    // when a channel reads them.
    using End = std::span<const std::byte> (*)(const void* ends, size_t end);
    BackwardPayloads(End end, const void* ends, size_t size, size_t channel)
        : end_(end), ends_(ends), size_(size), channel_(channel) {}
    End end_;
    const void* ends_;
    size_t size_, channel_;
};

// A table of metrics in tree order (parents first), each row naming the pattern that adds to
// it (patterns/metric_catalogue.h). Before the replay the engine defines, in the table's
// order, the rows a report has of the patterns the analysis runs: a metric's id is its place
// among them, whatever the order of the patterns.
class MetricCatalogue {
  public:
    virtual ~MetricCatalogue() = default;
    // The rows of `patterns` that `report` has (its grid, its regions), in tree order.
    virtual std::vector<MetricDefinition> metrics(const report::Report& report,
                                                  const std::vector<Pattern*>& patterns) const = 0;
};

// A pattern: its metrics are rows of a catalogue; it subscribes to what it needs.
class Pattern {
  public:
    virtual ~Pattern() = default;
    virtual std::string name() const = 0;
    // The catalogue its metrics are rows of; nullptr for a pattern outside every catalogue
    // (a test's), which defines its own metrics in define_metrics.
    virtual const MetricCatalogue* catalogue() const { return nullptr; }
    // Once per analysis, after the engine defined the catalogues' metrics: looks up the ids
    // of the metrics it adds to (by unique name, patterns::metric_id) and sets up what the
    // analysis needs. A pattern outside the catalogue may define a metric of its own here,
    // below the catalogue's.
    virtual void define_metrics(report::Report& report) = 0;
    virtual void subscribe(Dispatcher& dispatcher) = 0;
    // Whether subscribe() registers backward-replay callbacks (Dispatcher::on_backward). With
    // two threads or more such patterns replay forward first, then backward while the
    // others replay forward (they need nothing of the backward replay); they must come
    // after the others in an analysis's list for that, else all replay forward together.
    virtual bool replays_backward() const { return false; }
    // A fresh instance: what define_metrics set up (metric ids, objects the clones of one
    // analysis share) but nothing gathered in a replay. Every analysis runs on clones of
    // the patterns it is given (which stay untouched), and a parallel replay (groups of
    // locations in threads) gives each further worker a clone of those. nullptr marks a
    // serial-only pattern: it is used itself and keeps the replay in one thread.
    virtual std::unique_ptr<Pattern> clone() const = 0;
    // After the workers: takes over what `worker` (a clone of this pattern) gathered for
    // on_finish, before on_finish runs. A pattern whose state is per location only merges
    // nothing, and says so.
    virtual void merge(Pattern& worker) = 0;
};

// Who gets what during the replay. Callbacks run in event order per location.
class Dispatcher {
  public:
    using EnterLeave = std::function<void(Context&, const CallInfo&)>;
    using Message = std::function<void(Context&, const MessageInstance&)>;
    using Collective = std::function<void(Context&, const CollectiveInstance&, size_t member)>;
    using LocationDone = std::function<void(Context&, uint32_t location, Time first, Time last)>;
    using LocationBegin = std::function<void(Context&, uint32_t location)>;
    using Finish = std::function<void(Context&)>;

    // Every region instance when it is left (region enter/leave and call path known).
    void on_region(EnterLeave callback) { regions_.push_back(std::move(callback)); }
    // Every buffer flush of the measurement (OTF2 BufferFlush), as a call: enter and leave
    // are the flush's begin and end, callpath the region instance it happened in (0 and
    // outermost when outside every region), region trace::kNone. Its time is not part of
    // that instance's exclusive time, as Scalasca takes a flush for a region of its own.
    void on_buffer_flush(EnterLeave callback) { flushes_.push_back(std::move(callback)); }
    // On the receiver's replay, once per matched message.
    void on_receive(Message callback) { receives_.push_back(std::move(callback)); }
    // On the sender's replay, once per matched message.
    void on_send(Message callback) { sends_.push_back(std::move(callback)); }
    // On each member's replay, when its part of the instance ends.
    void on_collective(Collective callback) { collectives_.push_back(std::move(callback)); }
    // Before any replay, once per location in preparation round `round` (0, 1, ...; every
    // location finishes a round before the next begins; locations in parallel): facts about
    // a location's own events that other locations need, kept in the engine's fact tables
    // (message_facts, location_facts), which an MPI-parallel replay sends along the messages;
    // the other end reads them in a later round or replay.
    void on_prepare(size_t round, LocationBegin callback) {
        if (prepare_.size() <= round) prepare_.resize(round + 1);
        prepare_[round].push_back(std::move(callback));
    }
    size_t preparation_rounds() const { return prepare_.size(); }
    // Before a location's first event: a pattern may look ahead over the location's own
    // events (analysis is post-mortem) to prepare per-location state.
    void on_location_begin(LocationBegin callback) { begin_.push_back(std::move(callback)); }
    // After a location's last event.
    void on_location_done(LocationDone callback) { done_.push_back(std::move(callback)); }
    // After every location, before the report's values are made exclusive: for results
    // that need all locations (the codelet audit).
    void on_finish(Finish callback) { finish_.push_back(std::move(callback)); }

    // The backward replay (after the forward replay and the workers' merge, before
    // on_finish), run only if a pattern subscribes: see BackwardStep. Steps of different
    // locations run in different threads at once (one location in one thread at a time), so
    // post and take see the Context read-only: a pattern keeps what it finds per location,
    // and what one location tells another goes as bytes the engine holds and hands over
    // (an MPI-parallel replay sends them to the rank of the other end), through a channel:
    //  - post: at a step that posts (Receive, SendCompletion, Collective), what the other
    //    end(s) need, written to `payload` (nothing: an empty payload);
    //  - take: at the reading step (Send, ReceiveRequest, Collective), the payloads the
    //    other end(s) posted on this channel. At a message's step it may answer the poster
    //    (`reply`; nullptr at a collective's step);
    //  - reply: after every location's last step, location by location in location order
    //    (in one thread), at each posting step of the location whose reader answered, what
    //    it answered (never empty).
    // The engine keeps each step's payloads until read, then frees them.
    using BackwardPost =
        std::function<void(const Context&, const BackwardStep&, trace::ByteWriter& payload)>;
    using BackwardTake =
        std::function<void(const Context&, const BackwardStep&, const BackwardPayloads& posted,
                           trace::ByteWriter* reply)>;
    using BackwardReply =
        std::function<void(Context&, const BackwardStep&, std::span<const std::byte> reply)>;
    // A channel that posts and reads at some messages and collectives only says which
    // (`needs`): asked once per message with kind Receive (its Receive and Send steps) and,
    // where the send completed after its receive was posted, with kind SendCompletion (its
    // SendCompletion and ReceiveRequest steps); once per complete collective with kind
    // Collective (every member's step). The replay visits only the steps some channel needs
    // (a channel without `needs` needs every step), so a cycle of waits is one among those.
    // The answer must be the same at both ends of a message (an MPI-parallel replay asks on
    // each end's rank): from facts both ends have (message_facts), not one end's state.
    using BackwardNeeds = std::function<bool(BackwardStep::Kind kind, uint32_t id)>;
    void on_backward(BackwardPost post, BackwardTake take, BackwardReply reply = nullptr,
                     BackwardNeeds needs = nullptr) {
        backward_.push_back({std::move(post), std::move(take), std::move(reply), std::move(needs)});
    }
    // A take that reads no payloads (it watches the steps).
    using Backward = std::function<void(const Context&, const BackwardStep&)>;
    void on_backward_take(Backward callback) {
        on_backward(nullptr,
                    [callback = std::move(callback)](const Context& c, const BackwardStep& step,
                                                     const BackwardPayloads&,
                                                     trace::ByteWriter*) { callback(c, step); });
    }
    // Before any location's first backward step, location by location; after every
    // location's last (and its replies), in location order (in one thread, both).
    void on_backward_begin(LocationBegin callback) {
        backward_begin_.push_back(std::move(callback));
    }
    void on_backward_done(LocationBegin callback) { backward_done_.push_back(std::move(callback)); }
    bool replays_backward() const { return !backward_.empty(); }

    // After the replays, before on_finish: facts of single locations that results over all
    // locations need (sums over them, a wait graph). `write` runs for each location the
    // analysis replays (in an MPI-parallel one: the rank's own), in location order; then
    // `read` runs for every location of the trace in location order, reading what `write`
    // wrote for it (an MPI-parallel analysis gathers the bytes from every rank).
    using LocationWrite =
        std::function<void(const Context&, uint32_t location, trace::ByteWriter&)>;
    using LocationRead = std::function<void(Context&, uint32_t location, trace::ByteReader&)>;
    void on_gather(LocationWrite write, LocationRead read) {
        gathers_.push_back({std::move(write), std::move(read)});
    }

    // Facts for other locations (analyzer/engine/facts.h), declared in subscribe(): a table
    // of one T per message, which `writer` sets in `phase` and the other end gets in a later
    // phase; a table of one T per location, which each location sets for itself in `phase`
    // and any location gets later. A pattern's clones declaring a table by the same name
    // share it.
    template <typename T>
    MessageFacts<T> message_facts(const std::string& name, MessageEnd writer, FactPhase phase) {
        return store().message<T>(pattern_, name, writer, phase);
    }
    template <typename T>
    LocationFacts<T> location_facts(const std::string& name, FactPhase phase) {
        return store().location<T>(pattern_, name, phase);
    }
    // The engine: the analysis's tables, and the pattern (its place in the analysis's list)
    // that subscribes next.
    void keep_facts(FactStore* store, size_t pattern) {
        facts_ = store;
        pattern_ = pattern;
    }

    // Pattern-defined instances: publish<T>(ctx, instance) reaches every subscribe<T>.
    template <typename T> void subscribe(std::function<void(Context&, const T&)> callback) {
        auto found = std::find_if(custom_.begin(), custom_.end(), [](const auto& entry) {
            return entry.first == std::type_index(typeid(T));
        });
        if (found == custom_.end())
            found = custom_.insert(custom_.end(), {std::type_index(typeid(T)), {}});
        found->second.push_back(
            [callback](Context& c, const void* p) { callback(c, *static_cast<const T*>(p)); });
    }
    template <typename T> void publish(Context& context, const T& instance) const {
        for (const auto& [type, callbacks] : custom_)
            if (type == std::type_index(typeid(T)))
                for (const auto& callback : callbacks) callback(context, &instance);
    }

  private:
    friend class Replay;
    friend class BackwardReplay;
    FactStore& store() const;
    FactStore* facts_ = nullptr;
    size_t pattern_ = 0;
    friend void gather_locations(const Dispatcher&, Context&);
    struct BackwardChannel {
        BackwardPost post;
        BackwardTake take;
        BackwardReply reply;
        BackwardNeeds needs;
    };
    struct Gather {
        LocationWrite write;
        LocationRead read;
    };
    std::vector<BackwardChannel> backward_;
    std::vector<LocationBegin> backward_begin_, backward_done_;
    std::vector<Gather> gathers_;
    std::vector<EnterLeave> regions_, flushes_;
    std::vector<Message> receives_, sends_;
    std::vector<Collective> collectives_;
    std::vector<LocationDone> done_;
    std::vector<std::vector<LocationBegin>> prepare_; // by round
    std::vector<LocationBegin> begin_;
    std::vector<Finish> finish_;
    // By instance type: a few types, looked up at every instance published (a hash of the
    // type's name each time cost more than comparing a few types).
    std::vector<std::pair<std::type_index, std::vector<std::function<void(Context&, const void*)>>>>
        custom_;
};

struct AnalysisOptions {
    std::ostream* progress = nullptr; // progress lines for long runs, if set
    // `--cart`: used when the trace records no topology that covers every process.
    std::optional<CartDeclaration> declared_grid;
    // Threads matching and replaying locations (0: trace::worker_threads()). The replay
    // stays in one thread if a pattern cannot be cloned. Results do not depend on the number.
    unsigned threads = 0;
    // Threads of the backward replay, at most `threads`. One by default: its locations go
    // on for a few steps between waits, and two threads taking turns were slower than one
    // (docs/performance.md). Results do not depend on the number either.
    unsigned backward_threads = 1;
    // An analysis shared out to ranks (trace::read_and_match_share): the matching is this
    // rank's share, whose locations this rank replays; what patterns need of other ranks'
    // locations travels through `exchange`. Each rank's report then keeps its own locations'
    // values (report::Report::keep_locations), as the analysis of the whole trace gives
    // them, bit for bit; write_cube4_gathered (gathered_report.h) writes the whole report
    // from them. Every rank must call analyze (it is collective).
    trace::Exchange* exchange = nullptr;
};

// Wall-clock seconds of analyze()'s phases, where its time goes (analysis_bench prints them).
struct AnalysisPhases {
    double setup = 0;       // definitions, grid, metrics, patterns' clones
    double preparation = 0; // the preparation rounds
    double replay = 0;      // the forward replay (of the patterns that replay backward only,
                            // when the others replay beside the backward replay)
    double backward = 0;    // the merge of the threads' results and the backward replay
                            // (and beside it, then, the others' forward replay)
    double finish = 0;      // results over all locations, values made exclusive
};

struct AnalysisResult {
    report::Report report;
    std::vector<std::string> warnings;
    uint64_t events = 0;
    AnalysisPhases phases;
};

// Runs `patterns` over `trace`. The report holds the trace's definitions (regions, call
// tree, locations, topologies), the grid used (attributes topolens.grid, topolens.grid_source,
// topolens.grid_explanation; a declared or inferred grid is the first topology) and the
// patterns' severities, exclusive in both trees. Throws GridError for a declaration that
// does not fit the trace.
AnalysisResult analyze(const trace::Trace& trace,
                       const std::vector<std::unique_ptr<Pattern>>& patterns,
                       const AnalysisOptions& options = {});

// The same with the trace's matching at hand (trace::read_and_match).
AnalysisResult analyze(const trace::Trace& trace, const trace::Matching& matching,
                       const std::vector<std::unique_ptr<Pattern>>& patterns,
                       const AnalysisOptions& options = {});

} // namespace topolens::analysis
