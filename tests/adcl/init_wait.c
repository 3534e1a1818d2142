/* An ADCL halo exchange split into ADCL_Request_init and ADCL_Request_wait with local work
 * between them (the adapter's execution spans init .. wait), for tests/integration/check_adcl.sh.
 * Written against ADCL's public API (include/ADCL.h); ADCL itself is unchanged. */
#include "ADCL.h"

#include <mpi.h>
#include <stdio.h>

#define NITER 60

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int size = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int cdims[2] = {0, 0}, periods[2] = {0, 0};
    MPI_Dims_create(size, 2, cdims);
    MPI_Comm cart_comm;
    MPI_Cart_create(MPI_COMM_WORLD, 2, cdims, periods, 0, &cart_comm);

    ADCL_Init();
    ADCL_Topology topo;
    ADCL_Vmap vmap;
    ADCL_Vector vec;
    ADCL_Request request;
    double** data;
    int dims[2] = {8 + 2, 4 + 2};
    if (ADCL_Topology_create(cart_comm, &topo) != ADCL_SUCCESS ||
        ADCL_Vmap_halo_allocate(1, &vmap) != ADCL_SUCCESS ||
        ADCL_Vector_allocate_generic(2, dims, 0, vmap, MPI_DOUBLE, &data, &vec) != ADCL_SUCCESS ||
        ADCL_Request_create(vec, topo, ADCL_FNCTSET_NEIGHBORHOOD, &request) != ADCL_SUCCESS) {
        fprintf(stderr, "init_wait: ADCL setup failed\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    volatile double sum = 0;
    for (int it = 0; it < NITER; ++it) {
        for (int i = 0; i < dims[0]; ++i)
            for (int j = 0; j < dims[1]; ++j) data[i][j] = it + i + j;
        ADCL_Request_init(request);
        for (int i = 1; i < dims[0] - 1; ++i) sum += data[i][1]; /* overlapped work */
        ADCL_Request_wait(request);
    }
    ADCL_Request_free(&request);
    ADCL_Vector_free(&vec);
    ADCL_Vmap_free(&vmap);
    ADCL_Topology_free(&topo);
    MPI_Comm_free(&cart_comm);
    ADCL_Finalize();
    MPI_Finalize();
    return 0;
}
