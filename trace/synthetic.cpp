#include "trace/synthetic.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>

namespace topolens::trace {
namespace {

constexpr uint32_t kWavefrontTagBase = 100;
constexpr uint32_t kPairTag = 1;
constexpr uint64_t kFaceBytes = 512; // 64 doubles, as samples/wavefront2d
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
        const Ref topo =
            b_.cart_topology("grid", grid_comm_, o.grid, std::vector<bool>(o.grid.size(), false));
        for (uint32_t r = 0; r < n_; ++r) b_.cart_coords(topo, r, coords_of(r, o.grid));

        if (has_wavefront(o.pattern) || has_pairs(o.pattern)) {
            send_ = b_.mpi_region("MPI_Send");
            recv_ = b_.mpi_region("MPI_Recv");
        }
        if (has_wavefront(o.pattern) || has_collectives(o.pattern))
            allreduce_ = b_.mpi_region("MPI_Allreduce");
        if (has_collectives(o.pattern)) {
            barrier_ = b_.mpi_region("MPI_Barrier");
            bcast_ = b_.mpi_region("MPI_Bcast");
            reduce_ = b_.mpi_region("MPI_Reduce");
        }
        for (SynthSeverity* s : {&x_.late_sender, &x_.wait_nxn, &x_.wait_barrier,
                                 &x_.late_broadcast, &x_.early_reduce})
            s->by_location.assign(n_, 0);
        if (has_wavefront(o.pattern)) setup_wavefront();
        if (has_pairs(o.pattern)) x_.pairs = make_pairs(o);
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
        }
        x_.end = start + kSynthInitTicks;
        for (uint32_t p = 0; p < n_; ++p) {
            b_.enter(p, start, finalize_);
            b_.leave(p, x_.end, finalize_);
            b_.leave(p, x_.end, main_);
        }
        for (const LocationEvents& le : b_.trace().locations) {
            x_.events_by_location.push_back(le.events.size());
            x_.events += le.events.size();
        }
        return Synthetic{std::move(b_), o_, std::move(x_)};
    }

  private:
    struct Neighbours {
        std::array<uint32_t, 3> up{}, down{}; // in axis order
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

    void setup_wavefront() {
        x_.sweeps = make_sweeps(o_.grid);
        const std::size_t nd = o_.grid.size();
        for (SynthSweep& sw : x_.sweeps) {
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
                        nb.up[nb.n_up++] = rank_of(q, o_.grid);
                    }
                    if (down >= 0 && down < int64_t(o_.grid[i])) {
                        q[i] = static_cast<uint32_t>(down);
                        nb.down[nb.n_down++] = rank_of(q, o_.grid);
                    }
                }
            }
            plan.order.resize(n_);
            for (uint32_t p = 0; p < n_; ++p) plan.order[p] = p;
            std::stable_sort(plan.order.begin(), plan.order.end(),
                             [&](uint32_t a, uint32_t b) { return hops[a] < hops[b]; });
            plans_.push_back(std::move(plan));
        }
        sent_.assign(n_, 0);
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

    void send(uint32_t p, Time t, uint32_t dest, Ref comm, uint32_t tag, uint64_t bytes) {
        b_.enter(p, t, send_);
        b_.send(p, t, dest, comm, tag, bytes);
        b_.leave(p, t, send_);
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
    Random rng_;
    Ref grid_comm_ = kNone;
    Ref main_ = kNone, compute_ = kNone, init_ = kNone, finalize_ = kNone;
    Ref send_ = kNone, recv_ = kNone;
    Ref allreduce_ = kNone, barrier_ = kNone, bcast_ = kNone, reduce_ = kNone;
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
    }
    return "mixed";
}

std::optional<SynthPattern> parse_synth_pattern(std::string_view name) {
    for (SynthPattern p : {SynthPattern::Wavefront, SynthPattern::LateSender,
                           SynthPattern::Collectives, SynthPattern::Mixed})
        if (synth_pattern_name(p) == name) return p;
    return std::nullopt;
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
    if (o.iterations < 1 || o.iterations > 1'000'000'000)
        bad("--iterations must be between 1 and 1000000000");
    if (o.blocks < 1 || o.blocks > 1'000'000) bad("--blocks must be between 1 and 1000000");
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
    std::vector<uint64_t> counts(o.ranks);
    for (uint32_t p = 0; p < o.ranks; ++p) counts[p] = 6 + o.iterations * per_iteration[p];
    return counts;
}

std::string synth_arguments(const SynthOptions& o) {
    return "--pattern " + std::string(synth_pattern_name(o.pattern)) + " --grid " +
           grid_text(o.grid) + " --iterations " + std::to_string(o.iterations) + " --blocks " +
           std::to_string(o.blocks) + " --work-ticks " + std::to_string(o.work_ticks) +
           " --delay-ticks " + std::to_string(o.delay_ticks) + " --latency-ticks " +
           std::to_string(o.latency_ticks) + " --seed " + std::to_string(o.seed);
}

Synthetic synthesize(const SynthOptions& options) {
    return Generator(resolve_synth_options(options)).run();
}

} // namespace topolens::trace
