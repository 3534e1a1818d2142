// What compiler instrumentation costs (docs/instrumentation.md, "Performance"). Built twice
// from this file: with every function instrumented by -finstrument-functions and linked
// with libtopolens-measure (instrument_bench), and without (instrument_bench_plain).
// tests/bench/instrument_overhead.sh runs them and prints the figures.
//
//   instrument_bench calls [N]   ns per call of a recorded function (enter + leave: two
//                                events) and of a filtered one, net of the same call not
//                                instrumented; best of 20 rounds of N calls (rank 0)
//   instrument_bench sample [N]  seconds of a small 2D Jacobi solver (N sweeps): every
//                                function instrumented, its frequent row function to be
//                                filtered; compare with instrument_bench_plain sample
//
// The filtered case needs TOPOLENS_FILTER to exclude bench::filtered_leaf (the script
// writes that filter).
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace bench {

// The same empty body three times: measured (instrumented, recorded), filtered
// (instrumented, excluded by the filter) and bare (never instrumented: the baseline).
__attribute__((noinline)) void recorded_leaf(int* x) {
    asm volatile("" : : "r"(x) : "memory");
}
__attribute__((noinline)) void filtered_leaf(int* x) {
    asm volatile("" : : "r"(x) : "memory");
}
__attribute__((noinline, no_instrument_function)) void bare_leaf(int* x) {
    asm volatile("" : : "r"(x) : "memory");
}

__attribute__((no_instrument_function)) double seconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

// Best of 20 rounds, ns per call: short rounds, so that some run undisturbed on a busy
// machine. Not instrumented itself: only the leaf's hooks count.
template <typename Leaf>
__attribute__((no_instrument_function)) double ns_per_call(long calls, Leaf leaf) {
    double best = 1e30;
    int x = 0;
    for (int round = 0; round < 20; ++round) {
        const double start = seconds();
        for (long i = 0; i < calls; ++i) leaf(&x);
        const double elapsed = seconds() - start;
        if (elapsed < best) best = elapsed;
    }
    return best / static_cast<double>(calls) * 1e9;
}

// ---------------------------------------------------------------- the sample

constexpr int kColumns = 256;

// One row of a Jacobi sweep: the small, frequent function a filter leaves out.
__attribute__((noinline)) double relax_row(const double* above, const double* row,
                                           const double* below, double* out) {
    double change = 0;
    for (int j = 1; j < kColumns - 1; ++j) {
        out[j] = 0.25 * (above[j] + below[j] + row[j - 1] + row[j + 1]);
        const double d = out[j] - row[j];
        change += d * d;
    }
    return change;
}

__attribute__((noinline)) void exchange_halo(std::vector<double>& grid, int rows, int rank,
                                             int size) {
    const int up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    const int down = rank + 1 < size ? rank + 1 : MPI_PROC_NULL;
    MPI_Sendrecv(&grid[kColumns], kColumns, MPI_DOUBLE, up, 0, &grid[(rows + 1) * kColumns],
                 kColumns, MPI_DOUBLE, down, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&grid[rows * kColumns], kColumns, MPI_DOUBLE, down, 1, &grid[0], kColumns,
                 MPI_DOUBLE, up, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

__attribute__((noinline)) double sweep(std::vector<double>& grid, std::vector<double>& next,
                                       int rows) {
    double change = 0;
    for (int i = 1; i <= rows; ++i)
        change += relax_row(&grid[(i - 1) * kColumns], &grid[i * kColumns],
                            &grid[(i + 1) * kColumns], &next[i * kColumns]);
    for (int i = 1; i <= rows; ++i)
        std::memcpy(&grid[i * kColumns + 1], &next[i * kColumns + 1],
                    (kColumns - 2) * sizeof(double));
    return change;
}

__attribute__((noinline)) double solve(int sweeps, int rank, int size) {
    const int rows = 256;
    std::vector<double> grid((rows + 2) * kColumns, 0.0), next(grid);
    for (int j = 0; j < kColumns; ++j) grid[j] = rank == 0 ? 1.0 : 0.0;
    double change = 0;
    for (int s = 0; s < sweeps; ++s) {
        exchange_halo(grid, rows, rank, size);
        change = sweep(grid, next, rows);
        if (s % 10 == 0)
            MPI_Allreduce(MPI_IN_PLACE, &change, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    return change;
}

} // namespace bench

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char* mode = argc > 1 ? argv[1] : "calls";
    int status = 0;
    if (std::strcmp(mode, "calls") == 0) {
        const long calls = argc > 2 ? std::atol(argv[2]) : 100000;
        const double bare = bench::ns_per_call(calls, bench::bare_leaf);
        const double recorded = bench::ns_per_call(calls, bench::recorded_leaf);
        const double filtered = bench::ns_per_call(calls, bench::filtered_leaf);
        if (rank == 0) {
            std::printf("bare_call_ns %.2f\n", bare);
            std::printf("recorded_enter_leave_ns %.2f\n", recorded - bare);
            std::printf("recorded_per_event_ns %.2f\n", (recorded - bare) / 2);
            std::printf("filtered_enter_leave_ns %.2f\n", filtered - bare);
        }
    } else if (std::strcmp(mode, "sample") == 0) {
        const int sweeps = argc > 2 ? std::atoi(argv[2]) : 2000;
        MPI_Barrier(MPI_COMM_WORLD);
        const double start = bench::seconds();
        const double change = bench::solve(sweeps, rank, size);
        MPI_Barrier(MPI_COMM_WORLD);
        const double elapsed = bench::seconds() - start;
        if (rank == 0) std::printf("sample_seconds %.4f (change %.3g)\n", elapsed, change);
    } else {
        if (rank == 0) std::fprintf(stderr, "usage: instrument_bench calls|sample [N]\n");
        status = 2;
    }
    MPI_Finalize();
    return status;
}
