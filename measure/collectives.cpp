#include "collectives.h"

namespace topolens::measure {

namespace {

// Bytes of counts[0..n) elements of `type`; 0 for a NULL array.
uint64_t sum_bytes(const int counts[], int n, MPI_Datatype type) {
    uint64_t total = 0;
    for (int i = 0; counts && i < n; ++i) total += message_bytes(counts[i], type);
    return total;
}

// Bytes of counts[i] elements of types[i], i in [0, n) (Alltoallw).
uint64_t sum_bytes_w(const int counts[], const MPI_Datatype types[], int n) {
    uint64_t total = 0;
    for (int i = 0; i < n; ++i) total += message_bytes(counts[i], types[i]);
    return total;
}

// `bytes` once per process of the communicator.
uint64_t times_size(uint64_t bytes, int size) {
    return bytes * static_cast<uint64_t>(size);
}

} // namespace

int comm_size(MPI_Comm comm) {
    int size = 0;
    PMPI_Comm_size(comm, &size);
    return size;
}

int comm_rank(MPI_Comm comm, int if_unknown) {
    int rank = if_unknown;
    PMPI_Comm_rank(comm, &rank);
    return rank;
}

// ---- rooted

Bytes bcast_bytes(int count, MPI_Datatype type, bool is_root) {
    const uint64_t bytes = message_bytes(count, type);
    return is_root ? Bytes{bytes, 0} : Bytes{0, bytes};
}

Bytes reduce_bytes(int count, MPI_Datatype type, bool is_root) {
    const uint64_t bytes = message_bytes(count, type);
    return Bytes{bytes, is_root ? bytes : 0};
}

Bytes gather_bytes(bool in_place, int sendcount, MPI_Datatype sendtype, int recvcount,
                   MPI_Datatype recvtype, bool is_root, int size) {
    return Bytes{in_place ? 0 : message_bytes(sendcount, sendtype),
                 is_root ? times_size(message_bytes(recvcount, recvtype), size) : 0};
}

Bytes gatherv_bytes(bool in_place, int sendcount, MPI_Datatype sendtype, const int recvcounts[],
                    MPI_Datatype recvtype, bool is_root, int size) {
    return Bytes{in_place ? 0 : message_bytes(sendcount, sendtype),
                 is_root ? sum_bytes(recvcounts, size, recvtype) : 0};
}

Bytes scatter_bytes(int sendcount, MPI_Datatype sendtype, bool recv_in_place, int recvcount,
                    MPI_Datatype recvtype, bool is_root, int size) {
    return Bytes{is_root ? times_size(message_bytes(sendcount, sendtype), size) : 0,
                 recv_in_place ? 0 : message_bytes(recvcount, recvtype)};
}

Bytes scatterv_bytes(const int sendcounts[], MPI_Datatype sendtype, bool recv_in_place,
                     int recvcount, MPI_Datatype recvtype, bool is_root, int size) {
    return Bytes{is_root ? sum_bytes(sendcounts, size, sendtype) : 0,
                 recv_in_place ? 0 : message_bytes(recvcount, recvtype)};
}

// ---- rootless

Bytes allreduce_bytes(int count, MPI_Datatype type) {
    const uint64_t bytes = message_bytes(count, type);
    return Bytes{bytes, bytes};
}

// Allgather(v): a Gather(v) whose receive arguments count on every process.
Bytes allgather_bytes(bool in_place, int sendcount, MPI_Datatype sendtype, int recvcount,
                      MPI_Datatype recvtype, int size) {
    return gather_bytes(in_place, sendcount, sendtype, recvcount, recvtype, true, size);
}

Bytes allgatherv_bytes(bool in_place, int sendcount, MPI_Datatype sendtype, const int recvcounts[],
                       MPI_Datatype recvtype, int size) {
    return gatherv_bytes(in_place, sendcount, sendtype, recvcounts, recvtype, true, size);
}

Bytes alltoall_bytes(bool in_place, int sendcount, MPI_Datatype sendtype, int recvcount,
                     MPI_Datatype recvtype, int size) {
    const uint64_t received = times_size(message_bytes(recvcount, recvtype), size);
    return Bytes{in_place ? received : times_size(message_bytes(sendcount, sendtype), size),
                 received};
}

Bytes alltoallv_bytes(bool in_place, const int sendcounts[], MPI_Datatype sendtype,
                      const int recvcounts[], MPI_Datatype recvtype, int size) {
    const uint64_t received = sum_bytes(recvcounts, size, recvtype);
    return Bytes{in_place ? received : sum_bytes(sendcounts, size, sendtype), received};
}

Bytes alltoallw_bytes(bool in_place, const int sendcounts[], const MPI_Datatype sendtypes[],
                      const int recvcounts[], const MPI_Datatype recvtypes[], int size) {
    const uint64_t received = sum_bytes_w(recvcounts, recvtypes, size);
    return Bytes{in_place ? received : sum_bytes_w(sendcounts, sendtypes, size), received};
}

Bytes reduce_scatter_bytes(const int recvcounts[], MPI_Datatype type, int rank, int size) {
    return Bytes{sum_bytes(recvcounts, size, type),
                 rank >= 0 ? message_bytes(recvcounts[rank], type) : 0};
}

Bytes reduce_scatter_block_bytes(int recvcount, MPI_Datatype type, int size) {
    const uint64_t bytes = message_bytes(recvcount, type);
    return Bytes{times_size(bytes, size), bytes};
}

} // namespace topolens::measure
