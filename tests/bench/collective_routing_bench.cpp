// collective_routing_bench: what the collective step of the matching shared out among
// ranks costs a rank, as the number of ranks grows (docs/parallel-analysis.md, "What the
// matching exchanges of collectives").
//
//   collective_routing_bench [--ranks R[,R...]] [--calls K] [--grid] [--repeats N]
//                            (defaults: --ranks 16,64,256 --calls 1000 --repeats 3)
//
// Builds in memory a trace of R processes, one location each, every process making K
// MPI_Allreduce on MPI_COMM_WORLD (with --grid each of these follows an MPI_Allreduce on
// the process's row and one on its column of a P x Q process grid, P the largest divisor
// of R not above its square root), and matches it on R ranks, one process each, run as
// threads (run_ranks_in_threads: ThreadExchange), as `topolens analyze --mpi` shares it.
//
// The collective step (SharedCollectives::assemble, trace/shared_collectives.cpp) lies
// between the matching's exchanges: it starts when the gathered counts arrive (the
// matching's first exchange: every rank's share and its processes' collective counts),
// routes and writes this rank's ends, sends them (an all-to-all, then a gather for the
// ends every other rank needs), reads those that arrive and assembles the collectives; the
// next exchange (call trees and warnings) ends it. A wrapper around each rank's exchange
// takes the thread's CPU time at every exchange, so nothing in trace/ is timed for this;
// the bench checks that the bytes of those exchanges are what the matching counts as its
// collective data, and fails (exit 1) if the matching's exchanges no longer fall so.
//
// Per R it prints a line: the ends of a rank's process (all of which travel), the copies
// of them the rank writes (one per rank an end goes to, one for all if it goes to every
// other rank; worked out from the communicators), the ends and bytes each rank received
// (the matching's own counts, smallest to largest); then, in CPU time of the rank's thread
// (a thread waiting in an exchange sleeps after a short spin; on a loaded machine wall
// time would count the other ranks' work), each rank's best of the repeats, the median
// over ranks and the largest:
//   route: from the counts' arrival to the first send (numbering the collectives, routing
//          and writing the rank's ends), and the median per copy written;
//   step:  the whole collective step, and the median per end the rank holds (its own and
//          those it received: every end of the collectives its process takes part in);
//   in exchange: of the step, the median time in the exchanges (moving buffers between
//          threads, where MPI would send them).
// Figures only.
#include "row_column_communicators.h"
#include "trace/builder.h"
#include "trace/exchange.h"
#include "trace/location_shares.h"
#include "trace/matching.h"
#include "trace/thread_exchange.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

namespace tt = topolens::trace;

double thread_cpu_seconds() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// One exchange as a rank met it: gathered (one buffer to all) or all-to-all, the thread's
// CPU time on entering and leaving it, and the bytes that came from the other ranks.
struct Passage {
    bool gather = false;
    double enter = 0, leave = 0;
    uint64_t bytes_from_others = 0;
};

// A rank's exchange, passed on to the ranks' own (ThreadExchange), noting each passage.
// Each buffer carries the exchange's status byte twice (this one's and the inner one's):
// one byte more per buffer than the matching sends.
class TimedExchange : public tt::Exchange {
  public:
    explicit TimedExchange(tt::Exchange& ranks) : ranks_(ranks) {}
    unsigned rank() const override { return ranks_.rank(); }
    unsigned size() const override { return ranks_.size(); }
    const std::vector<Passage>& passages() const { return passages_; }

  protected:
    std::vector<tt::Bytes> transfer(std::vector<tt::Bytes> out) override {
        return timed(false, [&] { return ranks_.all_to_all(std::move(out)); });
    }
    std::vector<tt::Bytes> transfer_to_all(tt::Bytes mine) override {
        return timed(true, [&] { return ranks_.all_gather(std::move(mine)); });
    }

  private:
    template <class Move> std::vector<tt::Bytes> timed(bool gather, Move move) {
        Passage p;
        p.gather = gather;
        p.enter = thread_cpu_seconds();
        std::vector<tt::Bytes> in = move();
        p.leave = thread_cpu_seconds();
        for (unsigned r = 0; r < in.size(); ++r)
            if (r != rank() && !in[r].empty()) p.bytes_from_others += in[r].size() - 1; // status
        passages_.push_back(p);
        return in;
    }

    tt::Exchange& ranks_;
    std::vector<Passage> passages_;
};

struct Options {
    std::vector<uint32_t> ranks = {16, 64, 256};
    uint32_t calls = 1000;
    bool grid = false;
    unsigned repeats = 3;
};

// P x Q = ranks, P the largest divisor not above the square root.
uint32_t grid_columns(uint32_t ranks) {
    uint32_t p = 1;
    for (uint32_t d = 1; d * d <= ranks; ++d)
        if (ranks % d == 0) p = d;
    return p;
}

// R processes, one location each; K iterations of some compute, then (with the grid) an
// MPI_Allreduce on the process's row and one on its column, then one on MPI_COMM_WORLD.
tt::TraceBuilder build_trace(uint32_t ranks, const Options& o) {
    tt::TraceBuilder b(ranks);
    const uint32_t P = grid_columns(ranks), Q = ranks / P;
    topolens::bench::RowsAndColumns grid;
    if (o.grid) grid = topolens::bench::row_column_communicators(b, P, Q);
    const std::vector<tt::Ref>& rows = grid.rows;
    const std::vector<tt::Ref>& columns = grid.columns;
    const tt::Ref main_region = b.region("main"), compute = b.region("compute");
    const auto allreduce = tt::CollectiveOp::Allreduce;
    for (uint32_t r = 0; r < ranks; ++r) {
        b.enter(r, 0, main_region);
        b.mpi_init(r, 1, 100);
        tt::Time t = 100;
        for (uint32_t i = 0; i < o.calls; ++i) {
            b.enter(r, t, compute);
            t += 1000 + 10 * (r % 7);
            b.leave(r, t, compute);
            if (o.grid) {
                b.mpi_collective(r, t, t + 100, allreduce, rows[r / P]);
                b.mpi_collective(r, t + 200, t + 300, allreduce, columns[r % P]);
            }
            b.mpi_collective(r, t + 400, t + 500, allreduce, b.world());
            t += 600;
        }
        b.mpi_finalize(r, t, t + 100);
        b.leave(r, t + 200, main_region);
    }
    return b;
}

// One rank's figures of one run.
struct RankRun {
    double route = 0, step = 0, in_exchange = 0; // CPU seconds
    uint64_t ends_received = 0, bytes_received = 0;
    size_t collectives = 0;
};

// The collective step among the passages of a rank's matching: the first exchange
// (gathered: shares and counts), the ends (all-to-all, then gathered), the next exchange
// (gathered). Checked against the matching's count of its collective data, so that the
// figures stop (with an error) rather than time something else if the matching changes.
RankRun collective_step(const std::vector<Passage>& p, const tt::Matching& m, unsigned ranks) {
    if (p.size() < 4 || !p[0].gather || p[1].gather || !p[2].gather || !p[3].gather)
        throw std::runtime_error("the matching's exchanges are no longer counts (gathered), "
                                 "ends (all-to-all, gathered), call trees (gathered)");
    const uint64_t counts = p[0].bytes_from_others - (ranks - 1) * sizeof(tt::LocationShare);
    if (counts + p[1].bytes_from_others + p[2].bytes_from_others != m.collective_bytes_received)
        throw std::runtime_error(
            "the bytes of the exchanges timed are not the matching's "
            "collective data: " +
            std::to_string(counts + p[1].bytes_from_others + p[2].bytes_from_others) + " against " +
            std::to_string(m.collective_bytes_received));
    RankRun run;
    run.route = p[1].enter - p[0].leave;
    run.step = p[3].enter - p[0].leave;
    run.in_exchange = (p[1].leave - p[1].enter) + (p[2].leave - p[2].enter);
    run.ends_received = m.collective_ends_received;
    run.bytes_received = m.collective_bytes_received;
    run.collectives = m.collectives.size();
    return run;
}

// Every rank's figures of one run: the trace matched on `ranks` ranks as threads.
std::vector<RankRun> run_once(const tt::Trace& trace, unsigned ranks) {
    std::vector<uint32_t> process;
    std::vector<uint64_t> weight;
    for (const tt::Location& l : trace.defs.locations) {
        process.push_back(l.rank);
        weight.push_back(1);
    }
    const std::vector<tt::LocationShare> shares = tt::share_locations(process, weight, ranks);
    std::vector<RankRun> runs(ranks);
    tt::run_ranks_in_threads(ranks, [&](tt::Exchange& ex) {
        const tt::LocationShare share = shares[ex.rank()];
        tt::Matcher matcher(trace, share, 1);
        for (uint32_t loc = share.first; loc < share.last; ++loc) matcher.scan(loc);
        TimedExchange timed(ex);
        const tt::Matching m = matcher.finish(timed);
        runs[ex.rank()] = collective_step(timed.passages(), m, ranks);
    });
    return runs;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// The copies of an end of a communicator of `members` processes a rank writes, one process
// per rank: one per other member's rank, or one for all if it goes to every other rank
// (gathered; see exchange_collective_ends, trace/shared_collectives.cpp).
uint64_t copies_written(uint32_t members, uint32_t ranks) {
    return members == ranks && ranks > 2 ? 1 : members - 1;
}

void measure(uint32_t ranks, const Options& o) {
    const tt::TraceBuilder b = build_trace(ranks, o);
    const uint32_t P = grid_columns(ranks), Q = ranks / P;
    // Each process's ends, all of which travel; each rank holds its process's collectives.
    const uint64_t own_ends = uint64_t{o.calls} * (o.grid ? 3 : 1);
    const uint64_t copies =
        uint64_t{o.calls} * (copies_written(ranks, ranks) +
                             (o.grid ? copies_written(P, ranks) + copies_written(Q, ranks) : 0));
    const uint64_t ends_expected =
        uint64_t{o.calls} * ((ranks - 1) + (o.grid ? (P - 1) + (Q - 1) : 0));
    std::vector<RankRun> best;
    for (unsigned k = 0; k < o.repeats; ++k) {
        const std::vector<RankRun> runs = run_once(b.trace(), ranks);
        for (unsigned r = 0; r < ranks; ++r) {
            if (runs[r].ends_received != ends_expected || runs[r].collectives != own_ends)
                throw std::runtime_error("rank " + std::to_string(r) + " received " +
                                         std::to_string(runs[r].ends_received) +
                                         " ends (expected " + std::to_string(ends_expected) +
                                         ") and holds " + std::to_string(runs[r].collectives) +
                                         " collectives (expected " + std::to_string(own_ends) +
                                         ")");
        }
        if (best.empty()) {
            best = runs;
            continue;
        }
        for (unsigned r = 0; r < ranks; ++r) {
            best[r].route = std::min(best[r].route, runs[r].route);
            best[r].step = std::min(best[r].step, runs[r].step);
            best[r].in_exchange = std::min(best[r].in_exchange, runs[r].in_exchange);
        }
    }
    std::vector<double> route, step, in_exchange;
    uint64_t bytes_min = UINT64_MAX, bytes_max = 0;
    for (const RankRun& r : best) {
        route.push_back(r.route);
        step.push_back(r.step);
        in_exchange.push_back(r.in_exchange);
        bytes_min = std::min(bytes_min, r.bytes_received);
        bytes_max = std::max(bytes_max, r.bytes_received);
    }
    const double route_med = median(route), step_med = median(step);
    const double ends_held = static_cast<double>(own_ends + ends_expected);
    std::printf(
        "%5u %6llu %7llu %9llu %9llu-%-9llu %7.1f %7.1f %7.4f %7.2f %7.2f %7.4f %6.2f\n", ranks,
        static_cast<unsigned long long>(own_ends), static_cast<unsigned long long>(copies),
        static_cast<unsigned long long>(ends_expected), static_cast<unsigned long long>(bytes_min),
        static_cast<unsigned long long>(bytes_max), 1e6 * route_med,
        1e6 * *std::max_element(route.begin(), route.end()),
        copies ? 1e6 * route_med / static_cast<double>(copies) : 0.0, 1e3 * step_med,
        1e3 * *std::max_element(step.begin(), step.end()), 1e6 * step_med / ends_held,
        1e3 * median(in_exchange));
    std::fflush(stdout);
}

std::vector<uint32_t> parse_list(const std::string& s) {
    std::vector<uint32_t> out;
    for (size_t at = 0; at <= s.size();) {
        const size_t comma = std::min(s.find(',', at), s.size());
        const long v = std::strtol(s.substr(at, comma - at).c_str(), nullptr, 10);
        if (v < 1) throw std::invalid_argument("bad rank count in '" + s + "'");
        out.push_back(static_cast<uint32_t>(v));
        at = comma + 1;
    }
    return out;
}

} // namespace

int main(int argc, char** argv) {
    Options o;
    try {
        for (int i = 1; i < argc; ++i) {
            const std::string a = argv[i];
            if (a == "--ranks" && i + 1 < argc)
                o.ranks = parse_list(argv[++i]);
            else if (a == "--calls" && i + 1 < argc)
                o.calls = static_cast<uint32_t>(std::strtoul(argv[++i], nullptr, 10));
            else if (a == "--repeats" && i + 1 < argc)
                o.repeats = static_cast<unsigned>(std::strtoul(argv[++i], nullptr, 10));
            else if (a == "--grid")
                o.grid = true;
            else
                throw std::invalid_argument("unknown argument '" + a + "'");
        }
        if (o.calls < 1 || o.repeats < 1)
            throw std::invalid_argument("--calls, --repeats: 1 or more");
    } catch (const std::exception& e) {
        std::fprintf(stderr,
                     "collective_routing_bench: %s\nusage: collective_routing_bench "
                     "[--ranks R[,R...]] [--calls K] [--grid] [--repeats N]\n",
                     e.what());
        return 2;
    }
    std::printf("%u MPI_Allreduce on MPI_COMM_WORLD%s per process, one process per rank, ranks "
                "as threads;\nCPU time of each rank's thread, its best of %u runs: the median "
                "over ranks and the largest.\n",
                o.calls, o.grid ? " and as many on its row and its column" : "", o.repeats);
    std::printf("%5s %6s %7s %9s %19s %15s %7s %15s %7s %6s\n", "", "own", "copies", "ends",
                "bytes", "route (us)", "us per", "step (ms)", "us per", "in ex-");
    std::printf("%5s %6s %7s %9s %19s %7s %7s %7s %7s %7s %7s %6s\n", "ranks", "ends", "written",
                "received", "received", "median", "max", "copy", "median", "max", "end", "change");
    try {
        for (const uint32_t ranks : o.ranks) measure(ranks, o);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "collective_routing_bench: %s\n", e.what());
        return 1;
    }
    return 0;
}
