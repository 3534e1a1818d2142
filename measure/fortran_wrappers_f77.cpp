// PMPI wrappers for Fortran programs using mpif.h or `use mpi` (Open MPI's libmpi_mpifh).
//
// gfortran calls mpi_send_ (lower case, one underscore). libmpi_mpifh also exports
// mpi_send, mpi_send__ and MPI_SEND as aliases of the same function, for programs built
// with -fno-underscoring, -fsecond-underscore or upper-case compilers; we export the same
// four so such a program cannot bypass measurement. All forward to pmpi_send_.
#include "fortran_common.h"

using topolens::measure::MpiFn;
using topolens::measure::fortran::F;
namespace fortran = topolens::measure::fortran;

#define TOPOLENS_F77_ALIAS(symbol, target, params)                                                 \
    extern "C" TOPOLENS_FORTRAN_EXPORT void symbol params __attribute__((alias(target)));

#define TOPOLENS_F77_WRAPPER(name, NAME, fn, handler, params, args)                                \
    extern "C" void pmpi_##name##_ params __attribute__((weak));                                   \
    extern "C" TOPOLENS_FORTRAN_EXPORT void mpi_##name##_ params {                                 \
        if (!pmpi_##name##_) fortran::missing_pmpi("pmpi_" #name "_");                             \
        fortran::handler(MpiFn::fn, pmpi_##name##_, TOPOLENS_FORTRAN_UNPAREN args);                \
    }                                                                                              \
    TOPOLENS_F77_ALIAS(mpi_##name, "mpi_" #name "_", params)                                       \
    TOPOLENS_F77_ALIAS(mpi_##name##__, "mpi_" #name "_", params)                                   \
    TOPOLENS_F77_ALIAS(MPI_##NAME, "mpi_" #name "_", params)

TOPOLENS_FORTRAN_FUNCTIONS(TOPOLENS_F77_WRAPPER)
