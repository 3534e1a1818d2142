// Synthetic MPI traces with known wait states, for benchmarks, scale tests and exact checks
// of the analysis (`topolens synth`). Every time is computed, not measured: the generator
// knows each wait it builds in and returns the severities the analysis must find.
//
// Timing model (ticks; the timer runs at 1e9 ticks/s): MPI_Send never blocks and takes 0
// ticks; a message arrives L ticks after its send began, and MPI_Recv leaves at
// max(its enter, send + L). All-to-all collectives and Barrier leave L after the last
// member entered; Bcast: the root L after its enter, the others L after max(own, root)
// enter; Reduce: the non-roots L after their enter, the root L after the last enter.
// Each rank runs main { MPI_Init [0, 1000], K iterations of the pattern's phases,
// MPI_Finalize (1000 ticks) }. Every phase starts on all ranks at the same time (a rank
// that finished its part early spends the gap in main), and all ranks enter MPI_Finalize
// together, so the phases' wait states simply add up.
//
// halo, pairwise, ssor and sweep also compute LS Wrong Order (Scalasca's buffer rule, split
// by source), Late Receiver and every "Wavefront from <corner>" metric from the same model
// (see `topolens help synth`). sweep differs in two points: each MPI_Send takes S ticks
// (so a rank's sends have distinct times and a fixed receive order can meet them in the
// wrong order), and its iterations have no common start: every rank goes on as soon as it
// is done, so several waves are in flight.
#pragma once

#include "trace/builder.h"
#include "trace/model.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace topolens::trace {

enum class SynthPattern : uint8_t {
    Wavefront,
    LateSender,
    Collectives,
    Mixed,
    Halo,     // two-sided halo exchange on the grid, one slow rank
    Pairwise, // each rank exchanges with rank XOR 1, one slow rank
    Ssor,     // lower sweep from the origin corner, halo exchange, upper sweep back
    Sweep,    // discrete-ordinates sweeps: octants in pairs per corner, no barrier between
    Delay,    // root causes: a slow rank in a halo block, a chain along a row, a barrier
};

// sweep: how a block's upstream faces are received. MPI_Irecv from each, one MPI_Waitall;
// or one MPI_Recv per face in a fixed axis order: x, y, z or y, x, z.
enum class SynthReceive : uint8_t { Waitall, XY, YX };
// sweep: what every rank does after each iteration's eight octants.
enum class SynthBetween : uint8_t { None, Halo, Allreduce };

// How halo, pairwise and ssor exchange with their neighbours: one MPI_Sendrecv per
// direction, or MPI_Irecv from all, MPI_Isend to all, one MPI_Waitall.
enum class SynthVariant : uint8_t { Sendrecv, Nonblocking };

std::string_view synth_pattern_name(SynthPattern pattern);
std::optional<SynthPattern> parse_synth_pattern(std::string_view name);
std::string_view synth_variant_name(SynthVariant variant);
std::optional<SynthVariant> parse_synth_variant(std::string_view name);
// halo, pairwise, ssor: the patterns that take --variant and --slow-rank.
bool synth_pattern_exchanges(SynthPattern pattern);
std::string_view synth_receive_name(SynthReceive receive);
std::optional<SynthReceive> parse_synth_receive(std::string_view name);
std::string_view synth_between_name(SynthBetween between);
std::optional<SynthBetween> parse_synth_between(std::string_view name);

inline constexpr uint64_t kSynthResolution = 1'000'000'000; // ticks per second
inline constexpr Time kSynthInitTicks = 1000;               // MPI_Init and MPI_Finalize
inline constexpr uint64_t kSynthMaxRanks = 65536;
// delay: the latency when none is given (its MPI calls need a part that is not waiting).
inline constexpr uint64_t kSynthDelayLatencyTicks = 100;

struct SynthOptions {
    uint32_t ranks = 0;         // 0: the grid's size, or 16 without a grid
    std::vector<uint32_t> grid; // 1 to 3 dimensions; empty: balanced 2D grid of `ranks`
    SynthPattern pattern = SynthPattern::Mixed;
    uint64_t iterations = 10;
    uint64_t blocks = 2;         // wavefront blocks per sweep
    uint64_t work_ticks = 10000; // T: compute per block / before each operation
    uint64_t delay_ticks = 5000; // D: lateness of late senders and late collective members
    uint64_t latency_ticks = 0;  // L: message and collective latency (delay: at least 1)
    uint64_t seed = 1;
    // halo, pairwise, ssor:
    SynthVariant variant = SynthVariant::Sendrecv;
    std::vector<bool> periodic; // per grid axis (halo, pairwise); empty: none periodic
    uint32_t slow_rank = kNone; // computes D longer before each exchange; kNone: the rank
                                // at the grid's centre (coordinates size/2)
    // sweep: per octant angle_blocks x k_blocks blocks; each MPI_Send takes send_ticks.
    uint64_t k_blocks = 2;
    uint64_t angle_blocks = 2;
    uint64_t send_ticks = 10; // S
    SynthReceive receive = SynthReceive::XY;
    SynthBetween between = SynthBetween::None;
};

// Fills in `ranks` and `grid` and checks every option; throws std::invalid_argument with a
// message that names the option ("--grid 3x5 has 15 ranks, --ranks says 16").
SynthOptions resolve_synth_options(SynthOptions options);

// One severity in ticks: the sum, how many call instances contribute (> 0), and the sum
// per location (index = rank).
struct SynthSeverity {
    uint64_t total = 0;
    uint64_t instances = 0;
    std::vector<uint64_t> by_location;
};

// Wavefront sweep from one corner of the grid (sweep: one octant).
struct SynthSweep {
    std::string origin;         // "SW", "NE", ... (1D: "W", "E"; 3D: "SW-bottom", ...)
    std::string region;         // the user region around it: "sweep_SW" (sweep: "octant1_SW")
    std::vector<int> direction; // +1 / -1 per axis: where the wave travels
    uint32_t tag = 0;           // 100 + sweep index
    SynthSeverity late_sender;  // over all iterations
};

// "Wavefront from <corner>" of one corner of the grid's axes of size > 1.
struct SynthCorner {
    std::string corner;      // "SW", ... as the analysis names it (axes of size 1 left out)
    std::vector<int> travel; // per grid axis: +1 / -1 where the wave travels, 0 on size 1
    SynthSeverity late_sender;
};

// One wait's direct cause in the delay pattern: `waiting` waited `ticks` in total (over all
// iterations) for `causing` (Late Sender: the sender; Wait at Barrier: the latest entrant).
struct SynthEdge {
    uint32_t waiting = 0;
    uint32_t causing = 0;
    std::string kind; // "latesender" or "barrier"
    uint64_t ticks = 0;
    bool operator==(const SynthEdge&) const = default;
};

// Per location, call path ("main/work", as the report names it) -> ticks. Fractions of a
// tick occur: delay costs are scaled shares of waits.
using SynthCallpathTicks = std::map<std::string, double>;

// The root causes of the delay pattern by Scalasca 2.6's definitions (Delay.MPI.pattern,
// Waitstates.MPI.pattern, CriticalPath.pattern), derived in closed form from the generator's
// own schedule (synthetic_delay.cpp), not by any analysis code.
struct SynthRootCauses {
    // Scalasca's unique metric name -> one map per location. Every metric listed here has
    // exactly these values; a location or call path not listed is 0. Metrics of the delay
    // and critical-path trees that are not listed are 0 everywhere (zero_metrics).
    std::map<std::string, std::vector<SynthCallpathTicks>> metrics;
    std::vector<std::string> zero_metrics;
    std::vector<SynthEdge> edges; // by waiting location, then causing location, then kind
    // The critical path's length: the sum of critical_path over all locations; its profile:
    // per call path the sum over all locations.
    uint64_t critical_path_ticks = 0;
    SynthCallpathTicks critical_path_profile;
    // Per wait kind ("latesender", "barrier"): the sum of the waits and the part of it no
    // delay explains (short + long delay of that kind, summed = waits - unexplained).
    std::map<std::string, uint64_t> waits;
    std::map<std::string, double> unexplained;
};

// What the generated trace holds and what an analysis must find in it. Metrics not listed
// are zero by construction: NxN Completion, Barrier Completion and clock-condition
// violations; in wavefront, late-sender, collectives and mixed also Late Receiver and
// LS Wrong Order (the fields below stay 0 there).
struct SynthExpected {
    uint64_t events = 0;
    std::vector<uint64_t> events_by_location;
    uint64_t messages = 0;    // point-to-point messages (each matched exactly once)
    uint64_t collectives = 0; // collective instances (each with every rank of its comm)
    Time end = 0; // every location's last event (delay: the chain's last rank's, the others'
                  // is 1 tick earlier); the first is at 0
    SynthSeverity late_sender;
    SynthSeverity wait_nxn;
    SynthSeverity wait_barrier;
    SynthSeverity late_broadcast;
    SynthSeverity early_reduce;
    std::vector<SynthSweep> sweeps; // wavefront and mixed; late_sender splits over them
    std::vector<std::pair<uint32_t, uint32_t>> pairs; // late-sender (sender, receiver)
    // halo, pairwise, ssor, sweep (Scalasca 2.6's definitions):
    SynthSeverity late_receiver;         // of sends completed by MPI_Waitall
    SynthSeverity wrong_order_same;      // LS, Wrong Order revealed by the same source
    SynthSeverity wrong_order_different; // ... by a receive from another source
    // Every corner of the grid (bit i of the index: the i-th axis of size > 1 travels -);
    // the Late Sender time, Wrong Order included, of the first block of each new wave.
    std::vector<SynthCorner> wavefront;
    uint32_t slow_rank = kNone;  // delay: the centre of the halo block
    SynthRootCauses root_causes; // delay only
};

struct Synthetic {
    TraceBuilder builder; // write() it to get the archive
    SynthOptions options; // resolved
    SynthExpected expected;
};

// delay's layout on its 2D grid P x Q (P >= 3, Q >= 2): the halo block is the rows 0 to Q-2
// (ranks 0 to P*(Q-1)-1), its slow centre at (P/2, (Q-1)/2); the chain is the row Q-1 from
// west to east. (Another grid, as synth_event_counts may see before the checks: no halo
// block, the chain all ranks.)
struct SynthDelayLayout {
    uint32_t width = 0;      // P: the chain's length
    uint32_t halo_ranks = 0; // P*(Q-1)
    uint32_t centre = kNone;
    std::vector<std::vector<uint32_t>> halo_neighbours; // per halo rank: W, E, S, N in the block
    uint32_t chain(uint32_t k) const { return halo_ranks + k; }
};
SynthDelayLayout synth_delay_layout(const std::vector<uint32_t>& grid);

// delay's root causes for resolved options (synthetic_delay.cpp): closed forms on the
// generator's schedule; synthesize() fills SynthExpected::root_causes with it.
SynthRootCauses synth_delay_root_causes(const SynthOptions& resolved);

// Builds the trace in memory (32 bytes per event). Throws std::invalid_argument for bad
// options (see resolve_synth_options).
Synthetic synthesize(const SynthOptions& options);

// "--pattern mixed --grid 8x8 --iterations 10 ...": every option of the resolved `options`,
// as `topolens synth` takes them (the trace's creator records it too).
std::string synth_arguments(const SynthOptions& options);

// Events synthesize() would produce, per location, without building anything.
std::vector<uint64_t> synth_event_counts(const SynthOptions& options);

// The balanced 2D grid MPI_Dims_create(ranks, 2) chooses: {P, Q}, P >= Q, P * Q = ranks.
std::vector<uint32_t> balanced_grid(uint32_t ranks);

} // namespace topolens::trace
