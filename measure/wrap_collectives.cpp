// C wrappers: collective operations. The byte rules and the recording are collectives.h's,
// shared with the Fortran wrappers; root is the root's rank in the communicator (-1 for
// rootless operations).
#include "collectives.h"

using namespace topolens::measure;

namespace {

// Records `call` (the PMPI call) as a collective and returns its error code.
template <class Call, class ByteCount>
int collective(MpiFn fn, OTF2_CollectiveOp op, MPI_Comm comm, int root, Call&& call,
               ByteCount&& bytes) {
    int rc = MPI_SUCCESS;
    record_collective(
        fn, op, comm, root, [&] { rc = call(); }, bytes);
    return rc;
}

// Whether this process is the root; its rank is taken as 0 when MPI cannot tell.
bool is_root(MPI_Comm comm, int root) {
    return comm_rank(comm, 0) == root;
}

// Send-side arguments are ignored by MPI when the send buffer is MPI_IN_PLACE (and the
// receive side's by Scatter(v) when the receive buffer is).
bool in_place(const void* buf) {
    return buf == MPI_IN_PLACE;
}

} // namespace

extern "C" {

int MPI_Barrier(MPI_Comm comm) {
    return collective(
        MpiFn::Barrier, OTF2_COLLECTIVE_OP_BARRIER, comm, -1, [&] { return PMPI_Barrier(comm); },
        [] { return Bytes{}; });
}

int MPI_Bcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm) {
    return collective(
        MpiFn::Bcast, OTF2_COLLECTIVE_OP_BCAST, comm, root,
        [&] { return PMPI_Bcast(buffer, count, type, root, comm); },
        [&] { return bcast_bytes(count, type, is_root(comm, root)); });
}

int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
               int root, MPI_Comm comm) {
    return collective(
        MpiFn::Reduce, OTF2_COLLECTIVE_OP_REDUCE, comm, root,
        [&] { return PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm); },
        [&] { return reduce_bytes(count, type, is_root(comm, root)); });
}

int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm) {
    return collective(
        MpiFn::Allreduce, OTF2_COLLECTIVE_OP_ALLREDUCE, comm, -1,
        [&] { return PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm); },
        [&] { return allreduce_bytes(count, type); });
}

int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
    return collective(
        MpiFn::Gather, OTF2_COLLECTIVE_OP_GATHER, comm, root,
        [&] {
            return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                               comm);
        },
        [&] {
            return gather_bytes(in_place(sendbuf), sendcount, sendtype, recvcount, recvtype,
                                is_root(comm, root), comm_size(comm));
        });
}

int MPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                MPI_Comm comm) {
    return collective(
        MpiFn::Gatherv, OTF2_COLLECTIVE_OP_GATHERV, comm, root,
        [&] {
            return PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                                root, comm);
        },
        [&] {
            return gatherv_bytes(in_place(sendbuf), sendcount, sendtype, recvcounts, recvtype,
                                 is_root(comm, root), comm_size(comm));
        });
}

int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
    return collective(
        MpiFn::Scatter, OTF2_COLLECTIVE_OP_SCATTER, comm, root,
        [&] {
            return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                                comm);
        },
        [&] {
            return scatter_bytes(sendcount, sendtype, in_place(recvbuf), recvcount, recvtype,
                                 is_root(comm, root), comm_size(comm));
        });
}

int MPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                 MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, MPI_Comm comm) {
    return collective(
        MpiFn::Scatterv, OTF2_COLLECTIVE_OP_SCATTERV, comm, root,
        [&] {
            return PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
                                 recvtype, root, comm);
        },
        [&] {
            return scatterv_bytes(sendcounts, sendtype, in_place(recvbuf), recvcount, recvtype,
                                  is_root(comm, root), comm_size(comm));
        });
}

int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
    return collective(
        MpiFn::Allgather, OTF2_COLLECTIVE_OP_ALLGATHER, comm, -1,
        [&] {
            return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
        },
        [&] {
            return allgather_bytes(in_place(sendbuf), sendcount, sendtype, recvcount, recvtype,
                                   comm_size(comm));
        });
}

int MPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                   MPI_Comm comm) {
    return collective(
        MpiFn::Allgatherv, OTF2_COLLECTIVE_OP_ALLGATHERV, comm, -1,
        [&] {
            return PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                   recvtype, comm);
        },
        [&] {
            return allgatherv_bytes(in_place(sendbuf), sendcount, sendtype, recvcounts, recvtype,
                                    comm_size(comm));
        });
}

int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
    return collective(
        MpiFn::Alltoall, OTF2_COLLECTIVE_OP_ALLTOALL, comm, -1,
        [&] {
            return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
        },
        [&] {
            return alltoall_bytes(in_place(sendbuf), sendcount, sendtype, recvcount, recvtype,
                                  comm_size(comm));
        });
}

int MPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                  MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
                  MPI_Datatype recvtype, MPI_Comm comm) {
    return collective(
        MpiFn::Alltoallv, OTF2_COLLECTIVE_OP_ALLTOALLV, comm, -1,
        [&] {
            return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                  rdispls, recvtype, comm);
        },
        [&] {
            return alltoallv_bytes(in_place(sendbuf), sendcounts, sendtype, recvcounts, recvtype,
                                   comm_size(comm));
        });
}

int MPI_Alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
                  const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                  const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
    return collective(
        MpiFn::Alltoallw, OTF2_COLLECTIVE_OP_ALLTOALLW, comm, -1,
        [&] {
            return PMPI_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                                  rdispls, recvtypes, comm);
        },
        [&] {
            return alltoallw_bytes(in_place(sendbuf), sendcounts, sendtypes, recvcounts, recvtypes,
                                   comm_size(comm));
        });
}

int MPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                       MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
    return collective(
        MpiFn::Reduce_scatter, OTF2_COLLECTIVE_OP_REDUCE_SCATTER, comm, -1,
        [&] { return PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, type, op, comm); },
        [&] {
            return reduce_scatter_bytes(recvcounts, type, comm_rank(comm, 0), comm_size(comm));
        });
}

int MPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype type,
                             MPI_Op op, MPI_Comm comm) {
    return collective(
        MpiFn::Reduce_scatter_block, OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK, comm, -1,
        [&] { return PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm); },
        [&] { return reduce_scatter_block_bytes(recvcount, type, comm_size(comm)); });
}

int MPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
             MPI_Comm comm) {
    return collective(
        MpiFn::Scan, OTF2_COLLECTIVE_OP_SCAN, comm, -1,
        [&] { return PMPI_Scan(sendbuf, recvbuf, count, type, op, comm); },
        [&] { return allreduce_bytes(count, type); });
}

int MPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
               MPI_Comm comm) {
    return collective(
        MpiFn::Exscan, OTF2_COLLECTIVE_OP_EXSCAN, comm, -1,
        [&] { return PMPI_Exscan(sendbuf, recvbuf, count, type, op, comm); },
        [&] { return allreduce_bytes(count, type); });
}

} // extern "C"
