// PMPI wrappers for Fortran programs using `use mpi_f08` (Open MPI's libmpi_usempif08):
// mpi_send_f08_ etc., forwarding to pmpi_send_f08_. The handlers are the ones of the
// mpif.h wrappers (fortran_common.h explains why the binary interface is the same); the
// f08 ierror is OPTIONAL and arrives as a null pointer when left out.
#include "fortran_common.h"

using topolens::measure::MpiFn;
using topolens::measure::fortran::F;
namespace fortran = topolens::measure::fortran;

#define TOPOLENS_F08_WRAPPER(name, NAME, fn, handler, params, args)                                \
    extern "C" void pmpi_##name##_f08_ params __attribute__((weak));                               \
    extern "C" TOPOLENS_FORTRAN_EXPORT void mpi_##name##_f08_ params {                             \
        if (!pmpi_##name##_f08_) fortran::missing_pmpi("pmpi_" #name "_f08_");                     \
        fortran::handler(MpiFn::fn, pmpi_##name##_f08_, TOPOLENS_FORTRAN_UNPAREN args);            \
    }

TOPOLENS_FORTRAN_FUNCTIONS(TOPOLENS_F08_WRAPPER)
