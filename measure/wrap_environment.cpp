// C wrappers: MPI_Init, MPI_Init_thread, MPI_Finalize, MPI_Abort.
#include "dying.h"
#include "recorder.h"

using namespace topolens::measure;

extern "C" {

int MPI_Init(int* argc, char*** argv) {
    const Timestamp enter = now();
    const int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS) start_measurement(MpiFn::Init, enter);
    return rc;
}

int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
    const Timestamp enter = now();
    const int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS) start_measurement(MpiFn::Init_thread, enter);
    return rc;
}

int MPI_Finalize(void) {
    finish_measurement(now());
    return PMPI_Finalize();
}

// The job ends here: this process's events and definitions are written before MPI kills
// the others (which write theirs on the SIGTERM Open MPI sends them).
int MPI_Abort(MPI_Comm comm, int errorcode) {
    record_abort(errorcode);
    return PMPI_Abort(comm, errorcode);
}

} // extern "C"
