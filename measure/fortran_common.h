// Shared bodies of the Fortran MPI wrappers: fortran_wrappers_f77.cpp (mpif.h, `use mpi`)
// and fortran_wrappers_f08.cpp (`use mpi_f08`).
//
// Open MPI's Fortran bindings call the C PMPI_* functions, so the C wrappers never see a
// Fortran program's MPI calls; the Fortran entry points (mpi_send_, mpi_send_f08_) are
// wrapped instead and forward to the Fortran PMPI entry points (pmpi_send_,
// pmpi_send_f08_), which keeps Open MPI's Fortran semantics (MPI_BOTTOM, MPI_IN_PLACE,
// MPI_STATUS_IGNORE, LOGICAL flags, ierror) exactly as they are.
//
// In Open MPI 4.1 both bindings have one binary interface, checked against
// libmpi_usempif08.so, which forwards each mpi_xxx_f08_ unchanged to ompi_xxx_f or
// pmpi_xxx_:
// - every argument is passed by reference, in the Fortran argument order; none of the
//   functions wrapped here has a CHARACTER argument, so there are no hidden lengths;
// - TYPE(MPI_Comm), TYPE(MPI_Request)... hold one INTEGER, so a pointer to one is a
//   pointer to the MPI_Fint handle, and an array of them is an INTEGER array;
// - TYPE(MPI_Status) has the layout of an INTEGER status array (Open MPI 4.1 has no
//   MPI_Status_f082c; MPI_Status_f2c reads both);
// - MPI_STATUS_IGNORE, MPI_STATUSES_IGNORE and MPI_IN_PLACE of both bindings are the same
//   symbols (mpi_fortran_status_ignore_ ...), so one address comparison serves both;
// - the one difference: f08's ierror is OPTIONAL, a null pointer when left out. Handlers
//   that need the error code pass their own to PMPI and copy it back when ierror exists.
//
// TOPOLENS_FORTRAN_FUNCTIONS lists every wrapped function once; each binding file expands
// it with its own symbol names. Event order inside a call mirrors the C wrappers
// (recorder.h); collectives are recorded, and their bytes counted, by the functions the
// C wrappers use (collectives.h).
#pragma once

// The C++ bindings of mpi.h are neither needed nor -Wextra clean.
#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1
#endif

#include "clock.h"
#include "collectives.h"
#include "dying.h"
#include "mpi_functions.h"
#include "recorder.h"

#include <mpi.h>
#include <otf2/OTF2_Events.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <type_traits>
#include <vector>

// Open MPI's MPI_IN_PLACE for Fortran (a common block; Open MPI's own Fortran layer tests
// the same address).
extern "C" int mpi_fortran_in_place_;

namespace topolens::measure::fortran {

// Every Fortran INTEGER or LOGICAL argument arrives as a pointer to a default integer.
using F = MPI_Fint*;

// Integers in a Fortran status (MPI_STATUS_SIZE): Open MPI derives it the same way.
inline constexpr int kStatusSize = static_cast<int>(sizeof(MPI_Status) / sizeof(MPI_Fint));
static_assert(sizeof(MPI_Status) % sizeof(MPI_Fint) == 0);

// The Fortran PMPI symbols are weak (the library also loads into C programs without
// libmpi_mpifh / libmpi_usempif08); only a program that has them can call our wrappers.
[[noreturn]] inline void missing_pmpi(const char* name) {
    std::fprintf(stderr, "topolens: Fortran MPI entry point %s not found\n", name);
    std::abort();
}

inline void set_ierr(F ierr, MPI_Fint code) {
    if (ierr) *ierr = code; // f08: absent OPTIONAL ierror
}

inline bool is_in_place(const void* buf) {
    return buf == &mpi_fortran_in_place_;
}

inline MPI_Comm c_comm(F comm) {
    return MPI_Comm_f2c(*comm);
}

inline MPI_Datatype c_type(F type) {
    return MPI_Type_f2c(*type);
}

inline uint64_t bytes_of(MPI_Fint count, MPI_Fint type) {
    return message_bytes(count, MPI_Type_f2c(type));
}

// ---------------------------------------------------------------- statuses and requests

// A status argument the wrapper can read after the call even if the program passed
// MPI_STATUS_IGNORE: then PMPI fills a scratch status instead (only while recording).
class StatusArg {
  public:
    StatusArg(F status, bool recording)
        : status_(recording && status == MPI_F_STATUS_IGNORE ? scratch_ : status) {}
    StatusArg(const StatusArg&) = delete; // may point into itself
    StatusArg& operator=(const StatusArg&) = delete;
    F get() { return status_; }
    MPI_Status c() const {
        MPI_Status s;
        MPI_Status_f2c(status_, &s);
        return s;
    }

  private:
    MPI_Fint scratch_[kStatusSize] = {};
    F status_;
};

// The same for an array of `count` statuses and MPI_STATUSES_IGNORE.
class StatusArray {
  public:
    StatusArray(F statuses, int count, bool recording) : statuses_(statuses) {
        if (recording && count > 0 && statuses == MPI_F_STATUSES_IGNORE) {
            scratch_.resize(static_cast<size_t>(count) * kStatusSize);
            statuses_ = scratch_.data();
        }
    }
    StatusArray(const StatusArray&) = delete; // may point into itself
    StatusArray& operator=(const StatusArray&) = delete;
    F get() { return statuses_; }
    MPI_Status c(int i) const {
        MPI_Status s;
        MPI_Status_f2c(statuses_ + static_cast<size_t>(i) * kStatusSize, &s);
        return s;
    }

  private:
    std::vector<MPI_Fint> scratch_;
    F statuses_;
};

// C handles of a request array taken before a completion call: Open MPI sets completed
// Fortran handles to MPI_REQUEST_NULL and frees their Fortran index.
class RequestsBefore {
  public:
    RequestsBefore(const MPI_Fint* requests, int count, bool recording) {
        if (!recording || count <= 0) return;
        handles_.reserve(static_cast<size_t>(count));
        for (int i = 0; i < count; ++i) handles_.push_back(MPI_Request_f2c(requests[i]));
        // Threaded levels: which activation each handle names before the call.
        for (size_t i = 0; i < handles_.size(); ++i)
            if (const uint64_t a = request_activation(handles_[i]); a != 0) {
                activations_.resize(handles_.size());
                activations_[i] = a;
            }
    }
    int size() const { return static_cast<int>(handles_.size()); }
    // MPI_REQUEST_NULL for indices out of range (a bad index from the program).
    MPI_Request operator[](int i) const {
        return i >= 0 && i < size() ? handles_[static_cast<size_t>(i)] : MPI_REQUEST_NULL;
    }
    void completed(int i, const MPI_Status& status) const {
        const bool known = i >= 0 && i < size() && !activations_.empty();
        request_completed((*this)[i], status, known ? activations_[static_cast<size_t>(i)] : 0);
    }

  private:
    std::vector<MPI_Request> handles_;
    std::vector<uint64_t> activations_;
};

// ---------------------------------------------------------------- handlers
// Each handler takes the MPI function, the Fortran PMPI entry point and the Fortran
// arguments in their order.

template <class Pmpi, class... Args> void region_only(MpiFn fn, Pmpi* pmpi, Args... args) {
    MpiRegion region(fn);
    pmpi(args...);
}

// ---- environment

// MPI_Init, MPI_Init_thread: the recorder writes the region once MPI is up.
template <class Pmpi> void init(MpiFn fn, Pmpi* pmpi, F ierr) {
    const Timestamp enter = now();
    MPI_Fint code = MPI_SUCCESS;
    pmpi(&code);
    if (code == MPI_SUCCESS) start_measurement(fn, enter);
    set_ierr(ierr, code);
}

template <class Pmpi> void init_thread(MpiFn fn, Pmpi* pmpi, F required, F provided, F ierr) {
    const Timestamp enter = now();
    MPI_Fint code = MPI_SUCCESS;
    pmpi(required, provided, &code);
    if (code == MPI_SUCCESS) start_measurement(fn, enter);
    set_ierr(ierr, code);
}

// The recorder needs MPI for its clock offsets and unification: finish before PMPI.
template <class Pmpi> void finalize(MpiFn, Pmpi* pmpi, F ierr) {
    finish_measurement(now());
    pmpi(ierr);
}

// MPI_Abort has no entry of its own in the MPI function list (its region is defined when a
// run aborts); the MpiFn passed is ignored.
template <class Pmpi> void abort(MpiFn, Pmpi* pmpi, F comm, F errorcode, F ierr) {
    record_abort(errorcode ? *errorcode : 0);
    pmpi(comm, errorcode, ierr);
}

// ---- point-to-point

template <class Pmpi>
void blocking_send(MpiFn fn, Pmpi* pmpi, void* buf, F count, F type, F dest, F tag, F comm,
                   F ierr) {
    MpiRegion region(fn);
    if (region.active()) send_event(c_comm(comm), *dest, *tag, bytes_of(*count, *type));
    pmpi(buf, count, type, dest, tag, comm, ierr);
}

template <class Pmpi>
void blocking_recv(MpiFn fn, Pmpi* pmpi, void* buf, F count, F type, F source, F tag, F comm,
                   F status, F ierr) {
    MpiRegion region(fn);
    StatusArg st(status, region.active());
    MPI_Fint code = MPI_SUCCESS;
    pmpi(buf, count, type, source, tag, comm, st.get(), &code);
    if (region.active() && code == MPI_SUCCESS) recv_event(c_comm(comm), st.c());
    set_ierr(ierr, code);
}

template <class Pmpi>
void sendrecv(MpiFn fn, Pmpi* pmpi, void* sendbuf, F sendcount, F sendtype, F dest, F sendtag,
              void* recvbuf, F recvcount, F recvtype, F source, F recvtag, F comm, F status,
              F ierr) {
    MpiRegion region(fn);
    if (region.active()) send_event(c_comm(comm), *dest, *sendtag, bytes_of(*sendcount, *sendtype));
    StatusArg st(status, region.active());
    MPI_Fint code = MPI_SUCCESS;
    pmpi(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag,
         comm, st.get(), &code);
    if (region.active() && code == MPI_SUCCESS) recv_event(c_comm(comm), st.c());
    set_ierr(ierr, code);
}

template <class Pmpi>
void sendrecv_replace(MpiFn fn, Pmpi* pmpi, void* buf, F count, F type, F dest, F sendtag, F source,
                      F recvtag, F comm, F status, F ierr) {
    MpiRegion region(fn);
    if (region.active()) send_event(c_comm(comm), *dest, *sendtag, bytes_of(*count, *type));
    StatusArg st(status, region.active());
    MPI_Fint code = MPI_SUCCESS;
    pmpi(buf, count, type, dest, sendtag, source, recvtag, comm, st.get(), &code);
    if (region.active() && code == MPI_SUCCESS) recv_event(c_comm(comm), st.c());
    set_ierr(ierr, code);
}

// Isend, Issend, Irsend, Ibsend: the request exists only after the call.
template <class Pmpi>
void nonblocking_send(MpiFn fn, Pmpi* pmpi, void* buf, F count, F type, F dest, F tag, F comm,
                      F request, F ierr) {
    MpiRegion region(fn);
    MPI_Fint code = MPI_SUCCESS;
    pmpi(buf, count, type, dest, tag, comm, request, &code);
    if (region.active() && code == MPI_SUCCESS)
        isend_started(c_comm(comm), *dest, *tag, bytes_of(*count, *type),
                      MPI_Request_f2c(*request));
    set_ierr(ierr, code);
}

template <class Pmpi>
void nonblocking_recv(MpiFn fn, Pmpi* pmpi, void* buf, F count, F type, F source, F tag, F comm,
                      F request, F ierr) {
    MpiRegion region(fn);
    MPI_Fint code = MPI_SUCCESS;
    pmpi(buf, count, type, source, tag, comm, request, &code);
    if (region.active() && code == MPI_SUCCESS)
        irecv_started(c_comm(comm), *source, MPI_Request_f2c(*request));
    set_ierr(ierr, code);
}

// ---- completion

template <class Pmpi> void wait_one(MpiFn fn, Pmpi* pmpi, F request, F status, F ierr) {
    MpiRegion region(fn);
    const MPI_Request before = region.active() ? MPI_Request_f2c(*request) : MPI_REQUEST_NULL;
    const uint64_t activation = request_activation(before);
    StatusArg st(status, region.active());
    MPI_Fint code = MPI_SUCCESS;
    pmpi(request, st.get(), &code);
    if (region.active() && code == MPI_SUCCESS) request_completed(before, st.c(), activation);
    set_ierr(ierr, code);
}

template <class Pmpi> void wait_all(MpiFn fn, Pmpi* pmpi, F count, F requests, F statuses, F ierr) {
    MpiRegion region(fn);
    const RequestsBefore before(requests, *count, region.active());
    StatusArray st(statuses, *count, region.active());
    MPI_Fint code = MPI_SUCCESS;
    pmpi(count, requests, st.get(), &code);
    // MPI_ERR_IN_STATUS: only the requests whose own status says success completed.
    if (region.active() && (code == MPI_SUCCESS || code == MPI_ERR_IN_STATUS)) {
        for (int i = 0; i < before.size(); ++i) {
            const MPI_Status s = st.c(i);
            if (code == MPI_SUCCESS || s.MPI_ERROR == MPI_SUCCESS) before.completed(i, s);
        }
    }
    set_ierr(ierr, code);
}

// `index` is 1-based, or MPI_UNDEFINED when no request was active.
template <class Pmpi>
void wait_any(MpiFn fn, Pmpi* pmpi, F count, F requests, F index, F status, F ierr) {
    MpiRegion region(fn);
    const RequestsBefore before(requests, *count, region.active());
    StatusArg st(status, region.active());
    MPI_Fint code = MPI_SUCCESS;
    pmpi(count, requests, index, st.get(), &code);
    if (region.active() && code == MPI_SUCCESS && *index != MPI_UNDEFINED)
        before.completed(*index - 1, st.c());
    set_ierr(ierr, code);
}

// Records the completions a Waitsome/Testsome reported (1-based indices, statuses in the
// order of the indices); a Testsome that completed nothing tested every request (as the C
// wrapper records it).
inline void some_completed(const RequestsBefore& before, MPI_Fint outcount, const MPI_Fint* indices,
                           const StatusArray& st, bool test) {
    if (outcount == MPI_UNDEFINED) return; // no active request
    if (test && outcount == 0)
        for (int i = 0; i < before.size(); ++i) request_tested(before[i]);
    for (int j = 0; j < outcount; ++j) before.completed(indices[j] - 1, st.c(j));
}

template <class Pmpi>
void wait_some(MpiFn fn, Pmpi* pmpi, F incount, F requests, F outcount, F indices, F statuses,
               F ierr) {
    MpiRegion region(fn);
    const RequestsBefore before(requests, *incount, region.active());
    StatusArray st(statuses, *incount, region.active());
    MPI_Fint code = MPI_SUCCESS;
    pmpi(incount, requests, outcount, indices, st.get(), &code);
    if (region.active() && code == MPI_SUCCESS)
        some_completed(before, *outcount, indices, st, false);
    set_ierr(ierr, code);
}

template <class Pmpi> void test_one(MpiFn fn, Pmpi* pmpi, F request, F flag, F status, F ierr) {
    MpiRegion region(fn);
    const MPI_Request before = region.active() ? MPI_Request_f2c(*request) : MPI_REQUEST_NULL;
    const uint64_t activation = request_activation(before);
    StatusArg st(status, region.active());
    MPI_Fint code = MPI_SUCCESS;
    pmpi(request, flag, st.get(), &code);
    if (region.active() && code == MPI_SUCCESS) {
        if (*flag)
            request_completed(before, st.c(), activation);
        else
            request_tested(before);
    }
    set_ierr(ierr, code);
}

// Testall completes either every request or none.
template <class Pmpi>
void test_all(MpiFn fn, Pmpi* pmpi, F count, F requests, F flag, F statuses, F ierr) {
    MpiRegion region(fn);
    const RequestsBefore before(requests, *count, region.active());
    StatusArray st(statuses, *count, region.active());
    MPI_Fint code = MPI_SUCCESS;
    pmpi(count, requests, flag, st.get(), &code);
    if (region.active() && code == MPI_SUCCESS) {
        for (int i = 0; i < before.size(); ++i) {
            if (*flag)
                before.completed(i, st.c(i));
            else
                request_tested(before[i]);
        }
    }
    set_ierr(ierr, code);
}

template <class Pmpi>
void test_any(MpiFn fn, Pmpi* pmpi, F count, F requests, F index, F flag, F status, F ierr) {
    MpiRegion region(fn);
    const RequestsBefore before(requests, *count, region.active());
    StatusArg st(status, region.active());
    MPI_Fint code = MPI_SUCCESS;
    pmpi(count, requests, index, flag, st.get(), &code);
    if (region.active() && code == MPI_SUCCESS) {
        if (!*flag)
            for (int i = 0; i < before.size(); ++i) request_tested(before[i]);
        else if (*index != MPI_UNDEFINED)
            before.completed(*index - 1, st.c());
    }
    set_ierr(ierr, code);
}

template <class Pmpi>
void test_some(MpiFn fn, Pmpi* pmpi, F incount, F requests, F outcount, F indices, F statuses,
               F ierr) {
    MpiRegion region(fn);
    const RequestsBefore before(requests, *incount, region.active());
    StatusArray st(statuses, *incount, region.active());
    MPI_Fint code = MPI_SUCCESS;
    pmpi(incount, requests, outcount, indices, st.get(), &code);
    if (region.active() && code == MPI_SUCCESS)
        some_completed(before, *outcount, indices, st, true);
    set_ierr(ierr, code);
}

// ---- persistent requests

template <PersistentKind kind, class Pmpi>
void persistent_init(MpiFn fn, Pmpi* pmpi, void* buf, F count, F type, F peer, F tag, F comm,
                     F request, F ierr) {
    MpiRegion region(fn);
    MPI_Fint code = MPI_SUCCESS;
    pmpi(buf, count, type, peer, tag, comm, request, &code);
    if (region.active() && code == MPI_SUCCESS)
        persistent_created(kind, c_comm(comm), *peer, *tag, bytes_of(*count, *type),
                           MPI_Request_f2c(*request));
    set_ierr(ierr, code);
}

template <class Pmpi>
void persistent_send_init(MpiFn fn, Pmpi* pmpi, void* buf, F count, F type, F dest, F tag, F comm,
                          F request, F ierr) {
    persistent_init<PersistentKind::Send>(fn, pmpi, buf, count, type, dest, tag, comm, request,
                                          ierr);
}

template <class Pmpi>
void persistent_recv_init(MpiFn fn, Pmpi* pmpi, void* buf, F count, F type, F source, F tag, F comm,
                          F request, F ierr) {
    persistent_init<PersistentKind::Recv>(fn, pmpi, buf, count, type, source, tag, comm, request,
                                          ierr);
}

template <class Pmpi> void start(MpiFn fn, Pmpi* pmpi, F request, F ierr) {
    MpiRegion region(fn);
    MPI_Fint code = MPI_SUCCESS;
    pmpi(request, &code);
    if (region.active() && code == MPI_SUCCESS) persistent_started(MPI_Request_f2c(*request));
    set_ierr(ierr, code);
}

template <class Pmpi> void start_all(MpiFn fn, Pmpi* pmpi, F count, F requests, F ierr) {
    MpiRegion region(fn);
    MPI_Fint code = MPI_SUCCESS;
    pmpi(count, requests, &code);
    if (region.active() && code == MPI_SUCCESS)
        for (int i = 0; i < *count; ++i) persistent_started(MPI_Request_f2c(requests[i]));
    set_ierr(ierr, code);
}

// The handle is MPI_REQUEST_NULL afterwards: convert it first. Forgotten even when not
// recording, as the C wrapper does.
template <class Pmpi> void request_free(MpiFn fn, Pmpi* pmpi, F request, F ierr) {
    MpiRegion region(fn);
    const MPI_Request before = MPI_Request_f2c(*request);
    MPI_Fint code = MPI_SUCCESS;
    pmpi(request, &code);
    if (code == MPI_SUCCESS) request_freed(before);
    set_ierr(ierr, code);
}

// ---- collectives
// Recorded, and their bytes counted, by collectives.h on C handles; Fortran count arrays
// are INTEGER arrays and go there as they are.
static_assert(std::is_same_v<MPI_Fint, int>, "Fortran INTEGER counts are read as C int");

// C handles of types[0..n) (Alltoallw).
inline std::vector<MPI_Datatype> c_types(const MPI_Fint* types, int n) {
    std::vector<MPI_Datatype> c(n > 0 ? static_cast<size_t>(n) : 0);
    for (size_t i = 0; i < c.size(); ++i) c[i] = MPI_Type_f2c(types[i]);
    return c;
}

// This process's rank in `comm`; MPI_PROC_NULL (never the root, no block) when MPI cannot
// tell.
inline int rank_in(F comm) {
    return comm_rank(c_comm(comm), MPI_PROC_NULL);
}

inline bool is_root(F comm, F root) {
    return rank_in(comm) == *root;
}

inline int size_of(F comm) {
    return comm_size(c_comm(comm));
}

template <class Pmpi> void barrier(MpiFn fn, Pmpi* pmpi, F comm, F ierr) {
    record_collective(
        fn, OTF2_COLLECTIVE_OP_BARRIER, c_comm(comm), -1, [&] { pmpi(comm, ierr); },
        [] { return Bytes{}; });
}

template <class Pmpi>
void bcast(MpiFn fn, Pmpi* pmpi, void* buf, F count, F type, F root, F comm, F ierr) {
    record_collective(
        fn, OTF2_COLLECTIVE_OP_BCAST, c_comm(comm), *root,
        [&] { pmpi(buf, count, type, root, comm, ierr); },
        [&] { return bcast_bytes(*count, c_type(type), is_root(comm, root)); });
}

template <class Pmpi>
void reduce(MpiFn fn, Pmpi* pmpi, void* sendbuf, void* recvbuf, F count, F type, F op, F root,
            F comm, F ierr) {
    record_collective(
        fn, OTF2_COLLECTIVE_OP_REDUCE, c_comm(comm), *root,
        [&] { pmpi(sendbuf, recvbuf, count, type, op, root, comm, ierr); },
        [&] { return reduce_bytes(*count, c_type(type), is_root(comm, root)); });
}

// Allreduce, Scan, Exscan.
template <OTF2_CollectiveOp otf2_op, class Pmpi>
void reduce_all(MpiFn fn, Pmpi* pmpi, void* sendbuf, void* recvbuf, F count, F type, F op, F comm,
                F ierr) {
    record_collective(
        fn, otf2_op, c_comm(comm), -1, [&] { pmpi(sendbuf, recvbuf, count, type, op, comm, ierr); },
        [&] { return allreduce_bytes(*count, c_type(type)); });
}

template <class Pmpi>
void allreduce(MpiFn fn, Pmpi* pmpi, void* sendbuf, void* recvbuf, F count, F type, F op, F comm,
               F ierr) {
    reduce_all<OTF2_COLLECTIVE_OP_ALLREDUCE>(fn, pmpi, sendbuf, recvbuf, count, type, op, comm,
                                             ierr);
}

template <class Pmpi>
void scan(MpiFn fn, Pmpi* pmpi, void* sendbuf, void* recvbuf, F count, F type, F op, F comm,
          F ierr) {
    reduce_all<OTF2_COLLECTIVE_OP_SCAN>(fn, pmpi, sendbuf, recvbuf, count, type, op, comm, ierr);
}

template <class Pmpi>
void exscan(MpiFn fn, Pmpi* pmpi, void* sendbuf, void* recvbuf, F count, F type, F op, F comm,
            F ierr) {
    reduce_all<OTF2_COLLECTIVE_OP_EXSCAN>(fn, pmpi, sendbuf, recvbuf, count, type, op, comm, ierr);
}

template <class Pmpi>
void gather(MpiFn fn, Pmpi* pmpi, void* sendbuf, F sendcount, F sendtype, void* recvbuf,
            F recvcount, F recvtype, F root, F comm, F ierr) {
    record_collective(
        fn, OTF2_COLLECTIVE_OP_GATHER, c_comm(comm), *root,
        [&] { pmpi(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, ierr); },
        [&] {
            return gather_bytes(is_in_place(sendbuf), *sendcount, c_type(sendtype), *recvcount,
                                c_type(recvtype), is_root(comm, root), size_of(comm));
        });
}

template <class Pmpi>
void gatherv(MpiFn fn, Pmpi* pmpi, void* sendbuf, F sendcount, F sendtype, void* recvbuf,
             F recvcounts, F displs, F recvtype, F root, F comm, F ierr) {
    record_collective(
        fn, OTF2_COLLECTIVE_OP_GATHERV, c_comm(comm), *root,
        [&] {
            pmpi(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm,
                 ierr);
        },
        [&] {
            return gatherv_bytes(is_in_place(sendbuf), *sendcount, c_type(sendtype), recvcounts,
                                 c_type(recvtype), is_root(comm, root), size_of(comm));
        });
}

template <class Pmpi>
void scatter(MpiFn fn, Pmpi* pmpi, void* sendbuf, F sendcount, F sendtype, void* recvbuf,
             F recvcount, F recvtype, F root, F comm, F ierr) {
    record_collective(
        fn, OTF2_COLLECTIVE_OP_SCATTER, c_comm(comm), *root,
        [&] { pmpi(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, ierr); },
        [&] {
            return scatter_bytes(*sendcount, c_type(sendtype), is_in_place(recvbuf), *recvcount,
                                 c_type(recvtype), is_root(comm, root), size_of(comm));
        });
}

template <class Pmpi>
void scatterv(MpiFn fn, Pmpi* pmpi, void* sendbuf, F sendcounts, F displs, F sendtype,
              void* recvbuf, F recvcount, F recvtype, F root, F comm, F ierr) {
    record_collective(
        fn, OTF2_COLLECTIVE_OP_SCATTERV, c_comm(comm), *root,
        [&] {
            pmpi(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm,
                 ierr);
        },
        [&] {
            return scatterv_bytes(sendcounts, c_type(sendtype), is_in_place(recvbuf), *recvcount,
                                  c_type(recvtype), is_root(comm, root), size_of(comm));
        });
}

template <class Pmpi>
void allgather(MpiFn fn, Pmpi* pmpi, void* sendbuf, F sendcount, F sendtype, void* recvbuf,
               F recvcount, F recvtype, F comm, F ierr) {
    record_collective(
        fn, OTF2_COLLECTIVE_OP_ALLGATHER, c_comm(comm), -1,
        [&] { pmpi(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, ierr); },
        [&] {
            return allgather_bytes(is_in_place(sendbuf), *sendcount, c_type(sendtype), *recvcount,
                                   c_type(recvtype), size_of(comm));
        });
}

template <class Pmpi>
void allgatherv(MpiFn fn, Pmpi* pmpi, void* sendbuf, F sendcount, F sendtype, void* recvbuf,
                F recvcounts, F displs, F recvtype, F comm, F ierr) {
    record_collective(
        fn, OTF2_COLLECTIVE_OP_ALLGATHERV, c_comm(comm), -1,
        [&] {
            pmpi(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, ierr);
        },
        [&] {
            return allgatherv_bytes(is_in_place(sendbuf), *sendcount, c_type(sendtype), recvcounts,
                                    c_type(recvtype), size_of(comm));
        });
}

template <class Pmpi>
void alltoall(MpiFn fn, Pmpi* pmpi, void* sendbuf, F sendcount, F sendtype, void* recvbuf,
              F recvcount, F recvtype, F comm, F ierr) {
    record_collective(
        fn, OTF2_COLLECTIVE_OP_ALLTOALL, c_comm(comm), -1,
        [&] { pmpi(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, ierr); },
        [&] {
            return alltoall_bytes(is_in_place(sendbuf), *sendcount, c_type(sendtype), *recvcount,
                                  c_type(recvtype), size_of(comm));
        });
}

template <class Pmpi>
void alltoallv(MpiFn fn, Pmpi* pmpi, void* sendbuf, F sendcounts, F sdispls, F sendtype,
               void* recvbuf, F recvcounts, F rdispls, F recvtype, F comm, F ierr) {
    record_collective(
        fn, OTF2_COLLECTIVE_OP_ALLTOALLV, c_comm(comm), -1,
        [&] {
            pmpi(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                 comm, ierr);
        },
        [&] {
            return alltoallv_bytes(is_in_place(sendbuf), sendcounts, c_type(sendtype), recvcounts,
                                   c_type(recvtype), size_of(comm));
        });
}

template <class Pmpi>
void alltoallw(MpiFn fn, Pmpi* pmpi, void* sendbuf, F sendcounts, F sdispls, F sendtypes,
               void* recvbuf, F recvcounts, F rdispls, F recvtypes, F comm, F ierr) {
    record_collective(
        fn, OTF2_COLLECTIVE_OP_ALLTOALLW, c_comm(comm), -1,
        [&] {
            pmpi(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
                 comm, ierr);
        },
        [&] {
            const int size = size_of(comm);
            const bool in_place = is_in_place(sendbuf);
            // MPI ignores the send types of an in-place call: they are not read.
            const std::vector<MPI_Datatype> send_types =
                in_place ? std::vector<MPI_Datatype>() : c_types(sendtypes, size);
            const std::vector<MPI_Datatype> recv_types = c_types(recvtypes, size);
            return alltoallw_bytes(in_place, sendcounts, send_types.data(), recvcounts,
                                   recv_types.data(), size);
        });
}

template <class Pmpi>
void reduce_scatter(MpiFn fn, Pmpi* pmpi, void* sendbuf, void* recvbuf, F recvcounts, F type, F op,
                    F comm, F ierr) {
    record_collective(
        fn, OTF2_COLLECTIVE_OP_REDUCE_SCATTER, c_comm(comm), -1,
        [&] { pmpi(sendbuf, recvbuf, recvcounts, type, op, comm, ierr); },
        [&] {
            return reduce_scatter_bytes(recvcounts, c_type(type), rank_in(comm), size_of(comm));
        });
}

template <class Pmpi>
void reduce_scatter_block(MpiFn fn, Pmpi* pmpi, void* sendbuf, void* recvbuf, F recvcount, F type,
                          F op, F comm, F ierr) {
    record_collective(
        fn, OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK, c_comm(comm), -1,
        [&] { pmpi(sendbuf, recvbuf, recvcount, type, op, comm, ierr); },
        [&] { return reduce_scatter_block_bytes(*recvcount, c_type(type), size_of(comm)); });
}

// ---- communicators

// Records a communicator created by `call` (which returns the error code) from `parent`;
// on processes that are not members the new handle is MPI_COMM_NULL.
template <class Call>
void created(MpiFn fn, const char* how, bool cartesian, F parent, F newcomm, F ierr, Call&& call) {
    MpiRegion region(fn);
    const MPI_Fint code = call();
    if (region.active() && code == MPI_SUCCESS) {
        if (cartesian)
            cartesian_communicator_created(c_comm(newcomm), c_comm(parent), how);
        else
            communicator_created(c_comm(newcomm), c_comm(parent), how);
    }
    set_ierr(ierr, code);
}

template <class Pmpi> void comm_dup(MpiFn fn, Pmpi* pmpi, F comm, F newcomm, F ierr) {
    created(fn, "Comm_dup", false, comm, newcomm, ierr, [&] {
        MPI_Fint code = MPI_SUCCESS;
        pmpi(comm, newcomm, &code);
        return code;
    });
}

template <class Pmpi>
void comm_split(MpiFn fn, Pmpi* pmpi, F comm, F color, F key, F newcomm, F ierr) {
    created(fn, "Comm_split", false, comm, newcomm, ierr, [&] {
        MPI_Fint code = MPI_SUCCESS;
        pmpi(comm, color, key, newcomm, &code);
        return code;
    });
}

template <class Pmpi>
void comm_split_type(MpiFn fn, Pmpi* pmpi, F comm, F split_type, F key, F info, F newcomm, F ierr) {
    created(fn, "Comm_split_type", false, comm, newcomm, ierr, [&] {
        MPI_Fint code = MPI_SUCCESS;
        pmpi(comm, split_type, key, info, newcomm, &code);
        return code;
    });
}

template <class Pmpi> void comm_create(MpiFn fn, Pmpi* pmpi, F comm, F group, F newcomm, F ierr) {
    created(fn, "Comm_create", false, comm, newcomm, ierr, [&] {
        MPI_Fint code = MPI_SUCCESS;
        pmpi(comm, group, newcomm, &code);
        return code;
    });
}

// `periods`, `reorder` and `remain_dims` are LOGICALs, passed through untouched.
template <class Pmpi>
void cart_create(MpiFn fn, Pmpi* pmpi, F comm_old, F ndims, F dims, F periods, F reorder,
                 F comm_cart, F ierr) {
    created(fn, "Cart_create", true, comm_old, comm_cart, ierr, [&] {
        MPI_Fint code = MPI_SUCCESS;
        pmpi(comm_old, ndims, dims, periods, reorder, comm_cart, &code);
        return code;
    });
}

template <class Pmpi>
void cart_sub(MpiFn fn, Pmpi* pmpi, F comm, F remain_dims, F newcomm, F ierr) {
    created(fn, "Cart_sub", true, comm, newcomm, ierr, [&] {
        MPI_Fint code = MPI_SUCCESS;
        pmpi(comm, remain_dims, newcomm, &code);
        return code;
    });
}

// The recorder still needs the handle: forget it before MPI frees it.
template <class Pmpi> void comm_free(MpiFn fn, Pmpi* pmpi, F comm, F ierr) {
    MpiRegion region(fn);
    if (region.active()) communicator_freed(c_comm(comm));
    pmpi(comm, ierr);
}

} // namespace topolens::measure::fortran

// ---------------------------------------------------------------- the wrapped functions
// X(name, NAME, MpiFn, handler, (Fortran parameters), (arguments)): `name` makes the symbols
// (mpi_<name>_, pmpi_<name>_f08_ ...), NAME the upper-case alias. Parameter lists follow
// Open MPI's mpif-h/prototypes_mpi.h.
// clang-format off
#define TOPOLENS_FORTRAN_P2P_FUNCTIONS(X)                                                          \
    X(send, SEND, Send, blocking_send,                                                             \
      (void* buf, F count, F type, F dest, F tag, F comm, F ierr),                                 \
      (buf, count, type, dest, tag, comm, ierr))                                                   \
    X(ssend, SSEND, Ssend, blocking_send,                                                          \
      (void* buf, F count, F type, F dest, F tag, F comm, F ierr),                                 \
      (buf, count, type, dest, tag, comm, ierr))                                                   \
    X(bsend, BSEND, Bsend, blocking_send,                                                          \
      (void* buf, F count, F type, F dest, F tag, F comm, F ierr),                                 \
      (buf, count, type, dest, tag, comm, ierr))                                                   \
    X(rsend, RSEND, Rsend, blocking_send,                                                          \
      (void* buf, F count, F type, F dest, F tag, F comm, F ierr),                                 \
      (buf, count, type, dest, tag, comm, ierr))                                                   \
    X(recv, RECV, Recv, blocking_recv,                                                             \
      (void* buf, F count, F type, F source, F tag, F comm, F status, F ierr),                     \
      (buf, count, type, source, tag, comm, status, ierr))                                         \
    X(sendrecv, SENDRECV, Sendrecv, sendrecv,                                                      \
      (void* sendbuf, F sendcount, F sendtype, F dest, F sendtag, void* recvbuf, F recvcount,      \
       F recvtype, F source, F recvtag, F comm, F status, F ierr),                                 \
      (sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source,          \
       recvtag, comm, status, ierr))                                                               \
    X(sendrecv_replace, SENDRECV_REPLACE, Sendrecv_replace, sendrecv_replace,                      \
      (void* buf, F count, F type, F dest, F sendtag, F source, F recvtag, F comm, F status,       \
       F ierr),                                                                                    \
      (buf, count, type, dest, sendtag, source, recvtag, comm, status, ierr))                      \
    X(isend, ISEND, Isend, nonblocking_send,                                                       \
      (void* buf, F count, F type, F dest, F tag, F comm, F request, F ierr),                      \
      (buf, count, type, dest, tag, comm, request, ierr))                                          \
    X(issend, ISSEND, Issend, nonblocking_send,                                                    \
      (void* buf, F count, F type, F dest, F tag, F comm, F request, F ierr),                      \
      (buf, count, type, dest, tag, comm, request, ierr))                                          \
    X(irsend, IRSEND, Irsend, nonblocking_send,                                                    \
      (void* buf, F count, F type, F dest, F tag, F comm, F request, F ierr),                      \
      (buf, count, type, dest, tag, comm, request, ierr))                                          \
    X(ibsend, IBSEND, Ibsend, nonblocking_send,                                                    \
      (void* buf, F count, F type, F dest, F tag, F comm, F request, F ierr),                      \
      (buf, count, type, dest, tag, comm, request, ierr))                                          \
    X(irecv, IRECV, Irecv, nonblocking_recv,                                                       \
      (void* buf, F count, F type, F source, F tag, F comm, F request, F ierr),                    \
      (buf, count, type, source, tag, comm, request, ierr))                                        \
    X(wait, WAIT, Wait, wait_one,                                                                  \
      (F request, F status, F ierr),                                                               \
      (request, status, ierr))                                                                     \
    X(waitall, WAITALL, Waitall, wait_all,                                                         \
      (F count, F requests, F statuses, F ierr),                                                   \
      (count, requests, statuses, ierr))                                                           \
    X(waitany, WAITANY, Waitany, wait_any,                                                         \
      (F count, F requests, F index, F status, F ierr),                                            \
      (count, requests, index, status, ierr))                                                      \
    X(waitsome, WAITSOME, Waitsome, wait_some,                                                     \
      (F incount, F requests, F outcount, F indices, F statuses, F ierr),                          \
      (incount, requests, outcount, indices, statuses, ierr))                                      \
    X(test, TEST, Test, test_one,                                                                  \
      (F request, F flag, F status, F ierr),                                                       \
      (request, flag, status, ierr))                                                               \
    X(testall, TESTALL, Testall, test_all,                                                         \
      (F count, F requests, F flag, F statuses, F ierr),                                           \
      (count, requests, flag, statuses, ierr))                                                     \
    X(testany, TESTANY, Testany, test_any,                                                         \
      (F count, F requests, F index, F flag, F status, F ierr),                                    \
      (count, requests, index, flag, status, ierr))                                                \
    X(testsome, TESTSOME, Testsome, test_some,                                                     \
      (F incount, F requests, F outcount, F indices, F statuses, F ierr),                          \
      (incount, requests, outcount, indices, statuses, ierr))                                      \
    X(probe, PROBE, Probe, region_only,                                                            \
      (F source, F tag, F comm, F status, F ierr),                                                 \
      (source, tag, comm, status, ierr))                                                           \
    X(iprobe, IPROBE, Iprobe, region_only,                                                         \
      (F source, F tag, F comm, F flag, F status, F ierr),                                         \
      (source, tag, comm, flag, status, ierr))                                                     \
    X(send_init, SEND_INIT, Send_init, persistent_send_init,                                       \
      (void* buf, F count, F type, F dest, F tag, F comm, F request, F ierr),                      \
      (buf, count, type, dest, tag, comm, request, ierr))                                          \
    X(ssend_init, SSEND_INIT, Ssend_init, persistent_send_init,                                    \
      (void* buf, F count, F type, F dest, F tag, F comm, F request, F ierr),                      \
      (buf, count, type, dest, tag, comm, request, ierr))                                          \
    X(bsend_init, BSEND_INIT, Bsend_init, persistent_send_init,                                    \
      (void* buf, F count, F type, F dest, F tag, F comm, F request, F ierr),                      \
      (buf, count, type, dest, tag, comm, request, ierr))                                          \
    X(rsend_init, RSEND_INIT, Rsend_init, persistent_send_init,                                    \
      (void* buf, F count, F type, F dest, F tag, F comm, F request, F ierr),                      \
      (buf, count, type, dest, tag, comm, request, ierr))                                          \
    X(recv_init, RECV_INIT, Recv_init, persistent_recv_init,                                       \
      (void* buf, F count, F type, F source, F tag, F comm, F request, F ierr),                    \
      (buf, count, type, source, tag, comm, request, ierr))                                        \
    X(start, START, Start, start,                                                                  \
      (F request, F ierr),                                                                         \
      (request, ierr))                                                                             \
    X(startall, STARTALL, Startall, start_all,                                                     \
      (F count, F requests, F ierr),                                                               \
      (count, requests, ierr))                                                                     \
    X(request_free, REQUEST_FREE, Request_free, request_free,                                      \
      (F request, F ierr),                                                                         \
      (request, ierr))                                                                             \
    X(cancel, CANCEL, Cancel, region_only,                                                         \
      (F request, F ierr),                                                                         \
      (request, ierr))

#define TOPOLENS_FORTRAN_COLLECTIVE_FUNCTIONS(X)                                                   \
    X(barrier, BARRIER, Barrier, barrier,                                                          \
      (F comm, F ierr),                                                                            \
      (comm, ierr))                                                                                \
    X(bcast, BCAST, Bcast, bcast,                                                                  \
      (void* buf, F count, F type, F root, F comm, F ierr),                                        \
      (buf, count, type, root, comm, ierr))                                                        \
    X(reduce, REDUCE, Reduce, reduce,                                                              \
      (void* sendbuf, void* recvbuf, F count, F type, F op, F root, F comm, F ierr),               \
      (sendbuf, recvbuf, count, type, op, root, comm, ierr))                                       \
    X(allreduce, ALLREDUCE, Allreduce, allreduce,                                                  \
      (void* sendbuf, void* recvbuf, F count, F type, F op, F comm, F ierr),                       \
      (sendbuf, recvbuf, count, type, op, comm, ierr))                                             \
    X(gather, GATHER, Gather, gather,                                                              \
      (void* sendbuf, F sendcount, F sendtype, void* recvbuf, F recvcount, F recvtype, F root,     \
       F comm, F ierr),                                                                            \
      (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, ierr))              \
    X(gatherv, GATHERV, Gatherv, gatherv,                                                          \
      (void* sendbuf, F sendcount, F sendtype, void* recvbuf, F recvcounts, F displs,              \
       F recvtype, F root, F comm, F ierr),                                                        \
      (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, ierr))     \
    X(scatter, SCATTER, Scatter, scatter,                                                          \
      (void* sendbuf, F sendcount, F sendtype, void* recvbuf, F recvcount, F recvtype, F root,     \
       F comm, F ierr),                                                                            \
      (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, ierr))              \
    X(scatterv, SCATTERV, Scatterv, scatterv,                                                      \
      (void* sendbuf, F sendcounts, F displs, F sendtype, void* recvbuf, F recvcount,              \
       F recvtype, F root, F comm, F ierr),                                                        \
      (sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, ierr))     \
    X(allgather, ALLGATHER, Allgather, allgather,                                                  \
      (void* sendbuf, F sendcount, F sendtype, void* recvbuf, F recvcount, F recvtype, F comm,     \
       F ierr),                                                                                    \
      (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, ierr))                    \
    X(allgatherv, ALLGATHERV, Allgatherv, allgatherv,                                              \
      (void* sendbuf, F sendcount, F sendtype, void* recvbuf, F recvcounts, F displs,              \
       F recvtype, F comm, F ierr),                                                                \
      (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, ierr))           \
    X(alltoall, ALLTOALL, Alltoall, alltoall,                                                      \
      (void* sendbuf, F sendcount, F sendtype, void* recvbuf, F recvcount, F recvtype, F comm,     \
       F ierr),                                                                                    \
      (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, ierr))                    \
    X(alltoallv, ALLTOALLV, Alltoallv, alltoallv,                                                  \
      (void* sendbuf, F sendcounts, F sdispls, F sendtype, void* recvbuf, F recvcounts,            \
       F rdispls, F recvtype, F comm, F ierr),                                                     \
      (sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm,       \
       ierr))                                                                                      \
    X(alltoallw, ALLTOALLW, Alltoallw, alltoallw,                                                  \
      (void* sendbuf, F sendcounts, F sdispls, F sendtypes, void* recvbuf, F recvcounts,           \
       F rdispls, F recvtypes, F comm, F ierr),                                                    \
      (sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm,     \
       ierr))                                                                                      \
    X(reduce_scatter, REDUCE_SCATTER, Reduce_scatter, reduce_scatter,                              \
      (void* sendbuf, void* recvbuf, F recvcounts, F type, F op, F comm, F ierr),                  \
      (sendbuf, recvbuf, recvcounts, type, op, comm, ierr))                                        \
    X(reduce_scatter_block, REDUCE_SCATTER_BLOCK, Reduce_scatter_block, reduce_scatter_block,      \
      (void* sendbuf, void* recvbuf, F recvcount, F type, F op, F comm, F ierr),                   \
      (sendbuf, recvbuf, recvcount, type, op, comm, ierr))                                         \
    X(scan, SCAN, Scan, scan,                                                                      \
      (void* sendbuf, void* recvbuf, F count, F type, F op, F comm, F ierr),                       \
      (sendbuf, recvbuf, count, type, op, comm, ierr))                                             \
    X(exscan, EXSCAN, Exscan, exscan,                                                              \
      (void* sendbuf, void* recvbuf, F count, F type, F op, F comm, F ierr),                       \
      (sendbuf, recvbuf, count, type, op, comm, ierr))

#define TOPOLENS_FORTRAN_OTHER_FUNCTIONS(X)                                                        \
    X(comm_dup, COMM_DUP, Comm_dup, comm_dup,                                                      \
      (F comm, F newcomm, F ierr),                                                                 \
      (comm, newcomm, ierr))                                                                       \
    X(comm_split, COMM_SPLIT, Comm_split, comm_split,                                              \
      (F comm, F color, F key, F newcomm, F ierr),                                                 \
      (comm, color, key, newcomm, ierr))                                                           \
    X(comm_split_type, COMM_SPLIT_TYPE, Comm_split_type, comm_split_type,                          \
      (F comm, F split_type, F key, F info, F newcomm, F ierr),                                    \
      (comm, split_type, key, info, newcomm, ierr))                                                \
    X(comm_create, COMM_CREATE, Comm_create, comm_create,                                          \
      (F comm, F group, F newcomm, F ierr),                                                        \
      (comm, group, newcomm, ierr))                                                                \
    X(cart_create, CART_CREATE, Cart_create, cart_create,                                          \
      (F comm_old, F ndims, F dims, F periods, F reorder, F comm_cart, F ierr),                    \
      (comm_old, ndims, dims, periods, reorder, comm_cart, ierr))                                  \
    X(cart_sub, CART_SUB, Cart_sub, cart_sub,                                                      \
      (F comm, F remain_dims, F newcomm, F ierr),                                                  \
      (comm, remain_dims, newcomm, ierr))                                                          \
    X(comm_free, COMM_FREE, Comm_free, comm_free,                                                  \
      (F comm, F ierr),                                                                            \
      (comm, ierr))                                                                                \
    X(win_create, WIN_CREATE, Win_create, region_only,                                             \
      (void* base, MPI_Aint* size, F disp_unit, F info, F comm, F win, F ierr),                    \
      (base, size, disp_unit, info, comm, win, ierr))                                              \
    X(win_free, WIN_FREE, Win_free, region_only,                                                   \
      (F win, F ierr),                                                                             \
      (win, ierr))                                                                                 \
    X(put, PUT, Put, region_only,                                                                  \
      (void* origin, F origin_count, F origin_type, F target_rank, MPI_Aint* target_disp,          \
       F target_count, F target_type, F win, F ierr),                                              \
      (origin, origin_count, origin_type, target_rank, target_disp, target_count, target_type,     \
       win, ierr))                                                                                 \
    X(get, GET, Get, region_only,                                                                  \
      (void* origin, F origin_count, F origin_type, F target_rank, MPI_Aint* target_disp,          \
       F target_count, F target_type, F win, F ierr),                                              \
      (origin, origin_count, origin_type, target_rank, target_disp, target_count, target_type,     \
       win, ierr))                                                                                 \
    X(accumulate, ACCUMULATE, Accumulate, region_only,                                             \
      (void* origin, F origin_count, F origin_type, F target_rank, MPI_Aint* target_disp,          \
       F target_count, F target_type, F op, F win, F ierr),                                        \
      (origin, origin_count, origin_type, target_rank, target_disp, target_count, target_type,     \
       op, win, ierr))                                                                             \
    X(win_fence, WIN_FENCE, Win_fence, region_only,                                                \
      (F assertion, F win, F ierr),                                                                \
      (assertion, win, ierr))                                                                      \
    X(win_post, WIN_POST, Win_post, region_only,                                                   \
      (F group, F assertion, F win, F ierr),                                                       \
      (group, assertion, win, ierr))                                                               \
    X(win_start, WIN_START, Win_start, region_only,                                                \
      (F group, F assertion, F win, F ierr),                                                       \
      (group, assertion, win, ierr))                                                               \
    X(win_complete, WIN_COMPLETE, Win_complete, region_only,                                       \
      (F win, F ierr),                                                                             \
      (win, ierr))                                                                                 \
    X(win_wait, WIN_WAIT, Win_wait, region_only,                                                   \
      (F win, F ierr),                                                                             \
      (win, ierr))                                                                                 \
    X(win_lock, WIN_LOCK, Win_lock, region_only,                                                   \
      (F lock_type, F rank, F assertion, F win, F ierr),                                           \
      (lock_type, rank, assertion, win, ierr))                                                     \
    X(win_unlock, WIN_UNLOCK, Win_unlock, region_only,                                             \
      (F rank, F win, F ierr),                                                                     \
      (rank, win, ierr))                                                                           \
    X(pack, PACK, Pack, region_only,                                                               \
      (void* inbuf, F incount, F type, void* outbuf, F outsize, F position, F comm, F ierr),       \
      (inbuf, incount, type, outbuf, outsize, position, comm, ierr))                               \
    X(unpack, UNPACK, Unpack, region_only,                                                         \
      (void* inbuf, F insize, F position, void* outbuf, F outcount, F type, F comm, F ierr),       \
      (inbuf, insize, position, outbuf, outcount, type, comm, ierr))

// MPI_Init, MPI_Init_thread, MPI_Finalize and MPI_Abort, then everything recorded in between.
#define TOPOLENS_FORTRAN_FUNCTIONS(X)                                                              \
    X(init, INIT, Init, init, (F ierr), (ierr))                                                    \
    X(init_thread, INIT_THREAD, Init_thread, init_thread,                                          \
      (F required, F provided, F ierr),                                                            \
      (required, provided, ierr))                                                                  \
    X(finalize, FINALIZE, Finalize, finalize, (F ierr), (ierr))                                    \
    X(abort, ABORT, Finalize, abort, (F comm, F errorcode, F ierr), (comm, errorcode, ierr))       \
    TOPOLENS_FORTRAN_P2P_FUNCTIONS(X)                                                              \
    TOPOLENS_FORTRAN_COLLECTIVE_FUNCTIONS(X)                                                       \
    TOPOLENS_FORTRAN_OTHER_FUNCTIONS(X)
// clang-format on

// Strips the parentheses of an argument list.
#define TOPOLENS_FORTRAN_UNPAREN(...) __VA_ARGS__

#define TOPOLENS_FORTRAN_EXPORT __attribute__((visibility("default")))
