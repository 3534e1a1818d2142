// An ADCL-like runtime tuner for a 3D halo exchange (see README.md).
//
// Search: every codelet of the tuned operation "halo3d" runs n_m times, each execution
// timed with MPI_Wtime around topolens_tuned_begin/end (optionally after an MPI_Barrier).
// Decision: per process one estimate per codelet (ADCL's heuristic: outliers t > 3 min,
// filtered mean when at most 20% of the measurements are outliers, else the raw mean; or
// the raw mean), the slowest process decides (MPI_Allreduce MAX), winner = argmin.
// Production: the winner runs --production times. Faults can be injected (README.md).
#include <mpi.h>

#include "halo.h"
#include "topolens.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace {

const char* const kUsage =
    "usage: autotune_halo [--block N] [--measurements N] [--production N] [--barrier]\n"
    "         [--decide heuristic|mean] [--non-periodic] [--verify] [--codelet-costs US,US,...]\n"
    "         [--cost-jitter F]\n"
    "         [--outliers K --outlier-factor F --outlier-rank R --outlier-codelet C]\n"
    "         [--slow-rank R --slow-codelet C --slow-factor F] [--production-slowdown F]\n"
    "         [--codelet C]\n";

struct Options {
    int block = 24;
    int measurements = 10;
    int production = 20;
    bool barrier = false;
    bool mean = false; // --decide mean
    bool periodic = true;
    bool verify = false;
    std::vector<int> costs_us; // synthetic cost per codelet, empty: none
    double cost_jitter = 0;    // each execution's cost varies by up to this fraction
    int outliers = 0;
    double outlier_factor = 10.0;
    int outlier_rank = 0;
    int outlier_codelet = 0;
    int slow_rank = -1;
    int slow_codelet = 0;
    double slow_factor = 3.0;
    double production_slowdown = 1.0;
    int codelet = -1; // --codelet: a verification run of this one codelet, no search
};

bool parse_int(const std::string& text, int min, int max, int& out) {
    char* end = nullptr;
    const long v = std::strtol(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || v < min || v > max) return false;
    out = int(v);
    return true;
}

bool parse_factor(const std::string& text, double& out) {
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || !(v >= 1.0) || v > 1000.0) return false;
    out = v;
    return true;
}

// Returns an error message, empty when the options are valid ("help" for --help).
std::string parse_options(int argc, char** argv, int ranks, Options& o) {
    const int codelets = halo::Exchange::codelet_count();
    bool slow_given = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--help") return "help";
        if (a == "--barrier") {
            o.barrier = true;
            continue;
        }
        if (a == "--non-periodic") {
            o.periodic = false;
            continue;
        }
        if (a == "--verify") {
            o.verify = true;
            continue;
        }
        if (i + 1 >= argc) return "option '" + a + "' is unknown or lacks its value";
        const std::string v = argv[++i];
        const std::string bad = a + ": bad value '" + v + "'";
        if (a == "--block") {
            if (!parse_int(v, 1, 200, o.block)) return bad + " (1..200)";
        } else if (a == "--measurements") {
            if (!parse_int(v, 1, 100000, o.measurements)) return bad + " (1..100000)";
        } else if (a == "--production") {
            if (!parse_int(v, 0, 1000000, o.production)) return bad + " (0..1000000)";
        } else if (a == "--decide") {
            if (v != "heuristic" && v != "mean") return bad + " (heuristic or mean)";
            o.mean = v == "mean";
        } else if (a == "--codelet-costs") {
            o.costs_us.clear();
            std::size_t start = 0;
            while (true) {
                const std::size_t comma = v.find(',', start);
                int us = 0;
                if (!parse_int(v.substr(start, comma - start), 0, 10000000, us))
                    return bad + " (microseconds >= 0, comma-separated)";
                o.costs_us.push_back(us);
                if (comma == std::string::npos) break;
                start = comma + 1;
            }
            if (int(o.costs_us.size()) != codelets)
                return bad + " (want " + std::to_string(codelets) + " values, one per codelet)";
        } else if (a == "--cost-jitter") {
            char* end = nullptr;
            o.cost_jitter = std::strtod(v.c_str(), &end);
            if (v.empty() || *end != '\0' || !(o.cost_jitter >= 0) || o.cost_jitter > 0.5)
                return bad + " (a fraction, 0..0.5)";
        } else if (a == "--outliers") {
            if (!parse_int(v, 0, 100000, o.outliers)) return bad;
        } else if (a == "--outlier-factor") {
            if (!parse_factor(v, o.outlier_factor)) return bad + " (1..1000)";
        } else if (a == "--outlier-rank") {
            if (!parse_int(v, 0, ranks - 1, o.outlier_rank))
                return bad + " (0.." + std::to_string(ranks - 1) + ")";
        } else if (a == "--outlier-codelet") {
            if (!parse_int(v, 0, codelets - 1, o.outlier_codelet))
                return bad + " (0.." + std::to_string(codelets - 1) + ")";
        } else if (a == "--slow-rank") {
            if (!parse_int(v, 0, ranks - 1, o.slow_rank))
                return bad + " (0.." + std::to_string(ranks - 1) + ")";
            slow_given = true;
        } else if (a == "--slow-codelet") {
            if (!parse_int(v, 0, codelets - 1, o.slow_codelet))
                return bad + " (0.." + std::to_string(codelets - 1) + ")";
        } else if (a == "--slow-factor") {
            if (!parse_factor(v, o.slow_factor)) return bad + " (1..1000)";
        } else if (a == "--production-slowdown") {
            if (!parse_factor(v, o.production_slowdown)) return bad + " (1..1000)";
        } else if (a == "--codelet") {
            if (!parse_int(v, 0, codelets - 1, o.codelet))
                return bad + " (0.." + std::to_string(codelets - 1) + ")";
        } else {
            return "unknown option '" + a + "'";
        }
    }
    if (o.outliers > o.measurements)
        return "--outliers " + std::to_string(o.outliers) + " exceeds --measurements " +
               std::to_string(o.measurements);
    if (!slow_given) o.slow_rank = -1;
    // Both act on the search or against its estimate, which a fixed-codelet run has not.
    if (o.codelet >= 0 && o.outliers > 0) return "--outliers needs the search, not --codelet";
    if (o.codelet >= 0 && o.production_slowdown != 1.0)
        return "--production-slowdown needs the search, not --codelet";
    // Open MPI 4.1 has no one-sided component for a single process (put_fence_ddt).
    if (ranks < 2) return "needs at least 2 processes";
    return "";
}

void sleep_seconds(double s) {
    if (s > 0) std::this_thread::sleep_for(std::chrono::duration<double>(s));
}

// A number in [-1, 1] that depends only on its arguments (so runs are repeatable), spread
// evenly: the jitter of one execution's synthetic cost (splitmix64 of the three).
double jitter_unit(int rank, int codelet, long execution) {
    uint64_t z = (uint64_t(rank) << 40) ^ (uint64_t(codelet) << 32) ^ uint64_t(execution);
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return double(z >> 11) / double(1ULL << 53) * 2.0 - 1.0;
}

// Is search measurement m of n one of the k outliers? Spread evenly: m = floor((j+1/2) n/k).
bool is_outlier(int m, int n, int k) {
    for (int j = 0; j < k; ++j)
        if (int((j + 0.5) * n / k) == m) return true;
    return false;
}

enum class Phase { search, production };

struct Tuner {
    const Options& o;
    halo::Exchange& x;
    int op;
    int rank;
    double production_reference = 0; // this process's search estimate of the winner
    long executions_ = 0;            // executions so far, for the cost jitter

    // One timed execution of codelet c; the injected extra time lies inside begin/end.
    double execute(int c, Phase phase, int m) {
        if (o.verify) x.reset();
        if (o.barrier) MPI_Barrier(x.comm());
        const double t0 = MPI_Wtime();
        topolens_tuned_begin(op);
        x.run(c);
        if (!o.costs_us.empty())
            sleep_seconds(o.costs_us[std::size_t(c)] * 1e-6 *
                          (1.0 + o.cost_jitter * jitter_unit(rank, c, executions_++)));
        const double t = MPI_Wtime() - t0;
        double factor = 1.0;
        if (phase == Phase::search && o.outliers > 0 && rank == o.outlier_rank &&
            c == o.outlier_codelet && is_outlier(m, o.measurements, o.outliers))
            factor *= o.outlier_factor;
        if (rank == o.slow_rank && c == o.slow_codelet) factor *= o.slow_factor;
        double extra = (factor - 1.0) * t;
        // Relative to the search estimate, not to t: t includes waiting for neighbours that
        // slept too, and every process scaling it would grow the delay geometrically.
        if (phase == Phase::production)
            extra += (o.production_slowdown - 1.0) * production_reference;
        sleep_seconds(extra);
        topolens_tuned_end(op);
        const double elapsed = MPI_Wtime() - t0;
        if (o.verify && x.check() != 0) {
            std::fprintf(stderr, "autotune_halo: rank %d: codelet %d (%s) left a wrong halo\n",
                         rank, c, halo::Exchange::codelet_name(c));
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        return elapsed;
    }
};

// ADCL's heuristic: outliers t > 3 min; filtered mean if at most 20% are outliers.
double estimate(const std::vector<double>& t, bool raw_mean) {
    double sum = 0;
    for (double v : t) sum += v;
    const double mean = sum / double(t.size());
    if (raw_mean) return mean;
    const double min = *std::min_element(t.begin(), t.end());
    double kept = 0;
    int n_kept = 0;
    for (double v : t)
        if (v <= 3.0 * min) kept += v, ++n_kept;
    const int n_out = int(t.size()) - n_kept;
    return 5 * n_out <= int(t.size()) ? kept / n_kept : mean;
}

// A verification run (Benkert §5.3.3.1): the one codelet o.codelet runs --production times in
// the production phase, with no search and no decision, as if the tuner had chosen it.
void fixed_codelet_run(const Options& o, halo::Exchange& x) {
    const int op = topolens_tuned_op_define("halo3d");
    Tuner tuner{o, x, op, x.rank()};
    const char* name = halo::Exchange::codelet_name(o.codelet);
    topolens_tuned_phase(op, TOPOLENS_PHASE_PRODUCTION);
    topolens_codelet_switch(op, o.codelet, name);
    double sum = 0;
    for (int p = 0; p < o.production; ++p) sum += tuner.execute(o.codelet, Phase::production, p);
    const double mean = o.production > 0 ? sum / o.production : 0.0;
    double max_mean = 0;
    MPI_Reduce(&mean, &max_mean, 1, MPI_DOUBLE, MPI_MAX, 0, x.comm());
    if (x.rank() == 0)
        std::printf("fixed codelet: %d %s, %d executions, mean %.1f us (slowest rank)\n", o.codelet,
                    name, o.production, max_mean * 1e6);
}

} // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int world_rank = 0, ranks = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);

    Options o;
    const std::string error = parse_options(argc, argv, ranks, o);
    if (!error.empty()) {
        if (world_rank == 0) {
            if (error != "help") std::fprintf(stderr, "autotune_halo: %s\n", error.c_str());
            std::fputs(kUsage, error == "help" ? stdout : stderr);
        }
        MPI_Finalize();
        return error == "help" ? 0 : 2;
    }

    const int n = halo::Exchange::codelet_count();
    int status = 0;
    {
        halo::Exchange x(o.block, o.periodic);
        const int rank = x.rank();

        // Every codelet must leave the same, correct halo (checked once, untimed).
        long wrong[2] = {0, 0};
        for (int c = 0; c < n; ++c) {
            x.reset();
            x.run(c);
            const long bad = x.check();
            if (bad != 0 && wrong[0] == 0) wrong[1] = c;
            wrong[0] += bad;
        }
        long global_wrong = 0;
        MPI_Allreduce(&wrong[0], &global_wrong, 1, MPI_LONG, MPI_SUM, x.comm());
        if (global_wrong != 0) {
            std::fprintf(stderr,
                         "autotune_halo: rank %d: %ld wrong halo cells (first codelet %ld)\n", rank,
                         wrong[0], wrong[1]);
            status = 1;
        }
        if (rank == 0 && status == 0)
            std::printf("autotune_halo: %d ranks, grid %dx%dx%d %s, block %d, %d codelets "
                        "verified, %d measurements, decide %s, barrier %s\n",
                        ranks, x.dims()[0], x.dims()[1], x.dims()[2],
                        o.periodic ? "periodic" : "non-periodic", o.block, n, o.measurements,
                        o.mean ? "mean" : "heuristic", o.barrier ? "on" : "off");

        if (status == 0 && o.codelet >= 0) fixed_codelet_run(o, x);
        if (status == 0 && o.codelet < 0) {
            const int op = topolens_tuned_op_define("halo3d");
            Tuner tuner{o, x, op, rank};

            topolens_tuned_phase(op, TOPOLENS_PHASE_SEARCH);
            std::vector<double> local(std::size_t(n), 0.0);
            for (int c = 0; c < n; ++c) {
                topolens_codelet_switch(op, c, halo::Exchange::codelet_name(c));
                std::vector<double> t;
                for (int m = 0; m < o.measurements; ++m)
                    t.push_back(tuner.execute(c, Phase::search, m));
                local[std::size_t(c)] = estimate(t, o.mean);
            }

            topolens_tuned_phase(op, TOPOLENS_PHASE_DECISION);
            struct {
                double value;
                int rank;
            } in[64], out[64]; // MPI_DOUBLE_INT
            static_assert(sizeof(in) / sizeof(in[0]) >= 11, "room for every codelet");
            for (int c = 0; c < n; ++c) in[c].value = local[std::size_t(c)], in[c].rank = rank;
            MPI_Allreduce(in, out, n, MPI_DOUBLE_INT, MPI_MAXLOC, x.comm());
            int winner = 0;
            for (int c = 1; c < n; ++c)
                if (out[c].value < out[winner].value) winner = c;
            topolens_tuned_decision(op, winner, halo::Exchange::codelet_name(winner));
            if (rank == 0) {
                std::printf("%-7s %-22s %14s %13s\n", "codelet", "name", "estimate_us",
                            "slowest_rank");
                for (int c = 0; c < n; ++c)
                    std::printf("%7d %-22s %14.1f %13d\n", c, halo::Exchange::codelet_name(c),
                                out[c].value * 1e6, out[c].rank);
                std::printf("winner: %d %s\n", winner, halo::Exchange::codelet_name(winner));
            }

            topolens_tuned_phase(op, TOPOLENS_PHASE_PRODUCTION);
            tuner.production_reference = local[std::size_t(winner)];
            topolens_codelet_switch(op, winner, halo::Exchange::codelet_name(winner));
            double sum = 0;
            for (int p = 0; p < o.production; ++p)
                sum += tuner.execute(winner, Phase::production, p);
            const double mean = o.production > 0 ? sum / o.production : 0.0;
            double max_mean = 0;
            MPI_Reduce(&mean, &max_mean, 1, MPI_DOUBLE, MPI_MAX, 0, x.comm());
            if (rank == 0 && o.production > 0)
                std::printf("production: %d executions of %s, mean %.1f us (slowest rank) vs "
                            "search estimate %.1f us\n",
                            o.production, halo::Exchange::codelet_name(winner), max_mean * 1e6,
                            out[winner].value * 1e6);
        }
    }
    MPI_Finalize();
    return status;
}
