#include "analyzer/engine/mpi_calls.h"

#include <string_view>

namespace topolens::analysis {

MpiCallKind classify_mpi_call(const trace::Region& region) {
    if (!region.is_mpi()) return MpiCallKind::NotMpi;
    std::string_view name = region.name;
    if (name.substr(0, 4) == "MPI_") name.remove_prefix(4);
    if (name == "Init" || name == "Init_thread" || name == "Finalize")
        return MpiCallKind::InitFinalize;
    if (name == "Send" || name == "Ssend") return MpiCallKind::BlockingSend;
    if (name == "Bsend" || name == "Rsend") return MpiCallKind::BufferedSend;
    if (name == "Recv") return MpiCallKind::BlockingReceive;
    if (name == "Sendrecv" || name == "Sendrecv_replace") return MpiCallKind::SendReceive;
    if (name == "Wait" || name == "Waitany") return MpiCallKind::Wait;
    if (name == "Waitall" || name == "Waitsome") return MpiCallKind::WaitMany;
    if (name.substr(0, 4) == "Test" && name != "Test_cancelled") return MpiCallKind::Test;
    if (name == "Barrier") return MpiCallKind::Barrier;
    switch (region.role) {
    case trace::RegionRole::PointToPoint:
        return MpiCallKind::OtherPointToPoint;
    case trace::RegionRole::Barrier:
        return MpiCallKind::Barrier;
    case trace::RegionRole::CollOneToAll:
    case trace::RegionRole::CollAllToOne:
    case trace::RegionRole::CollAllToAll:
    case trace::RegionRole::CollOther:
        break;
    case trace::RegionRole::Function:
    case trace::RegionRole::Artificial:
    case trace::RegionRole::Other:
        return MpiCallKind::Other;
    }
    // Communicator and window creation carry collective roles but move no data.
    if (name.substr(0, 5) == "Comm_" || name.substr(0, 5) == "Cart_" || name.substr(0, 4) == "Win_")
        return MpiCallKind::Other;
    return MpiCallKind::Collective;
}

MpiCallKinds::MpiCallKinds(const trace::Trace& trace) {
    kinds_.reserve(trace.defs.regions.size());
    for (const trace::Region& region : trace.defs.regions)
        kinds_.push_back(classify_mpi_call(region));
}

} // namespace topolens::analysis
