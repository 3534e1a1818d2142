// Wavefront from <corner>: the part of Late Sender caused by pipelined wavefronts changing
// direction on the process grid (Bhatia 2005, the SWEEP3D study).
//
// The algorithm, per process p with grid coordinates c(p):
//  1. Its events are cut into blocks: a wavefront process receives from its upstream
//     neighbours, computes, and sends downstream, so a block is a run of receives followed
//     by a run of sends. A receive after a send starts the next block, and so do a
//     second message from the same side along an axis and a send back towards the side a
//     receive of the block came from (the corner a sweep reaches last only receives, the
//     origin only sends: their blocks are told apart this way).
//  2. Every message gives, along each axis where c(p) and the partner's coordinates
//     differ, the direction the wave travels: a receive from the low side (west, south,
//     bottom) or a send to the high side means +1, the opposite -1; on periodic axes the
//     shorter way round counts. Conflicting messages (a halo exchange) leave the axis
//     undecided.
//  3. An axis a block exchanged nothing along: on the low boundary of a non-periodic axis
//     waves start (+1), on the high boundary they end (-1); otherwise the axis keeps the
//     previous block's direction.
//  4. A block whose direction differs from the previous block's — or the first block — is
//     a change of pipeline direction: a new wave, coming from the corner opposite to its
//     travel (+x from the west, -y from the north, ...). The Late Sender time of the
//     block's receives, when its direction is decided along every axis of the grid (axes
//     of size 1 do not count), becomes "Wavefront from <corner>".
// Only the process's own send/receive records and the grid's definition are used, so the
// look-ahead over a block stays within the process, as a parallel replay needs.
#include "analyzer/metric_tree.h"
#include "patterns/late_sender.h"
#include "patterns/metric_names.h"
#include "patterns/registry.h"

#include <algorithm>
#include <array>

namespace topolens::patterns {

namespace {

using analysis::Context;
using trace::EventKind;
using trace::kNone;

constexpr size_t kMaxAxes = 3; // 1D, 2D and 3D grids

// "SW", "NE-top", "W": the corner a wave travelling in `travel` comes from.
std::string corner_name(const std::array<int, kMaxAxes>& travel) {
    std::string name;
    if (travel[1] != 0) name += travel[1] > 0 ? "S" : "N";
    if (travel[0] != 0) name += travel[0] > 0 ? "W" : "E";
    if (travel[2] != 0)
        name += std::string(name.empty() ? "" : "-") + (travel[2] > 0 ? "bottom" : "top");
    return name;
}

std::string unique_name(const std::string& corner) {
    std::string name = "mpi_wavefront_";
    for (char ch : corner) name += ch == '-' ? '_' : static_cast<char>(std::tolower(ch));
    return name;
}

class WavefrontPatterns : public analysis::Pattern {
  public:
    std::string name() const override { return "wavefront"; }
    std::unique_ptr<analysis::Pattern> clone() const override {
        return std::make_unique<WavefrontPatterns>(*this);
    }

    void define_metrics(report::Report& r) override {
        const report::CartTopology* grid = analysis::analysis_grid(r);
        if (!grid || grid->sizes.empty() || grid->sizes.size() > kMaxAxes) return;
        for (size_t a = 0; a < grid->sizes.size(); ++a)
            if (grid->sizes[a] > 1) axes_.push_back(a);
        if (axes_.empty()) return;
        // Every corner of the grid, in the order of the axes' signs (+ first).
        const size_t corners = size_t{1} << axes_.size();
        for (size_t k = 0; k < corners; ++k) {
            std::array<int, kMaxAxes> travel{};
            for (size_t i = 0; i < axes_.size(); ++i) travel[axes_[i]] = (k >> i & 1) ? -1 : +1;
            const std::string corner = corner_name(travel);
            metric_of_corner_.push_back(analysis::define_metric(
                r, metric::kLateSender, unique_name(corner), "Wavefront from " + corner,
                "Late Sender time at a change of pipeline direction on the process grid, when "
                "the new wave comes from the " +
                    corner +
                    " corner: waiting for a wavefront "
                    "to refill the pipeline. The corner reached last waits most, the origin "
                    "none."));
        }
    }

    void subscribe(analysis::Dispatcher& d) override {
        if (metric_of_corner_.empty()) return;
        d.on_location_begin([this](Context& c, uint32_t loc) { prepare(c, loc); });
        d.subscribe<LateSenderInstance>(
            [this](Context& c, const LateSenderInstance& ls) { late_sender(c, ls); });
    }

  private:
    // A receive record and the metric index of its block's corner (-1: no change of
    // direction there, or not decided along every axis).
    struct StepOfReceive {
        uint32_t record;
        int corner;
    };

    int corner_index(const std::array<int, kMaxAxes>& travel) const {
        int index = 0;
        for (size_t i = 0; i < axes_.size(); ++i) {
            const int sign = travel[axes_[i]];
            if (sign == 0) return -1; // undecided along an axis of the grid
            if (sign < 0) index |= 1 << i;
        }
        return index;
    }

    // Steps 1-4 of the algorithm over this location's own records.
    void prepare(Context& c, uint32_t loc) {
        receives_.clear();
        next_ = 0;
        const report::CartTopology& grid = *c.grid();
        if (loc >= grid.coords.size() || grid.coords[loc].size() != grid.sizes.size()) return;
        const std::vector<uint32_t>& mine = grid.coords[loc];
        const trace::Trace& t = c.trace();
        const auto& events = t.locations[loc].events;

        using Travel = std::array<int, kMaxAxes>; // per axis: -1, +1, 0 none, 2 conflict
        Travel previous{}, received{}, sent{};
        bool first = true, sending = false, empty = true;
        std::vector<uint32_t> block_receives;
        auto close_block = [&] {
            if (empty) return;
            Travel travel = previous;
            for (size_t a : axes_) {
                const int r = received[a], s = sent[a];
                const int seen = r == 0 ? s : (s == 0 || s == r ? r : 2);
                if (seen == 1 || seen == -1) {
                    travel[a] = seen;
                } else if (seen == 0 && !grid.periodic[a]) {
                    if (mine[a] == 0)
                        travel[a] = +1;
                    else if (mine[a] + 1 == grid.sizes[a])
                        travel[a] = -1;
                }
            }
            const bool change = first || travel != previous;
            const int corner = change ? corner_index(travel) : -1;
            for (uint32_t record : block_receives) receives_.push_back({record, corner});
            previous = travel;
            first = false;
            block_receives.clear();
            received = {};
            sent = {};
            sending = false;
            empty = true;
        };
        auto merge = [](int& seen, int travel) {
            if (travel != 0) seen = seen == 0 || seen == travel ? travel : 2;
        };
        const std::vector<uint32_t>& records = c.matching().message_records[loc];
        for (size_t k = 0; k < records.size(); ++k) {
            // The records are pages apart in the events: fetched ahead.
            if (k + 8 < records.size()) __builtin_prefetch(&events[records[k + 8]]);
            const uint32_t i = records[k];
            const trace::Event& e = events[i];
            const bool is_send = e.kind == EventKind::MpiSend || e.kind == EventKind::MpiIsend;
            const bool is_receive = !is_send;
            const uint32_t partner = partner_location(c, e, loc);
            Travel travel{};
            if (partner != kNone && partner < grid.coords.size() &&
                grid.coords[partner].size() == mine.size())
                for (size_t a : axes_) {
                    // Received from the low side, or sent to the high side: the wave goes up.
                    const int from = direction(mine[a], grid.coords[partner][a], grid.sizes[a],
                                               grid.periodic[a]);
                    travel[a] = is_receive ? from : -from;
                }
            const Travel& seen = is_receive ? received : sent;
            const bool repeats = std::any_of(axes_.begin(), axes_.end(), [&](size_t a) {
                return travel[a] != 0 && seen[a] == travel[a];
            });
            // A send back towards where this block's messages came from starts a new wave.
            const bool turns = is_send && std::any_of(axes_.begin(), axes_.end(), [&](size_t a) {
                                   return travel[a] != 0 && received[a] == -travel[a];
                               });
            if ((is_receive && sending) || repeats || turns) close_block();
            Travel& into = is_receive ? received : sent;
            for (size_t a : axes_) merge(into[a], travel[a]);
            if (is_receive) block_receives.push_back(i);
            sending = sending || is_send;
            empty = false;
        }
        close_block();
    }

    // The location at the other end of send or receive record `e`.
    static uint32_t partner_location(const Context& c, const trace::Event& e, uint32_t loc) {
        const uint32_t rank = trace::world_rank(c.trace(), e.b, e.a, loc);
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

    void late_sender(Context& c, const LateSenderInstance& ls) {
        const uint32_t record = ls.message.recv_record;
        // Late-sender instances arrive in the order of their receive records.
        while (next_ < receives_.size() && receives_[next_].record < record) ++next_;
        if (next_ == receives_.size() || receives_[next_].record != record) return;
        const int corner = receives_[next_].corner;
        if (corner < 0) return;
        const analysis::CallInfo& call = ls.message.recv_call;
        c.add(metric_of_corner_[static_cast<size_t>(corner)], call.callpath, call.location,
              c.seconds(ls.wait));
        ls.claimed = true;
    }

    std::vector<size_t> axes_;            // the grid's axes of size > 1
    std::vector<int> metric_of_corner_;   // by corner index (bit i: axis i travels -)
    std::vector<StepOfReceive> receives_; // this location's receives, ascending
    size_t next_ = 0;
};

} // namespace

std::unique_ptr<analysis::Pattern> wavefront_patterns() {
    return std::make_unique<WavefrontPatterns>();
}

} // namespace topolens::patterns
