/*
 * topolens measurement API — C and C++.
 *
 * The MPI calls of a program are recorded without any of this (link or LD_PRELOAD
 * libtopolens-measure.so). This header adds what MPI cannot tell the library:
 *
 *   1. user regions ............ topolens_region_enter / topolens_region_leave
 *   2. Cartesian topologies .... topolens_cart_create / topolens_cart_coords
 *                                (for programs that compute their own grid instead of
 *                                calling MPI_Cart_create; KOJAK's elg_cart_create/coords)
 *   3. autotuners .............. topolens_tuned_* / topolens_codelet_switch
 *
 * Every function is a safe no-op, returning 0 (or a zero handle), when measurement is
 * off (TOPOLENS_ENABLE=0, a bad configuration, an unwritable trace directory) or when
 * MPI is not initialised yet (before MPI_Init, after MPI_Finalize).
 * None of the functions is async-signal safe; all are for the thread that called
 * MPI_Init (MPI_THREAD_FUNNELED use).
 *
 * The trace encoding of each call is documented in measure/TRACE_FORMAT.md.
 */
#ifndef TOPOLENS_H
#define TOPOLENS_H

#if defined(__GNUC__)
#define TOPOLENS_API __attribute__((visibility("default")))
#else
#define TOPOLENS_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- state */

/* 1 while events are being recorded on this process, else 0. */
TOPOLENS_API int topolens_is_active(void);

/* ---------------------------------------------------------------- regions */

/* Enter / leave a user region named `name` (any string; regions with equal names are one
 * region). Calls must nest properly with each other and with MPI calls.
 * Returns 0 on success, -1 if nothing was recorded (measurement off, MPI not initialised,
 * NULL name). */
TOPOLENS_API int topolens_region_enter(const char* name);
TOPOLENS_API int topolens_region_leave(const char* name);

/* ---------------------------------------------------------------- Cartesian topologies */

/* Declares a Cartesian topology of `ndims` dimensions (1..16) over MPI_COMM_WORLD, with
 * `dims[i]` processes along dimension i and `periods[i]` non-zero when dimension i wraps
 * around. Call it on every process that belongs to the grid, with the same name and the
 * same dims/periods (the topology is identified by `name`; NULL means "grid").
 * Returns a topology handle > 0, or 0 if nothing was recorded or the arguments are bad
 * (a message is printed once). */
TOPOLENS_API int topolens_cart_create(const char* name, int ndims, const int dims[],
                                      const int periods[]);

/* Records the calling process's coordinates in topology `topology` (a handle from
 * topolens_cart_create); `coords` has ndims entries, coords[i] in [0, dims[i]).
 * Returns 0 on success, -1 otherwise. */
TOPOLENS_API int topolens_cart_coords(int topology, const int coords[]);

/* ---------------------------------------------------------------- autotuners */

/* Phases of a runtime tuner (ADCL-style): timing codelets, deciding, running the winner. */
typedef enum topolens_tuning_phase {
    TOPOLENS_PHASE_SEARCH = 0,
    TOPOLENS_PHASE_DECISION = 1,
    TOPOLENS_PHASE_PRODUCTION = 2
} topolens_tuning_phase;

/* Declares a tuned operation (e.g. "halo3d") and returns its handle (> 0), or 0 if
 * nothing is recorded. Calling it again with the same name returns the same handle. */
TOPOLENS_API int topolens_tuned_op_define(const char* name);

/* The tuner switches operation `op` to codelet number `index` (>= 0) named `name`.
 * Subsequent executions of `op` run this codelet until the next switch. */
TOPOLENS_API int topolens_codelet_switch(int op, int index, const char* name);

/* The tuner enters phase `phase` for operation `op`. */
TOPOLENS_API int topolens_tuned_phase(int op, topolens_tuning_phase phase);

/* The tuner's final decision for `op`: codelet `index` named `name` won. */
TOPOLENS_API int topolens_tuned_decision(int op, int index, const char* name);

/* One execution of `op` with the current codelet: begin before the first MPI call of
 * the operation, end after its last. Executions must not nest within the same op. */
TOPOLENS_API int topolens_tuned_begin(int op);
TOPOLENS_API int topolens_tuned_end(int op);

#ifdef __cplusplus
}
#endif

#endif /* TOPOLENS_H */
