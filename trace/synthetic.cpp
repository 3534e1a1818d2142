#include "trace/synthetic.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <span>
#include <stdexcept>

namespace topolens::trace {
namespace {

constexpr uint32_t kWavefrontTagBase = 100;
constexpr uint32_t kPairTag = 1;
constexpr uint32_t kHaloTagBase = 200; // + 2 * axis + (1 when the message travels down)
constexpr uint32_t kPairwiseTag = 300;
constexpr uint32_t kDelayHaloTag = 400;        // delay: the halo block's messages
constexpr uint32_t kDelayChainTag = 401;       // delay: the chain's messages
constexpr std::size_t kWrongOrderBuffer = 100; // Scalasca's: the last 100 LS instances
constexpr uint64_t kFaceBytes = 512;           // 64 doubles, as samples/wavefront2d
constexpr uint64_t kPairBytes = 1024;
constexpr uint64_t kValueBytes = 8;               // one double per collective contribution
constexpr uint64_t kMaxTicks = 1'000'000'000'000; // 1000 s per option at 1 ns
constexpr long double kMaxTraceTicks = 4.0e18L;   // below 2^62: sums cannot overflow

[[noreturn]] void bad(const std::string& message) {
    throw std::invalid_argument(message);
}

std::string grid_text(const std::vector<uint32_t>& grid) {
    std::string s;
    for (uint32_t d : grid) s += (s.empty() ? "" : "x") + std::to_string(d);
    return s;
}

// splitmix64: small and the same everywhere (the std distributions are not), so a seed
// gives the same trace on every platform.
class Random {
  public:
    // Separate streams per purpose: the pairing does not shift the collectives' choices.
    Random(uint64_t seed, uint64_t purpose) : state_(seed ^ (purpose * 0xd1b54a32d192ed03ULL)) {}
    uint64_t next() {
        uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
    // Uniform in [0, n) (multiply-shift; n > 0).
    uint32_t below(uint32_t n) {
        return static_cast<uint32_t>((static_cast<unsigned __int128>(next()) * n) >> 64);
    }

  private:
    uint64_t state_;
};

enum Purpose : uint64_t { kPairing = 1, kCollectives = 2 };

bool has_wavefront(SynthPattern p) {
    return p == SynthPattern::Wavefront || p == SynthPattern::Mixed;
}
bool has_pairs(SynthPattern p) {
    return p == SynthPattern::LateSender || p == SynthPattern::Mixed;
}
bool has_collectives(SynthPattern p) {
    return p == SynthPattern::Collectives || p == SynthPattern::Mixed;
}
bool is_delay(SynthPattern p) {
    return p == SynthPattern::Delay;
}
bool takes_periodic(SynthPattern p) {
    return p == SynthPattern::Halo || p == SynthPattern::Pairwise;
}

char axis_letter(std::size_t axis) {
    return "xyz"[axis];
}

std::string periodic_text(const std::vector<bool>& periodic) {
    std::string s;
    for (std::size_t i = 0; i < periodic.size(); ++i)
        if (periodic[i]) s += axis_letter(i);
    return s.empty() ? "none" : s;
}

// Sender/receiver pairs: a seeded shuffle of the ranks taken two at a time (an odd rank
// out only computes).
std::vector<std::pair<uint32_t, uint32_t>> make_pairs(const SynthOptions& o) {
    std::vector<uint32_t> perm(o.ranks);
    for (uint32_t r = 0; r < o.ranks; ++r) perm[r] = r;
    Random rng(o.seed, kPairing);
    for (uint32_t i = o.ranks; i > 1; --i) std::swap(perm[i - 1], perm[rng.below(i)]);
    std::vector<std::pair<uint32_t, uint32_t>> pairs;
    for (uint32_t i = 0; i + 1 < o.ranks; i += 2) pairs.emplace_back(perm[i], perm[i + 1]);
    return pairs;
}

std::vector<uint32_t> coords_of(uint32_t rank, const std::vector<uint32_t>& grid) {
    std::vector<uint32_t> c(grid.size());
    for (std::size_t i = 0; i < grid.size(); ++i) {
        c[i] = rank % grid[i];
        rank /= grid[i];
    }
    return c;
}

uint32_t rank_of(const std::vector<uint32_t>& c, const std::vector<uint32_t>& grid) {
    uint32_t r = 0;
    for (std::size_t i = grid.size(); i-- > 0;) r = r * grid[i] + c[i];
    return r;
}

uint32_t neighbour_count(uint32_t rank, const std::vector<uint32_t>& grid) {
    const std::vector<uint32_t> c = coords_of(rank, grid);
    uint32_t n = 0;
    for (std::size_t i = 0; i < grid.size(); ++i) n += (c[i] > 0) + (c[i] + 1 < grid[i]);
    return n;
}

bool periodic_at(const std::vector<bool>& periodic, std::size_t axis) {
    return axis < periodic.size() && periodic[axis];
}

// The neighbour one step along `axis` towards `side` (+1 / -1); kNone past a non-periodic
// edge and on an axis of size 1 (no process exchanges with itself).
uint32_t neighbour(uint32_t rank, const std::vector<uint32_t>& grid,
                   const std::vector<bool>& periodic, std::size_t axis, int side) {
    if (grid[axis] < 2) return kNone;
    std::vector<uint32_t> c = coords_of(rank, grid);
    int64_t x = int64_t(c[axis]) + side;
    if (x < 0 || x >= int64_t(grid[axis])) {
        if (!periodic_at(periodic, axis)) return kNone;
        x = (x + int64_t(grid[axis])) % int64_t(grid[axis]);
    }
    c[axis] = static_cast<uint32_t>(x);
    return rank_of(c, grid);
}

// One direction of an exchange: every rank sends to to[rank] and receives from from[rank]
// (kNone: not in this direction).
struct ExchangeStep {
    std::vector<uint32_t> to, from;
    uint32_t tag = 0;
};

// The halo exchange's directions: axes from the last to the first (of size > 1), on each
// first up (send to the high side, receive from the low side), then down. The order is
// chosen so that under the wavefront block rules the exchange's last block never takes in
// the first receive of ssor's upper sweep: at a rank with a high neighbour along the first
// axis of size > 1 the last message is the receive from that side (the sweep's receive from
// there is a repeat); at a rank without one the last message is a send. The nonblocking variant
// posts its receives in the same order, so the block of its last receives holds the receive from
// the high side of the first axis along which the rank has a high neighbour.
std::vector<ExchangeStep> halo_steps(const std::vector<uint32_t>& grid,
                                     const std::vector<bool>& periodic, uint32_t ranks) {
    std::vector<ExchangeStep> steps;
    for (std::size_t a = grid.size(); a-- > 0;) {
        if (grid[a] < 2) continue;
        for (int side : {+1, -1}) {
            ExchangeStep st;
            st.tag = kHaloTagBase + 2 * static_cast<uint32_t>(a) + (side < 0 ? 1 : 0);
            st.to.resize(ranks);
            st.from.resize(ranks);
            for (uint32_t p = 0; p < ranks; ++p) {
                st.to[p] = neighbour(p, grid, periodic, a, side);
                st.from[p] = neighbour(p, grid, periodic, a, -side);
            }
            steps.push_back(std::move(st));
        }
    }
    return steps;
}

// pairwise: rank r with r XOR 1 (the last of an odd number has no partner).
std::vector<ExchangeStep> pairwise_steps(uint32_t ranks) {
    ExchangeStep st;
    st.tag = kPairwiseTag;
    st.to.resize(ranks);
    for (uint32_t p = 0; p < ranks; ++p) st.to[p] = (p ^ 1u) < ranks ? (p ^ 1u) : kNone;
    st.from = st.to;
    return {st};
}

std::vector<ExchangeStep> exchange_steps(const SynthOptions& o) {
    return o.pattern == SynthPattern::Pairwise ? pairwise_steps(o.ranks)
                                               : halo_steps(o.grid, o.periodic, o.ranks);
}

// Events of one exchange on rank p (the calls only).
uint64_t exchange_events(const std::vector<ExchangeStep>& steps, uint32_t p, SynthVariant variant) {
    uint64_t sends = 0, receives = 0, events = 0;
    for (const ExchangeStep& st : steps) {
        const uint64_t s = st.to[p] != kNone, r = st.from[p] != kNone;
        if (variant == SynthVariant::Sendrecv && s + r > 0) events += 2 + s + r;
        sends += s;
        receives += r;
    }
    if (variant == SynthVariant::Nonblocking && sends + receives > 0)
        // Irecv and Isend: enter, request, leave; Waitall: enter, a record each, leave.
        events = 3 * (sends + receives) + 2 + sends + receives;
    return events;
}

// The analysis' name of a corner: the side the wave comes from along y, x, then z.
std::string corner_name(const std::vector<int>& travel) {
    std::string name;
    if (travel.size() > 1 && travel[1] != 0) name += travel[1] > 0 ? "S" : "N";
    if (travel[0] != 0) name += travel[0] > 0 ? "W" : "E";
    if (travel.size() > 2 && travel[2] != 0)
        name += std::string(name.empty() ? "" : "-") + (travel[2] > 0 ? "bottom" : "top");
    return name;
}

// Every corner of the axes of size > 1; bit i of the index: the i-th such axis travels -.
std::vector<SynthCorner> make_corners(const std::vector<uint32_t>& grid, uint32_t ranks) {
    std::vector<std::size_t> axes;
    for (std::size_t a = 0; a < grid.size(); ++a)
        if (grid[a] > 1) axes.push_back(a);
    std::vector<SynthCorner> corners;
    if (axes.empty()) return corners;
    for (std::size_t k = 0; k < (std::size_t{1} << axes.size()); ++k) {
        SynthCorner c;
        c.travel.assign(grid.size(), 0);
        for (std::size_t i = 0; i < axes.size(); ++i) c.travel[axes[i]] = (k >> i & 1) ? -1 : +1;
        c.corner = corner_name(c.travel);
        c.late_sender.by_location.assign(ranks, 0);
        corners.push_back(std::move(c));
    }
    return corners;
}

// Sweep3D's corner order: each sweep is followed by the one from the opposite corner.
std::vector<SynthSweep> make_sweeps(const std::vector<uint32_t>& grid) {
    static constexpr int kOrder2D[4][2] = {{+1, +1}, {-1, -1}, {+1, -1}, {-1, +1}};
    std::vector<std::vector<int>> dirs;
    if (grid.size() == 1) {
        dirs = {{+1}, {-1}};
    } else if (grid.size() == 2) {
        for (const auto& d : kOrder2D) dirs.push_back({d[0], d[1]});
    } else {
        for (int half = 0; half < 2; ++half)
            for (int i = 0; i < 4; ++i)
                dirs.push_back({kOrder2D[i][0], kOrder2D[i][1], (i % 2 == half) ? +1 : -1});
    }
    std::vector<SynthSweep> sweeps;
    for (std::size_t s = 0; s < dirs.size(); ++s) {
        const std::vector<int>& d = dirs[s];
        SynthSweep sw;
        // Coordinate 0 is west/south/bottom: a wave travelling + starts there.
        if (d.size() >= 2) sw.origin += d[1] > 0 ? "S" : "N";
        sw.origin += d[0] > 0 ? "W" : "E";
        if (d.size() == 3) sw.origin += d[2] > 0 ? "-bottom" : "-top";
        sw.region = "sweep_" + sw.origin;
        sw.direction = d;
        sw.tag = kWavefrontTagBase + static_cast<uint32_t>(s);
        sweeps.push_back(std::move(sw));
    }
    return sweeps;
}

// The origin corner of a wave travelling `d` (+1: from coordinate 0): "SW", "E", "NW-top".
std::string origin_name(const std::vector<int>& d) {
    std::string name;
    if (d.size() >= 2) name += d[1] > 0 ? "S" : "N";
    name += d[0] > 0 ? "W" : "E";
    if (d.size() == 3) name += d[2] > 0 ? "-bottom" : "-top";
    return name;
}

// sweep's octants in a discrete-ordinates code's order: the corners of the process grid's
// first two axes in Sweep3D's order (1D: W, E), two octants each, k up then k down. On a
// 3D grid k is the third axis, so the two octants of a corner travel up, then down along
// it; on a 1D or 2D grid k is inside each process and both travel the same way.
std::vector<SynthSweep> make_octants(const std::vector<uint32_t>& grid) {
    static constexpr int kOrder2D[4][2] = {{+1, +1}, {-1, -1}, {+1, -1}, {-1, +1}};
    std::vector<std::vector<int>> corners;
    if (grid.size() == 1)
        corners = {{+1}, {-1}};
    else
        for (const auto& d : kOrder2D) corners.push_back({d[0], d[1]});
    std::vector<SynthSweep> octants;
    for (const std::vector<int>& corner : corners)
        for (int k : {+1, -1}) {
            SynthSweep sw;
            sw.direction = corner;
            if (grid.size() == 3) sw.direction.push_back(k);
            sw.origin = origin_name(sw.direction);
            sw.tag = kWavefrontTagBase + static_cast<uint32_t>(octants.size());
            sw.region = "octant" + std::to_string(octants.size() + 1) + "_" + sw.origin;
            octants.push_back(std::move(sw));
        }
    return octants;
}

// sweep's upstream and downstream neighbours of `rank` in an octant travelling `d`.
std::pair<uint32_t, uint32_t> sweep_link_counts(uint32_t rank, const std::vector<uint32_t>& grid,
                                                const std::vector<int>& d) {
    const std::vector<uint32_t> c = coords_of(rank, grid);
    uint32_t up = 0, down = 0;
    for (std::size_t a = 0; a < grid.size(); ++a) {
        const bool low = c[a] > 0, high = c[a] + 1 < grid[a];
        up += d[a] > 0 ? low : high;
        down += d[a] > 0 ? high : low;
    }
    return {up, down};
}

// sweep --between halo: the halo exchange's steps, ending with the step up along the first
// axis the sweep receives from. The next octant's first receive (from the low side of that
// axis, or from another axis where the rank has no low neighbour and so ended the exchange
// with a send) then starts a block of its own under the wavefront block rules, instead of
// joining the exchange's last receive.
std::vector<ExchangeStep> sweep_halo_steps(const SynthOptions& o) {
    std::vector<ExchangeStep> steps = halo_steps(o.grid, {}, o.ranks);
    const uint32_t first_axis = o.receive == SynthReceive::YX && o.grid.size() > 1 ? 1 : 0;
    const auto last = std::find_if(steps.begin(), steps.end(), [&](const ExchangeStep& st) {
        return st.tag == kHaloTagBase + 2 * first_axis;
    });
    if (last != steps.end()) std::rotate(last, last + 1, steps.end());
    return steps;
}

// Upper bound of the trace's length (the wave of a sweep crosses the grid once on top of
// the previous sweep's finish times, see Generator::wavefront_phase).
long double duration_bound(const SynthOptions& o) {
    const long double T = o.work_ticks, D = o.delay_ticks, L = o.latency_ticks, H = T + L;
    long double phase = 0;
    if (has_wavefront(o.pattern)) {
        long double hops = 0;
        for (uint32_t d : o.grid) hops += d - 1;
        phase += 2.0L * static_cast<long double>(o.grid.size() == 3 ? 8 : 2 * o.grid.size()) *
                     (o.blocks * T + (hops + 1) * H) +
                 L;
    }
    if (has_pairs(o.pattern)) phase += T + D + L;
    if (has_collectives(o.pattern)) phase += 4 * (T + D + L);
    // An exchange: D of delay, then each of at most 6 directions leaves L after the last
    // partner entered.
    if (synth_pattern_exchanges(o.pattern)) phase += T + D + 7 * L;
    if (o.pattern == SynthPattern::Ssor) {
        long double hops = 0;
        for (uint32_t d : o.grid) hops += d - 1;
        phase += 2.0L * (o.blocks * T + (hops + 1) * H);
    }
    if (o.pattern == SynthPattern::Sweep) {
        // Each octant ends within its blocks and one crossing of the grid after the previous
        // one (twice that, to be safe); the halo exchange within 8 L of the last rank.
        long double hops = 0;
        for (uint32_t d : o.grid) hops += d - 1;
        const long double octants = o.grid.size() == 1 ? 4 : 8;
        const long double block = T + static_cast<long double>(o.grid.size()) * o.send_ticks + L;
        const long double blocks = static_cast<long double>(o.k_blocks) * o.angle_blocks;
        phase += 2.0L * octants * (blocks + hops + 1) * block + 8 * L;
    }
    // delay: T + D, then the chain's P hops of L and the barrier's L.
    if (is_delay(o.pattern)) phase += T + D + (static_cast<long double>(o.grid[0]) + 1) * L + 1;
    return 2.0L * kSynthInitTicks + static_cast<long double>(o.iterations) * phase;
}

class Generator {
  public:
    explicit Generator(const SynthOptions& o)
        : o_(o), n_(o.ranks), b_(o.ranks, kSynthResolution), clock_(o.ranks, 0),
          rng_(o.seed, kCollectives) {
        b_.set_creator("topolens synth " + synth_arguments(o));
        main_ = b_.region("main");
        compute_ = b_.region("compute");
        init_ = b_.mpi_region("MPI_Init");
        finalize_ = b_.mpi_region("MPI_Finalize");

        // The grid: a Cartesian communicator (ranks in world order) with its topology;
        // only the wavefront talks on it, so other traffic is not on the grid.
        std::vector<uint32_t> members(n_);
        for (uint32_t r = 0; r < n_; ++r) members[r] = r;
        grid_comm_ = b_.communicator("grid", members, b_.world());
        std::vector<bool> periodic = o.periodic;
        periodic.resize(o.grid.size(), false);
        const Ref topo = b_.cart_topology("grid", grid_comm_, o.grid, periodic);
        for (uint32_t r = 0; r < n_; ++r) b_.cart_coords(topo, r, coords_of(r, o.grid));

        const bool sweep = o.pattern == SynthPattern::Sweep;
        const bool delay = is_delay(o.pattern);
        if (has_wavefront(o.pattern) || has_pairs(o.pattern) || o.pattern == SynthPattern::Ssor ||
            sweep || delay) {
            send_ = b_.mpi_region("MPI_Send");
            recv_ = b_.mpi_region("MPI_Recv");
        }
        if (has_wavefront(o.pattern) || has_collectives(o.pattern) ||
            (sweep && o.between == SynthBetween::Allreduce))
            allreduce_ = b_.mpi_region("MPI_Allreduce");
        if (has_collectives(o.pattern)) {
            barrier_ = b_.mpi_region("MPI_Barrier");
            bcast_ = b_.mpi_region("MPI_Bcast");
            reduce_ = b_.mpi_region("MPI_Reduce");
        }
        for (SynthSeverity* s :
             {&x_.late_sender, &x_.wait_nxn, &x_.wait_barrier, &x_.late_broadcast, &x_.early_reduce,
              &x_.late_receiver, &x_.wrong_order_same, &x_.wrong_order_different})
            s->by_location.assign(n_, 0);
        if (has_wavefront(o.pattern)) setup_wavefront();
        if (has_pairs(o.pattern)) x_.pairs = make_pairs(o);
        if (synth_pattern_exchanges(o.pattern)) setup_exchange();
        if (sweep) setup_sweep();
        if (delay) setup_delay();
    }

    Synthetic run() {
        for (uint32_t p = 0; p < n_; ++p) {
            b_.enter(p, 0, main_);
            b_.enter(p, 0, init_);
            b_.leave(p, kSynthInitTicks, init_);
        }
        Time start = kSynthInitTicks;
        for (uint64_t k = 0; k < o_.iterations; ++k) {
            if (has_wavefront(o_.pattern)) start = wavefront_phase(start);
            if (has_pairs(o_.pattern)) start = late_sender_phase(start);
            if (has_collectives(o_.pattern)) start = collectives_phase(start);
            if (o_.pattern == SynthPattern::Halo || o_.pattern == SynthPattern::Pairwise)
                start = exchange_phase(start);
            if (o_.pattern == SynthPattern::Ssor) {
                start = ssor_sweep(0, start);
                start = exchange_phase(start);
                start = ssor_sweep(1, start);
            }
            if (o_.pattern == SynthPattern::Sweep) start = sweep_iteration();
            if (is_delay(o_.pattern)) start = delay_iteration(start);
        }
        // delay: the chain's last rank enters MPI_Finalize 1 tick late, so it is the unique
        // latest entrant and leaves last (where Scalasca's critical path begins).
        const uint32_t late = is_delay(o_.pattern) ? delay_.chain(delay_.width - 1) : kNone;
        for (uint32_t p = 0; p < n_; ++p) {
            const Time enter = start + (p == late ? 1 : 0);
            b_.enter(p, enter, finalize_);
            b_.leave(p, enter + kSynthInitTicks, finalize_);
            b_.leave(p, enter + kSynthInitTicks, main_);
            x_.end = std::max(x_.end, enter + kSynthInitTicks);
        }
        for (const LocationEvents& le : b_.trace().locations) {
            x_.events_by_location.push_back(le.events.size());
            x_.events += le.events.size();
        }
        return Synthetic{std::move(b_), o_, std::move(x_)};
    }

  private:
    struct Neighbours {
        std::array<uint32_t, 3> up{}, down{};          // in axis order
        std::array<uint8_t, 3> up_axis{}, down_axis{}; // the axis of each
        uint8_t n_up = 0, n_down = 0;
    };
    struct SweepPlan {
        Ref region = kNone;
        std::vector<uint32_t> order;   // ranks by hops from the origin: upstream first
        std::vector<Neighbours> links; // per rank
    };

    static void tally(SynthSeverity& s, uint32_t location, uint64_t ticks) {
        if (ticks == 0) return;
        s.total += ticks;
        s.by_location[location] += ticks;
        ++s.instances;
    }

    // The sweep's links on the (non-periodic) grid and the order its ranks are visited in.
    SweepPlan make_plan(SynthSweep& sw) {
        const std::size_t nd = o_.grid.size();
        sw.late_sender.by_location.assign(n_, 0);
        SweepPlan plan;
        plan.region = b_.region(sw.region);
        plan.links.resize(n_);
        std::vector<uint64_t> hops(n_);
        for (uint32_t p = 0; p < n_; ++p) {
            const std::vector<uint32_t> c = coords_of(p, o_.grid);
            Neighbours& nb = plan.links[p];
            for (std::size_t i = 0; i < nd; ++i) {
                const int s = sw.direction[i];
                hops[p] += s > 0 ? c[i] : o_.grid[i] - 1 - c[i];
                const int64_t up = int64_t(c[i]) - s, down = int64_t(c[i]) + s;
                std::vector<uint32_t> q = c;
                if (up >= 0 && up < int64_t(o_.grid[i])) {
                    q[i] = static_cast<uint32_t>(up);
                    nb.up_axis[nb.n_up] = static_cast<uint8_t>(i);
                    nb.up[nb.n_up++] = rank_of(q, o_.grid);
                }
                if (down >= 0 && down < int64_t(o_.grid[i])) {
                    q[i] = static_cast<uint32_t>(down);
                    nb.down_axis[nb.n_down] = static_cast<uint8_t>(i);
                    nb.down[nb.n_down++] = rank_of(q, o_.grid);
                }
            }
        }
        plan.order.resize(n_);
        for (uint32_t p = 0; p < n_; ++p) plan.order[p] = p;
        std::stable_sort(plan.order.begin(), plan.order.end(),
                         [&](uint32_t a, uint32_t b) { return hops[a] < hops[b]; });
        return plan;
    }

    void setup_wavefront() {
        x_.sweeps = make_sweeps(o_.grid);
        for (SynthSweep& sw : x_.sweeps) plans_.push_back(make_plan(sw));
        sent_.assign(n_, 0);
    }

    void setup_exchange() {
        x_.slow_rank = o_.slow_rank;
        x_.wavefront = make_corners(o_.grid, n_);
        steps_ = exchange_steps(o_);
        pending_.resize(n_);
        if (o_.variant == SynthVariant::Sendrecv) {
            sendrecv_ = b_.mpi_region("MPI_Sendrecv");
        } else {
            irecv_ = b_.mpi_region("MPI_Irecv");
            isend_ = b_.mpi_region("MPI_Isend");
            waitall_ = b_.mpi_region("MPI_Waitall");
            requests_.assign(n_, 0);
        }
        exchange_ = b_.region(o_.pattern == SynthPattern::Pairwise ? "pairwise" : "halo");
        if (o_.pattern != SynthPattern::Ssor) return;
        // The lower sweep travels up along every axis from the origin corner, the upper
        // one down from the opposite corner; their corners' metrics get their fills.
        const std::size_t nd = o_.grid.size();
        for (int sign : {+1, -1}) {
            SynthSweep sw;
            sw.direction.assign(nd, sign);
            std::vector<int> travel(nd, 0);
            for (std::size_t a = 0; a < nd; ++a)
                if (o_.grid[a] > 1) travel[a] = sign;
            sw.origin = corner_name(travel);
            sw.region = sign > 0 ? "lower_sweep" : "upper_sweep";
            sw.tag = kWavefrontTagBase + static_cast<uint32_t>(x_.sweeps.size());
            plans_.push_back(make_plan(sw));
            x_.sweeps.push_back(std::move(sw));
            sweep_corner_.push_back(
                x_.wavefront.empty() ? -1 : (sign > 0 ? 0 : int(x_.wavefront.size()) - 1));
        }
        sent_.assign(n_, 0);
    }

    void setup_delay() {
        delay_ = synth_delay_layout(o_.grid);
        x_.slow_rank = delay_.centre;
        work_ = b_.region("work");
        irecv_ = b_.mpi_region("MPI_Irecv");
        isend_ = b_.mpi_region("MPI_Isend");
        waitall_ = b_.mpi_region("MPI_Waitall");
        barrier_ = b_.mpi_region("MPI_Barrier");
        requests_.assign(n_, 0);
    }

    void setup_sweep() {
        x_.wavefront = make_corners(o_.grid, n_);
        x_.sweeps = make_octants(o_.grid);
        for (SynthSweep& sw : x_.sweeps) {
            plans_.push_back(make_plan(sw));
            // Every axis of a sweep's grid has 2 ranks or more: bit a is axis a.
            int corner = 0;
            for (std::size_t a = 0; a < sw.direction.size(); ++a)
                if (sw.direction[a] < 0) corner |= 1 << a;
            sweep_corner_.push_back(corner);
        }
        sent_by_axis_.assign(n_, {});
        last_corner_.assign(n_, -1);
        pending_.resize(n_);
        std::fill(clock_.begin(), clock_.end(), kSynthInitTicks);
        if (o_.receive == SynthReceive::Waitall) {
            irecv_ = b_.mpi_region("MPI_Irecv");
            waitall_ = b_.mpi_region("MPI_Waitall");
            requests_.assign(n_, 0);
        }
        if (o_.between == SynthBetween::Halo) {
            steps_ = sweep_halo_steps(o_);
            sendrecv_ = b_.mpi_region("MPI_Sendrecv");
            exchange_ = b_.region("halo");
        }
    }

    // ---- the receive side of Scalasca's definitions, location by location in event order

    struct Arrival {
        uint32_t source;
        Time sent; // the send record's time = the send call's enter in this model
    };
    // A Late Sender instance waiting in the Wrong Order buffer.
    struct Pending {
        uint64_t idle;
        Time sent;
        uint32_t source;
    };

    // A call [enter, leave] completed `arrivals` (in record order). Every receive first
    // reveals the buffered instances whose messages were sent after its own as Wrong Order;
    // then the call's Late Sender instance (the largest wait, the first of equal ones) joins
    // the buffer. When the call fills a wave (`corner` >= 0, an index into x_.wavefront) the
    // instance counts for that corner whether or not it turns out Wrong Order: the wave
    // metrics are a tree of their own beside Late Sender. Returns whether the call had one.
    bool received(uint32_t p, Time enter, Time leave, std::span<const Arrival> arrivals, int corner,
                  SynthSeverity* sweep = nullptr) {
        std::deque<Pending>& buffer = pending_[p];
        for (const Arrival& a : arrivals)
            for (auto it = buffer.begin(); it != buffer.end();) {
                if (it->sent <= a.sent) {
                    ++it;
                    continue;
                }
                tally(it->source == a.source ? x_.wrong_order_same : x_.wrong_order_different, p,
                      it->idle);
                it = buffer.erase(it);
            }
        uint64_t idle = 0;
        std::size_t which = 0;
        for (std::size_t i = 0; i < arrivals.size(); ++i) {
            const Time until = std::min(arrivals[i].sent, leave);
            if (until > enter && until - enter > idle) {
                idle = until - enter;
                which = i;
            }
        }
        if (idle == 0) return false;
        tally(x_.late_sender, p, idle);
        if (sweep) tally(*sweep, p, idle);
        if (corner >= 0) tally(x_.wavefront[static_cast<std::size_t>(corner)].late_sender, p, idle);
        if (buffer.size() == kWrongOrderBuffer) buffer.pop_front();
        buffer.push_back({idle, arrivals[which].sent, arrivals[which].source});
        return true;
    }

    // Every rank computes T (the slow rank T + D), then exchanges in the user region "halo"
    // or "pairwise".
    Time exchange_phase(Time start) {
        std::vector<Time> t(n_);
        for (uint32_t p = 0; p < n_; ++p) {
            t[p] = start + o_.work_ticks + (p == o_.slow_rank ? o_.delay_ticks : 0);
            compute(p, start, t[p]);
            b_.enter(p, t[p], exchange_);
        }
        const uint64_t bytes = o_.pattern == SynthPattern::Pairwise ? kPairBytes : kFaceBytes;
        if (o_.variant == SynthVariant::Sendrecv)
            sendrecv_exchange(t, bytes);
        else
            nonblocking_exchange(t, bytes);
        Time end = start;
        for (uint32_t p = 0; p < n_; ++p) {
            b_.leave(p, t[p], exchange_);
            end = std::max(end, t[p]);
        }
        return end;
    }

    // One MPI_Sendrecv per direction, all ranks in the same order: a rank's call of one
    // direction meets its partners' calls of that direction. Sends never block, so a call
    // leaves when its message has arrived (the partner entered + L).
    void sendrecv_exchange(std::vector<Time>& t, uint64_t bytes) {
        for (const ExchangeStep& st : steps_) {
            const std::vector<Time> enter = t;
            for (uint32_t p = 0; p < n_; ++p) {
                const uint32_t to = st.to[p], from = st.from[p];
                if (to == kNone && from == kNone) continue;
                const Time leave =
                    from == kNone ? enter[p] : std::max(enter[p], enter[from] + o_.latency_ticks);
                b_.enter(p, enter[p], sendrecv_);
                if (to != kNone) {
                    b_.send(p, enter[p], to, grid_comm_, st.tag, bytes);
                    ++x_.messages;
                }
                if (from != kNone) {
                    b_.recv(p, leave, from, grid_comm_, st.tag, bytes);
                    const Arrival a{from, enter[from]};
                    received(p, enter[p], leave, {&a, 1}, -1);
                }
                b_.leave(p, leave, sendrecv_);
                t[p] = leave;
            }
        }
    }

    // MPI_Irecv from every direction, MPI_Isend to every direction (0 ticks each), then
    // MPI_Waitall, which leaves when the last message has arrived.
    void nonblocking_exchange(std::vector<Time>& t, uint64_t bytes) {
        const std::vector<Time> posted = t; // every Irecv and Isend of a rank starts then
        struct Request {
            uint64_t id;
            uint32_t peer, tag;
        };
        for (uint32_t p = 0; p < n_; ++p) {
            const Time at = posted[p];
            std::vector<Request> recvs, sends;
            std::vector<Arrival> arrivals;
            Time leave = at;
            for (const ExchangeStep& st : steps_) {
                if (st.from[p] == kNone) continue;
                recvs.push_back({requests_[p]++, st.from[p], st.tag});
                b_.enter(p, at, irecv_);
                b_.irecv_request(p, at, recvs.back().id);
                b_.leave(p, at, irecv_);
                arrivals.push_back({st.from[p], posted[st.from[p]]});
                leave = std::max(leave, posted[st.from[p]] + o_.latency_ticks);
            }
            for (const ExchangeStep& st : steps_) {
                if (st.to[p] == kNone) continue;
                sends.push_back({requests_[p]++, st.to[p], st.tag});
                b_.enter(p, at, isend_);
                b_.isend(p, at, st.to[p], grid_comm_, st.tag, bytes, sends.back().id);
                b_.leave(p, at, isend_);
                ++x_.messages;
            }
            if (recvs.empty() && sends.empty()) continue;
            b_.enter(p, at, waitall_);
            for (const Request& r : recvs)
                b_.irecv(p, leave, r.peer, grid_comm_, r.tag, bytes, r.id);
            for (const Request& s : sends) b_.isend_complete(p, leave, s.id);
            b_.leave(p, leave, waitall_);
            const bool waited = received(p, at, leave, arrivals, -1);
            // Late Receiver of a Waitall: the largest wait of a send it completed for its
            // receiver to post (posted - enter, unless it left by then), only when none of
            // its own receives waited.
            if (!waited) {
                uint64_t most = 0;
                for (const Request& s : sends) {
                    const Time post = posted[s.peer];
                    if (leave > post && post > at) most = std::max<uint64_t>(most, post - at);
                }
                tally(x_.late_receiver, p, most);
            }
            t[p] = leave;
        }
    }

    // One of ssor's sweeps, starting on all ranks at `start`: B blocks, each a receive from
    // every upstream neighbour, T of compute and a send to every downstream one. Only the
    // first block fills the pipeline: its Late Sender (Wrong Order included) is the sweep
    // corner's "Wavefront from"; the later blocks find the pipeline full.
    Time ssor_sweep(std::size_t s, Time start) {
        const SweepPlan& plan = plans_[s];
        SynthSweep& sweep = x_.sweeps[s];
        std::fill(clock_.begin(), clock_.end(), start);
        for (uint32_t p = 0; p < n_; ++p) b_.enter(p, start, plan.region);
        for (uint64_t block = 0; block < o_.blocks; ++block) {
            for (uint32_t p : plan.order) {
                const Neighbours& nb = plan.links[p];
                Time t = clock_[p];
                for (uint8_t i = 0; i < nb.n_up; ++i) {
                    const uint32_t u = nb.up[i];
                    const Time leave =
                        receive(p, t, sent_[u], u, grid_comm_, sweep.tag, kFaceBytes);
                    const Arrival a{u, sent_[u]};
                    received(p, t, leave, {&a, 1}, block == 0 ? sweep_corner_[s] : -1,
                             &sweep.late_sender);
                    t = leave;
                }
                compute(p, t, t + o_.work_ticks);
                t += o_.work_ticks;
                sent_[p] = t;
                for (uint8_t i = 0; i < nb.n_down; ++i)
                    send(p, t, nb.down[i], grid_comm_, sweep.tag, kFaceBytes);
                clock_[p] = t;
            }
        }
        Time end = start;
        for (uint32_t p = 0; p < n_; ++p) {
            b_.leave(p, clock_[p], plan.region);
            end = std::max(end, clock_[p]);
        }
        return end;
    }

    // One iteration of sweep: its octants one after the other, each rank starting an octant
    // as soon as it finished the one before (no barrier), then --between. Returns when the
    // last rank is done.
    Time sweep_iteration() {
        for (std::size_t s = 0; s < plans_.size(); ++s) sweep_octant(s);
        if (o_.between == SynthBetween::Allreduce) {
            const Time leave =
                all_to_all(clock_, allreduce_, CollectiveOp::Allreduce, grid_comm_, x_.wait_nxn);
            std::fill(clock_.begin(), clock_.end(), leave);
        } else if (o_.between == SynthBetween::Halo) {
            for (uint32_t p = 0; p < n_; ++p) b_.enter(p, clock_[p], exchange_);
            sendrecv_exchange(clock_, kFaceBytes);
            for (uint32_t p = 0; p < n_; ++p) {
                b_.leave(p, clock_[p], exchange_);
                last_corner_[p] = -1; // other messages came in between: the next wave is new
            }
        }
        return *std::max_element(clock_.begin(), clock_.end());
    }

    // One octant: angle blocks x k-blocks blocks, each: receive the upstream faces, compute
    // T, send the downstream faces in axis order (S ticks each), then compute the outflow of
    // the faces on the grid's boundary (S ticks each), so that every block lasts T + nd*S
    // wherever the rank lies. A rank's first block fills a new wave (analysis step 5) unless
    // its previous octant travelled the same way with nothing in between; all its Late
    // Sender instances then count for the octant's corner.
    void sweep_octant(std::size_t s) {
        const SweepPlan& plan = plans_[s];
        SynthSweep& octant = x_.sweeps[s];
        const int corner = sweep_corner_[s];
        const uint64_t blocks = o_.k_blocks * o_.angle_blocks;
        const std::size_t nd = o_.grid.size();
        for (uint32_t p = 0; p < n_; ++p) b_.enter(p, clock_[p], plan.region);
        for (uint64_t block = 0; block < blocks; ++block) {
            for (uint32_t p : plan.order) {
                const Neighbours& nb = plan.links[p];
                const int fills = block == 0 && last_corner_[p] != corner ? corner : -1;
                Time t = sweep_receive(p, nb, octant, fills);
                compute(p, t, t + o_.work_ticks);
                t += o_.work_ticks;
                for (uint8_t i = 0; i < nb.n_down; ++i) {
                    sent_by_axis_[p][nb.down_axis[i]] = t;
                    send(p, t, nb.down[i], grid_comm_, octant.tag, kFaceBytes, o_.send_ticks);
                    t += o_.send_ticks;
                }
                const Time outflow = (nd - nb.n_down) * o_.send_ticks;
                if (outflow > 0) compute(p, t, t + outflow);
                clock_[p] = t + outflow;
            }
        }
        for (uint32_t p = 0; p < n_; ++p) {
            b_.leave(p, clock_[p], plan.region);
            last_corner_[p] = corner;
        }
    }

    // A sweep block's receives of its upstream faces at rank p from clock_[p] on, in the
    // --receive order; returns when the last face has arrived. A send still in its call
    // when its receive was posted is a Late Receiver (Scalasca: e(recv) - e(send)).
    Time sweep_receive(uint32_t p, const Neighbours& nb, SynthSweep& octant, int corner) {
        static constexpr std::array<uint8_t, 3> kXY = {0, 1, 2}, kYX = {1, 0, 2};
        std::array<Arrival, 3> faces{};
        std::size_t n = 0;
        for (uint8_t axis : o_.receive == SynthReceive::YX ? kYX : kXY)
            for (uint8_t i = 0; i < nb.n_up; ++i)
                if (nb.up_axis[i] == axis) faces[n++] = {nb.up[i], sent_by_axis_[nb.up[i]][axis]};
        Time t = clock_[p];
        auto posted = [&](const Arrival& a, Time at) {
            if (at > a.sent && at < a.sent + o_.send_ticks)
                tally(x_.late_receiver, a.source, at - a.sent);
        };
        if (o_.receive != SynthReceive::Waitall) {
            for (std::size_t i = 0; i < n; ++i) {
                posted(faces[i], t);
                const Time leave = receive(p, t, faces[i].sent, faces[i].source, grid_comm_,
                                           octant.tag, kFaceBytes);
                received(p, t, leave, {&faces[i], 1}, corner, &octant.late_sender);
                t = leave;
            }
            return t;
        }
        if (n == 0) return t;
        std::array<uint64_t, 3> ids{};
        Time leave = t;
        for (std::size_t i = 0; i < n; ++i) {
            posted(faces[i], t);
            ids[i] = requests_[p]++;
            b_.enter(p, t, irecv_);
            b_.irecv_request(p, t, ids[i]);
            b_.leave(p, t, irecv_);
            leave = std::max(leave, faces[i].sent + o_.latency_ticks);
        }
        b_.enter(p, t, waitall_);
        for (std::size_t i = 0; i < n; ++i)
            b_.irecv(p, leave, faces[i].source, grid_comm_, octant.tag, kFaceBytes, ids[i]);
        b_.leave(p, leave, waitall_);
        received(p, t, leave, {faces.data(), n}, corner, &octant.late_sender);
        return leave;
    }

    // One iteration of delay from `start` (every rank just left the barrier before it, or
    // MPI_Init). The halo block and the chain row run side by side on their own ranks; each
    // rank enters the closing MPI_Barrier as soon as it is done. Returns the barrier's leave.
    Time delay_iteration(Time start) {
        const Time T = o_.work_ticks, D = o_.delay_ticks, L = o_.latency_ticks;
        const SynthDelayLayout& g = delay_;
        std::vector<Time> ready(n_); // when each rank enters the barrier
        // Halo block: work T (the centre T + D), MPI_Irecv from every block neighbour,
        // MPI_Isend to every one (0 ticks each), MPI_Waitall until the last message arrived.
        std::vector<Time> posted(g.halo_ranks);
        for (uint32_t p = 0; p < g.halo_ranks; ++p) {
            posted[p] = start + T + (p == g.centre ? D : 0);
            work(p, start, posted[p]);
        }
        for (uint32_t p = 0; p < g.halo_ranks; ++p) {
            const Time at = posted[p];
            const std::vector<uint32_t>& nb = g.halo_neighbours[p];
            std::vector<uint64_t> recvs, sends;
            Time leave = at, latest_send = 0;
            for (uint32_t q : nb) {
                recvs.push_back(requests_[p]++);
                b_.enter(p, at, irecv_);
                b_.irecv_request(p, at, recvs.back());
                b_.leave(p, at, irecv_);
                leave = std::max(leave, posted[q] + L);
                latest_send = std::max(latest_send, posted[q]);
            }
            for (uint32_t q : nb) {
                sends.push_back(requests_[p]++);
                b_.enter(p, at, isend_);
                b_.isend(p, at, q, grid_comm_, kDelayHaloTag, kFaceBytes, sends.back());
                b_.leave(p, at, isend_);
                ++x_.messages;
            }
            ready[p] = leave;
            if (nb.empty()) continue;
            b_.enter(p, at, waitall_);
            for (std::size_t i = 0; i < nb.size(); ++i)
                b_.irecv(p, leave, nb[i], grid_comm_, kDelayHaloTag, kFaceBytes, recvs[i]);
            for (uint64_t id : sends) b_.isend_complete(p, leave, id);
            b_.leave(p, leave, waitall_);
            // Late Sender of a Waitall: its largest wait (only the centre's message is late).
            if (latest_send > at) tally(x_.late_sender, p, latest_send - at);
        }
        // Chain: rank 0 works T + D and sends east; rank k works T, receives from k-1 (a
        // Late Sender of D + (k-1)L) and sends on at once; the last only receives.
        Time sent = start + T + D;
        work(g.chain(0), start, sent);
        send(g.chain(0), sent, g.chain(1), grid_comm_, kDelayChainTag, kFaceBytes);
        ready[g.chain(0)] = sent;
        for (uint32_t k = 1; k < g.width; ++k) {
            const uint32_t p = g.chain(k);
            work(p, start, start + T);
            tally(x_.late_sender, p, sent - (start + T));
            const Time leave =
                receive(p, start + T, sent, g.chain(k - 1), grid_comm_, kDelayChainTag, kFaceBytes);
            if (k + 1 < g.width)
                send(p, leave, g.chain(k + 1), grid_comm_, kDelayChainTag, kFaceBytes);
            sent = leave;
            ready[p] = leave;
        }
        return all_to_all(ready, barrier_, CollectiveOp::Barrier, b_.world(), x_.wait_barrier);
    }

    void work(uint32_t p, Time from, Time to) {
        b_.enter(p, from, work_);
        b_.leave(p, to, work_);
    }

    void compute(uint32_t p, Time from, Time to) {
        b_.enter(p, from, compute_);
        b_.leave(p, to, compute_);
    }

    // Blocking receive of a message sent at `send`: leaves when it has arrived.
    Time receive(uint32_t p, Time enter, Time send, uint32_t source, Ref comm, uint32_t tag,
                 uint64_t bytes) {
        const Time leave = std::max(enter, send + o_.latency_ticks);
        b_.enter(p, enter, recv_);
        b_.recv(p, leave, source, comm, tag, bytes);
        b_.leave(p, leave, recv_);
        return leave;
    }

    // A blocking send: the message leaves at `t`, the call lasts `duration`.
    void send(uint32_t p, Time t, uint32_t dest, Ref comm, uint32_t tag, uint64_t bytes,
              Time duration = 0) {
        b_.enter(p, t, send_);
        b_.send(p, t, dest, comm, tag, bytes);
        b_.leave(p, t + duration, send_);
        ++x_.messages;
    }

    void collective(uint32_t p, Time enter, Time leave, Ref region, CollectiveOp op, Ref comm,
                    uint32_t root, uint64_t sent, uint64_t received) {
        b_.enter(p, enter, region);
        b_.collective_begin(p, enter);
        b_.collective_end(p, leave, op, comm, root, sent, received);
        b_.leave(p, leave, region);
    }

    // Ranks entering an all-to-all collective (or Barrier) at `enter`: all leave L after
    // the last one came; each waited for it. Returns the common leave time.
    Time all_to_all(const std::vector<Time>& enter, Ref region, CollectiveOp op, Ref comm,
                    SynthSeverity& wait) {
        const Time last = *std::max_element(enter.begin(), enter.end());
        const Time leave = last + o_.latency_ticks;
        const uint64_t bytes = op == CollectiveOp::Barrier ? 0 : kValueBytes;
        for (uint32_t p = 0; p < n_; ++p) {
            collective(p, enter[p], leave, region, op, comm, kNone, bytes, bytes);
            tally(wait, p, last - enter[p]);
        }
        ++x_.collectives;
        return leave;
    }

    // One iteration of the pipelined sweeps of samples/wavefront2d, then an Allreduce.
    // Per block a rank receives from its upstream neighbours (axis order), computes T and
    // sends downstream. Ranks are visited block by block in order of their distance from
    // the origin, so every upstream send time of the block is known when it is needed.
    Time wavefront_phase(Time start) {
        std::fill(clock_.begin(), clock_.end(), start);
        for (std::size_t s = 0; s < plans_.size(); ++s) {
            const SweepPlan& plan = plans_[s];
            SynthSweep& sweep = x_.sweeps[s];
            for (uint32_t p = 0; p < n_; ++p) b_.enter(p, clock_[p], plan.region);
            for (uint64_t block = 0; block < o_.blocks; ++block) {
                for (uint32_t p : plan.order) {
                    const Neighbours& nb = plan.links[p];
                    Time t = clock_[p];
                    for (uint8_t i = 0; i < nb.n_up; ++i) {
                        const uint32_t u = nb.up[i];
                        const Time sent = sent_[u];
                        if (sent > t) {
                            tally(x_.late_sender, p, sent - t);
                            tally(sweep.late_sender, p, sent - t);
                        }
                        t = receive(p, t, sent, u, grid_comm_, sweep.tag, kFaceBytes);
                    }
                    compute(p, t, t + o_.work_ticks);
                    t += o_.work_ticks;
                    sent_[p] = t;
                    for (uint8_t i = 0; i < nb.n_down; ++i)
                        send(p, t, nb.down[i], grid_comm_, sweep.tag, kFaceBytes);
                    clock_[p] = t;
                }
            }
            for (uint32_t p = 0; p < n_; ++p) b_.leave(p, clock_[p], plan.region);
        }
        // The convergence check: ranks enter as their last sweep ends.
        return all_to_all(clock_, allreduce_, CollectiveOp::Allreduce, grid_comm_, x_.wait_nxn);
    }

    // Each pair: the receiver computes T and waits in MPI_Recv; the sender computes T + D
    // and sends, D after the receive began.
    Time late_sender_phase(Time start) {
        const Time T = o_.work_ticks, D = o_.delay_ticks;
        std::vector<bool> paired(n_, false);
        for (const auto& [s, r] : x_.pairs) {
            compute(r, start, start + T);
            const Time sent = start + T + D;
            tally(x_.late_sender, r, sent - (start + T));
            receive(r, start + T, sent, s, b_.world(), kPairTag, kPairBytes);
            compute(s, start, sent);
            send(s, sent, r, b_.world(), kPairTag, kPairBytes);
            paired[s] = paired[r] = true;
        }
        for (uint32_t p = 0; p < n_; ++p)
            if (!paired[p]) compute(p, start, start + T);
        return start + T + D + o_.latency_ticks;
    }

    // Allreduce, Barrier, Bcast, Reduce, each after T of compute; a seeded choice of rank
    // computes D longer and comes late.
    Time collectives_phase(Time start) {
        const Time T = o_.work_ticks, D = o_.delay_ticks, L = o_.latency_ticks;
        const Ref world = b_.world();
        std::vector<Time> enter(n_);
        Time t = start;
        auto late_entries = [&](uint32_t late) {
            for (uint32_t p = 0; p < n_; ++p) {
                enter[p] = t + T + (p == late ? D : 0);
                compute(p, t, enter[p]);
            }
        };

        late_entries(rng_.below(n_));
        t = all_to_all(enter, allreduce_, CollectiveOp::Allreduce, world, x_.wait_nxn);
        late_entries(rng_.below(n_));
        t = all_to_all(enter, barrier_, CollectiveOp::Barrier, world, x_.wait_barrier);

        // Bcast: the root is late, every other rank waits for it.
        const uint32_t bcast_root = rng_.below(n_);
        late_entries(bcast_root);
        Time end = 0;
        for (uint32_t p = 0; p < n_; ++p) {
            const Time leave = std::max(enter[p], enter[bcast_root]) + L;
            const bool root = p == bcast_root;
            collective(p, enter[p], leave, bcast_, CollectiveOp::Bcast, world, bcast_root,
                       root ? kValueBytes * (n_ - 1) : 0, root ? 0 : kValueBytes);
            if (!root)
                tally(x_.late_broadcast, p,
                      enter[bcast_root] - std::min(enter[bcast_root], enter[p]));
            end = std::max(end, leave);
        }
        ++x_.collectives;
        t = end;

        // Reduce: a non-root is late, the root waits for it.
        const uint32_t reduce_root = rng_.below(n_);
        const uint32_t late = n_ > 1 ? (reduce_root + 1 + rng_.below(n_ - 1)) % n_ : kNone;
        late_entries(late);
        Time last_other = 0;
        for (uint32_t p = 0; p < n_; ++p)
            if (p != reduce_root) last_other = std::max(last_other, enter[p]);
        const Time root_leave = std::max(last_other, enter[reduce_root]) + L;
        for (uint32_t p = 0; p < n_; ++p) {
            const bool root = p == reduce_root;
            collective(p, enter[p], root ? root_leave : enter[p] + L, reduce_, CollectiveOp::Reduce,
                       world, reduce_root, root ? 0 : kValueBytes,
                       root ? kValueBytes * (n_ - 1) : 0);
        }
        if (n_ > 1)
            tally(x_.early_reduce, reduce_root,
                  last_other - std::min(last_other, enter[reduce_root]));
        ++x_.collectives;
        return root_leave;
    }

    SynthOptions o_;
    uint32_t n_;
    TraceBuilder b_;
    SynthExpected x_;
    std::vector<Time> clock_; // per rank: time of its last event
    std::vector<Time> sent_;  // wavefront: when each rank sent the current block
    std::vector<SweepPlan> plans_;
    std::vector<int> sweep_corner_; // ssor, sweep: index into x_.wavefront per sweep
    std::vector<std::array<Time, 3>>
        sent_by_axis_;                // sweep: each rank's send per axis, current block
    std::vector<int> last_corner_;    // sweep: per rank the corner of its last wave, -1: none since
    std::vector<ExchangeStep> steps_; // halo, pairwise, ssor
    std::vector<std::deque<Pending>> pending_; // per rank: the Wrong Order buffer
    std::vector<uint64_t> requests_;           // per rank: the next request id
    Random rng_;
    Ref grid_comm_ = kNone;
    SynthDelayLayout delay_;
    Ref main_ = kNone, compute_ = kNone, init_ = kNone, finalize_ = kNone, work_ = kNone;
    Ref send_ = kNone, recv_ = kNone;
    Ref allreduce_ = kNone, barrier_ = kNone, bcast_ = kNone, reduce_ = kNone;
    Ref sendrecv_ = kNone, irecv_ = kNone, isend_ = kNone, waitall_ = kNone, exchange_ = kNone;
};

} // namespace

std::string_view synth_pattern_name(SynthPattern pattern) {
    switch (pattern) {
    case SynthPattern::Wavefront:
        return "wavefront";
    case SynthPattern::LateSender:
        return "late-sender";
    case SynthPattern::Collectives:
        return "collectives";
    case SynthPattern::Mixed:
        return "mixed";
    case SynthPattern::Halo:
        return "halo";
    case SynthPattern::Pairwise:
        return "pairwise";
    case SynthPattern::Ssor:
        return "ssor";
    case SynthPattern::Sweep:
        return "sweep";
    case SynthPattern::Delay:
        return "delay";
    }
    return "mixed";
}

std::optional<SynthPattern> parse_synth_pattern(std::string_view name) {
    for (SynthPattern p :
         {SynthPattern::Wavefront, SynthPattern::LateSender, SynthPattern::Collectives,
          SynthPattern::Mixed, SynthPattern::Halo, SynthPattern::Pairwise, SynthPattern::Ssor,
          SynthPattern::Sweep, SynthPattern::Delay})
        if (synth_pattern_name(p) == name) return p;
    return std::nullopt;
}

std::string_view synth_variant_name(SynthVariant variant) {
    return variant == SynthVariant::Nonblocking ? "nonblocking" : "sendrecv";
}

std::optional<SynthVariant> parse_synth_variant(std::string_view name) {
    for (SynthVariant v : {SynthVariant::Sendrecv, SynthVariant::Nonblocking})
        if (synth_variant_name(v) == name) return v;
    return std::nullopt;
}

std::string_view synth_receive_name(SynthReceive receive) {
    switch (receive) {
    case SynthReceive::Waitall:
        return "waitall";
    case SynthReceive::XY:
        return "xy";
    case SynthReceive::YX:
        return "yx";
    }
    return "xy";
}

std::optional<SynthReceive> parse_synth_receive(std::string_view name) {
    for (SynthReceive r : {SynthReceive::Waitall, SynthReceive::XY, SynthReceive::YX})
        if (synth_receive_name(r) == name) return r;
    return std::nullopt;
}

std::string_view synth_between_name(SynthBetween between) {
    switch (between) {
    case SynthBetween::None:
        return "none";
    case SynthBetween::Halo:
        return "halo";
    case SynthBetween::Allreduce:
        return "allreduce";
    }
    return "none";
}

std::optional<SynthBetween> parse_synth_between(std::string_view name) {
    for (SynthBetween b : {SynthBetween::None, SynthBetween::Halo, SynthBetween::Allreduce})
        if (synth_between_name(b) == name) return b;
    return std::nullopt;
}

bool synth_pattern_exchanges(SynthPattern pattern) {
    return pattern == SynthPattern::Halo || pattern == SynthPattern::Pairwise ||
           pattern == SynthPattern::Ssor;
}

std::vector<uint32_t> balanced_grid(uint32_t ranks) {
    uint32_t q = static_cast<uint32_t>(std::sqrt(static_cast<double>(ranks)));
    while (q > 1 && (ranks % q != 0 || uint64_t(q) * q > ranks)) --q;
    if (q == 0) q = 1;
    return {ranks / q, q};
}

SynthOptions resolve_synth_options(SynthOptions o) {
    if (!o.grid.empty()) {
        if (o.grid.size() > 3)
            bad("--grid has 1 to 3 dimensions, not " + std::to_string(o.grid.size()));
        uint64_t size = 1;
        for (uint32_t d : o.grid) {
            if (d == 0) bad("--grid " + grid_text(o.grid) + ": every dimension must be at least 1");
            size *= d;
            if (size > kSynthMaxRanks)
                bad("--grid " + grid_text(o.grid) + ": more than " +
                    std::to_string(kSynthMaxRanks) + " ranks");
        }
        if (o.ranks != 0 && o.ranks != size)
            bad("--grid " + grid_text(o.grid) + " has " + std::to_string(size) +
                " ranks, --ranks says " + std::to_string(o.ranks));
        o.ranks = static_cast<uint32_t>(size);
    } else {
        if (o.ranks == 0) o.ranks = 16;
        if (o.ranks > kSynthMaxRanks) bad("--ranks: at most " + std::to_string(kSynthMaxRanks));
        o.grid = balanced_grid(o.ranks);
    }
    const bool any_periodic =
        std::find(o.periodic.begin(), o.periodic.end(), true) != o.periodic.end();
    if (any_periodic && !takes_periodic(o.pattern))
        bad(o.pattern == SynthPattern::Ssor
                ? "--periodic: the sweeps of --pattern ssor do not wrap around"
                : "--periodic applies to --pattern halo and pairwise");
    for (std::size_t a = o.grid.size(); a < o.periodic.size(); ++a)
        if (o.periodic[a])
            bad(std::string("--periodic ") + axis_letter(a) + ": the grid " + grid_text(o.grid) +
                " has no axis " + axis_letter(a));
    for (std::size_t a = 0; a < o.grid.size(); ++a)
        if (periodic_at(o.periodic, a) && o.grid[a] == 1)
            bad(std::string("--periodic ") + axis_letter(a) + ": axis " + axis_letter(a) +
                " of the grid " + grid_text(o.grid) +
                " has size 1 (its process would exchange with itself)");
    if (takes_periodic(o.pattern))
        o.periodic.resize(o.grid.size(), false);
    else
        o.periodic.clear();
    if (synth_pattern_exchanges(o.pattern)) {
        if (o.slow_rank == kNone) {
            std::vector<uint32_t> centre(o.grid.size());
            for (std::size_t a = 0; a < o.grid.size(); ++a) centre[a] = o.grid[a] / 2;
            o.slow_rank = rank_of(centre, o.grid);
        } else if (o.slow_rank >= o.ranks) {
            bad("--slow-rank " + std::to_string(o.slow_rank) + ": the grid " + grid_text(o.grid) +
                " has ranks 0 to " + std::to_string(o.ranks - 1));
        }
    } else if (o.slow_rank != kNone) {
        bad("--slow-rank applies to --pattern halo, pairwise and ssor");
    }
    if (o.iterations < 1 || o.iterations > 1'000'000'000)
        bad("--iterations must be between 1 and 1000000000");
    if (o.blocks < 1 || o.blocks > 1'000'000) bad("--blocks must be between 1 and 1000000");
    if (o.pattern == SynthPattern::Sweep) {
        // A pipeline needs a relay between origin and end (analysis step 4), and a grid
        // axis of size 1 would make two corners one.
        for (std::size_t a = 0; a < o.grid.size(); ++a)
            if (o.grid[a] < 2)
                bad("--pattern sweep: axis " + std::string(1, axis_letter(a)) + " of the grid " +
                    grid_text(o.grid) + " has size 1 (use a grid of fewer dimensions)");
        if (o.grid.size() == 1 && o.grid[0] < 3)
            bad("--pattern sweep: a 1D grid needs 3 ranks or more (origin, relay, end)");
    }
    if (is_delay(o.pattern)) {
        if (o.grid.size() != 2 || o.grid[0] < 3 || o.grid[1] < 2)
            bad("--pattern delay needs a 2D grid of at least 3x2 (a halo block above a chain "
                "of 3 or more ranks), not " +
                grid_text(o.grid));
        if (o.latency_ticks < 1)
            bad("--pattern delay needs --latency-ticks of at least 1 (the part of each MPI "
                "call that is not waiting)");
        if (o.delay_ticks < 1) bad("--pattern delay needs --delay-ticks of at least 1");
    }
    if (o.k_blocks < 1 || o.k_blocks > 1'000'000) bad("--k-blocks must be between 1 and 1000000");
    if (o.angle_blocks < 1 || o.angle_blocks > 1'000'000)
        bad("--angle-blocks must be between 1 and 1000000");
    if (o.k_blocks * o.angle_blocks > 1'000'000)
        bad("--k-blocks times --angle-blocks must be at most 1000000");
    if (o.send_ticks > kMaxTicks) bad("--send-ticks must be at most " + std::to_string(kMaxTicks));
    if (o.work_ticks < 1 || o.work_ticks > kMaxTicks)
        bad("--work-ticks must be between 1 and " + std::to_string(kMaxTicks));
    if (o.delay_ticks > kMaxTicks)
        bad("--delay-ticks must be at most " + std::to_string(kMaxTicks));
    if (o.latency_ticks > kMaxTicks)
        bad("--latency-ticks must be at most " + std::to_string(kMaxTicks));
    if (duration_bound(o) > kMaxTraceTicks)
        bad("the trace would last more than 4e18 ticks: fewer --iterations or --blocks, or "
            "shorter times");
    // Event indices are 32-bit per location.
    uint64_t most = 0;
    for (uint64_t c : synth_event_counts(o)) most = std::max(most, c);
    if (most >= (uint64_t(1) << 32) - 1)
        bad("more than 2^32 events on one location: fewer --iterations or --blocks");
    return o;
}

std::vector<uint64_t> synth_event_counts(const SynthOptions& options) {
    SynthOptions o = options;
    if (o.grid.empty()) {
        if (o.ranks == 0) o.ranks = 16;
        o.grid = balanced_grid(o.ranks);
    } else {
        o.ranks = 1;
        for (uint32_t d : o.grid) o.ranks *= d;
    }
    std::vector<uint64_t> per_iteration(o.ranks, 0);
    if (has_wavefront(o.pattern)) {
        const uint64_t sweeps = o.grid.size() == 3 ? 8 : 2 * o.grid.size();
        for (uint32_t p = 0; p < o.ranks; ++p)
            // sweep region; per block compute + 3 per receive and send; the Allreduce.
            per_iteration[p] +=
                sweeps * (2 + o.blocks * (2 + 3 * uint64_t(neighbour_count(p, o.grid)))) + 4;
    }
    if (has_pairs(o.pattern)) {
        for (uint64_t& c : per_iteration) c += 2; // compute
        for (const auto& [s, r] : make_pairs(o)) {
            per_iteration[s] += 3;
            per_iteration[r] += 3;
        }
    }
    if (has_collectives(o.pattern))
        for (uint64_t& c : per_iteration) c += 4 * (2 + 4); // compute + the call
    if (synth_pattern_exchanges(o.pattern)) {
        if (!takes_periodic(o.pattern)) o.periodic.clear();
        const std::vector<ExchangeStep> steps = exchange_steps(o);
        for (uint32_t p = 0; p < o.ranks; ++p) {
            // compute, the region "halo" / "pairwise" and its calls
            per_iteration[p] += 4 + exchange_events(steps, p, o.variant);
            if (o.pattern == SynthPattern::Ssor) // as a wavefront's two sweeps
                per_iteration[p] +=
                    2 * (2 + o.blocks * (2 + 3 * uint64_t(neighbour_count(p, o.grid))));
        }
    }
    if (o.pattern == SynthPattern::Sweep) {
        const std::vector<SynthSweep> octants = make_octants(o.grid);
        const std::vector<ExchangeStep> halo = sweep_halo_steps(o);
        const uint64_t blocks = o.k_blocks * o.angle_blocks;
        for (uint32_t p = 0; p < o.ranks; ++p) {
            for (const SynthSweep& sw : octants) {
                const auto [up, down] = sweep_link_counts(p, o.grid, sw.direction);
                // MPI_Recv: enter, record, leave; MPI_Irecv: enter, request, leave and a
                // record in the MPI_Waitall (enter, leave).
                const uint64_t receives = o.receive != SynthReceive::Waitall ? 3 * up
                                          : up > 0                           ? 4 * up + 2
                                                                             : 0;
                const bool outflow = down < o.grid.size() && o.send_ticks > 0;
                per_iteration[p] += 2 + blocks * (receives + 2 + 3 * down + (outflow ? 2 : 0));
            }
            if (o.between == SynthBetween::Allreduce) per_iteration[p] += 4;
            if (o.between == SynthBetween::Halo)
                per_iteration[p] += 2 + exchange_events(halo, p, SynthVariant::Sendrecv);
        }
    }
    if (is_delay(o.pattern)) {
        const SynthDelayLayout g = synth_delay_layout(o.grid);
        for (uint32_t p = 0; p < g.halo_ranks; ++p) {
            const uint64_t nb = g.halo_neighbours[p].size();
            // work; MPI_Irecv and MPI_Isend: enter, request, leave; MPI_Waitall: enter, a
            // record each, leave
            per_iteration[p] += 2 + 6 * nb + (nb > 0 ? 2 + 2 * nb : 0);
        }
        for (uint32_t k = 0; k < g.width; ++k)
            per_iteration[g.chain(k)] += 2 + (k > 0 ? 3 : 0) + (k + 1 < g.width ? 3 : 0);
        for (uint64_t& c : per_iteration) c += 4; // MPI_Barrier
    }
    std::vector<uint64_t> counts(o.ranks);
    for (uint32_t p = 0; p < o.ranks; ++p) counts[p] = 6 + o.iterations * per_iteration[p];
    return counts;
}

std::string synth_arguments(const SynthOptions& o) {
    return "--pattern " + std::string(synth_pattern_name(o.pattern)) + " --grid " +
           grid_text(o.grid) + " --iterations " + std::to_string(o.iterations) + " --blocks " +
           std::to_string(o.blocks) + " --work-ticks " + std::to_string(o.work_ticks) +
           " --delay-ticks " + std::to_string(o.delay_ticks) + " --latency-ticks " +
           std::to_string(o.latency_ticks) + " --seed " + std::to_string(o.seed) +
           (synth_pattern_exchanges(o.pattern)
                ? " --variant " + std::string(synth_variant_name(o.variant)) +
                      (takes_periodic(o.pattern) ? " --periodic " + periodic_text(o.periodic)
                                                 : "") +
                      " --slow-rank " + std::to_string(o.slow_rank)
                : "") +
           (o.pattern == SynthPattern::Sweep
                ? " --k-blocks " + std::to_string(o.k_blocks) + " --angle-blocks " +
                      std::to_string(o.angle_blocks) + " --send-ticks " +
                      std::to_string(o.send_ticks) + " --receive " +
                      std::string(synth_receive_name(o.receive)) + " --between " +
                      std::string(synth_between_name(o.between))
                : "");
}

SynthDelayLayout synth_delay_layout(const std::vector<uint32_t>& grid) {
    SynthDelayLayout g;
    uint32_t ranks = 1;
    for (uint32_t d : grid) ranks *= d;
    if (grid.size() != 2 || grid[1] < 2) {
        g.width = ranks;
        return g;
    }
    const uint32_t P = grid[0], rows = grid[1] - 1;
    g.width = P;
    g.halo_ranks = P * rows;
    g.centre = P / 2 + P * (rows / 2);
    g.halo_neighbours.resize(g.halo_ranks);
    for (uint32_t p = 0; p < g.halo_ranks; ++p) {
        const uint32_t x = p % P, y = p / P;
        std::vector<uint32_t>& nb = g.halo_neighbours[p];
        if (x > 0) nb.push_back(p - 1);
        if (x + 1 < P) nb.push_back(p + 1);
        if (y > 0) nb.push_back(p - P);
        if (y + 1 < rows) nb.push_back(p + P);
    }
    return g;
}

Synthetic synthesize(const SynthOptions& options) {
    Synthetic s = Generator(resolve_synth_options(options)).run();
    if (is_delay(s.options.pattern)) s.expected.root_causes = synth_delay_root_causes(s.options);
    return s;
}

} // namespace topolens::trace
