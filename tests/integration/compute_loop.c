/* A program with known computation (issue 21, "the whole program's time"): ITERATIONS
 * iterations, each MS milliseconds of busy computation on every rank between two
 * MPI_Barriers. The computation spins on CLOCK_MONOTONIC, so it lasts MS ms of wall-clock
 * time however busy the machine is. Each rank prints, for check_program_time.sh:
 *   rank R main_start T0 before_finalize T1 compute C
 * T0 and T1: CLOCK_MONOTONIC in ns (the measurement's clock) when main began and just
 * before MPI_Finalize; C: seconds spent in the busy loops.
 *
 * usage: compute_loop ITERATIONS MS */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long long now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char** argv) {
    const long long main_start = now_ns();
    MPI_Init(&argc, &argv);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const int iterations = argc > 1 ? atoi(argv[1]) : 40;
    const long long span = (argc > 2 ? atoll(argv[2]) : 25) * 1000000LL;
    long long computed = 0;
    volatile double sink = 0.0;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < iterations; ++i) {
        const long long begin = now_ns();
        long long t = begin;
        while (t - begin < span) {
            for (int k = 0; k < 1000; ++k) sink += k * 0.5;
            t = now_ns();
        }
        computed += t - begin;
        MPI_Barrier(MPI_COMM_WORLD);
    }
    const long long before_finalize = now_ns();
    printf("rank %d main_start %lld before_finalize %lld compute %.9f\n", rank, main_start,
           before_finalize, computed * 1e-9);
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
