// C wrappers: communicator creation and release, so every communicator an event uses is
// defined in the trace (and Cartesian ones carry their topology).
#include "recorder.h"

using namespace topolens::measure;

extern "C" {

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* newcomm) {
    MpiRegion region(MpiFn::Comm_dup);
    const int rc = PMPI_Comm_dup(comm, newcomm);
    if (region.active() && rc == MPI_SUCCESS) communicator_created(*newcomm, comm, "Comm_dup");
    return rc;
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm) {
    MpiRegion region(MpiFn::Comm_split);
    const int rc = PMPI_Comm_split(comm, color, key, newcomm);
    if (region.active() && rc == MPI_SUCCESS) communicator_created(*newcomm, comm, "Comm_split");
    return rc;
}

int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm* newcomm) {
    MpiRegion region(MpiFn::Comm_split_type);
    const int rc = PMPI_Comm_split_type(comm, split_type, key, info, newcomm);
    if (region.active() && rc == MPI_SUCCESS)
        communicator_created(*newcomm, comm, "Comm_split_type");
    return rc;
}

int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm) {
    MpiRegion region(MpiFn::Comm_create);
    const int rc = PMPI_Comm_create(comm, group, newcomm);
    if (region.active() && rc == MPI_SUCCESS) communicator_created(*newcomm, comm, "Comm_create");
    return rc;
}

int MPI_Cart_create(MPI_Comm old_comm, int ndims, const int dims[], const int periods[],
                    int reorder, MPI_Comm* comm_cart) {
    MpiRegion region(MpiFn::Cart_create);
    const int rc = PMPI_Cart_create(old_comm, ndims, dims, periods, reorder, comm_cart);
    if (region.active() && rc == MPI_SUCCESS)
        cartesian_communicator_created(*comm_cart, old_comm, "Cart_create");
    return rc;
}

int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm* new_comm) {
    MpiRegion region(MpiFn::Cart_sub);
    const int rc = PMPI_Cart_sub(comm, remain_dims, new_comm);
    if (region.active() && rc == MPI_SUCCESS)
        cartesian_communicator_created(*new_comm, comm, "Cart_sub");
    return rc;
}

int MPI_Comm_free(MPI_Comm* comm) {
    MpiRegion region(MpiFn::Comm_free);
    if (region.active()) communicator_freed(*comm);
    return PMPI_Comm_free(comm);
}

} // extern "C"
