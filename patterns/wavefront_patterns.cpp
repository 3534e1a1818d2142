// Wavefront from <corner>: the part of Late Sender spent waiting for a pipelined wavefront
// to (re)fill the pipeline on the process grid (Bhatia 2005, the SWEEP3D study), found only
// where the data shows a wave travelling.
//
// The algorithm, per process p with grid coordinates c(p):
//  1. Its message records are cut into blocks: a wavefront process receives from its
//     upstream neighbours, computes, and sends downstream, so a block is a run of receives
//     followed by a run of sends. A new block starts at a receive after a send, at a second
//     message from the same side along an axis, at a receive from the side opposite to one
//     the block received from, and at a send back towards a side the block received from
//     (the corner a sweep reaches last turns round there and starts the reverse sweep).
//  2. Every message gives, along each axis where c(p) and the partner's coordinates differ,
//     the direction the wave travels: a receive from the low side (west, south, bottom) or
//     a send to the high side means +1, the opposite -1; on periodic axes the shorter way
//     round counts. A block has a direction only if its own messages give exactly one along
//     every axis of the grid (of size > 1): none missing, none conflicting. So a halo
//     exchange (both sides of an axis), an exchange with one partner (to and from the same
//     side), an exchange along one axis at a time (the other axes missing), a transpose or a
//     multigrid transfer never has one.
//  3. A block with a direction has a shape: an origin sends only (and lies, along every
//     non-periodic axis, on the side the wave comes from), a relay receives then sends, an
//     end receives only (and lies on the far side along every non-periodic axis).
//  4. Evidence travels with the matched messages, both ways, in rounds over every location
//     before the replay. Round 1: every block's shape and direction. Round 2: a block
//     agrees with its partners when every message it received came from an origin or relay
//     block of its direction and every message it sent went to a relay or end block of its
//     direction (an end also needs a relay among its senders, so that two processes
//     answering each other are not a wave). At the replay, a block is part of a wave when
//     it and all its partners' blocks agree: a wave needs a chain of agreeing blocks, which
//     the pieces a halo exchange is cut into (one iteration's last receive with the next
//     one's sends) do not give.
//  5. A wave block starts a new wave — the pipeline fills — when it is the process's first
//     wave block, its direction differs from the previous wave block's, or other messages
//     came in between. The Late Sender time of its receives, Wrong Order included, is
//     "Wavefront from <corner>", the corner opposite to the direction of travel (+x comes
//     from the west, -y from the north, +z from the bottom). These metrics are a part of
//     Late Sender kept in a tree of their own (root "Wavefront"), so Late Sender and its
//     Wrong Order part stay Scalasca's.
#include "patterns/late_sender.h"
#include "patterns/metric_catalogue.h"
#include "patterns/metric_names.h"
#include "patterns/registry.h"
#include "patterns/wave_corners.h"

#include <algorithm>
#include <array>
#include <mutex>

namespace topolens::patterns {

namespace {

using analysis::Context;
using trace::EventKind;
using trace::kNone;

enum class Shape : uint8_t { None, Origin, Relay, End };

// What one end of a message tells the other about its block.
struct Evidence {
    Shape shape = Shape::None;
    Travel travel{};
};

// One block of a location's message records (step 1), with its direction and shape.
struct Block {
    std::vector<uint32_t> receives, sends; // record indices, ascending
    Travel travel{};
    Shape shape = Shape::None;
};

class WavefrontPatterns : public CataloguedPattern {
  public:
    WavefrontPatterns() : CataloguedPattern(PatternKind::Wavefront) {}
    std::unique_ptr<analysis::Pattern> clone() const override {
        return std::make_unique<WavefrontPatterns>(*this);
    }
    // Its state is per location (or shared by the clones): nothing to merge.
    void merge(analysis::Pattern&) override {}

    void define_metrics(report::Report& r) override {
        axes_ = wave_axes(r);
        metric_of_corner_.clear();
        const MetricEntry& wavefront = *find_catalogue_entry(metric::kWavefront);
        for (const std::string& corner : wavefront_corners(r))
            metric_of_corner_.push_back(
                metric_id(r, metric_definition(wavefront, corner).unique_name));
        if (metric_of_corner_.empty()) return;
        wavefront_ = metric_id(r, metric::kWavefrontRoot);
        blocks_ = std::make_shared<SharedBlocks>();
    }

    void subscribe(analysis::Dispatcher& d) override {
        if (metric_of_corner_.empty()) return;
        // Per message, facts of the messages (analyzer/engine/facts.h): the sending block
        // (for the receiver) and the receiving block (for the sender), round 1; whether each
        // agrees with its partners, round 2.
        using analysis::FactPhase;
        using analysis::MessageEnd;
        sending_ = d.message_facts<Evidence>("wave sending block", MessageEnd::Sender,
                                             FactPhase::round(0));
        receiving_ = d.message_facts<Evidence>("wave receiving block", MessageEnd::Receiver,
                                               FactPhase::round(0));
        sending_agrees_ = d.message_facts<bool>("wave sending block agrees", MessageEnd::Sender,
                                                FactPhase::round(1));
        receiving_agrees_ = d.message_facts<bool>("wave receiving block agrees",
                                                  MessageEnd::Receiver, FactPhase::round(1));
        d.on_prepare(0, [this](Context& c, uint32_t loc) { tell_partners(c, loc); });
        d.on_prepare(1, [this](Context& c, uint32_t loc) { tell_agreement(c, loc); });
        d.on_location_begin([this](Context& c, uint32_t loc) { find_new_waves(c, loc); });
        d.subscribe<LateSenderInstance>(
            [this](Context& c, const LateSenderInstance& ls) { late_sender(c, ls); });
    }

  private:
    // Walks a location's (record, message id) list in record order.
    class MessageCursor {
      public:
        explicit MessageCursor(const std::vector<std::pair<uint32_t, uint32_t>>& list)
            : list_(list) {}
        // The message of `record` (records asked in ascending order), kNone if unmatched.
        uint32_t message_of(uint32_t record) {
            while (next_ < list_.size() && list_[next_].first < record) ++next_;
            return next_ < list_.size() && list_[next_].first == record ? list_[next_].second
                                                                        : kNone;
        }

      private:
        const std::vector<std::pair<uint32_t, uint32_t>>& list_;
        size_t next_ = 0;
    };

    // A block as round 1 cut it: its receives and sends counted in the location's message
    // records, with its shape and direction.
    struct KeptBlock {
        uint32_t receives, sends;
        Shape shape;
        Travel travel;
    };
    // Round 1's blocks of each location, kept for its round 2 and its replay (which then
    // need not look at the events again): a block is a run of its location's message
    // records, its receives, then its sends. Each location reads only its own.
    struct SharedBlocks {
        std::once_flag sized;
        std::vector<std::vector<KeptBlock>> of_location;
    };

    // `found(block)` for each of `loc`'s blocks as round 1 cut them.
    template <class Found> void kept_blocks(const Context& c, uint32_t loc, Found&& found) const {
        const std::vector<uint32_t>& records = c.matching().message_records[loc];
        Block block;
        size_t at = 0;
        for (const KeptBlock& kept : blocks_->of_location[loc]) {
            block.receives.assign(records.begin() + at, records.begin() + at + kept.receives);
            at += kept.receives;
            block.sends.assign(records.begin() + at, records.begin() + at + kept.sends);
            at += kept.sends;
            block.shape = kept.shape;
            block.travel = kept.travel;
            found(block);
        }
    }

    // A receive record and the metric index of the corner of the wave it starts (-1: none).
    struct StepOfReceive {
        uint32_t record;
        int corner;
    };

    // Step 4, before the replay: every message of `loc` carries its block's shape and
    // direction to the other end.
    void tell_partners(Context& c, uint32_t loc) {
        SharedBlocks& blocks = *blocks_;
        std::call_once(blocks.sized,
                       [&] { blocks.of_location.resize(c.trace().locations.size()); });
        MessageCursor sends(c.matching().sends_of[loc]), receives(c.matching().receives_of[loc]);
        std::vector<KeptBlock>& kept = blocks.of_location[loc];
        cut_blocks(c, loc, [&](const Block& block) {
            kept.push_back({static_cast<uint32_t>(block.receives.size()),
                            static_cast<uint32_t>(block.sends.size()), block.shape, block.travel});
            if (block.shape == Shape::None) return;
            const Evidence mine{block.shape, block.travel};
            for (uint32_t record : block.sends)
                if (const uint32_t id = sends.message_of(record); id != kNone)
                    sending_.set(id, mine);
            for (uint32_t record : block.receives)
                if (const uint32_t id = receives.message_of(record); id != kNone)
                    receiving_.set(id, mine);
        });
    }

    // Does `block` agree with its partners' blocks (step 4, round 2)?
    bool agrees(const Block& block, MessageCursor& receives, MessageCursor& sends) const {
        if (block.shape == Shape::None) return false;
        bool relayed = false;
        for (uint32_t record : block.receives) {
            const uint32_t id = receives.message_of(record);
            if (id == kNone) return false;
            const Evidence& from = sending_.get(id);
            if (from.travel != block.travel ||
                (from.shape != Shape::Origin && from.shape != Shape::Relay))
                return false;
            relayed = relayed || from.shape == Shape::Relay;
        }
        for (uint32_t record : block.sends) {
            const uint32_t id = sends.message_of(record);
            if (id == kNone) return false;
            const Evidence& to = receiving_.get(id);
            if (to.travel != block.travel || (to.shape != Shape::Relay && to.shape != Shape::End))
                return false;
        }
        return block.shape != Shape::End || relayed;
    }

    // Round 2: whether each block of `loc` agrees, told to the other end of its messages.
    void tell_agreement(Context& c, uint32_t loc) {
        MessageCursor sends(c.matching().sends_of[loc]), receives(c.matching().receives_of[loc]);
        MessageCursor sent(c.matching().sends_of[loc]), received(c.matching().receives_of[loc]);
        kept_blocks(c, loc, [&](const Block& block) {
            if (!agrees(block, receives, sends)) return;
            for (uint32_t record : block.sends) sending_agrees_.set(sent.message_of(record), true);
            for (uint32_t record : block.receives)
                receiving_agrees_.set(received.message_of(record), true);
        });
    }

    // Steps 4 and 5 at the location's replay.
    void find_new_waves(Context& c, uint32_t loc) {
        receives_.clear();
        next_ = 0;
        MessageCursor sends(c.matching().sends_of[loc]), receives(c.matching().receives_of[loc]);
        MessageCursor sent(c.matching().sends_of[loc]), received(c.matching().receives_of[loc]);
        bool waved = false, interrupted = false;
        Travel previous{};
        kept_blocks(c, loc, [&](const Block& block) {
            bool wave = agrees(block, receives, sends);
            for (uint32_t record : block.receives)
                wave = wave && sending_agrees_.get(received.message_of(record));
            for (uint32_t record : block.sends)
                wave = wave && receiving_agrees_.get(sent.message_of(record));
            if (!wave) {
                interrupted = true;
                return;
            }
            const bool starts = !waved || interrupted || block.travel != previous;
            const int corner = starts ? corner_index(block.travel, axes_) : -1;
            for (uint32_t record : block.receives) receives_.push_back({record, corner});
            waved = true;
            interrupted = false;
            previous = block.travel;
        });
    }

    // Steps 1-3 over `loc`'s own message records; `found(block)` for each block in order.
    template <class Found> void cut_blocks(const Context& c, uint32_t loc, Found&& found) const {
        const report::CartTopology& grid = *c.grid();
        if (loc >= grid.coords.size() || grid.coords[loc].size() != grid.sizes.size()) return;
        const std::vector<uint32_t>& mine = grid.coords[loc];
        const auto& events = c.trace().locations[loc].events;

        // Per axis, what the block's receives / sends gave: 0 nothing, +1, -1, kConflict.
        constexpr int kConflict = 2;
        std::array<int, kMaxWaveAxes> received{}, sent{};
        bool foreign = false; // a message with a process outside the grid
        Block block;
        auto close_block = [&] {
            if (block.receives.empty() && block.sends.empty()) return;
            block.shape = foreign ? Shape::None : shape_of(grid, mine, received, sent, block);
            found(block);
            block.receives.clear();
            block.sends.clear();
            block.travel = {};
            received = {};
            sent = {};
            foreign = false;
        };
        auto merge = [](int& seen, int travel) {
            if (travel != 0) seen = seen == 0 || seen == travel ? travel : kConflict;
        };
        const std::vector<uint32_t>& records = c.matching().message_records[loc];
        for (size_t k = 0; k < records.size(); ++k) {
            // The records are pages apart in the events: fetched ahead.
            if (k + 8 < records.size()) __builtin_prefetch(&events[records[k + 8]]);
            const uint32_t i = records[k];
            const trace::Event& e = events[i];
            const bool is_send = e.kind == EventKind::MpiSend || e.kind == EventKind::MpiIsend;
            const uint32_t partner = partner_location(c, e, loc);
            const bool in_grid = partner != kNone && partner < grid.coords.size() &&
                                 grid.coords[partner].size() == mine.size();
            std::array<int, kMaxWaveAxes> travel{};
            if (in_grid)
                for (size_t a : axes_) {
                    // Received from the low side, or sent to the high side: the wave goes up.
                    const int from = direction(mine[a], grid.coords[partner][a], grid.sizes[a],
                                               grid.periodic[a]);
                    travel[a] = is_send ? -from : from;
                }
            const auto& seen = is_send ? sent : received;
            bool starts = is_send ? false : !block.sends.empty(); // a receive after a send
            for (size_t a : axes_) {
                if (travel[a] == 0) continue;
                starts = starts || seen[a] == travel[a]; // a second message from that side
                // A receive from the other side, or a send back where a receive came from.
                starts = starts || received[a] == -travel[a];
            }
            if (starts) close_block();
            for (size_t a : axes_) merge(is_send ? sent[a] : received[a], travel[a]);
            (is_send ? block.sends : block.receives).push_back(i);
            foreign = foreign || !in_grid;
        }
        close_block();
    }

    // Steps 2 and 3 for a finished block; sets its direction.
    Shape shape_of(const report::CartTopology& grid, const std::vector<uint32_t>& mine,
                   const std::array<int, kMaxWaveAxes>& received,
                   const std::array<int, kMaxWaveAxes>& sent, Block& block) const {
        const bool receives = !block.receives.empty(), sends = !block.sends.empty();
        const Shape shape = !receives ? Shape::Origin : sends ? Shape::Relay : Shape::End;
        for (size_t a : axes_) {
            const int r = received[a], s = sent[a];
            if (r == 0 && s == 0) return Shape::None;                   // missing
            if (std::abs(r) > 1 || std::abs(s) > 1) return Shape::None; // conflict
            if (r != 0 && s != 0 && r != s) return Shape::None;         // conflict
            const int travel = r != 0 ? r : s;
            block.travel[a] = static_cast<int8_t>(travel);
            if (grid.periodic[a]) continue;
            const uint32_t low_side = 0, high_side = grid.sizes[a] - 1;
            const uint32_t comes_from = travel > 0 ? low_side : high_side;
            const uint32_t goes_to = travel > 0 ? high_side : low_side;
            if (shape == Shape::Origin && mine[a] != comes_from) return Shape::None;
            if (shape == Shape::End && mine[a] != goes_to) return Shape::None;
        }
        return shape;
    }

    // The location at the other end of send or receive record `e`.
    static uint32_t partner_location(const Context& c, const trace::Event& e, uint32_t loc) {
        const uint32_t rank = trace::world_rank(c.trace(), e.comm(), e.peer(), loc);
        return rank == kNone ? kNone : c.location_of_rank(rank);
    }

    // +1: the message came from the low side of the axis (the wave travels up), -1: from
    // the high side, 0: same coordinate.
    static int direction(uint32_t mine, uint32_t theirs, uint32_t size, bool periodic) {
        if (mine == theirs) return 0;
        int64_t diff = static_cast<int64_t>(mine) - static_cast<int64_t>(theirs);
        if (periodic && 2 * std::abs(diff) > static_cast<int64_t>(size))
            diff += diff > 0 ? -static_cast<int64_t>(size) : static_cast<int64_t>(size);
        return diff > 0 ? +1 : -1;
    }

    // Every Late Sender instance of a receive that starts a new wave, Wrong Order or not,
    // counts for the corner the wave comes from: Wrong Order asks another question (would
    // another receive order have waited less?), and in a sweep that takes its upstream
    // faces in a fixed order the refill wait of every other face is Wrong Order.
    void late_sender(Context& c, const LateSenderInstance& ls) {
        const uint32_t record = ls.message.recv_record;
        // Late-sender instances arrive in the order of their receive records.
        while (next_ < receives_.size() && receives_[next_].record < record) ++next_;
        if (next_ == receives_.size() || receives_[next_].record != record) return;
        const int corner = receives_[next_].corner;
        if (corner < 0) return;
        const analysis::CallInfo& call = ls.message.recv_call;
        const double seconds = c.seconds(ls.wait);
        c.add(wavefront_, call.callpath, call.location, seconds);
        c.add(metric_of_corner_[static_cast<size_t>(corner)], call.callpath, call.location,
              seconds);
    }

    std::vector<size_t> axes_;             // the grid's axes of size > 1
    int wavefront_ = -1;                   // the root, inclusive of the corners
    std::vector<int> metric_of_corner_;    // by corner index (bit i: axis i travels -)
    std::shared_ptr<SharedBlocks> blocks_; // shared by the clones of one analysis
    analysis::MessageFacts<Evidence> sending_, receiving_;
    analysis::MessageFacts<bool> sending_agrees_, receiving_agrees_;
    std::vector<StepOfReceive> receives_; // this location's receives, ascending
    size_t next_ = 0;
};

} // namespace

std::unique_ptr<analysis::Pattern> wavefront_patterns() {
    return std::make_unique<WavefrontPatterns>();
}

} // namespace topolens::patterns
