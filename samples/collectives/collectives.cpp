// Collective wait states of known size (see README.md).
//
// Each iteration runs MPI_Allreduce, MPI_Barrier, MPI_Bcast and MPI_Reduce on
// MPI_COMM_WORLD, each a top-level MPI call (call paths MPI_Allreduce, MPI_Barrier, ...).
// Before each, chosen ranks sleep D milliseconds, so the others wait inside the collective:
//   Allreduce, Barrier: the --late-ranks enter late  -> Wait at N×N / Wait at Barrier
//   Bcast:              the root enters late         -> Late Broadcast on every non-root
//   Reduce:             every non-root enters late   -> Early Reduce on the root
// With --expect FILE, rank 0 writes the expected severities (about N × D per waiting rank).
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace {

const char* const kUsage =
    "usage: collectives [--iterations N] [--delay-ms D] [--late-ranks R[,R...]] [--root R]\n"
    "                   [--expect FILE]\n";

struct Options {
    int iterations = 3;
    int delay_ms = 50;
    std::vector<int> late_ranks; // empty: the last rank
    int root = 0;
    std::string expect;
};

// The four collectives in the order they run, with the metric (unique name) that
// measures the wait each one is given.
enum Op { kAllreduce, kBarrier, kBcast, kReduce, kOps };
constexpr const char* kRegion[kOps] = {"MPI_Allreduce", "MPI_Barrier", "MPI_Bcast", "MPI_Reduce"};
constexpr const char* kMetric[kOps] = {"mpi_wait_nxn", "mpi_barrier_wait", "mpi_latebroadcast",
                                       "mpi_earlyreduce"};

std::string parse_number(const char* option, const char* text, long min, long max, int& out) {
    char* end = nullptr;
    const long v = std::strtol(text, &end, 10);
    if (*text == '\0' || *end != '\0' || v < min || v > max)
        return std::string(option) + ": bad value '" + text + "'";
    out = static_cast<int>(v);
    return {};
}

// Returns an error message, empty when the options are valid for `size` processes.
std::string parse_options(int argc, char** argv, int size, Options& o) {
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--help" || a == "-h") return "help";
        if (a != "--iterations" && a != "--delay-ms" && a != "--late-ranks" && a != "--root" &&
            a != "--expect")
            return "unknown option '" + a + "'";
        if (i + 1 >= argc) return a + " needs a value";
        const char* v = argv[++i];
        std::string err;
        if (a == "--iterations")
            err = parse_number(argv[i - 1], v, 1, 1000000, o.iterations);
        else if (a == "--delay-ms")
            err = parse_number(argv[i - 1], v, 0, 3600000, o.delay_ms);
        else if (a == "--root")
            err = parse_number(argv[i - 1], v, 0, size - 1, o.root);
        else if (a == "--expect")
            o.expect = v;
        else {
            o.late_ranks.clear();
            std::string list = v;
            size_t start = 0;
            do {
                const size_t comma = std::min(list.find(',', start), list.size());
                int r = 0;
                err = parse_number("--late-ranks", list.substr(start, comma - start).c_str(), 0,
                                   size - 1, r);
                if (!err.empty()) break;
                o.late_ranks.push_back(r);
                start = comma + 1;
            } while (start <= list.size());
        }
        if (!err.empty()) return err;
    }
    if (o.late_ranks.empty()) o.late_ranks.push_back(size - 1);
    std::sort(o.late_ranks.begin(), o.late_ranks.end());
    o.late_ranks.erase(std::unique(o.late_ranks.begin(), o.late_ranks.end()), o.late_ranks.end());
    return {};
}

// The injected lateness. A sleep, not a busy loop: on an oversubscribed machine the ranks
// waiting inside the collective poll for the cores, and a sleeping rank leaves them the
// cores and is woken promptly at its deadline, while a busy-waiting one could be
// descheduled past it. The waits are measured on the others (their time inside the
// collective), so what the late rank does meanwhile does not matter. The deadline is on
// steady_clock (CLOCK_MONOTONIC) and sleep_until resumes after signals, so the delay is
// never short; returns how long it really took: the wait injected is what was really slept.
double sleep_ms(int ms) {
    using clock = std::chrono::steady_clock;
    const auto start = clock::now();
    std::this_thread::sleep_until(start + std::chrono::milliseconds(ms));
    return std::chrono::duration<double>(clock::now() - start).count();
}

bool is_late(const Options& o, int r) {
    return std::binary_search(o.late_ranks.begin(), o.late_ranks.end(), r);
}

// Whether rank r sleeps before collective `op`. The ranks that do not sleep are the ones
// that wait, each for the longest sleep of the others (max_q e_q - e_p for N×N and
// Barrier, e_root - e_p for Late Broadcast, max_{q≠root} e_q - e_root for Early Reduce).
bool sleeps(const Options& o, int op, int r) {
    switch (op) {
    case kAllreduce:
    case kBarrier:
        return is_late(o, r);
    case kBcast:
        return r == o.root;
    default:
        return r != o.root;
    }
}

// What one rank measured itself, sent to rank 0: per collective the seconds spent inside it
// (MPI_Wtime around the call: a local duration, no clock synchronisation needed), then per
// iteration and collective how long the rank really slept before it (0: it did not sleep).
class Measured {
  public:
    explicit Measured(double* fields) : fields_(fields) {}
    static int count(int iterations) { return kOps + iterations * kOps; }
    double& inside(int op) const { return fields_[op]; }
    double& slept(int it, int op) const { return fields_[kOps + it * kOps + op]; }

  private:
    double* fields_;
};

void write_expect(const Options& opt, int size, std::vector<double>& all) {
    FILE* f = std::fopen(opt.expect.c_str(), "w");
    if (!f) {
        std::perror(opt.expect.c_str());
        return;
    }
    const int n = Measured::count(opt.iterations);
    auto of = [&](int r) { return Measured(&all[n * r]); };
    std::fprintf(f, "# topolens expected wait states (docs/metrics.md)\n");
    std::fprintf(f, "sample collectives\nranks %d\niterations %d\ndelay_ms %d\nroot %d\n", size,
                 opt.iterations, opt.delay_ms, opt.root);
    std::fprintf(f, "late_ranks");
    for (int r : opt.late_ranks) std::fprintf(f, " %d", r);
    std::fprintf(f, "\ninjected %.6f\n", opt.iterations * opt.delay_ms * 1e-3);
    std::fprintf(f, "# wait RANK METRIC CALLPATH SECONDS: over the iterations, the longest sleep "
                    "of the others (about iterations x delay), or 0 for a rank that sleeps\n");
    for (int op = 0; op < kOps; ++op) {
        // The wait injected per iteration: the longest sleep before this collective.
        double injected = 0.0;
        for (int it = 0; it < opt.iterations; ++it) {
            double longest = 0.0;
            for (int q = 0; q < size; ++q) longest = std::max(longest, of(q).slept(it, op));
            injected += longest;
        }
        for (int r = 0; r < size; ++r)
            std::fprintf(f, "wait %d %s %s %.6f\n", r, kMetric[op], kRegion[op],
                         sleeps(opt, op, r) ? 0.0 : injected);
    }
    std::fprintf(f, "# inside RANK CALLPATH SECONDS: time in the call as the sample measured "
                    "it (upper bound of the wait)\n");
    for (int op = 0; op < kOps; ++op)
        for (int r = 0; r < size; ++r)
            std::fprintf(f, "inside %d %s %.6f\n", r, kRegion[op], of(r).inside(op));
    std::fclose(f);
}

} // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    // Every rank parses the same arguments, so every rank reaches the same verdict.
    Options opt;
    const std::string err = parse_options(argc, argv, size, opt);
    if (!err.empty()) {
        if (rank == 0) {
            if (err != "help") std::fprintf(stderr, "collectives: %s\n", err.c_str());
            std::fputs(kUsage, err == "help" ? stdout : stderr);
        }
        MPI_Finalize();
        return err == "help" ? 0 : 2;
    }

    // Ranks leave MPI_Init (and the measurement library's clock-offset exchange) at
    // different times; line them up first so the first Allreduce measures only the
    // injected delay. An Allgather, not a Barrier, so the Barrier row stays exact.
    std::vector<int> ranks(size);
    MPI_Allgather(&rank, 1, MPI_INT, ranks.data(), 1, MPI_INT, MPI_COMM_WORLD);

    const int n = Measured::count(opt.iterations);
    std::vector<double> mine(n, 0.0);
    const Measured m(mine.data());
    double value = rank + 1.0, sum = 0.0, data = 0.0;
    const double t0 = MPI_Wtime();
    for (int it = 0; it < opt.iterations; ++it) {
        // Each collective in turn: the chosen ranks sleep, then everybody calls it.
        auto before = [&](int op) {
            if (sleeps(opt, op, rank)) m.slept(it, op) = sleep_ms(opt.delay_ms);
            return MPI_Wtime();
        };
        auto after = [&](int op, double entered) { m.inside(op) += MPI_Wtime() - entered; };
        double t = before(kAllreduce);
        MPI_Allreduce(&value, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        after(kAllreduce, t);

        t = before(kBarrier);
        MPI_Barrier(MPI_COMM_WORLD);
        after(kBarrier, t);

        t = before(kBcast);
        if (rank == opt.root) data = sum;
        MPI_Bcast(&data, 1, MPI_DOUBLE, opt.root, MPI_COMM_WORLD);
        after(kBcast, t);

        t = before(kReduce);
        MPI_Reduce(&data, &value, 1, MPI_DOUBLE, MPI_MAX, opt.root, MPI_COMM_WORLD);
        after(kReduce, t);
    }
    const double elapsed = MPI_Wtime() - t0;

    // Rank 0 collects what every rank measured: for --expect, and for the overshoot line.
    std::vector<double> all(rank == 0 ? static_cast<size_t>(n) * size : 0);
    MPI_Gather(mine.data(), n, MPI_DOUBLE, all.data(), n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        if (!opt.expect.empty()) write_expect(opt, size, all);
        double overshoot = 0.0;
        for (int r = 0; r < size; ++r)
            for (int it = 0; it < opt.iterations; ++it)
                for (int op = 0; op < kOps; ++op)
                    if (sleeps(opt, op, r))
                        overshoot = std::max(overshoot, Measured(&all[n * r]).slept(it, op) -
                                                            opt.delay_ms * 1e-3);
        std::string late_list;
        for (int r : opt.late_ranks)
            late_list += (late_list.empty() ? "" : ",") + std::to_string(r);
        std::printf("collectives: %d ranks, %d iterations, delay %d ms, late ranks %s, root %d, "
                    "largest sleep overshoot %.2f ms, %.3f s\n",
                    size, opt.iterations, opt.delay_ms, late_list.c_str(), opt.root,
                    overshoot * 1e3, elapsed);
    }
    MPI_Finalize();
    return 0;
}
