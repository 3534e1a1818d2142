/*
 * What the ADCL adapter (libtopolens-adcl.a, adapter.cpp) needs from the measurement library
 * beyond the user API of include/topolens.h: operations and codelets with descriptions, an
 * execution opened before its codelet is known, and a callback at every recorded MPI call.
 * Exported by libtopolens-measure.so; not part of the user API. Encoding: TRACE_FORMAT.md.
 */
#ifndef TOPOLENS_ADCL_RECORDING_H
#define TOPOLENS_ADCL_RECORDING_H

#include "topolens.h"

#ifdef __cplusplus
extern "C" {
#endif

/* topolens_tuned_op_define with `description` as the operation region's description. */
TOPOLENS_API int topolens_adcl_operation(const char* name, const char* description);

/* Defines codelet `index` named `name` of operation `op` with `description` (attribute
 * values), unless it is defined already. Returns 0, or -1 if nothing was recorded. */
TOPOLENS_API int topolens_adcl_codelet(int op, int index, const char* name,
                                       const char* description);

/* Opens an execution of `op` without a codelet region (topolens_tuned_end closes it). */
TOPOLENS_API int topolens_adcl_begin(int op);

/* Enters codelet `index` (defined before) inside the open execution of `op`; the execution's
 * end leaves it. */
TOPOLENS_API int topolens_adcl_enter_codelet(int op, int index);

/* `hook` is called with the MPI function's name (e.g. "MPI_Barrier") at the Enter of every
 * recorded MPI call, before its event; NULL removes it. The hook may call the functions of
 * this header and of topolens.h. */
typedef void (*topolens_adcl_mpi_hook)(const char* mpi_function);
TOPOLENS_API void topolens_adcl_set_mpi_hook(topolens_adcl_mpi_hook hook);

#ifdef __cplusplus
}
#endif

#endif /* TOPOLENS_ADCL_RECORDING_H */
