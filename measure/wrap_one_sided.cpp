// C wrappers: one-sided communication and packing, recorded as regions only.
#include "recorder.h"

using namespace topolens::measure;

extern "C" {

int MPI_Win_create(void* base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                   MPI_Win* win) {
    MpiRegion region(MpiFn::Win_create);
    return PMPI_Win_create(base, size, disp_unit, info, comm, win);
}

int MPI_Win_free(MPI_Win* win) {
    MpiRegion region(MpiFn::Win_free);
    return PMPI_Win_free(win);
}

int MPI_Put(const void* origin, int origin_count, MPI_Datatype origin_type, int target_rank,
            MPI_Aint target_disp, int target_count, MPI_Datatype target_type, MPI_Win win) {
    MpiRegion region(MpiFn::Put);
    return PMPI_Put(origin, origin_count, origin_type, target_rank, target_disp, target_count,
                    target_type, win);
}

int MPI_Get(void* origin, int origin_count, MPI_Datatype origin_type, int target_rank,
            MPI_Aint target_disp, int target_count, MPI_Datatype target_type, MPI_Win win) {
    MpiRegion region(MpiFn::Get);
    return PMPI_Get(origin, origin_count, origin_type, target_rank, target_disp, target_count,
                    target_type, win);
}

int MPI_Accumulate(const void* origin, int origin_count, MPI_Datatype origin_type, int target_rank,
                   MPI_Aint target_disp, int target_count, MPI_Datatype target_type, MPI_Op op,
                   MPI_Win win) {
    MpiRegion region(MpiFn::Accumulate);
    return PMPI_Accumulate(origin, origin_count, origin_type, target_rank, target_disp,
                           target_count, target_type, op, win);
}

int MPI_Win_fence(int assertion, MPI_Win win) {
    MpiRegion region(MpiFn::Win_fence);
    return PMPI_Win_fence(assertion, win);
}

int MPI_Win_post(MPI_Group group, int assertion, MPI_Win win) {
    MpiRegion region(MpiFn::Win_post);
    return PMPI_Win_post(group, assertion, win);
}

int MPI_Win_start(MPI_Group group, int assertion, MPI_Win win) {
    MpiRegion region(MpiFn::Win_start);
    return PMPI_Win_start(group, assertion, win);
}

int MPI_Win_complete(MPI_Win win) {
    MpiRegion region(MpiFn::Win_complete);
    return PMPI_Win_complete(win);
}

int MPI_Win_wait(MPI_Win win) {
    MpiRegion region(MpiFn::Win_wait);
    return PMPI_Win_wait(win);
}

int MPI_Win_lock(int lock_type, int rank, int assertion, MPI_Win win) {
    MpiRegion region(MpiFn::Win_lock);
    return PMPI_Win_lock(lock_type, rank, assertion, win);
}

int MPI_Win_unlock(int rank, MPI_Win win) {
    MpiRegion region(MpiFn::Win_unlock);
    return PMPI_Win_unlock(rank, win);
}

int MPI_Pack(const void* inbuf, int incount, MPI_Datatype type, void* outbuf, int outsize,
             int* position, MPI_Comm comm) {
    MpiRegion region(MpiFn::Pack);
    return PMPI_Pack(inbuf, incount, type, outbuf, outsize, position, comm);
}

int MPI_Unpack(const void* inbuf, int insize, int* position, void* outbuf, int outcount,
               MPI_Datatype type, MPI_Comm comm) {
    MpiRegion region(MpiFn::Unpack);
    return PMPI_Unpack(inbuf, insize, position, outbuf, outcount, type, comm);
}

} // extern "C"
