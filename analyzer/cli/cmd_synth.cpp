// topolens synth -o DIR ...: a synthetic OTF2 trace with known wait states (trace/synthetic.h),
// and the severities an analysis of it must report.
#include "analyzer/cli/commands.h"
#include "analyzer/cli/options.h"
#include "analyzer/cli/text.h"

#include "trace/synthetic.h"

#include <cctype>
#include <charconv>
#include <cstdio>
#include <iostream>
#include <sstream>

namespace topolens::cli {
namespace {

namespace tt = topolens::trace;

uint64_t parse_number(const std::string& option, const std::string& text, uint64_t min) {
    uint64_t v = 0;
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, v);
    if (text.empty() || ec != std::errc() || ptr != end)
        throw UsageError{option + ": '" + text + "' is not a non-negative whole number"};
    if (v < min) throw UsageError{option + " must be at least " + std::to_string(min)};
    return v;
}

std::vector<uint32_t> parse_grid(const std::string& text) {
    std::vector<uint32_t> dims;
    std::size_t begin = 0;
    while (true) {
        const std::size_t x = text.find('x', begin);
        const std::string part = text.substr(begin, x == std::string::npos ? x : x - begin);
        const uint64_t d = parse_number("--grid", part, 1);
        if (d > tt::kSynthMaxRanks) throw UsageError{"--grid: dimension " + part + " too large"};
        dims.push_back(static_cast<uint32_t>(d));
        if (x == std::string::npos) break;
        begin = x + 1;
    }
    return dims;
}

// "xy": the periodic axes; "none": none.
std::vector<bool> parse_periodic(const std::string& text) {
    std::vector<bool> periodic;
    if (text == "none") return periodic;
    if (text.empty()) throw UsageError{"--periodic needs axes: any of x, y, z (e.g. xy) or none"};
    for (char c : text) {
        const std::size_t axis = c == 'x' ? 0 : c == 'y' ? 1 : c == 'z' ? 2 : 3;
        if (axis == 3)
            throw UsageError{"--periodic: '" + std::string(1, c) +
                             "' is not an axis (any of x, y, z, e.g. xy, or none)"};
        if (periodic.size() <= axis) periodic.resize(axis + 1, false);
        if (periodic[axis]) throw UsageError{"--periodic: axis " + std::string(1, c) + " twice"};
        periodic[axis] = true;
    }
    return periodic;
}

std::string seconds(uint64_t ticks) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.9f", static_cast<double>(ticks) / tt::kSynthResolution);
    return buf;
}

std::string ticks_text(double ticks) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3f", ticks);
    return buf;
}

// delay: the root causes per location (call paths summed) and the waits' direct causes.
void print_root_causes(std::ostream& out, const tt::SynthRootCauses& rc) {
    out << "expected root causes (Scalasca 2.6's definitions; ticks per location, over its call "
           "paths; all other locations and delay metrics 0):\n";
    Table t({"metric", "location", "ticks", "by call path"}, {false, true, true, false});
    for (const auto& [unique, by_location] : rc.metrics)
        for (std::size_t loc = 0; loc < by_location.size(); ++loc) {
            double total = 0;
            std::string parts;
            for (const auto& [path, ticks] : by_location[loc]) {
                total += ticks;
                parts += (parts.empty() ? "" : ", ") + path + " " + ticks_text(ticks);
            }
            if (!by_location[loc].empty())
                t.row({unique, std::to_string(loc), ticks_text(total), parts});
        }
    out << t.render();
    out << "critical path: " << rc.critical_path_ticks << " ticks (MPI_Init's enter to the last "
        << "MPI_Finalize enter)\n";
    out << "waits and their direct causes (waiting <- causing):\n";
    Table e({"kind", "waiting", "causing", "ticks"}, {false, true, true, true});
    for (const tt::SynthEdge& edge : rc.edges)
        e.row({edge.kind, std::to_string(edge.waiting), std::to_string(edge.causing),
               std::to_string(edge.ticks)});
    out << e.render();
    for (const auto& [kind, waits] : rc.waits)
        out << kind << ": " << waits << " ticks of waits, " << ticks_text(rc.unexplained.at(kind))
            << " not explained by a delay\n";
}

void print_result(std::ostream& out, const std::string& dir, const std::string& anchor,
                  const tt::Synthetic& s) {
    const tt::SynthOptions& o = s.options;
    const tt::SynthExpected& x = s.expected;
    out << "wrote " << x.events << " events, " << o.ranks << " ranks, pattern "
        << tt::synth_pattern_name(o.pattern) << ", " << o.iterations << " iterations\n";
    out << "trace: " << anchor << "\n";
    out << "reproduce: topolens synth -o " << dir << " " << tt::synth_arguments(o) << "\n";
    const bool delay = o.pattern == tt::SynthPattern::Delay;
    out << "messages: " << x.messages << ", collective instances: " << x.collectives
        << (delay ? ", from 0 to " : ", every location from 0 to ") << x.end << " ticks ("
        << seconds(x.end) << " s)\n";
    if (delay)
        out << "slow rank: " << x.slow_rank << " (the halo block's centre, " << o.delay_ticks
            << " ticks longer); chain: ranks " << o.ranks - o.grid[0] << " to " << o.ranks - 1
            << "\n";
    if (tt::synth_pattern_exchanges(o.pattern))
        out << "slow rank: " << x.slow_rank << " (" << o.delay_ticks
            << " ticks longer before each exchange), " << tt::synth_variant_name(o.variant) << "\n";
    const bool sweep = o.pattern == tt::SynthPattern::Sweep;
    if (sweep)
        out << x.sweeps.size() << " octants of " << o.angle_blocks << " angle blocks x "
            << o.k_blocks << " k-blocks, receive " << tt::synth_receive_name(o.receive)
            << ", after each iteration " << tt::synth_between_name(o.between) << "\n";
    out << "expected severities (ticks at 1e9 ticks/s; all other wait states are 0):\n";
    Table t({"metric", "unique name", "ticks", "seconds", "instances"},
            {false, false, true, true, true});
    auto row = [&](const std::string& name, const std::string& uniq, const tt::SynthSeverity& v) {
        t.row({name, uniq, std::to_string(v.total), seconds(v.total), std::to_string(v.instances)});
    };
    row("Late Sender", "mpi_latesender", x.late_sender);
    for (const tt::SynthSweep& sw : x.sweeps) row("  in " + sw.region, "", sw.late_sender);
    if (tt::synth_pattern_exchanges(o.pattern) || sweep) {
        row("  LS, Wrong Order, same source", "mpi_lswo_same", x.wrong_order_same);
        row("  LS, Wrong Order, different sources", "mpi_lswo_different", x.wrong_order_different);
        for (const tt::SynthCorner& c : x.wavefront)
            row(
                "  Wavefront from " + c.corner,
                "mpi_wavefront_" +
                    [&] {
                        std::string u;
                        for (char ch : c.corner)
                            u += ch == '-' ? '_' : static_cast<char>(std::tolower(ch));
                        return u;
                    }(),
                c.late_sender);
        row("Late Receiver", "mpi_latereceiver", x.late_receiver);
    }
    row("Wait at NxN", "mpi_wait_nxn", x.wait_nxn);
    row("Wait at Barrier", "mpi_barrier_wait", x.wait_barrier);
    row("Late Broadcast", "mpi_latebroadcast", x.late_broadcast);
    row("Early Reduce", "mpi_earlyreduce", x.early_reduce);
    out << t.render();
    if (delay) print_root_causes(out, x.root_causes);
}

const char* const kSynopsis =
    "usage: topolens synth -o DIR [--ranks N] [--grid PxQ[xR]] [--pattern NAME]\n"
    "                      [--iterations K] [--blocks B] [--work-ticks T] [--delay-ticks D]\n"
    "                      [--latency-ticks L] [--seed S]\n"
    "                      [--variant sendrecv|nonblocking] [--periodic AXES] [--slow-rank R]\n"
    "                      [--k-blocks K] [--angle-blocks A] [--send-ticks S]\n"
    "                      [--receive waitall|xy|yx] [--between none|halo|allreduce]\n";

} // namespace

void synth_usage(std::ostream& out) {
    out << kSynopsis << R"(
Writes a synthetic OTF2 trace with known wait states into DIR (an OTF2 archive there is
replaced), for benchmarks, scale tests and exact checks of the analysis. Prints the events
written, the anchor file and the severities an analysis must find. The same options and
seed give the same trace.

  -o, --output DIR   where to write the archive (required)
  --ranks N          number of ranks [16, or the grid's size]
  --grid PxQ[xR]     process grid, 1 to 3 dimensions [the balanced 2D grid of N, P >= Q]
  --pattern NAME     wavefront, late-sender, collectives, mixed, halo, pairwise, ssor,
                     sweep or delay [mixed]
  --iterations K     iterations of the pattern [10]
  --blocks B         wavefront blocks per sweep [2]
  --work-ticks T     compute per block and before each operation, >= 1 [10000]
  --delay-ticks D    lateness of late senders and late collective members [5000]
  --latency-ticks L  message and collective latency [0; delay: 100, at least 1]
  --seed S           chooses the pairs, late ranks and roots [1]
  --variant V        halo, pairwise, ssor: sendrecv (one MPI_Sendrecv per direction) or
                     nonblocking (MPI_Irecv all, MPI_Isend all, MPI_Waitall) [sendrecv]
  --periodic AXES    halo, pairwise: the grid's periodic axes, any of x, y, z (e.g. xy),
                     or none [none]; an axis of size 1 cannot be periodic
  --slow-rank R      halo, pairwise, ssor: the rank that computes D longer before each
                     exchange [the rank at coordinates (P/2, Q/2, R/2), rounded down]
  --k-blocks K       sweep: k-blocks per angle block [2]
  --angle-blocks A   sweep: angle blocks per octant [2]
  --send-ticks S     sweep: how long each MPI_Send takes [10]
  --receive R        sweep: the upstream faces by MPI_Irecv and one MPI_Waitall (waitall),
                     or by MPI_Recv in the fixed order x, y, z (xy) or y, x, z (yx) [xy]
  --between B        sweep: after each iteration nothing (none), the halo exchange (halo)
                     or MPI_Allreduce on "grid" (allreduce) [none]

Event counts: --ranks 64 --iterations 2000 (8x8, mixed, 2 blocks) gives 18.0 million.

Time model. Ticks of 1 ns (1e9 ticks/s). Each rank runs main { MPI_Init [0, 1000],
K iterations, MPI_Finalize (1000 ticks, entered by all ranks together) }. Every phase of
an iteration starts on all ranks at the same moment (a rank that finished early waits in
main), so the severities of the phases add up. MPI_Send takes 0 ticks and never blocks;
a message arrives L after its send; MPI_Recv leaves at max(enter, send + L). Allreduce
and Barrier leave L after the last member entered; Bcast L after max(own, root) entry;
Reduce: non-roots L after their entry, the root L after the last entry. Computation is
the user region "compute". The grid is a Cartesian topology "grid" (non-periodic,
rank = x + P*y + P*Q*z; axis 0 west->east, 1 south->north, 2 bottom->top) on the
communicator "grid", which only the wavefront uses; the rest is on MPI_COMM_WORLD.

Zero by construction in every pattern: NxN Completion, Barrier Completion,
clock-condition violations; in wavefront, late-sender, collectives and mixed also Late
Receiver and LS Wrong Order (halo, pairwise and ssor compute them, see below).

late-sender: the ranks, shuffled by the seed, form floor(N/2) fixed sender->receiver
pairs (an odd rank out only computes). Per iteration the receiver computes T and enters
MPI_Recv, the sender computes T+D and sends (tag 1, 1024 bytes).
  Late Sender = D per message: floor(N/2)*K*D in total, K*D on each receiver.
  Phase length T+D+L.

collectives: per iteration MPI_Allreduce, MPI_Barrier, MPI_Bcast, MPI_Reduce on
MPI_COMM_WORLD, each after T of compute. In each, one rank chosen by the seed computes
T+D and enters D late: any rank for Allreduce and Barrier, the root for Bcast, a non-root
for Reduce (the roots are chosen by the seed too). With N >= 2:
  Wait at NxN = Wait at Barrier = Late Broadcast = (N-1)*K*D (D per waiting rank and
  instance), Early Reduce = K*D (on the root). Phase length 4*(T+D+L).

wavefront: the sweeps of samples/wavefront2d on the grid. Per iteration one sweep from
each corner (1D: W E; 2D: SW NE NW SE; 3D: SW NE NW SE from bottom, top, bottom, top,
then from top, bottom, top, bottom), each in the user region sweep_<corner>, tag 100 +
sweep index. B times per sweep a rank receives from its upstream neighbours (axis order),
computes T and sends downstream (512 bytes). Then MPI_Allreduce on "grid".
A rank waits only in its first receive of a sweep: w*H - L with H = T+L, when w >= 1
(not at all when w = 0). 2D grid P x Q, rank (x, y), X = P-1, Y = Q-1, d = X+Y:
  sweep  w of rank (x, y)   Late Sender per iteration
  SW     x+y                H*P*Q*d/2 - L*(P*Q-1)
  NE     2*(d-x-y)          H*P*Q*d   - L*(P*Q-1)
  NW     2*x                H*P*Q*X   - L*Q*X
  SE     2*(X-x+y)          H*P*Q*d   - L*(P*Q-1)
  Wait at NxN in the Allreduce: (Y+x-y)*H on rank (x, y), H*P*Q*d/2 per iteration.
  Phase length 4*B*T + (2*d+2*X+Y)*H + L.
1D grid P: W w = x, E w = 2*(X-x); Wait at NxN x*H; phase 2*B*T + 2*X*H + L.
3D grids: the printed values (the same model, computed exactly).

mixed: per iteration wavefront, late-sender, collectives, in this order; severities are
the sums (Late Sender = wavefront + pairs, Wait at NxN = both Allreduces).

halo, pairwise, ssor: the exchange. Each iteration every rank computes T, the slow rank S
T+D, then exchanges in the user region "halo" (pairwise: "pairwise") on "grid", 512
bytes per message (pairwise 1024). The topology records --periodic. halo: along each
axis of size > 1, from the last axis to the first, up (send to the high side, receive
from the low side, tag 200+2*axis) then down (tag 201+2*axis); periodic axes wrap, a
non-periodic edge has no partner there. pairwise: rank r with r XOR 1 (tag 300; the last
of an odd number only computes). sendrecv: one MPI_Sendrecv per direction in that order,
leaving when its message arrived (the partner's call entered + L). nonblocking: MPI_Irecv
from every direction, MPI_Isend to every direction (0 ticks each), MPI_Waitall leaving
when the last message arrived. Phase length: until the last rank is done.
The severities follow Scalasca 2.6's definitions, computed on this model:
  Late Sender: per receiving call min(partner's send call enter, leave) - enter, for
  MPI_Waitall only its largest (the first of equal ones).
  LS, Wrong Order: each location keeps its last 100 Late Sender instances; a receive of
  a message sent before an instance's message turns that instance into Wrong Order,
  "same source" when both messages came from the same rank, else "different sources".
  With sendrecv the delay of S travels, and a rank that waited for S in one direction
  then receives an older message from its other side: Wrong Order, different sources.
  Late Receiver: MPI_Send takes 0 ticks and MPI_Sendrecv is not counted, so only an
  MPI_Waitall without a waiting receive could have some: 0 in this model, computed.
  pairwise: Late Sender = K*D on S's partner (with a partner), nothing else.
  halo, nonblocking: Late Sender = K*D on every rank that exchanges with S.
  halo, sendrecv, 1D non-periodic, L = 0: K*D on S-1 and S+1, Wrong Order (different
  sources) K*D on S+1 when S+2 exists (L > 0 moves waits of L around: printed values).
  Every "Wavefront from <corner>" is 0 in halo and pairwise.

ssor: per iteration, each phase starting on all ranks together: a lower sweep (user region
lower_sweep, tag 100) from the origin corner (all coordinates 0) as wavefront's sweeps
(B blocks: receive from every low-side neighbour, compute T, send to every high-side
one), the halo exchange above (with S and --variant; not periodic), an upper sweep
(upper_sweep, tag 101) from the opposite corner. Corners are named as the analysis names
them, from the axes of size > 1: 2D SW (origin) and NE, 1D W and E, 3D SW-bottom and
NE-top, 2x1x3 W-bottom and E-top. A rank h hops (the sum of its coordinates) from the
origin waits h*H - L in its first receive of a lower sweep (H = T+L; h = 0: nothing),
and h' = sum of (size-1-coordinate) hops from the far corner as much in an upper sweep:
  Wavefront from <origin corner> = K*(h*H - L), from the opposite corner K*(h'*H - L),
  on each rank with h (h') >= 1; every other corner 0. The halo's waits are in none.
  Late Sender = both + the halo's; Wrong Order only from the halo.

sweep: a discrete-ordinates transport sweep as Sweep3D's, on a grid with 2 ranks or more
on every axis (1D: 3 or more). Per iteration 8 octants (1D: 4): two per corner of the
grid's first two axes, in Sweep3D's order SW, NE, NW, SE (1D: W, E), k up then k down.
On a 3D grid k is the axis z: the two octants of a corner travel up (from the bottom),
then down; on 1D and 2D grids k lies inside each rank and both travel the same way. An
octant (user region octant<n>_<origin>, tag 99+n) is A*K blocks: receive the upstream
faces (--receive), compute T, MPI_Send each downstream face in axis order (x, y, z; each
call S ticks, the message leaves at its enter), then compute the outflow of each face on
the grid's boundary (S ticks per face), so every block lasts T + S*dimensions wherever
the rank lies. No barrier: a rank starts an octant when it finished the one before, so
several waves are in flight. After each iteration --between: nothing, the halo exchange
of halo (sendrecv; it ends with the step up along the first axis received from), or
MPI_Allreduce. The severities follow Scalasca 2.6's definitions on this model (printed):
Late Sender per call (Waitall: its largest), Wrong Order by the 100-instance buffer rule,
Late Receiver (a send still in its S ticks when its receive was posted), Wait at NxN.
A block waits only when it fills a new wave: the first block of an octant whose direction
differs from the rank's previous octant, or that follows the halo exchange; the blocks
after it and the second octant of a corner on a 1D or 2D grid find the pipeline full.
  Wavefront from <corner> = every Late Sender instance of those first blocks, Wrong
  Order included, so the corners together hold all Late Sender outside the halo.
  Each direction's origin corner has 0 and the corner it reaches last the most.
  With xy the corner a wave reaches last waits for its x face, sent after the y face
  its other neighbour sent earlier: that wait is Wrong Order (different sources).

delay: the test input of the root-cause analysis (delay costs, wait propagation, critical
path), on a 2D grid P x Q with P >= 3, Q >= 2 [4x4]; L >= 1 [100], D >= 1, so that every
MPI call has a part that is not waiting. The rows 0 to Q-2 are a halo block, the row Q-1
a chain from west (rank P*(Q-1)) to east (R = the last rank); the two run side by side on
their own ranks (so their time maps do not mix), then all meet in a barrier. Per
iteration, from a common start s:
  halo block: every rank works T (user region "work"), its centre (P/2, (Q-1)/2) T+D; then
  MPI_Irecv from each block neighbour, MPI_Isend to each (0 ticks), MPI_Waitall until the
  last message arrived (tag 400): each neighbour of the centre waits D (Late Sender).
  chain: rank 0 works T+D and sends east; rank k works T, MPI_Recv from k-1 (tag 401;
  Late Sender D+(k-1)L, the wait propagates) and sends on at once; R only receives.
  MPI_Barrier on MPI_COMM_WORLD, each rank entering when done: R enters last, at
  s+T+D+(P-1)L, and all leave L later (Wait at Barrier on all other ranks).
After the last iteration R enters MPI_Finalize 1 tick after the others (the unique latest
entrant, and the last to leave), so the critical path's end is defined.
Printed: the expected root causes by Scalasca 2.6's definitions, per location and call
path, derived in closed form (trace/synthetic_delay.cpp, docs/testing.md):
  delay_latesender: the centre D per neighbour and iteration at main/work (4D on 4x4);
  chain rank 0 D (main/work), ranks 1 to P-2 L each (main/MPI_Recv, the call's part
  that is not waiting). delay_latesender_longterm: rank 0 (P-2)D, rank j (P-2-j)L.
  delay_barrier on R (main/MPI_Recv), delay_barrier_longterm back along the chain.
  mpi_wait_propagating_ls: chain ranks 1 to P-2 their whole wait; indirect Late Sender:
  ranks 2 to P-1 their sender's wait. critical_path: chain only, from MPI_Init's enter
  (0) to R's MPI_Finalize enter; critical_path_activities, non_critical_path_activities,
  critical_imbalance_impact from it. The waits' direct causes (waiting <- causing).
  Every wait is explained: short + long delay of a kind = that kind's waits.
)";
}

int synth_main(const std::vector<std::string>& args) {
    tt::SynthOptions o;
    std::string dir;
    bool variant_given = false;
    bool latency_given = false;
    std::string sweep_option; // the first option given that only --pattern sweep takes
    try {
        // A whole number of at least `min` into `target`.
        const auto count = [](const char* option, uint64_t min, auto& target) {
            return [option, min, &target](const std::string& v) {
                target = parse_number(option, v, min);
            };
        };
        // A block count of --pattern sweep (at least 1).
        const auto sweep_count = [&](const char* option, uint64_t& target) {
            return [option, &target, &sweep_option](const std::string& v) {
                target = parse_number(option, v, 1);
                if (sweep_option.empty()) sweep_option = option;
            };
        };
        const auto output = [&](const char* option) {
            return [option, &dir](const std::string& v) {
                if (v.empty()) throw UsageError{std::string(option) + " needs a directory"};
                dir = v;
            };
        };
        OptionParser parser;
        parser.help()
            .option({"-o"}, output("-o"))
            .option({"--output"}, output("--output"))
            .option({"--ranks"},
                    [&](const std::string& v) {
                        const uint64_t n = parse_number("--ranks", v, 1);
                        if (n > tt::kSynthMaxRanks)
                            throw UsageError{"--ranks: at most " +
                                             std::to_string(tt::kSynthMaxRanks)};
                        o.ranks = static_cast<uint32_t>(n);
                    })
            .option({"--grid"}, [&](const std::string& v) { o.grid = parse_grid(v); })
            .option({"--pattern"},
                    [&](const std::string& v) {
                        const auto p = tt::parse_synth_pattern(v);
                        if (!p)
                            throw UsageError{"--pattern: unknown pattern '" + v +
                                             "' (wavefront, late-sender, collectives, mixed, "
                                             "halo, pairwise, ssor, sweep, delay)"};
                        o.pattern = *p;
                    })
            .option({"--variant"},
                    [&](const std::string& v) {
                        const auto variant = tt::parse_synth_variant(v);
                        if (!variant)
                            throw UsageError{"--variant: unknown variant '" + v +
                                             "' (sendrecv, nonblocking)"};
                        o.variant = *variant;
                        variant_given = true;
                    })
            .option({"--periodic"}, [&](const std::string& v) { o.periodic = parse_periodic(v); })
            .option({"--slow-rank"},
                    [&](const std::string& v) {
                        const uint64_t r = parse_number("--slow-rank", v, 0);
                        if (r >= tt::kSynthMaxRanks)
                            throw UsageError{"--slow-rank: at most " +
                                             std::to_string(tt::kSynthMaxRanks - 1)};
                        o.slow_rank = static_cast<uint32_t>(r);
                    })
            .option({"--iterations"}, count("--iterations", 1, o.iterations))
            .option({"--blocks"}, count("--blocks", 1, o.blocks))
            .option({"--work-ticks"}, count("--work-ticks", 1, o.work_ticks))
            .option({"--delay-ticks"}, count("--delay-ticks", 0, o.delay_ticks))
            .option({"--latency-ticks"},
                    [&](const std::string& v) {
                        o.latency_ticks = parse_number("--latency-ticks", v, 0);
                        latency_given = true;
                    })
            .option({"--seed"}, count("--seed", 0, o.seed))
            .option({"--k-blocks"}, sweep_count("--k-blocks", o.k_blocks))
            .option({"--angle-blocks"}, sweep_count("--angle-blocks", o.angle_blocks))
            .option({"--send-ticks"},
                    [&](const std::string& v) {
                        o.send_ticks = parse_number("--send-ticks", v, 0);
                        if (sweep_option.empty()) sweep_option = "--send-ticks";
                    })
            .option({"--receive"},
                    [&](const std::string& v) {
                        const auto r = tt::parse_synth_receive(v);
                        if (!r)
                            throw UsageError{"--receive: unknown order '" + v +
                                             "' (waitall, xy, yx)"};
                        o.receive = *r;
                        if (sweep_option.empty()) sweep_option = "--receive";
                    })
            .option({"--between"}, [&](const std::string& v) {
                const auto b = tt::parse_synth_between(v);
                if (!b)
                    throw UsageError{"--between: unknown step '" + v + "' (none, halo, allreduce)"};
                o.between = *b;
                if (sweep_option.empty()) sweep_option = "--between";
            });
        if (parser.parse(args)) {
            synth_usage(std::cout);
            return kExitOk;
        }
        if (dir.empty()) throw UsageError{"synth needs an output directory (-o DIR)"};
        if (variant_given && !tt::synth_pattern_exchanges(o.pattern))
            throw UsageError{"--variant applies to --pattern halo, pairwise and ssor"};
        if (!sweep_option.empty() && o.pattern != tt::SynthPattern::Sweep)
            throw UsageError{sweep_option + " applies to --pattern sweep"};
        if (o.pattern == tt::SynthPattern::Delay && !latency_given)
            o.latency_ticks = tt::kSynthDelayLatencyTicks;
        try {
            o = tt::resolve_synth_options(o);
        } catch (const std::invalid_argument& e) {
            throw UsageError{e.what()};
        }
    } catch (const UsageError& e) {
        return report_usage_error(e, "", [](std::ostream& out) {
            out << kSynopsis << "(topolens help synth: the options and the expected severities)\n";
        });
    }
    try {
        tt::Synthetic s = tt::synthesize(o);
        const std::string anchor = s.builder.write(dir);
        std::ostringstream out;
        print_result(out, dir, anchor, s);
        std::cout << out.str();
        return kExitOk;
    } catch (const std::exception& e) {
        print_error(e.what());
        return kExitFailure;
    }
}

} // namespace topolens::cli
