#include "patterns/collective_waits.h"

#include "patterns/waits.h"

#include <algorithm>
#include <string_view>

namespace topolens::patterns {

using analysis::CollectiveInstance;
using analysis::Time;
using trace::CollectiveOp;

CollectiveShape collective_shape(CollectiveOp op) {
    switch (op) {
    case CollectiveOp::Barrier:
        return CollectiveShape::Barrier;
    case CollectiveOp::Allreduce:
    case CollectiveOp::Alltoall:
    case CollectiveOp::Alltoallv:
    case CollectiveOp::Alltoallw:
    case CollectiveOp::Allgather:
    case CollectiveOp::Allgatherv:
    case CollectiveOp::ReduceScatter:
    case CollectiveOp::ReduceScatterBlock:
        return CollectiveShape::AllToAll;
    case CollectiveOp::Bcast:
    case CollectiveOp::Scatter:
    case CollectiveOp::Scatterv:
        return CollectiveShape::OneToAll;
    case CollectiveOp::Reduce:
    case CollectiveOp::Gather:
    case CollectiveOp::Gatherv:
        return CollectiveShape::AllToOne;
    default:
        return CollectiveShape::Other;
    }
}

Time collective_wait(const CollectiveInstance& instance, size_t member) {
    const analysis::CallInfo& me = instance.members[member];
    const bool root = instance.root >= 0 && static_cast<size_t>(instance.root) == member;
    switch (collective_shape(instance.op)) {
    case CollectiveShape::Barrier:
    case CollectiveShape::AllToAll:
        return wait_in_call(instance.latest_enter, me);
    case CollectiveShape::OneToAll:
        return instance.root >= 0 && !root ? wait_in_call(instance.members[instance.root].enter, me)
                                           : 0;
    case CollectiveShape::AllToOne: {
        if (!root) return 0;
        Time latest = 0;
        for (size_t q = 0; q < instance.members.size(); ++q)
            if (q != member) latest = std::max(latest, instance.members[q].enter);
        return wait_in_call(latest, me);
    }
    case CollectiveShape::Other:
        break;
    }
    return 0;
}

int delaying_member(const CollectiveInstance& instance) {
    switch (collective_shape(instance.op)) {
    case CollectiveShape::Barrier:
    case CollectiveShape::AllToAll:
    case CollectiveShape::AllToOne:
        return instance.latest_member;
    case CollectiveShape::OneToAll:
        return instance.root;
    case CollectiveShape::Other:
        break;
    }
    return -1;
}

InitAndFinalizeCalls init_and_finalize_calls(const analysis::Context& c, uint32_t loc) {
    const trace::Trace& t = c.trace();
    const auto& events = t.locations[loc].events;
    auto init_finalize = [&](const trace::Event& e) {
        return (e.kind == trace::EventKind::Enter || e.kind == trace::EventKind::Leave) &&
               c.mpi_kinds().of(e.region()) == analysis::MpiCallKind::InitFinalize;
    };
    auto finalize = [&](uint32_t region) {
        return std::string_view(t.defs.regions[region].name).find("Finalize") !=
               std::string_view::npos;
    };
    InitAndFinalizeCalls calls;
    for (uint32_t i = 0; i < events.size(); ++i)
        if (events[i].kind == trace::EventKind::Enter && init_finalize(events[i])) {
            if (!finalize(events[i].region()))
                calls.init = trace::call_around(t, c.matching(), loc, i);
            break;
        }
    for (uint32_t i = static_cast<uint32_t>(events.size()); i-- > 0;)
        if (init_finalize(events[i])) {
            if (finalize(events[i].region()))
                calls.finalize = trace::call_around(t, c.matching(), loc, i);
            break;
        }
    return calls;
}

} // namespace topolens::patterns
