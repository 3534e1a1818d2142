// C wrappers: blocking, nonblocking and persistent point-to-point calls, probes.
#include "recorder.h"

using namespace topolens::measure;

namespace {

// The status to hand to MPI: the caller's, or ours when the caller ignores it (we need
// source, tag and size for the receive record).
struct StatusSlot {
    MPI_Status local;
    MPI_Status* use;
    explicit StatusSlot(MPI_Status* caller) : use(caller == MPI_STATUS_IGNORE ? &local : caller) {}
};

template <typename Call>
int blocking_send(MpiFn fn, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                  Call&& call) {
    MpiRegion region(fn);
    if (region.active()) send_event(comm, dest, tag, message_bytes(count, type));
    return call();
}

template <typename Call>
int nonblocking_send(MpiFn fn, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                     MPI_Request* request, Call&& call) {
    MpiRegion region(fn);
    const int rc = call();
    if (region.active() && rc == MPI_SUCCESS)
        isend_started(comm, dest, tag, message_bytes(count, type), *request);
    return rc;
}

template <typename Call>
int persistent_init(MpiFn fn, PersistentKind kind, int count, MPI_Datatype type, int peer, int tag,
                    MPI_Comm comm, MPI_Request* request, Call&& call) {
    MpiRegion region(fn);
    const int rc = call();
    if (region.active() && rc == MPI_SUCCESS)
        persistent_created(kind, comm, peer, tag, message_bytes(count, type), *request);
    return rc;
}

} // namespace

extern "C" {

int MPI_Send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
    return blocking_send(MpiFn::Send, count, type, dest, tag, comm,
                         [&] { return PMPI_Send(buf, count, type, dest, tag, comm); });
}

int MPI_Ssend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
    return blocking_send(MpiFn::Ssend, count, type, dest, tag, comm,
                         [&] { return PMPI_Ssend(buf, count, type, dest, tag, comm); });
}

int MPI_Bsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
    return blocking_send(MpiFn::Bsend, count, type, dest, tag, comm,
                         [&] { return PMPI_Bsend(buf, count, type, dest, tag, comm); });
}

int MPI_Rsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
    return blocking_send(MpiFn::Rsend, count, type, dest, tag, comm,
                         [&] { return PMPI_Rsend(buf, count, type, dest, tag, comm); });
}

int MPI_Recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
             MPI_Status* status) {
    MpiRegion region(MpiFn::Recv);
    if (!region.active()) return PMPI_Recv(buf, count, type, source, tag, comm, status);
    StatusSlot slot(status);
    const int rc = PMPI_Recv(buf, count, type, source, tag, comm, slot.use);
    if (rc == MPI_SUCCESS) recv_event(comm, *slot.use);
    return rc;
}

int MPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                 void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                 MPI_Comm comm, MPI_Status* status) {
    MpiRegion region(MpiFn::Sendrecv);
    if (!region.active())
        return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                             recvtype, source, recvtag, comm, status);
    send_event(comm, dest, sendtag, message_bytes(sendcount, sendtype));
    StatusSlot slot(status);
    const int rc = PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                                 recvtype, source, recvtag, comm, slot.use);
    if (rc == MPI_SUCCESS) recv_event(comm, *slot.use);
    return rc;
}

int MPI_Sendrecv_replace(void* buf, int count, MPI_Datatype type, int dest, int sendtag, int source,
                         int recvtag, MPI_Comm comm, MPI_Status* status) {
    MpiRegion region(MpiFn::Sendrecv_replace);
    if (!region.active())
        return PMPI_Sendrecv_replace(buf, count, type, dest, sendtag, source, recvtag, comm,
                                     status);
    send_event(comm, dest, sendtag, message_bytes(count, type));
    StatusSlot slot(status);
    const int rc =
        PMPI_Sendrecv_replace(buf, count, type, dest, sendtag, source, recvtag, comm, slot.use);
    if (rc == MPI_SUCCESS) recv_event(comm, *slot.use);
    return rc;
}

int MPI_Isend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
              MPI_Request* request) {
    return nonblocking_send(MpiFn::Isend, count, type, dest, tag, comm, request,
                            [&] { return PMPI_Isend(buf, count, type, dest, tag, comm, request); });
}

int MPI_Issend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
               MPI_Request* request) {
    return nonblocking_send(MpiFn::Issend, count, type, dest, tag, comm, request, [&] {
        return PMPI_Issend(buf, count, type, dest, tag, comm, request);
    });
}

int MPI_Irsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
               MPI_Request* request) {
    return nonblocking_send(MpiFn::Irsend, count, type, dest, tag, comm, request, [&] {
        return PMPI_Irsend(buf, count, type, dest, tag, comm, request);
    });
}

int MPI_Ibsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
               MPI_Request* request) {
    return nonblocking_send(MpiFn::Ibsend, count, type, dest, tag, comm, request, [&] {
        return PMPI_Ibsend(buf, count, type, dest, tag, comm, request);
    });
}

int MPI_Irecv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
              MPI_Request* request) {
    MpiRegion region(MpiFn::Irecv);
    const int rc = PMPI_Irecv(buf, count, type, source, tag, comm, request);
    if (region.active() && rc == MPI_SUCCESS) irecv_started(comm, source, *request);
    return rc;
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status* status) {
    MpiRegion region(MpiFn::Probe);
    return PMPI_Probe(source, tag, comm, status);
}

int MPI_Iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status) {
    MpiRegion region(MpiFn::Iprobe);
    return PMPI_Iprobe(source, tag, comm, flag, status);
}

int MPI_Send_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                  MPI_Request* request) {
    return persistent_init(
        MpiFn::Send_init, PersistentKind::Send, count, type, dest, tag, comm, request,
        [&] { return PMPI_Send_init(buf, count, type, dest, tag, comm, request); });
}

int MPI_Ssend_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                   MPI_Request* request) {
    return persistent_init(
        MpiFn::Ssend_init, PersistentKind::Send, count, type, dest, tag, comm, request,
        [&] { return PMPI_Ssend_init(buf, count, type, dest, tag, comm, request); });
}

int MPI_Bsend_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                   MPI_Request* request) {
    return persistent_init(
        MpiFn::Bsend_init, PersistentKind::Send, count, type, dest, tag, comm, request,
        [&] { return PMPI_Bsend_init(buf, count, type, dest, tag, comm, request); });
}

int MPI_Rsend_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                   MPI_Request* request) {
    return persistent_init(
        MpiFn::Rsend_init, PersistentKind::Send, count, type, dest, tag, comm, request,
        [&] { return PMPI_Rsend_init(buf, count, type, dest, tag, comm, request); });
}

int MPI_Recv_init(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                  MPI_Request* request) {
    return persistent_init(
        MpiFn::Recv_init, PersistentKind::Recv, count, type, source, tag, comm, request,
        [&] { return PMPI_Recv_init(buf, count, type, source, tag, comm, request); });
}

int MPI_Start(MPI_Request* request) {
    MpiRegion region(MpiFn::Start);
    const MPI_Request started = *request;
    const int rc = PMPI_Start(request);
    if (region.active() && rc == MPI_SUCCESS) persistent_started(started);
    return rc;
}

int MPI_Startall(int count, MPI_Request requests[]) {
    MpiRegion region(MpiFn::Startall);
    const int rc = PMPI_Startall(count, requests);
    if (region.active() && rc == MPI_SUCCESS)
        for (int i = 0; i < count; ++i) persistent_started(requests[i]);
    return rc;
}

int MPI_Request_free(MPI_Request* request) {
    MpiRegion region(MpiFn::Request_free);
    const MPI_Request freed = *request;
    const int rc = PMPI_Request_free(request);
    if (rc == MPI_SUCCESS) request_freed(freed);
    return rc;
}

int MPI_Cancel(MPI_Request* request) {
    MpiRegion region(MpiFn::Cancel);
    return PMPI_Cancel(request);
}

} // extern "C"
