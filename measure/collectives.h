// What the C wrappers of collectives (wrap_collectives.cpp) and the Fortran ones
// (fortran_common.h) share: how a call is recorded, and the bytes it sends and receives.
//
// Byte counts, per calling process:
// - sent = what its send arguments describe, received = what its receive arguments
//   describe; arguments significant only at the root count only at the root (`is_root`);
//   v/w variants sum their counts over the `size` processes of the communicator;
// - where MPI_IN_PLACE makes MPI ignore the send arguments (`in_place`), Gather(v) and
//   Allgather(v) count 0 sent, Alltoall(v/w) count sent = received; Scatter(v) with an
//   in-place receive buffer (`recv_in_place`) counts 0 received; reductions keep
//   count*type, which stays meaningful.
// The functions take C handles and plain counts, and read an argument only where its rule
// uses it: MPI leaves the ignored ones undefined (a non-root's receive counts may be NULL,
// an in-place call's send types anything).
#pragma once

#include "mpi_functions.h"
#include "recorder.h"

#include <mpi.h>
#include <otf2/OTF2_Events.h>

#include <cstdint>

namespace topolens::measure {

struct Bytes {
    uint64_t sent = 0;
    uint64_t received = 0;
};

// Records a collective call: its region, MpiCollectiveBegin, `call` (the PMPI call), then
// MpiCollectiveEnd with `bytes()`, which is evaluated after the call and only while
// recording. `root` is the root's rank in `comm`, or -1 for rootless operations.
template <class Call, class ByteCount>
void record_collective(MpiFn fn, OTF2_CollectiveOp op, MPI_Comm comm, int root, Call&& call,
                       ByteCount&& bytes) {
    MpiRegion region(fn);
    if (!region.active()) {
        call();
        return;
    }
    collective_begin();
    call();
    const Bytes b = bytes();
    collective_end(op, comm, root, b.sent, b.received);
}

// The size of `comm`; 0 when MPI cannot tell.
int comm_size(MPI_Comm comm);

// This process's rank in `comm`; `if_unknown` when MPI cannot tell (an invalid communicator
// under MPI_ERRORS_RETURN). The C wrappers pass 0, the Fortran ones MPI_PROC_NULL, as each
// always has.
int comm_rank(MPI_Comm comm, int if_unknown);

// ---- rooted

Bytes bcast_bytes(int count, MPI_Datatype type, bool is_root);
Bytes reduce_bytes(int count, MPI_Datatype type, bool is_root);

Bytes gather_bytes(bool in_place, int sendcount, MPI_Datatype sendtype, int recvcount,
                   MPI_Datatype recvtype, bool is_root, int size);
Bytes gatherv_bytes(bool in_place, int sendcount, MPI_Datatype sendtype, const int recvcounts[],
                    MPI_Datatype recvtype, bool is_root, int size);

Bytes scatter_bytes(int sendcount, MPI_Datatype sendtype, bool recv_in_place, int recvcount,
                    MPI_Datatype recvtype, bool is_root, int size);
Bytes scatterv_bytes(const int sendcounts[], MPI_Datatype sendtype, bool recv_in_place,
                     int recvcount, MPI_Datatype recvtype, bool is_root, int size);

// ---- rootless

// Allreduce, Scan, Exscan: every process contributes and receives count*type.
Bytes allreduce_bytes(int count, MPI_Datatype type);

Bytes allgather_bytes(bool in_place, int sendcount, MPI_Datatype sendtype, int recvcount,
                      MPI_Datatype recvtype, int size);
Bytes allgatherv_bytes(bool in_place, int sendcount, MPI_Datatype sendtype, const int recvcounts[],
                       MPI_Datatype recvtype, int size);

Bytes alltoall_bytes(bool in_place, int sendcount, MPI_Datatype sendtype, int recvcount,
                     MPI_Datatype recvtype, int size);
Bytes alltoallv_bytes(bool in_place, const int sendcounts[], MPI_Datatype sendtype,
                      const int recvcounts[], MPI_Datatype recvtype, int size);
Bytes alltoallw_bytes(bool in_place, const int sendcounts[], const MPI_Datatype sendtypes[],
                      const int recvcounts[], const MPI_Datatype recvtypes[], int size);

// Every process contributes sum(recvcounts) elements and receives its own block
// (`rank` is its rank in the communicator; nothing received for a negative one).
Bytes reduce_scatter_bytes(const int recvcounts[], MPI_Datatype type, int rank, int size);
Bytes reduce_scatter_block_bytes(int recvcount, MPI_Datatype type, int size);

} // namespace topolens::measure
