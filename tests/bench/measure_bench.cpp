// Measures what topolens' instrumentation adds per event, from inside an MPI program run
// on 2 ranks. Built twice: linked against libtopolens-measure (measured) and without it
// (plain). tests/bench/measure_overhead.sh runs both and prints the table.
//
//   measure_bench [REPETITIONS]   prints one "name ns_per_operation" line per case (rank 0)
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#ifdef TOPOLENS_BENCH_MEASURED
#include "topolens.h"
#endif

namespace {

double seconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

// Best of several rounds: the least disturbed by the other processes on a shared machine.
template <typename Body> double best_ns_per_op(long operations, Body&& body) {
    double best = 1e30;
    for (int round = 0; round < 5; ++round) {
        MPI_Barrier(MPI_COMM_WORLD);
        const double start = seconds();
        body(operations);
        const double elapsed = seconds() - start;
        best = std::min(best, elapsed * 1e9 / static_cast<double>(operations));
    }
    return best;
}

} // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const long repetitions = argc > 1 ? std::atol(argv[1]) : 200000;
    if (size != 2) {
        if (rank == 0) std::fprintf(stderr, "measure_bench: run on exactly 2 ranks\n");
        MPI_Finalize();
        return 2;
    }

    // User region enter+leave pair (rank 0 alone; the other rank waits).
    double region_ns = 0.0;
#ifdef TOPOLENS_BENCH_MEASURED
    region_ns = best_ns_per_op(repetitions * 5, [&](long n) {
        if (rank != 0) return;
        for (long i = 0; i < n; ++i) {
            topolens_region_enter("bench region");
            topolens_region_leave("bench region");
        }
    });
#endif

    // MPI_Send/MPI_Recv pair: a ping-pong is two pairs.
    int payload = 0;
    const double pingpong_ns = best_ns_per_op(repetitions, [&](long n) {
        for (long i = 0; i < n; ++i) {
            if (rank == 0) {
                MPI_Send(&payload, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
                MPI_Recv(&payload, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(&payload, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(&payload, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
            }
        }
    });

    int sum = 0;
    const double allreduce_ns = best_ns_per_op(repetitions, [&](long n) {
        for (long i = 0; i < n; ++i)
            MPI_Allreduce(&payload, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    });

    if (rank == 0) {
        std::printf("region_pair %.1f\n", region_ns);
        std::printf("send_recv_pair %.1f\n", pingpong_ns / 2.0);
        std::printf("allreduce %.1f\n", allreduce_ns);
    }
    MPI_Finalize();
    return 0;
}
