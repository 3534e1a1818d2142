/* Drives the topolens autotuner API through one known tuning run (see README.md).
 *
 * A tuned operation "halo" (ring neighbour exchange) has three codelets. The search phase
 * runs every codelet a fixed number of times, the decision phase picks codelet 1, the
 * production phase runs the winner. With --expect FILE, rank 0 writes the sequence of
 * tuner calls and executions each rank makes, for the integration test to compare with
 * what the trace reader reconstructs.
 */
#include <mpi.h>

#include "topolens.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kCodelets = 3, kCount = 256 };

static const char* const kCodeletNames[kCodelets] = {"isend_irecv", "sendrecv", "alltoallv"};
/* Extra busy time per codelet, so the codelets differ and codelet 1 really is fastest. */
static const int kCodeletWorkUs[kCodelets] = {300, 100, 500};
static const int kWinner = 1;

typedef struct {
    int measurements; /* search-phase executions per codelet */
    int production;   /* production-phase executions */
    const char* expect;
} options;

static void busy_wait_us(int us) {
    const double until = MPI_Wtime() + us * 1e-6;
    while (MPI_Wtime() < until) {
    }
}

/* One execution of codelet `c`: the same halo exchange with the two ring neighbours,
 * implemented three ways. */
static void run_codelet(int c, int rank, int size, double* out, double* in) {
    const int left = (rank + size - 1) % size, right = (rank + 1) % size;
    switch (c) {
    case 0: {
        MPI_Request req[4];
        MPI_Irecv(in, kCount, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &req[0]);
        MPI_Irecv(in + kCount, kCount, MPI_DOUBLE, right, 2, MPI_COMM_WORLD, &req[1]);
        MPI_Isend(out, kCount, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &req[2]);
        MPI_Isend(out + kCount, kCount, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, &req[3]);
        MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
        break;
    }
    case 1:
        MPI_Sendrecv(out, kCount, MPI_DOUBLE, right, 1, in, kCount, MPI_DOUBLE, left, 1,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(out + kCount, kCount, MPI_DOUBLE, left, 2, in + kCount, kCount, MPI_DOUBLE,
                     right, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        break;
    default: {
        /* All-to-all with data only for the two neighbours, as ADCL's aao codelets. */
        int* counts = calloc((size_t)size * 4, sizeof(int));
        int *scount = counts, *sdispl = counts + size, *rcount = counts + 2 * size,
            *rdispl = counts + 3 * size;
        /* With two processes left == right: one block of 2*kCount each way. */
        scount[right] += kCount;
        scount[left] += kCount;
        rcount[left] += kCount;
        rcount[right] += kCount;
        sdispl[right] = 0;
        sdispl[left] = left == right ? 0 : kCount;
        rdispl[left] = 0;
        rdispl[right] = left == right ? 0 : kCount;
        MPI_Alltoallv(out, scount, sdispl, MPI_DOUBLE, in, rcount, rdispl, MPI_DOUBLE,
                      MPI_COMM_WORLD);
        free(counts);
        break;
    }
    }
    busy_wait_us(kCodeletWorkUs[c]);
}

static int parse_int(const char* text, int* out) {
    char* end = NULL;
    long v = strtol(text, &end, 10);
    if (*text == '\0' || *end != '\0' || v < 1 || v > 100000) return -1;
    *out = (int)v;
    return 0;
}

static int parse_options(int argc, char** argv, options* o) {
    o->measurements = 5;
    o->production = 4;
    o->expect = NULL;
    for (int i = 1; i < argc; ++i) {
        if (i + 1 < argc && strcmp(argv[i], "--measurements") == 0) {
            if (parse_int(argv[++i], &o->measurements)) return -1;
        } else if (i + 1 < argc && strcmp(argv[i], "--production") == 0) {
            if (parse_int(argv[++i], &o->production)) return -1;
        } else if (i + 1 < argc && strcmp(argv[i], "--expect") == 0) {
            o->expect = argv[++i];
        } else {
            return -1;
        }
    }
    return 0;
}

/* The expected sequence, one line per tuner call or execution, in the order a rank makes
 * them. Must follow main() below step by step. */
static void write_expect(const options* o, int size) {
    FILE* f = fopen(o->expect, "w");
    if (!f) {
        perror(o->expect);
        return;
    }
    fprintf(f, "# topolens expected tuned-operation sequence\nsample autotune_api\n");
    fprintf(f, "ranks %d\nop halo\n", size);
    for (int r = 0; r < size; ++r) {
        fprintf(f, "rank %d phase search\n", r);
        for (int c = 0; c < kCodelets; ++c) {
            fprintf(f, "rank %d switch %d %s\n", r, c, kCodeletNames[c]);
            for (int m = 0; m < o->measurements; ++m)
                fprintf(f, "rank %d exec %d %s search\n", r, c, kCodeletNames[c]);
        }
        fprintf(f, "rank %d phase decision\n", r);
        fprintf(f, "rank %d decision %d %s\n", r, kWinner, kCodeletNames[kWinner]);
        fprintf(f, "rank %d switch %d %s\n", r, kWinner, kCodeletNames[kWinner]);
        fprintf(f, "rank %d phase production\n", r);
        for (int p = 0; p < o->production; ++p)
            fprintf(f, "rank %d exec %d %s production\n", r, kWinner, kCodeletNames[kWinner]);
    }
    fclose(f);
}

static void execute(int op, int c, int rank, int size, double* out, double* in) {
    topolens_tuned_begin(op);
    run_codelet(c, rank, size, out, in);
    topolens_tuned_end(op);
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    options o;
    if (parse_options(argc, argv, &o) != 0) {
        if (rank == 0)
            fprintf(stderr, "usage: autotune_api [--measurements M] [--production P] "
                            "[--expect FILE]\n");
        MPI_Finalize();
        return 2;
    }
    if (rank == 0 && !topolens_is_active())
        fprintf(stderr, "autotune_api: measurement inactive, nothing is recorded\n");

    double* out = malloc(2 * kCount * sizeof(double));
    double* in = malloc(2 * kCount * sizeof(double));
    for (int i = 0; i < 2 * kCount; ++i) out[i] = rank + i;

    const int op = topolens_tuned_op_define("halo");
    topolens_tuned_phase(op, TOPOLENS_PHASE_SEARCH);
    for (int c = 0; c < kCodelets; ++c) {
        topolens_codelet_switch(op, c, kCodeletNames[c]);
        for (int m = 0; m < o.measurements; ++m) execute(op, c, rank, size, out, in);
    }
    /* The tuner decides; here the decision is fixed, the codelet times agree with it. */
    topolens_tuned_phase(op, TOPOLENS_PHASE_DECISION);
    topolens_tuned_decision(op, kWinner, kCodeletNames[kWinner]);
    topolens_codelet_switch(op, kWinner, kCodeletNames[kWinner]);
    topolens_tuned_phase(op, TOPOLENS_PHASE_PRODUCTION);
    for (int p = 0; p < o.production; ++p) execute(op, kWinner, rank, size, out, in);

    if (o.expect && rank == 0) write_expect(&o, size);
    if (rank == 0)
        printf("autotune_api: op halo, %d codelets x %d search executions, winner %s, "
               "%d production executions, %d processes\n",
               kCodelets, o.measurements, kCodeletNames[kWinner], o.production, size);
    free(out);
    free(in);
    MPI_Finalize();
    return 0;
}
