/* The user API is a safe no-op before MPI_Init, after MPI_Finalize and with measurement
 * off, and records while measurement is on. Exits non-zero (naming the call) otherwise.
 *   api_noop on|off    (pass the state TOPOLENS_ENABLE puts the library in) */
#include "topolens.h"

#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int failures = 0;

#define EXPECT(call, want)                                                                         \
    do {                                                                                           \
        int got_ = (call);                                                                         \
        if (got_ != (want)) {                                                                      \
            fprintf(stderr, "api_noop (%s): %s returned %d, expected %d\n", phase, #call, got_,    \
                    (want));                                                                       \
            ++failures;                                                                            \
        }                                                                                          \
    } while (0)

/* Every API call when nothing may be recorded. */
static void expect_noop(const char* phase) {
    const int dims[2] = {2, 2}, periods[2] = {0, 0}, coords[2] = {0, 0};
    EXPECT(topolens_is_active(), 0);
    EXPECT(topolens_region_enter("r"), -1);
    EXPECT(topolens_region_leave("r"), -1);
    EXPECT(topolens_cart_create("grid", 2, dims, periods), 0);
    EXPECT(topolens_cart_coords(1, coords), -1);
    EXPECT(topolens_tuned_op_define("op"), 0);
    EXPECT(topolens_codelet_switch(1, 0, "c"), -1);
    EXPECT(topolens_tuned_phase(1, TOPOLENS_PHASE_SEARCH), -1);
    EXPECT(topolens_tuned_decision(1, 0, "c"), -1);
    EXPECT(topolens_tuned_begin(1), -1);
    EXPECT(topolens_tuned_end(1), -1);
    /* NULL arguments must not crash either. */
    EXPECT(topolens_region_enter(NULL), -1);
    EXPECT(topolens_cart_create(NULL, 2, NULL, NULL), 0);
    EXPECT(topolens_cart_coords(1, NULL), -1);
    EXPECT(topolens_tuned_op_define(NULL), 0);
}

int main(int argc, char** argv) {
    const int measuring = argc > 1 && strcmp(argv[1], "on") == 0;
    expect_noop("before MPI_Init");
    MPI_Init(&argc, &argv);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (measuring) {
        const char* phase = "measuring";
        const int dims[1] = {4}, periods[1] = {1}, bad[1] = {7};
        EXPECT(topolens_is_active(), 1);
        EXPECT(topolens_region_enter("r"), 0);
        EXPECT(topolens_region_leave("other"), -1); /* not the innermost region */
        EXPECT(topolens_region_leave("r"), 0);
        const int grid = topolens_cart_create("ring", 1, dims, periods);
        EXPECT(grid > 0, 1);
        EXPECT(topolens_cart_coords(grid, bad), -1);     /* outside the grid */
        EXPECT(topolens_cart_coords(grid + 5, bad), -1); /* not a handle */
        const int op = topolens_tuned_op_define("op");
        EXPECT(op > 0, 1);
        EXPECT(topolens_tuned_op_define("op"), op);
        EXPECT(topolens_tuned_end(op), -1); /* no execution open */
        EXPECT(topolens_codelet_switch(op, -1, "negative"), -1);
        EXPECT(topolens_codelet_switch(op + 9, 0, "no such op"), -1);
        EXPECT(topolens_tuned_phase(op, (topolens_tuning_phase)42), -1);
        EXPECT(topolens_codelet_switch(op, 0, "c"), 0);
        EXPECT(topolens_tuned_begin(op), 0);
        EXPECT(topolens_tuned_begin(op), -1); /* already open */
        EXPECT(topolens_tuned_end(op), 0);
    } else {
        expect_noop("measurement off");
    }
    MPI_Finalize();
    expect_noop("after MPI_Finalize");
    if (rank == 0 && failures == 0) printf("api_noop: all calls behaved (%s)\n", argv[1]);
    return failures == 0 ? 0 : 1;
}
