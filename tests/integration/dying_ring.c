/* A ring exchange that one rank can end abnormally, for the "a run that dies" tests:
 *   dying_ring [--iterations N] [--die-at I] [--how abort|sigsegv|sigterm|sigkill|exit]
 *              [--rank R] [--work-us U] [--handle-sigterm 1] [--packs K]
 * With --handle-sigterm 1 every rank handles SIGTERM itself (installed before MPI_Init) and
 * lives on: --how sigterm then only counts the signal.
 * Every iteration: a little work, then MPI_Sendrecv to the right neighbour and from the
 * left one. Rank R (default 1) dies at iteration I the given way; the others run on into
 * the exchange with it. --packs K adds K MPI_Pack calls per iteration: many events without
 * communication or MPI progress (an MPI_Iprobe yields the processor when the processes are
 * oversubscribed), which stays fast on a loaded machine. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void work(long microseconds) {
    struct timespec start, t;
    clock_gettime(CLOCK_MONOTONIC, &start);
    do clock_gettime(CLOCK_MONOTONIC, &t);
    while ((t.tv_sec - start.tv_sec) * 1000000L + (t.tv_nsec - start.tv_nsec) / 1000 <
           microseconds);
}

static volatile sig_atomic_t sigterms = 0;
static void count_sigterm(int sig) {
    (void)sig;
    ++sigterms;
}

static void die(const char* how) {
    if (strcmp(how, "abort") == 0) MPI_Abort(MPI_COMM_WORLD, 3);
    if (strcmp(how, "sigsegv") == 0) {
        volatile int* nowhere = NULL;
        *nowhere = 1;
    }
    if (strcmp(how, "sigterm") == 0) {
        raise(SIGTERM);
        return; /* handled (--handle-sigterm 1) */
    }
    if (strcmp(how, "sigkill") == 0) raise(SIGKILL);
    if (strcmp(how, "exit") == 0) exit(4);
    fprintf(stderr, "dying_ring: unknown --how '%s'\n", how);
    exit(2);
}

int main(int argc, char** argv) {
    int iterations = 100, die_at = -1, dying_rank = 1;
    long work_us = 1000;
    int handle_sigterm = 0, packs = 0;
    const char* how = "exit";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--iterations") == 0)
            iterations = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--die-at") == 0)
            die_at = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--how") == 0)
            how = argv[i + 1];
        else if (strcmp(argv[i], "--handle-sigterm") == 0)
            handle_sigterm = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--work-us") == 0)
            work_us = atol(argv[i + 1]);
        else if (strcmp(argv[i], "--rank") == 0)
            dying_rank = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--packs") == 0)
            packs = atoi(argv[i + 1]);
        else {
            fprintf(stderr, "dying_ring: unknown option '%s'\n", argv[i]);
            return 2;
        }
    }
    if (handle_sigterm) signal(SIGTERM, count_sigterm);
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int right = (rank + 1) % size, left = (rank + size - 1) % size;
    double out[64] = {0}, in[64];
    for (int it = 0; it < iterations; ++it) {
        if (it == die_at && rank == dying_rank) die(how);
        work(work_us);
        for (int p = 0; p < packs; ++p) {
            char packed[16];
            int position = 0;
            MPI_Pack(out, 1, MPI_DOUBLE, packed, (int)sizeof packed, &position, MPI_COMM_WORLD);
        }
        out[0] = it;
        MPI_Sendrecv(out, 64, MPI_DOUBLE, right, 7, in, 64, MPI_DOUBLE, left, 7, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (handle_sigterm && rank == dying_rank && sigterms != 1) {
        fprintf(stderr, "dying_ring: rank %d saw %d SIGTERM, not 1\n", rank, (int)sigterms);
        MPI_Abort(MPI_COMM_WORLD, 5);
    }
    MPI_Finalize();
    return 0;
}
