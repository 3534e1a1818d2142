// C wrappers: collective operations. Byte counts are what this process's own buffers send
// and receive; root is the root's rank in the communicator (-1 for rootless operations).
#include "recorder.h"

#include <utility>

using namespace topolens::measure;

namespace {

using Bytes = std::pair<uint64_t, uint64_t>; // sent, received

template <typename Sizes, typename Call>
int collective(MpiFn fn, OTF2_CollectiveOp op, MPI_Comm comm, int root, Sizes&& sizes,
               Call&& call) {
    MpiRegion region(fn);
    if (!region.active()) return call();
    collective_begin();
    const int rc = call();
    const Bytes bytes = sizes();
    collective_end(op, comm, root, bytes.first, bytes.second);
    return rc;
}

int comm_size(MPI_Comm comm) {
    int size = 0;
    PMPI_Comm_size(comm, &size);
    return size;
}

int comm_rank(MPI_Comm comm) {
    int rank = 0;
    PMPI_Comm_rank(comm, &rank);
    return rank;
}

uint64_t sum_bytes(const int counts[], int n, MPI_Datatype type) {
    uint64_t total = 0;
    for (int i = 0; counts && i < n; ++i) total += message_bytes(counts[i], type);
    return total;
}

// Send-side arguments are ignored by MPI when the send buffer is MPI_IN_PLACE.
bool in_place(const void* sendbuf) {
    return sendbuf == MPI_IN_PLACE;
}

} // namespace

extern "C" {

int MPI_Barrier(MPI_Comm comm) {
    return collective(
        MpiFn::Barrier, OTF2_COLLECTIVE_OP_BARRIER, comm, -1,
        [] {
            return Bytes{0, 0};
        },
        [&] { return PMPI_Barrier(comm); });
}

int MPI_Bcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm) {
    return collective(
        MpiFn::Bcast, OTF2_COLLECTIVE_OP_BCAST, comm, root,
        [&] {
            const uint64_t bytes = message_bytes(count, type);
            return comm_rank(comm) == root ? Bytes{bytes, 0} : Bytes{0, bytes};
        },
        [&] { return PMPI_Bcast(buffer, count, type, root, comm); });
}

int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
               int root, MPI_Comm comm) {
    return collective(
        MpiFn::Reduce, OTF2_COLLECTIVE_OP_REDUCE, comm, root,
        [&] {
            const uint64_t bytes = message_bytes(count, type);
            return Bytes{bytes, comm_rank(comm) == root ? bytes : 0};
        },
        [&] { return PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm); });
}

int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm) {
    return collective(
        MpiFn::Allreduce, OTF2_COLLECTIVE_OP_ALLREDUCE, comm, -1,
        [&] {
            const uint64_t bytes = message_bytes(count, type);
            return Bytes{bytes, bytes};
        },
        [&] { return PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm); });
}

int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
    return collective(
        MpiFn::Gather, OTF2_COLLECTIVE_OP_GATHER, comm, root,
        [&] {
            const bool is_root = comm_rank(comm) == root;
            return Bytes{in_place(sendbuf) ? 0 : message_bytes(sendcount, sendtype),
                         is_root ? message_bytes(recvcount, recvtype) * comm_size(comm) : 0};
        },
        [&] {
            return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                               comm);
        });
}

int MPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                MPI_Comm comm) {
    return collective(
        MpiFn::Gatherv, OTF2_COLLECTIVE_OP_GATHERV, comm, root,
        [&] {
            const bool is_root = comm_rank(comm) == root;
            return Bytes{in_place(sendbuf) ? 0 : message_bytes(sendcount, sendtype),
                         is_root ? sum_bytes(recvcounts, comm_size(comm), recvtype) : 0};
        },
        [&] {
            return PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                                root, comm);
        });
}

int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
    return collective(
        MpiFn::Scatter, OTF2_COLLECTIVE_OP_SCATTER, comm, root,
        [&] {
            const bool is_root = comm_rank(comm) == root;
            return Bytes{is_root ? message_bytes(sendcount, sendtype) * comm_size(comm) : 0,
                         recvbuf == MPI_IN_PLACE ? 0 : message_bytes(recvcount, recvtype)};
        },
        [&] {
            return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                                comm);
        });
}

int MPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                 MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, MPI_Comm comm) {
    return collective(
        MpiFn::Scatterv, OTF2_COLLECTIVE_OP_SCATTERV, comm, root,
        [&] {
            const bool is_root = comm_rank(comm) == root;
            return Bytes{is_root ? sum_bytes(sendcounts, comm_size(comm), sendtype) : 0,
                         recvbuf == MPI_IN_PLACE ? 0 : message_bytes(recvcount, recvtype)};
        },
        [&] {
            return PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
                                 recvtype, root, comm);
        });
}

int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
    return collective(
        MpiFn::Allgather, OTF2_COLLECTIVE_OP_ALLGATHER, comm, -1,
        [&] {
            return Bytes{in_place(sendbuf) ? 0 : message_bytes(sendcount, sendtype),
                         message_bytes(recvcount, recvtype) * comm_size(comm)};
        },
        [&] {
            return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
        });
}

int MPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                   MPI_Comm comm) {
    return collective(
        MpiFn::Allgatherv, OTF2_COLLECTIVE_OP_ALLGATHERV, comm, -1,
        [&] {
            return Bytes{in_place(sendbuf) ? 0 : message_bytes(sendcount, sendtype),
                         sum_bytes(recvcounts, comm_size(comm), recvtype)};
        },
        [&] {
            return PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                   recvtype, comm);
        });
}

int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
    return collective(
        MpiFn::Alltoall, OTF2_COLLECTIVE_OP_ALLTOALL, comm, -1,
        [&] {
            const uint64_t size = static_cast<uint64_t>(comm_size(comm));
            const uint64_t received = message_bytes(recvcount, recvtype) * size;
            return Bytes{in_place(sendbuf) ? received : message_bytes(sendcount, sendtype) * size,
                         received};
        },
        [&] {
            return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
        });
}

int MPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                  MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
                  MPI_Datatype recvtype, MPI_Comm comm) {
    return collective(
        MpiFn::Alltoallv, OTF2_COLLECTIVE_OP_ALLTOALLV, comm, -1,
        [&] {
            const int size = comm_size(comm);
            const uint64_t received = sum_bytes(recvcounts, size, recvtype);
            return Bytes{in_place(sendbuf) ? received : sum_bytes(sendcounts, size, sendtype),
                         received};
        },
        [&] {
            return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                  rdispls, recvtype, comm);
        });
}

int MPI_Alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
                  const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                  const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
    return collective(
        MpiFn::Alltoallw, OTF2_COLLECTIVE_OP_ALLTOALLW, comm, -1,
        [&] {
            const int size = comm_size(comm);
            uint64_t sent = 0, received = 0;
            for (int i = 0; i < size; ++i) {
                received += message_bytes(recvcounts[i], recvtypes[i]);
                if (!in_place(sendbuf)) sent += message_bytes(sendcounts[i], sendtypes[i]);
            }
            return Bytes{in_place(sendbuf) ? received : sent, received};
        },
        [&] {
            return PMPI_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                                  rdispls, recvtypes, comm);
        });
}

int MPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                       MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
    return collective(
        MpiFn::Reduce_scatter, OTF2_COLLECTIVE_OP_REDUCE_SCATTER, comm, -1,
        [&] {
            return Bytes{sum_bytes(recvcounts, comm_size(comm), type),
                         message_bytes(recvcounts[comm_rank(comm)], type)};
        },
        [&] { return PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, type, op, comm); });
}

int MPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype type,
                             MPI_Op op, MPI_Comm comm) {
    return collective(
        MpiFn::Reduce_scatter_block, OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK, comm, -1,
        [&] {
            const uint64_t bytes = message_bytes(recvcount, type);
            return Bytes{bytes * comm_size(comm), bytes};
        },
        [&] { return PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm); });
}

int MPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
             MPI_Comm comm) {
    return collective(
        MpiFn::Scan, OTF2_COLLECTIVE_OP_SCAN, comm, -1,
        [&] {
            const uint64_t bytes = message_bytes(count, type);
            return Bytes{bytes, bytes};
        },
        [&] { return PMPI_Scan(sendbuf, recvbuf, count, type, op, comm); });
}

int MPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
               MPI_Comm comm) {
    return collective(
        MpiFn::Exscan, OTF2_COLLECTIVE_OP_EXSCAN, comm, -1,
        [&] {
            const uint64_t bytes = message_bytes(count, type);
            return Bytes{bytes, bytes};
        },
        [&] { return PMPI_Exscan(sendbuf, recvbuf, count, type, op, comm); });
}

} // extern "C"
