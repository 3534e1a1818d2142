#include "trace/names.h"

namespace topolens::trace {

std::string_view event_kind_name(EventKind kind) {
    switch (kind) {
    case EventKind::Enter:
        return "Enter";
    case EventKind::Leave:
        return "Leave";
    case EventKind::MpiSend:
        return "MpiSend";
    case EventKind::MpiIsend:
        return "MpiIsend";
    case EventKind::MpiIsendComplete:
        return "MpiIsendComplete";
    case EventKind::MpiIrecvRequest:
        return "MpiIrecvRequest";
    case EventKind::MpiRecv:
        return "MpiRecv";
    case EventKind::MpiIrecv:
        return "MpiIrecv";
    case EventKind::MpiRequestTest:
        return "MpiRequestTest";
    case EventKind::MpiRequestCancelled:
        return "MpiRequestCancelled";
    case EventKind::MpiCollectiveBegin:
        return "MpiCollectiveBegin";
    case EventKind::MpiCollectiveEnd:
        return "MpiCollectiveEnd";
    case EventKind::ParameterString:
        return "ParameterString";
    case EventKind::ParameterInt:
        return "ParameterInt";
    case EventKind::BufferFlush:
        return "BufferFlush";
    case EventKind::Other:
        return "Other";
    }
    return "Other";
}

std::string_view collective_op_name(CollectiveOp op) {
    switch (op) {
    case CollectiveOp::Barrier:
        return "Barrier";
    case CollectiveOp::Bcast:
        return "Bcast";
    case CollectiveOp::Gather:
        return "Gather";
    case CollectiveOp::Gatherv:
        return "Gatherv";
    case CollectiveOp::Scatter:
        return "Scatter";
    case CollectiveOp::Scatterv:
        return "Scatterv";
    case CollectiveOp::Allgather:
        return "Allgather";
    case CollectiveOp::Allgatherv:
        return "Allgatherv";
    case CollectiveOp::Alltoall:
        return "Alltoall";
    case CollectiveOp::Alltoallv:
        return "Alltoallv";
    case CollectiveOp::Alltoallw:
        return "Alltoallw";
    case CollectiveOp::Allreduce:
        return "Allreduce";
    case CollectiveOp::Reduce:
        return "Reduce";
    case CollectiveOp::ReduceScatter:
        return "Reduce_scatter";
    case CollectiveOp::Scan:
        return "Scan";
    case CollectiveOp::Exscan:
        return "Exscan";
    case CollectiveOp::ReduceScatterBlock:
        return "Reduce_scatter_block";
    case CollectiveOp::Other:
        return "other";
    }
    return "other";
}

} // namespace topolens::trace
