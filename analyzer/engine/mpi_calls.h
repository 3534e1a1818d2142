// What kind of MPI call a region is, by its MPI function name (Score-P's convention:
// source file "MPI" or paradigm MPI, name "MPI_Xxx"), so patterns know which calls block.
#pragma once

#include "trace/model.h"

#include <cstdint>
#include <vector>

namespace topolens::analysis {

enum class MpiCallKind : uint8_t {
    NotMpi,
    InitFinalize,    // MPI_Init, MPI_Init_thread, MPI_Finalize
    BlockingSend,    // MPI_Send, Ssend: may wait for the receiver (Late Receiver)
    BufferedSend,    // MPI_Bsend, Rsend: never wait for the receiver to be ready
    BlockingReceive, // MPI_Recv
    SendReceive,     // MPI_Sendrecv, MPI_Sendrecv_replace
    Wait,            // MPI_Wait, Waitany: one request
    WaitMany,        // MPI_Waitall, Waitsome: several requests in one call
    Test,            // MPI_Test*
    OtherPointToPoint,
    Barrier,
    Collective, // every other collective operation
    Other       // communicator management, one-sided, packing, ...
};

class MpiCallKinds {
  public:
    explicit MpiCallKinds(const trace::Trace& trace);
    MpiCallKind of(uint32_t region) const {
        return region < kinds_.size() ? kinds_[region] : MpiCallKind::NotMpi;
    }

  private:
    std::vector<MpiCallKind> kinds_;
};

MpiCallKind classify_mpi_call(const trace::Region& region);

} // namespace topolens::analysis
