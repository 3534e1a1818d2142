// Message statistics (Scalasca's): how many MPI operations moved no data (syncs) or data
// (comms), and how many bytes they moved (bytes), per call path and location. Rows in
// patterns/metric_catalogue.cpp; what counts where, as Scalasca counts it:
//   point-to-point, at the sender: every MpiSend/MpiIsend record, at its call's call path,
//     received or not; its size decides syncs_send (0 bytes) or comms_send, and adds to
//     bytes_sent;
//   point-to-point, at the receiver: every MpiRecv/MpiIrecv record, at the call path of the
//     call completing the receive, sized by the matching send (the receive's own size when
//     no send matches): syncs_recv or comms_recv, and bytes_rcvd;
//   collectives, at each member: its MpiCollectiveEnd record's bytes sent and received,
//     syncs_coll when both are 0, else comms_cxch (both), comms_csrc (sent only) or
//     comms_cdst (received only); bytes_cout and bytes_cin.
// Each location counts only its own records: a receive learns its send's size from the
// sender's preparation, a fact of the message (analyzer/engine/facts.h).
#include "patterns/metric_catalogue.h"
#include "patterns/metric_names.h"
#include "patterns/registry.h"

#include <array>
#include <memory>
#include <vector>

namespace topolens::patterns {

namespace {

using analysis::Context;
using trace::EventKind;
using trace::kNone;

class MessageStatistics : public CataloguedPattern {
  public:
    MessageStatistics() : CataloguedPattern(PatternKind::Messages) {}
    std::unique_ptr<analysis::Pattern> clone() const override {
        return std::make_unique<MessageStatistics>(*this);
    }
    // Its state is per location (or shared by the clones): nothing to merge.
    void merge(analysis::Pattern&) override {}

    void define_metrics(report::Report& r) override {
        syncs_ = metric_id(r, metric::kSyncs);
        syncs_p2p_ = metric_id(r, metric::kSyncsP2P);
        syncs_send_ = metric_id(r, metric::kSyncsSend);
        syncs_recv_ = metric_id(r, metric::kSyncsRecv);
        syncs_coll_ = metric_id(r, metric::kSyncsColl);
        comms_ = metric_id(r, metric::kComms);
        comms_p2p_ = metric_id(r, metric::kCommsP2P);
        comms_send_ = metric_id(r, metric::kCommsSend);
        comms_recv_ = metric_id(r, metric::kCommsRecv);
        comms_coll_ = metric_id(r, metric::kCommsColl);
        comms_exchange_ = metric_id(r, metric::kCommsExchange);
        comms_source_ = metric_id(r, metric::kCommsSource);
        comms_destination_ = metric_id(r, metric::kCommsDestination);
        bytes_ = metric_id(r, metric::kBytes);
        bytes_p2p_ = metric_id(r, metric::kBytesP2P);
        bytes_sent_ = metric_id(r, metric::kBytesSent);
        bytes_received_ = metric_id(r, metric::kBytesReceived);
        bytes_coll_ = metric_id(r, metric::kBytesColl);
        bytes_out_ = metric_id(r, metric::kBytesOut);
        bytes_in_ = metric_id(r, metric::kBytesIn);
    }

    void subscribe(analysis::Dispatcher& d) override {
        sent_ = d.message_facts<uint64_t>("sent bytes", analysis::MessageEnd::Sender,
                                          analysis::FactPhase::round(0));
        d.on_prepare(0, [this](Context& c, uint32_t loc) { tell_receivers(c, loc); });
        d.on_location_begin([this](Context& c, uint32_t loc) { count(c, loc); });
    }

  private:
    void tell_receivers(Context& c, uint32_t loc) {
        const auto& events = c.trace().locations[loc].events;
        for (const auto& [record, id] : c.matching().sends_of[loc])
            if (id != kNone) sent_.set(id, events[record].bytes);
    }

    // What is counted per call path before it is added: whole numbers, so their sums are
    // exact in any order (as each record's addition was; six additions a record were 3% of
    // the analysis).
    enum Counter : size_t {
        SyncsSend,
        CommsSend,
        BytesSent,
        SyncsRecv,
        CommsRecv,
        BytesReceived,
        SyncsColl,
        CommsExchange,
        CommsSource,
        CommsDestination,
        BytesOut,
        BytesIn,
        kCounters
    };
    using Counts = std::array<uint64_t, kCounters>;

    // Everything is counted from the location's own records before its replay: nothing
    // here depends on the order of events.
    void count(Context& c, uint32_t loc) {
        const trace::Trace& t = c.trace();
        const trace::Matching& m = c.matching();
        const auto& events = t.locations[loc].events;
        // A record's frame names the call path of the call around it (kNone: outside every
        // region, the root call path).
        const trace::LocationFrames& frames = m.frames[loc];
        const std::vector<uint32_t>& nodes = m.callpath_nodes[loc];
        counts_.resize(c.report().callpaths.size());
        counted_.resize(counts_.size());
        const auto counts = [&](uint32_t record) -> Counts& {
            const uint32_t local = frames[record].callpath;
            const uint32_t callpath = c.callpath_of(local == kNone ? kNone : nodes[local]);
            if (!counted_[callpath]) {
                counted_[callpath] = 1;
                touched_.push_back(callpath);
            }
            return counts_[callpath];
        };
        const auto& receives = m.receives_of[loc];
        size_t next_receive = 0;
        for (uint32_t record : m.message_records[loc]) {
            const trace::Event& e = events[record];
            if (e.kind == EventKind::MpiSend || e.kind == EventKind::MpiIsend) {
                point_to_point(counts(record), e.bytes, SyncsSend);
                continue;
            }
            while (next_receive < receives.size() && receives[next_receive].first < record)
                ++next_receive;
            const bool matched =
                next_receive < receives.size() && receives[next_receive].first == record;
            const uint64_t bytes = matched ? sent_.get(receives[next_receive].second) : e.bytes;
            point_to_point(counts(record), bytes, SyncsRecv);
        }
        const auto& requests = t.locations[loc].requests;
        size_t next_request = 0;
        for (const auto& [record, id] : m.collectives_of[loc]) {
            // The model keeps an MpiCollectiveEnd's bytes received beside the event, as a
            // nonblocking record's request.
            while (next_request < requests.size() && requests[next_request].event < record)
                ++next_request;
            const uint64_t received =
                next_request < requests.size() && requests[next_request].event == record
                    ? requests[next_request].request
                    : 0;
            collective(counts(record), events[record].bytes, received);
        }
        for (uint32_t callpath : touched_) {
            add_counts(c, callpath, loc, counts_[callpath]);
            counts_[callpath] = Counts{};
            counted_[callpath] = 0;
        }
        touched_.clear();
    }

    // `syncs`: the direction's SyncsSend or SyncsRecv, followed by its comms and bytes.
    static void point_to_point(Counts& counts, uint64_t bytes, Counter syncs) {
        if (bytes == 0) {
            ++counts[syncs];
            return;
        }
        ++counts[syncs + 1];
        counts[syncs + 2] += bytes;
    }

    static void collective(Counts& counts, uint64_t sent, uint64_t received) {
        if (sent == 0 && received == 0) {
            ++counts[SyncsColl];
            return;
        }
        ++counts[sent != 0 && received != 0 ? CommsExchange
                 : sent != 0                ? CommsSource
                                            : CommsDestination];
        counts[BytesOut] += sent;
        counts[BytesIn] += received;
    }

    void add_counts(Context& c, uint32_t callpath, uint32_t loc, const Counts& n) const {
        auto add = [&](Counter counter, std::initializer_list<int> metrics) {
            add_all(c, callpath, loc, static_cast<double>(n[counter]), metrics);
        };
        add(SyncsSend, {syncs_, syncs_p2p_, syncs_send_});
        add(CommsSend, {comms_, comms_p2p_, comms_send_});
        add(BytesSent, {bytes_, bytes_p2p_, bytes_sent_});
        add(SyncsRecv, {syncs_, syncs_p2p_, syncs_recv_});
        add(CommsRecv, {comms_, comms_p2p_, comms_recv_});
        add(BytesReceived, {bytes_, bytes_p2p_, bytes_received_});
        add(SyncsColl, {syncs_, syncs_coll_});
        add(CommsExchange, {comms_, comms_coll_, comms_exchange_});
        add(CommsSource, {comms_, comms_coll_, comms_source_});
        add(CommsDestination, {comms_, comms_coll_, comms_destination_});
        add(BytesOut, {bytes_, bytes_coll_, bytes_out_});
        add(BytesIn, {bytes_, bytes_coll_, bytes_in_});
    }

    // Values are added metric-inclusive: to the metric and each of its ancestors.
    static void add_all(Context& c, uint32_t callpath, uint32_t loc, double value,
                        std::initializer_list<int> metrics) {
        for (int metric : metrics) c.add(metric, callpath, loc, value);
    }

    int syncs_ = -1, syncs_p2p_ = -1, syncs_send_ = -1, syncs_recv_ = -1, syncs_coll_ = -1;
    int comms_ = -1, comms_p2p_ = -1, comms_send_ = -1, comms_recv_ = -1, comms_coll_ = -1;
    int comms_exchange_ = -1, comms_source_ = -1, comms_destination_ = -1;
    int bytes_ = -1, bytes_p2p_ = -1, bytes_sent_ = -1, bytes_received_ = -1, bytes_coll_ = -1;
    int bytes_out_ = -1, bytes_in_ = -1;
    // The size of each matched message as its send record gives it.
    analysis::MessageFacts<uint64_t> sent_;
    // A location's counts by call path while it is counted (each clone: one thread's), and
    // the call paths that have any, in the order found.
    std::vector<Counts> counts_;
    std::vector<uint8_t> counted_;
    std::vector<uint32_t> touched_;
};

} // namespace

std::unique_ptr<analysis::Pattern> message_statistics() {
    return std::make_unique<MessageStatistics>();
}

} // namespace topolens::patterns
