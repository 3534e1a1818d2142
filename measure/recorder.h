// The per-process recorder: turns what the wrappers and the user API see into OTF2 events.
// Up to MPI_THREAD_FUNNELED everything runs on the thread that called MPI_Init; at
// MPI_THREAD_SERIALIZED and MPI_THREAD_MULTIPLE each calling thread records into its own
// location and these functions may be called from any thread. MPI handles are C handles
// (Fortran wrappers convert with MPI_*_f2c before calling in).
#pragma once

#include "clock.h"
#include "mpi_functions.h"

#include <mpi.h>
#include <otf2/OTF2_Events.h>
#include <otf2/OTF2_GeneralDefinitions.h>

#include <cstdint>

namespace topolens::measure {

// ---------------------------------------------------------------- lifecycle

// Called by the MPI_Init/MPI_Init_thread wrappers after PMPI_Init succeeded; `enter_time`
// is when the application called MPI_Init. Reads the configuration and opens the archive.
void start_measurement(MpiFn init_fn, Timestamp enter_time);

// Called by the MPI_Finalize wrapper before PMPI_Finalize: records MPI_Finalize, measures
// clock offsets, unifies definitions and closes the archive.
void finish_measurement(Timestamp enter_time);

// True while events are recorded and the caller is not already inside a recorded MPI call.
bool recording();

// ---------------------------------------------------------------- regions

// Called at every recorded MPI call's Enter, before its event is written and while
// recording() holds, so that a tuner's adapter (measure/adcl) can enter a codelet region
// around the calls the tuner makes once it has chosen the codelet. Null in normal runs: one
// predictable branch per MPI call.
using MpiEnterHook = void (*)(MpiFn fn);
void set_mpi_enter_hook(MpiEnterHook hook);

// Enter/leave of an MPI function's region. Use MpiRegion below instead of calling directly.
void enter_mpi(MpiFn fn);
void leave_mpi(MpiFn fn);

// Records one MPI call: Enter at construction, Leave at destruction. Nested MPI calls made
// by the MPI library itself (or by our wrappers) are not recorded.
class MpiRegion {
  public:
    explicit MpiRegion(MpiFn fn) : fn_(fn), active_(recording()) {
        if (active_) enter_mpi(fn_);
    }
    ~MpiRegion() {
        if (active_) leave_mpi(fn_);
    }
    MpiRegion(const MpiRegion&) = delete;
    MpiRegion& operator=(const MpiRegion&) = delete;
    // Whether events inside this call are to be recorded.
    bool active() const { return active_; }

  private:
    MpiFn fn_;
    bool active_;
};

// ---------------------------------------------------------------- point-to-point

// Bytes of `count` elements of `type` (0 for invalid arguments).
uint64_t message_bytes(int count, MPI_Datatype type);

void send_event(MPI_Comm comm, int dest, int tag, uint64_t bytes);
// A completed blocking receive; source, tag and size come from the status.
void recv_event(MPI_Comm comm, const MPI_Status& status);

// Nonblocking and persistent requests, keyed by their C handle.
void isend_started(MPI_Comm comm, int dest, int tag, uint64_t bytes, MPI_Request request);
// `source` as given to MPI_Irecv (may be MPI_ANY_SOURCE; MPI_PROC_NULL records nothing).
void irecv_started(MPI_Comm comm, int source, MPI_Request request);
enum class PersistentKind { Send, Recv };
void persistent_created(PersistentKind kind, MPI_Comm comm, int peer, int tag, uint64_t bytes,
                        MPI_Request request);
void persistent_started(MPI_Request request);
// Which activation of `request` a completing call is about to complete, asked before the
// call (threaded levels: MPI may reuse the handle for another thread's request as soon as
// it completes); 0 at other levels.
uint64_t request_activation(MPI_Request request);
// `request` is the handle as it was before the completing call (MPI sets it to
// MPI_REQUEST_NULL when a nonpersistent request completes), `activation` what
// request_activation gave for it then.
void request_completed(MPI_Request request, const MPI_Status& status, uint64_t activation = 0);
void request_tested(MPI_Request request);
void request_freed(MPI_Request request);

// ---------------------------------------------------------------- collectives

void collective_begin();
// `root` is the root's rank in `comm`, or -1 for rootless operations.
void collective_end(OTF2_CollectiveOp op, MPI_Comm comm, int root, uint64_t bytes_sent,
                    uint64_t bytes_received);

// ---------------------------------------------------------------- communicators

// A new communicator (collective over `created`, which may be MPI_COMM_NULL on processes
// that are not members). `how` names the creating function, e.g. "Comm_split".
void communicator_created(MPI_Comm created, MPI_Comm parent, const char* how);
// A new communicator with a Cartesian topology (MPI_Cart_create, MPI_Cart_sub).
void cartesian_communicator_created(MPI_Comm created, MPI_Comm parent, const char* how);
void communicator_freed(MPI_Comm comm);

} // namespace topolens::measure
