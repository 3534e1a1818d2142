// The MPI functions topolens records, each with its OTF2 region role.
// One X-macro list keeps the enum, the names and the roles in step.
#pragma once

#include <otf2/OTF2_Definitions.h>
#include <otf2/OTF2_GeneralDefinitions.h>

#include <cstddef>
#include <cstdint>

namespace topolens::measure {

#define TOPOLENS_MPI_FUNCTIONS(X)                                                                  \
    X(Init, FUNCTION)                                                                              \
    X(Init_thread, FUNCTION)                                                                       \
    X(Finalize, FUNCTION)                                                                          \
    X(Send, POINT2POINT)                                                                           \
    X(Ssend, POINT2POINT)                                                                          \
    X(Bsend, POINT2POINT)                                                                          \
    X(Rsend, POINT2POINT)                                                                          \
    X(Recv, POINT2POINT)                                                                           \
    X(Sendrecv, POINT2POINT)                                                                       \
    X(Sendrecv_replace, POINT2POINT)                                                               \
    X(Isend, POINT2POINT)                                                                          \
    X(Issend, POINT2POINT)                                                                         \
    X(Irsend, POINT2POINT)                                                                         \
    X(Ibsend, POINT2POINT)                                                                         \
    X(Irecv, POINT2POINT)                                                                          \
    X(Wait, POINT2POINT)                                                                           \
    X(Waitall, POINT2POINT)                                                                        \
    X(Waitany, POINT2POINT)                                                                        \
    X(Waitsome, POINT2POINT)                                                                       \
    X(Test, POINT2POINT)                                                                           \
    X(Testall, POINT2POINT)                                                                        \
    X(Testany, POINT2POINT)                                                                        \
    X(Testsome, POINT2POINT)                                                                       \
    X(Probe, POINT2POINT)                                                                          \
    X(Iprobe, POINT2POINT)                                                                         \
    X(Send_init, POINT2POINT)                                                                      \
    X(Ssend_init, POINT2POINT)                                                                     \
    X(Bsend_init, POINT2POINT)                                                                     \
    X(Rsend_init, POINT2POINT)                                                                     \
    X(Recv_init, POINT2POINT)                                                                      \
    X(Start, POINT2POINT)                                                                          \
    X(Startall, POINT2POINT)                                                                       \
    X(Request_free, POINT2POINT)                                                                   \
    X(Cancel, POINT2POINT)                                                                         \
    X(Barrier, BARRIER)                                                                            \
    X(Bcast, COLL_ONE2ALL)                                                                         \
    X(Reduce, COLL_ALL2ONE)                                                                        \
    X(Allreduce, COLL_ALL2ALL)                                                                     \
    X(Gather, COLL_ALL2ONE)                                                                        \
    X(Gatherv, COLL_ALL2ONE)                                                                       \
    X(Scatter, COLL_ONE2ALL)                                                                       \
    X(Scatterv, COLL_ONE2ALL)                                                                      \
    X(Allgather, COLL_ALL2ALL)                                                                     \
    X(Allgatherv, COLL_ALL2ALL)                                                                    \
    X(Alltoall, COLL_ALL2ALL)                                                                      \
    X(Alltoallv, COLL_ALL2ALL)                                                                     \
    X(Alltoallw, COLL_ALL2ALL)                                                                     \
    X(Reduce_scatter, COLL_ALL2ALL)                                                                \
    X(Reduce_scatter_block, COLL_ALL2ALL)                                                          \
    X(Scan, COLL_OTHER)                                                                            \
    X(Exscan, COLL_OTHER)                                                                          \
    X(Comm_dup, COLL_ALL2ALL)                                                                      \
    X(Comm_split, COLL_ALL2ALL)                                                                    \
    X(Comm_split_type, COLL_ALL2ALL)                                                               \
    X(Comm_create, COLL_ALL2ALL)                                                                   \
    X(Cart_create, COLL_ALL2ALL)                                                                   \
    X(Cart_sub, COLL_ALL2ALL)                                                                      \
    X(Comm_free, FUNCTION)                                                                         \
    X(Win_create, COLL_ALL2ALL)                                                                    \
    X(Win_free, COLL_ALL2ALL)                                                                      \
    X(Put, FUNCTION)                                                                               \
    X(Get, FUNCTION)                                                                               \
    X(Accumulate, FUNCTION)                                                                        \
    X(Win_fence, BARRIER)                                                                          \
    X(Win_post, FUNCTION)                                                                          \
    X(Win_start, FUNCTION)                                                                         \
    X(Win_complete, FUNCTION)                                                                      \
    X(Win_wait, FUNCTION)                                                                          \
    X(Win_lock, FUNCTION)                                                                          \
    X(Win_unlock, FUNCTION)                                                                        \
    X(Pack, FUNCTION)                                                                              \
    X(Unpack, FUNCTION)

enum class MpiFn : uint32_t {
#define TOPOLENS_ENUM_ENTRY(name, role) name,
    TOPOLENS_MPI_FUNCTIONS(TOPOLENS_ENUM_ENTRY)
#undef TOPOLENS_ENUM_ENTRY
        Count
};

struct MpiFunctionInfo {
    const char* name; // "MPI_Send"
    OTF2_RegionRole role;
};

inline constexpr MpiFunctionInfo kMpiFunctions[] = {
#define TOPOLENS_INFO_ENTRY(name, role) {"MPI_" #name, OTF2_REGION_ROLE_##role},
    TOPOLENS_MPI_FUNCTIONS(TOPOLENS_INFO_ENTRY)
#undef TOPOLENS_INFO_ENTRY
};

static_assert(sizeof(kMpiFunctions) / sizeof(kMpiFunctions[0]) ==
              static_cast<size_t>(MpiFn::Count));

} // namespace topolens::measure
