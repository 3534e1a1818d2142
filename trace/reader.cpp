#include "trace/reader.h"

#include "trace/anchor_check.h"
#include "trace/clock.h"
#include "trace/cut.h"
#include "trace/global_defs.h"
#include "trace/names.h"
#include "trace/otf2_error.h"
#include "trace/prefault.h"
#include "trace/program_encoding.h"
#include "trace/threads.h"

#include <otf2/otf2.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <latch>
#include <memory>
#include <thread>

namespace topolens::trace {
namespace {

namespace fs = std::filesystem;
using detail::Otf2ErrorCapture;
using detail::RawDefinitions;
using detail::RefMaps;

struct ReaderCloser {
    void operator()(OTF2_Reader* reader) const { OTF2_Reader_Close(reader); }
};
using ReaderHandle = std::unique_ptr<OTF2_Reader, ReaderCloser>;

std::string with_cause(const std::string& what, const Otf2ErrorCapture& capture,
                       OTF2_ErrorCode code) {
    std::string cause = capture.first();
    if (cause.empty()) cause = detail::otf2_status_text(code);
    return what + " (" + cause + ")";
}

// State of one location's event read: the callbacks append to `out` and stop at the first
// inconsistency, leaving its description in `error` (exceptions must not cross OTF2's C).
struct EventContext {
    const Definitions* defs = nullptr;
    const RefMaps* maps = nullptr;
    LocationEvents* out = nullptr;
    std::string file;
    std::string error;
    // A record takes at least one byte of the file: more events than that means OTF2 is
    // going round in circles on damaged data.
    uint64_t max_events = UINT64_MAX;
    // The program its first ProgramBegin named (region kNone: none, or no region fits it).
    Program* program = nullptr;
    Ref open_program = kNone; // the region a ProgramBegin opened, until its ProgramEnd
    // The last ProgramBegin's strings and the region they gave: a file of many (damaged, or
    // a program that begins again) looks the regions through once.
    std::vector<OTF2_StringRef> last_program_strings;
    Ref last_program_region = kNone;
};

EventContext& ctx_of(void* u) {
    return *static_cast<EventContext*>(u);
}

// Runs one callback's work; nothing may be thrown through OTF2's C code.
template <class Work> OTF2_CallbackCode guarded(void* u, Work&& work) {
    EventContext& ctx = ctx_of(u);
    try {
        if (ctx.out->events.size() >= ctx.max_events) {
            ctx.error = ctx.file + ": more records than the file can hold (damaged file)";
            return OTF2_CALLBACK_INTERRUPT;
        }
        return work();
    } catch (const std::exception& e) {
        ctx.error = ctx.file + ": cannot hold the events: " + e.what();
        return OTF2_CALLBACK_INTERRUPT;
    }
}

OTF2_CallbackCode fail(EventContext& ctx, uint64_t position, EventKind kind, OTF2_TimeStamp time,
                       const std::string& what) {
    ctx.error = ctx.file + ": record " + std::to_string(position) + " (" +
                std::string(event_kind_name(kind)) + " at tick " + std::to_string(time) + ") " +
                what;
    return OTF2_CALLBACK_INTERRUPT;
}

Event& push(EventContext& ctx, EventKind kind, OTF2_TimeStamp time) {
    Event& e = ctx.out->events.emplace_back();
    e.kind = kind;
    e.time = time;
    return e;
}

void push_request(EventContext& ctx, uint64_t request) {
    ctx.out->requests.push_back({static_cast<uint32_t>(ctx.out->events.size() - 1), request});
}

bool lookup(const detail::RefIndex& map, uint64_t ref, uint32_t& index) {
    return map.find(ref, index);
}

OTF2_CallbackCode region_event(EventContext& ctx, EventKind kind, OTF2_TimeStamp time,
                               uint64_t position, OTF2_RegionRef region) {
    uint32_t index;
    if (!lookup(ctx.maps->regions, region, index))
        return fail(ctx, position, kind, time,
                    "refers to undefined region " + std::to_string(region));
    push(ctx, kind, time).set_region(index);
    return OTF2_CALLBACK_SUCCESS;
}

// Resolves the communicator (into `index`) and checks that `rank` (peer or root; kNone allowed
// when `optional`) is a rank of it; records carrying world ranks are translated.
OTF2_CallbackCode message_event(EventContext& ctx, EventKind kind, OTF2_TimeStamp time,
                                uint64_t position, OTF2_CommRef comm, uint32_t& rank, bool optional,
                                uint32_t& index) {
    if (!lookup(ctx.maps->comms, comm, index))
        return fail(ctx, position, kind, time,
                    "refers to undefined communicator " + std::to_string(comm));
    const Communicator& c = ctx.defs->communicators[index];
    if (!(optional && rank == kNone)) {
        if (ctx.maps->world_ranks_in_records[index]) {
            auto it = std::find(c.members.begin(), c.members.end(), rank);
            if (it == c.members.end())
                return fail(ctx, position, kind, time,
                            "names world rank " + std::to_string(rank) + ", not a member of " +
                                c.name);
            rank = static_cast<uint32_t>(it - c.members.begin());
        }
        const std::size_t size = c.is_self ? 1 : c.members.size();
        if (rank >= size)
            return fail(ctx, position, kind, time,
                        "names rank " + std::to_string(rank) + " of communicator " + c.name +
                            " of size " + std::to_string(size));
    }
    return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_enter(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t pos, void* u,
                           OTF2_AttributeList*, OTF2_RegionRef region) {
    return guarded(u, [&]() -> OTF2_CallbackCode {
        return region_event(ctx_of(u), EventKind::Enter, t, pos, region);
    });
}

OTF2_CallbackCode on_leave(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t pos, void* u,
                           OTF2_AttributeList*, OTF2_RegionRef region) {
    return guarded(u, [&]() -> OTF2_CallbackCode {
        return region_event(ctx_of(u), EventKind::Leave, t, pos, region);
    });
}

OTF2_CallbackCode p2p(void* u, EventKind kind, OTF2_TimeStamp t, uint64_t pos, uint32_t peer,
                      OTF2_CommRef comm, uint32_t tag, uint64_t bytes, const uint64_t* request) {
    EventContext& ctx = ctx_of(u);
    uint32_t index;
    OTF2_CallbackCode code = message_event(ctx, kind, t, pos, comm, peer, false, index);
    if (code != OTF2_CALLBACK_SUCCESS) return code;
    push(ctx, kind, t).set_message(peer, index, tag, bytes);
    if (request) push_request(ctx, *request);
    return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_send(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t pos, void* u,
                          OTF2_AttributeList*, uint32_t peer, OTF2_CommRef comm, uint32_t tag,
                          uint64_t bytes) {
    return guarded(u, [&]() -> OTF2_CallbackCode {
        return p2p(u, EventKind::MpiSend, t, pos, peer, comm, tag, bytes, nullptr);
    });
}

OTF2_CallbackCode on_isend(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t pos, void* u,
                           OTF2_AttributeList*, uint32_t peer, OTF2_CommRef comm, uint32_t tag,
                           uint64_t bytes, uint64_t request) {
    return guarded(u, [&]() -> OTF2_CallbackCode {
        return p2p(u, EventKind::MpiIsend, t, pos, peer, comm, tag, bytes, &request);
    });
}

OTF2_CallbackCode on_recv(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t pos, void* u,
                          OTF2_AttributeList*, uint32_t peer, OTF2_CommRef comm, uint32_t tag,
                          uint64_t bytes) {
    return guarded(u, [&]() -> OTF2_CallbackCode {
        return p2p(u, EventKind::MpiRecv, t, pos, peer, comm, tag, bytes, nullptr);
    });
}

OTF2_CallbackCode on_irecv(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t pos, void* u,
                           OTF2_AttributeList*, uint32_t peer, OTF2_CommRef comm, uint32_t tag,
                           uint64_t bytes, uint64_t request) {
    return guarded(u, [&]() -> OTF2_CallbackCode {
        return p2p(u, EventKind::MpiIrecv, t, pos, peer, comm, tag, bytes, &request);
    });
}

OTF2_CallbackCode request_event(void* u, EventKind kind, OTF2_TimeStamp t, uint64_t request) {
    EventContext& ctx = ctx_of(u);
    push(ctx, kind, t);
    push_request(ctx, request);
    return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_isend_complete(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* u,
                                    OTF2_AttributeList*, uint64_t request) {
    return guarded(u, [&]() -> OTF2_CallbackCode {
        return request_event(u, EventKind::MpiIsendComplete, t, request);
    });
}

OTF2_CallbackCode on_irecv_request(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* u,
                                   OTF2_AttributeList*, uint64_t request) {
    return guarded(u, [&]() -> OTF2_CallbackCode {
        return request_event(u, EventKind::MpiIrecvRequest, t, request);
    });
}

OTF2_CallbackCode on_request_test(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* u,
                                  OTF2_AttributeList*, uint64_t request) {
    return guarded(u, [&]() -> OTF2_CallbackCode {
        return request_event(u, EventKind::MpiRequestTest, t, request);
    });
}

OTF2_CallbackCode on_request_cancelled(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* u,
                                       OTF2_AttributeList*, uint64_t request) {
    return guarded(u, [&]() -> OTF2_CallbackCode {
        return request_event(u, EventKind::MpiRequestCancelled, t, request);
    });
}

OTF2_CallbackCode on_collective_begin(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* u,
                                      OTF2_AttributeList*) {
    return guarded(u, [&]() -> OTF2_CallbackCode {
        push(ctx_of(u), EventKind::MpiCollectiveBegin, t);
        return OTF2_CALLBACK_SUCCESS;
    });
}

CollectiveOp collective_op_of(OTF2_CollectiveOp op) {
    return op <= OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK ? static_cast<CollectiveOp>(op)
                                                         : CollectiveOp::Other;
}

OTF2_CallbackCode on_collective_end(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t pos, void* u,
                                    OTF2_AttributeList*, OTF2_CollectiveOp op, OTF2_CommRef comm,
                                    uint32_t root, uint64_t sent, uint64_t received) {
    return guarded(u, [&]() -> OTF2_CallbackCode {
        EventContext& ctx = ctx_of(u);
        uint32_t index;
        OTF2_CallbackCode code =
            message_event(ctx, EventKind::MpiCollectiveEnd, t, pos, comm, root, true, index);
        if (code != OTF2_CALLBACK_SUCCESS) return code;
        push(ctx, EventKind::MpiCollectiveEnd, t)
            .set_collective(root, index, collective_op_of(op), sent);
        push_request(ctx, received); // the model keeps received bytes beside the event
        return OTF2_CALLBACK_SUCCESS;
    });
}

OTF2_CallbackCode parameter_index(EventContext& ctx, EventKind kind, OTF2_TimeStamp t, uint64_t pos,
                                  OTF2_ParameterRef parameter, uint32_t& index) {
    if (!lookup(ctx.maps->parameters, parameter, index))
        return fail(ctx, pos, kind, t,
                    "refers to undefined parameter " + std::to_string(parameter));
    return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_parameter_string(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t pos, void* u,
                                      OTF2_AttributeList*, OTF2_ParameterRef parameter,
                                      OTF2_StringRef string) {
    return guarded(u, [&]() -> OTF2_CallbackCode {
        EventContext& ctx = ctx_of(u);
        uint32_t index;
        if (!lookup(ctx.maps->strings, string, index))
            return fail(ctx, pos, EventKind::ParameterString, t,
                        "refers to undefined string " + std::to_string(string));
        uint32_t p;
        OTF2_CallbackCode code =
            parameter_index(ctx, EventKind::ParameterString, t, pos, parameter, p);
        if (code == OTF2_CALLBACK_SUCCESS)
            push(ctx, EventKind::ParameterString, t).set_parameter_string(p, index);
        return code;
    });
}

OTF2_CallbackCode on_parameter_int(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t pos, void* u,
                                   OTF2_AttributeList*, OTF2_ParameterRef parameter,
                                   int64_t value) {
    return guarded(u, [&]() -> OTF2_CallbackCode {
        EventContext& ctx = ctx_of(u);
        uint32_t p;
        OTF2_CallbackCode code =
            parameter_index(ctx, EventKind::ParameterInt, t, pos, parameter, p);
        if (code == OTF2_CALLBACK_SUCCESS)
            push(ctx, EventKind::ParameterInt, t).set_parameter_int(p, value);
        return code;
    });
}

// The model has one integer parameter event; unsigned values keep their bits.
OTF2_CallbackCode on_parameter_uint(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t pos, void* u,
                                    OTF2_AttributeList*, OTF2_ParameterRef parameter,
                                    uint64_t value) {
    return guarded(u, [&]() -> OTF2_CallbackCode {
        EventContext& ctx = ctx_of(u);
        uint32_t p;
        OTF2_CallbackCode code =
            parameter_index(ctx, EventKind::ParameterInt, t, pos, parameter, p);
        if (code == OTF2_CALLBACK_SUCCESS)
            push(ctx, EventKind::ParameterInt, t).set_parameter_int(p, static_cast<int64_t>(value));
        return code;
    });
}

OTF2_CallbackCode on_buffer_flush(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* u,
                                  OTF2_AttributeList*, OTF2_TimeStamp stop) {
    return guarded(u, [&]() -> OTF2_CallbackCode {
        push(ctx_of(u), EventKind::BufferFlush, t).value = static_cast<int64_t>(stop);
        return OTF2_CALLBACK_SUCCESS;
    });
}

// The region a ProgramBegin enters, by Scalasca's rules (trace/program_encoding.h); kNone if
// none fits.
Ref program_region(const Definitions& defs, const std::string& name,
                   const std::vector<std::string>& arguments) {
    const std::string region_name = program_region_name(name);
    const std::string canonical = program_canonical_name(name, arguments);
    for (Ref r = 0; r < defs.regions.size(); ++r) {
        const Region& region = defs.regions[r];
        if (region.role == RegionRole::Artificial && region.paradigm == Paradigm::Measurement &&
            region.name == region_name && region.canonical_name == canonical)
            return r;
    }
    return kNone;
}

// ProgramBegin and ProgramEnd are the program region's Enter and Leave in the model. A
// ProgramBegin whose region is not defined (Scalasca stops there) is kept as a record of
// another kind, and so is its ProgramEnd: such a trace reads as one without a program.
OTF2_CallbackCode on_program_begin(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t pos, void* u,
                                   OTF2_AttributeList*, OTF2_StringRef name, uint32_t count,
                                   const OTF2_StringRef* arguments) {
    return guarded(u, [&]() -> OTF2_CallbackCode {
        EventContext& ctx = ctx_of(u);
        if (ctx.open_program != kNone) { // a program inside the program: not the model's
            push(ctx, EventKind::Other, t);
            return OTF2_CALLBACK_SUCCESS;
        }
        std::vector<OTF2_StringRef> strings(arguments, arguments + count);
        strings.push_back(name);
        if (!ctx.last_program_strings.empty() && strings == ctx.last_program_strings) {
            if (ctx.last_program_region == kNone) {
                push(ctx, EventKind::Other, t);
            } else {
                push(ctx, EventKind::Enter, t).set_region(ctx.last_program_region);
                ctx.open_program = ctx.last_program_region;
            }
            return OTF2_CALLBACK_SUCCESS;
        }
        auto string = [&](OTF2_StringRef ref, std::string& out) {
            uint32_t index;
            if (!lookup(ctx.maps->strings, ref, index)) return false;
            out = ctx.defs->strings[index];
            return true;
        };
        Program program;
        bool known = string(name, program.name);
        for (uint32_t i = 0; known && i < count; ++i)
            known = string(arguments[i], program.arguments.emplace_back());
        if (!known) {
            ctx.error = ctx.file + ": record " + std::to_string(pos) + " (ProgramBegin at tick " +
                        std::to_string(t) + ") refers to an undefined string";
            return OTF2_CALLBACK_INTERRUPT;
        }
        program.region = program_region(*ctx.defs, program.name, program.arguments);
        ctx.last_program_strings = std::move(strings);
        ctx.last_program_region = program.region;
        if (program.region == kNone) {
            push(ctx, EventKind::Other, t);
            return OTF2_CALLBACK_SUCCESS;
        }
        push(ctx, EventKind::Enter, t).set_region(program.region);
        ctx.open_program = program.region;
        if (ctx.program->region == kNone) *ctx.program = std::move(program);
        return OTF2_CALLBACK_SUCCESS;
    });
}

OTF2_CallbackCode on_program_end(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* u,
                                 OTF2_AttributeList*, int64_t exit_status) {
    return guarded(u, [&]() -> OTF2_CallbackCode {
        EventContext& ctx = ctx_of(u);
        if (ctx.open_program == kNone) {
            push(ctx, EventKind::Other, t);
            return OTF2_CALLBACK_SUCCESS;
        }
        Event& leave = push(ctx, EventKind::Leave, t);
        leave.set_region(ctx.open_program);
        leave.value = exit_status;
        ctx.open_program = kNone;
        return OTF2_CALLBACK_SUCCESS;
    });
}

// Records the model does not distinguish (metrics, RMA, threads, I/O, records newer than
// this OTF2) only keep their time; one template serves every callback signature.
template <class... Record>
OTF2_CallbackCode on_other(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* u,
                           OTF2_AttributeList*, Record...) {
    return guarded(u, [&]() -> OTF2_CallbackCode {
        push(ctx_of(u), EventKind::Other, t);
        return OTF2_CALLBACK_SUCCESS;
    });
}

OTF2_EvtReaderCallbacks* make_event_callbacks() {
    OTF2_EvtReaderCallbacks* cb = OTF2_EvtReaderCallbacks_New();
    if (!cb) return nullptr;
    OTF2_EvtReaderCallbacks_SetEnterCallback(cb, on_enter);
    OTF2_EvtReaderCallbacks_SetLeaveCallback(cb, on_leave);
    OTF2_EvtReaderCallbacks_SetMpiSendCallback(cb, on_send);
    OTF2_EvtReaderCallbacks_SetMpiIsendCallback(cb, on_isend);
    OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(cb, on_isend_complete);
    OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(cb, on_irecv_request);
    OTF2_EvtReaderCallbacks_SetMpiRecvCallback(cb, on_recv);
    OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(cb, on_irecv);
    OTF2_EvtReaderCallbacks_SetMpiRequestTestCallback(cb, on_request_test);
    OTF2_EvtReaderCallbacks_SetMpiRequestCancelledCallback(cb, on_request_cancelled);
    OTF2_EvtReaderCallbacks_SetMpiCollectiveBeginCallback(cb, on_collective_begin);
    OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(cb, on_collective_end);
    OTF2_EvtReaderCallbacks_SetParameterStringCallback(cb, on_parameter_string);
    OTF2_EvtReaderCallbacks_SetParameterIntCallback(cb, on_parameter_int);
    OTF2_EvtReaderCallbacks_SetParameterUnsignedIntCallback(cb, on_parameter_uint);
    OTF2_EvtReaderCallbacks_SetBufferFlushCallback(cb, on_buffer_flush);
    OTF2_EvtReaderCallbacks_SetUnknownCallback(cb, on_other<>);
    OTF2_EvtReaderCallbacks_SetMeasurementOnOffCallback(cb, on_other);
    OTF2_EvtReaderCallbacks_SetOmpForkCallback(cb, on_other);
    OTF2_EvtReaderCallbacks_SetOmpJoinCallback(cb, on_other);
    OTF2_EvtReaderCallbacks_SetOmpAcquireLockCallback(cb, on_other);
    OTF2_EvtReaderCallbacks_SetOmpReleaseLockCallback(cb, on_other);
    OTF2_EvtReaderCallbacks_SetOmpTaskCreateCallback(cb, on_other);
    OTF2_EvtReaderCallbacks_SetOmpTaskSwitchCallback(cb, on_other);
    OTF2_EvtReaderCallbacks_SetOmpTaskCompleteCallback(cb, on_other);
    OTF2_EvtReaderCallbacks_SetMetricCallback(cb, on_other);
    OTF2_EvtReaderCallbacks_SetRmaWinCreateCallback(cb, on_other);
    OTF2_EvtReaderCallbacks_SetRmaWinDestroyCallback(cb, on_other);
    OTF2_EvtReaderCallbacks_SetRmaCollectiveBeginCallback(cb, on_other);
    OTF2_EvtReaderCallbacks_SetRmaCollectiveEndCallback(cb, on_other);
    OTF2_EvtReaderCallbacks_SetRmaGroupSyncCallback(cb, on_other);
    OTF2_EvtReaderCallbacks_SetRmaRequestLockCallback(cb, on_other);
    OTF2_EvtReaderCallbacks_SetRmaAcquireLockCallback(cb, on_other);
    OTF2_EvtReaderCallbacks_SetRmaTryLockCallback(cb, on_other);
    OTF2_EvtReaderCallbacks_SetRmaReleaseLockCallback(cb, on_other);
    OTF2_EvtReaderCallbacks_SetRmaSyncCallback(cb, on_other);
    OTF2_EvtReaderCallbacks_SetRmaWaitChangeCallback(cb, on_other);
    OTF2_EvtReaderCallbacks_SetRmaPutCallback(cb, on_other);
    OTF2_EvtReaderCallbacks_SetRmaGetCallback(cb, on_other);
    OTF2_EvtReaderCallbacks_SetRmaAtomicCallback(cb, on_other);
    OTF2_EvtReaderCallbacks_SetRmaOpCompleteBlockingCallback(cb, on_other);
    OTF2_EvtReaderCallbacks_SetRmaOpCompleteNonBlockingCallback(cb, on_other);
    OTF2_EvtReaderCallbacks_SetRmaOpTestCallback(cb, on_other);
    OTF2_EvtReaderCallbacks_SetRmaOpCompleteRemoteCallback(cb, on_other);
    OTF2_EvtReaderCallbacks_SetThreadForkCallback(cb, on_other);
    OTF2_EvtReaderCallbacks_SetThreadJoinCallback(cb, on_other);
    OTF2_EvtReaderCallbacks_SetThreadTeamBeginCallback(cb, on_other);
    OTF2_EvtReaderCallbacks_SetThreadTeamEndCallback(cb, on_other);
    OTF2_EvtReaderCallbacks_SetThreadAcquireLockCallback(cb, on_other);
    OTF2_EvtReaderCallbacks_SetThreadReleaseLockCallback(cb, on_other);
    OTF2_EvtReaderCallbacks_SetThreadTaskCreateCallback(cb, on_other);
    OTF2_EvtReaderCallbacks_SetThreadTaskSwitchCallback(cb, on_other);
    OTF2_EvtReaderCallbacks_SetThreadTaskCompleteCallback(cb, on_other);
    OTF2_EvtReaderCallbacks_SetThreadCreateCallback(cb, on_other);
    OTF2_EvtReaderCallbacks_SetThreadBeginCallback(cb, on_other);
    OTF2_EvtReaderCallbacks_SetThreadWaitCallback(cb, on_other);
    OTF2_EvtReaderCallbacks_SetThreadEndCallback(cb, on_other);
    OTF2_EvtReaderCallbacks_SetCallingContextEnterCallback(cb, on_other);
    OTF2_EvtReaderCallbacks_SetCallingContextLeaveCallback(cb, on_other);
    OTF2_EvtReaderCallbacks_SetCallingContextSampleCallback(cb, on_other);
    OTF2_EvtReaderCallbacks_SetIoCreateHandleCallback(cb, on_other);
    OTF2_EvtReaderCallbacks_SetIoDestroyHandleCallback(cb, on_other);
    OTF2_EvtReaderCallbacks_SetIoDuplicateHandleCallback(cb, on_other);
    OTF2_EvtReaderCallbacks_SetIoSeekCallback(cb, on_other);
    OTF2_EvtReaderCallbacks_SetIoChangeStatusFlagsCallback(cb, on_other);
    OTF2_EvtReaderCallbacks_SetIoDeleteFileCallback(cb, on_other);
    OTF2_EvtReaderCallbacks_SetIoOperationBeginCallback(cb, on_other);
    OTF2_EvtReaderCallbacks_SetIoOperationTestCallback(cb, on_other);
    OTF2_EvtReaderCallbacks_SetIoOperationIssuedCallback(cb, on_other);
    OTF2_EvtReaderCallbacks_SetIoOperationCompleteCallback(cb, on_other);
    OTF2_EvtReaderCallbacks_SetIoOperationCancelledCallback(cb, on_other);
    OTF2_EvtReaderCallbacks_SetIoAcquireLockCallback(cb, on_other);
    OTF2_EvtReaderCallbacks_SetIoReleaseLockCallback(cb, on_other);
    OTF2_EvtReaderCallbacks_SetIoTryLockCallback(cb, on_other);
    OTF2_EvtReaderCallbacks_SetProgramBeginCallback(cb, on_program_begin);
    OTF2_EvtReaderCallbacks_SetProgramEndCallback(cb, on_program_end);
    OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveRequestCallback(cb, on_other);
    OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveCompleteCallback(cb, on_other);
    OTF2_EvtReaderCallbacks_SetCommCreateCallback(cb, on_other);
    OTF2_EvtReaderCallbacks_SetCommDestroyCallback(cb, on_other);
    return cb;
}

// What a location's local definitions add beyond OTF2's mapping tables.
struct LocalDefinitions {
    std::vector<ClockOffset> offsets;
    uint64_t max_records = UINT64_MAX; // bounded by the file size, like events
    std::string error;
};

OTF2_CallbackCode on_clock_offset(void* u, OTF2_TimeStamp time, int64_t offset, double stddev) {
    LocalDefinitions& local = *static_cast<LocalDefinitions*>(u);
    try {
        if (local.offsets.size() >= local.max_records) {
            local.error = "more records than the file can hold (damaged file)";
            return OTF2_CALLBACK_INTERRUPT;
        }
        local.offsets.push_back({time, offset, stddev});
        return OTF2_CALLBACK_SUCCESS;
    } catch (const std::exception& e) {
        local.error = std::string("cannot hold the clock offsets: ") + e.what();
        return OTF2_CALLBACK_INTERRUPT;
    }
}

class ArchiveReader {
  public:
    explicit ArchiveReader(std::string anchor) : anchor_(std::move(anchor)) {
        fs::path a(anchor_);
        stem_ = (a.parent_path() / a.stem()).string();
    }

    void read(Trace& trace, unsigned threads, const ReadHooks& hooks, LocationShare share) {
        // OTF2 trusts the counts in these files: damaged ones fail here, before it allocates.
        const AnchorFacts facts = check_archive_files(anchor_);
        definition_chunk_size_ = facts.definition_chunk_size;
        event_chunk_size_ = facts.event_chunk_size;
        reader_ = open_reader();
        OTF2_Reader* r = reader_.get();
        check_layout();
        hooks_ = &hooks;

        trace = Trace{};
        trace.path = anchor_;
        trace.defs = read_global_definitions();
        trace.cut = read_cut_marker(anchor_);
        char* creator = nullptr;
        if (OTF2_Reader_GetCreator(r, &creator) == OTF2_SUCCESS && creator) {
            trace.defs.creator = creator;
            std::free(creator);
        }
        trace.locations.resize(trace.defs.locations.size());
        const size_t nloc = trace.locations.size();
        if (hooks.choose_share) share = hooks.choose_share(trace);
        share.last = static_cast<uint32_t>(std::min<size_t>(share.last, nloc));
        if (share.first >= share.last && nloc > 0)
            throw TraceError(anchor_ + ": locations " + std::to_string(share.first) + " to " +
                             std::to_string(share.last) + " asked for, the trace has " +
                             std::to_string(nloc) + " (0 to " + std::to_string(nloc) + ")");
        if (hooks.definitions_read) hooks.definitions_read(trace);
        programs_.assign(trace.locations.size(), Program{});
        read_locations(trace, threads, share);
        // The program of the first location that names one (each location's own slot: the
        // locations are read in parallel).
        for (Program& program : programs_)
            if (program.region != kNone) {
                trace.defs.program = std::move(program);
                break;
            }
    }

  private:
    void check(OTF2_ErrorCode code, const std::string& file, const std::string& what) const {
        if (code != OTF2_SUCCESS) throw TraceError(with_cause(file + ": " + what, capture_, code));
    }

    std::string location_file(uint64_t id, const char* ext) const {
        return stem_ + "/" + std::to_string(id) + ext;
    }

    // With the POSIX substrate every file has a known name, so a missing one is named
    // instead of being reported by OTF2 as a generic failure.
    void check_layout() {
        OTF2_FileSubstrate substrate = OTF2_SUBSTRATE_UNDEFINED;
        OTF2_Compression compression = OTF2_COMPRESSION_UNDEFINED;
        OTF2_Reader_GetFileSubstrate(reader_.get(), &substrate);
        OTF2_Reader_GetCompression(reader_.get(), &compression);
        posix_layout_ = substrate == OTF2_SUBSTRATE_POSIX && compression == OTF2_COMPRESSION_NONE;
        if (posix_layout_ && !fs::is_regular_file(stem_ + ".def"))
            throw TraceError(stem_ + ".def: global definitions file is missing");
        have_local_defs_ = !posix_layout_ || fs::is_directory(stem_);
    }

    Definitions read_global_definitions() {
        const std::string file = stem_ + ".def";
        OTF2_Reader* r = reader_.get();
        OTF2_GlobalDefReader* gdr = OTF2_Reader_GetGlobalDefReader(r);
        if (!gdr)
            throw TraceError(with_cause(file + ": cannot open global definitions", capture_,
                                        OTF2_ERROR_INVALID));
        RawDefinitions raw;
        uint64_t declared = 0;
        if (OTF2_Reader_GetNumberOfGlobalDefinitions(r, &declared) == OTF2_SUCCESS && declared > 0)
            raw.record_limit = declared;
        OTF2_GlobalDefReaderCallbacks* cb = OTF2_GlobalDefReaderCallbacks_New();
        if (!cb) throw TraceError(file + ": out of memory");
        detail::set_global_definition_callbacks(cb);
        OTF2_ErrorCode status = OTF2_Reader_RegisterGlobalDefCallbacks(r, gdr, cb, &raw);
        OTF2_GlobalDefReaderCallbacks_Delete(cb);
        check(status, file, "cannot register definition callbacks");
        uint64_t count = 0;
        status = OTF2_Reader_ReadAllGlobalDefinitions(r, gdr, &count);
        if (!raw.error.empty()) throw TraceError(file + ": " + raw.error);
        check(status, file, "damaged global definitions");
        OTF2_Reader_CloseGlobalDefReader(r, gdr);
        // A file cut between two records reads without error: the anchor file's count tells.
        if (count < declared)
            throw TraceError(file + ": truncated: " + std::to_string(count) + " of " +
                             std::to_string(declared) + " definitions");
        for (const auto& [id, loc] : raw.locations) declared_[id] = loc.events;
        return detail::resolve_definitions(raw, maps_, file);
    }

    // Locations are read in `threads` contiguous groups of about equal event counts, each
    // through its own OTF2 reader (OTF2 readers are not shared between threads); the first
    // group uses the archive's reader. Every group opens its files, then (all opened) reads
    // its local definitions, then (all read) its events, one location's event reader open
    // at a time: the errors are reported in the order a serial read meets them (all opening
    // before any definitions before any events, each phase in location order).
    void read_locations(Trace& trace, unsigned threads, LocationShare share) {
        const std::vector<Location>& locs = trace.defs.locations;
        // Missing files first, as a serial read finds them before reading any events.
        no_event_file_.assign(locs.size(), false);
        for (size_t i = share.first; i < share.last; ++i) {
            const std::string file = location_file(locs[i].otf2_id, ".evt");
            no_event_file_[i] = posix_layout_ && !fs::exists(file);
            // A rank of a run that died may leave an empty file: nothing reached the disk.
            std::error_code ec;
            if (posix_layout_ && !no_event_file_[i] && fs::file_size(file, ec) == 0 && !ec)
                if (CutRank* cut = cut_rank(trace, locs[i].rank)) {
                    no_event_file_[i] = true;
                    if (declared_events(locs[i].otf2_id) > 0)
                        cut->read_note = "its event file is empty (nothing reached the disk)";
                }
            if (no_event_file_[i] && declared_events(locs[i].otf2_id) > 0) {
                if (CutRank* cut = cut_rank(trace, locs[i].rank)) {
                    if (cut->read_note.empty()) cut->read_note = "its event file is missing";
                } else
                    throw TraceError(file + ": event file is missing");
            }
        }
        std::vector<Group> groups;
        for (const auto& [begin, end] : location_groups(locs, share, threads))
            groups.push_back(Group{{}, groups.empty() ? reader_.get() : nullptr, begin, end});
        if (groups.empty()) return;

        const std::ptrdiff_t n = static_cast<std::ptrdiff_t>(groups.size());
        std::vector<std::exception_ptr> errors(groups.size());
        std::latch opened(n), defined(n);
        // Per phase: set by a failure before the phase's latch completes, read after it.
        std::atomic<bool> open_failed{false}, definitions_failed{false};
        auto phase = [&](size_t g, std::atomic<bool>* failed, auto&& work) {
            try {
                work();
            } catch (...) {
                errors[g] = std::current_exception();
                if (failed) *failed = true;
            }
        };
        auto read = [&](size_t g) {
            Group& group = groups[g];
            phase(g, &open_failed, [&] {
                if (!group.r) {
                    group.own = open_reader();
                    group.r = group.own.get();
                }
                open_group(group, trace);
            });
            opened.arrive_and_wait();
            if (open_failed) return;
            phase(g, &definitions_failed, [&] { read_group_definitions(group, trace); });
            defined.arrive_and_wait();
            if (definitions_failed) return;
            phase(g, nullptr, [&] { read_group_events(group, trace); });
        };
        {
            std::vector<std::jthread> workers; // joined when left
            try {
                for (size_t g = 1; g < groups.size(); ++g) workers.emplace_back(read, g);
            } catch (...) { // a thread would not start: its group fails, the others stop
                open_failed = true;
                for (size_t g = workers.size() + 1; g < groups.size(); ++g) {
                    errors[g] = std::current_exception();
                    opened.count_down();
                    defined.count_down();
                }
            }
            read(0);
        }
        for (const std::exception_ptr& e : errors)
            if (e) std::rethrow_exception(e);
    }

    std::vector<std::pair<size_t, size_t>> location_groups(const std::vector<Location>& locs,
                                                           LocationShare share,
                                                           unsigned threads) const {
        uint64_t total = 0;
        for (size_t i = share.first; i < share.last; ++i)
            total += std::max<uint64_t>(1, declared_events(locs[i].otf2_id));
        std::vector<std::pair<size_t, size_t>> groups;
        const uint64_t per_thread = total / std::max(1u, threads) + 1;
        uint64_t in_group = 0;
        for (size_t i = share.first; i < share.last; ++i) {
            if (groups.empty() || (in_group >= per_thread && groups.size() < threads)) {
                groups.push_back({i, i});
                in_group = 0;
            }
            groups.back().second = i + 1;
            in_group += std::max<uint64_t>(1, declared_events(locs[i].otf2_id));
        }
        return groups;
    }

    ReaderHandle open_reader() const {
        ReaderHandle r(OTF2_Reader_Open(anchor_.c_str()));
        if (!r)
            throw TraceError(with_cause(anchor_ + ": not a readable OTF2 anchor file", capture_,
                                        OTF2_ERROR_INVALID));
        check(OTF2_Reader_SetSerialCollectiveCallbacks(r.get()), anchor_,
              "cannot set up the reader");
        return r;
    }

    // Locations [begin, end), read through one OTF2 reader.
    struct Group {
        ReaderHandle own; // for all groups but the first
        OTF2_Reader* r = nullptr;
        size_t begin = 0, end = 0;
    };

    // Selects the group's locations and opens their files; event readers are opened one at
    // a time while reading (each holds a chunk buffer of the event chunk size, 1 MB by
    // default: all at once would cost that per location).
    void open_group(Group& g, Trace& trace) {
        const std::vector<Location>& locs = trace.defs.locations;
        // OTF2 loads the local definitions' mapping tables by their counts: damaged ones
        // fail here, before it allocates.
        if (posix_layout_ && have_local_defs_)
            for (size_t i = g.begin; i < g.end; ++i)
                check_local_definitions_file(location_file(locs[i].otf2_id, ".def"),
                                             definition_chunk_size_);
        for (size_t i = g.begin; i < g.end; ++i)
            check(OTF2_Reader_SelectLocation(g.r, locs[i].otf2_id), anchor_,
                  "cannot select location");
        if (have_local_defs_)
            check(OTF2_Reader_OpenDefFiles(g.r), stem_, "cannot open local definitions");
        check(OTF2_Reader_OpenEvtFiles(g.r), stem_, "cannot open event files");
    }

    void read_group_definitions(Group& g, Trace& trace) {
        for (size_t i = g.begin; i < g.end; ++i)
            trace.defs.locations[i].clock_offsets =
                read_local_definitions(g.r, trace.defs.locations[i].otf2_id);
        if (have_local_defs_) OTF2_Reader_CloseDefFiles(g.r);
    }

    // In the group's thread; each location is handed to the hook as soon as it is read.
    void read_group_events(Group& g, Trace& trace) {
        OTF2_EvtReaderCallbacks* cb = make_event_callbacks();
        if (!cb) throw TraceError(anchor_ + ": out of memory");
        std::unique_ptr<OTF2_EvtReaderCallbacks, void (*)(OTF2_EvtReaderCallbacks*)> cb_owner(
            cb, OTF2_EvtReaderCallbacks_Delete);
        for (size_t i = g.begin; i < g.end; ++i) {
            if (EvtReaderHandle reader = open_event_reader(g.r, trace, i))
                read_events(g.r, reader.get(), trace, i, cb);
            if (hooks_->location_read) hooks_->location_read(trace, static_cast<uint32_t>(i));
        }
        OTF2_Reader_CloseEvtFiles(g.r);
    }

    struct EvtReaderCloser {
        OTF2_Reader* reader = nullptr;
        void operator()(OTF2_EvtReader* evt) const { OTF2_Reader_CloseEvtReader(reader, evt); }
    };
    using EvtReaderHandle = std::unique_ptr<OTF2_EvtReader, EvtReaderCloser>;

    // Location `i`'s event reader (OTF2 reads its first chunk now), or null when it has no
    // events to read. The mapping tables of its local definitions are the archive's: OTF2
    // applies them to any event reader of the location.
    EvtReaderHandle open_event_reader(OTF2_Reader* r, Trace& trace, size_t i) {
        const Location& loc = trace.defs.locations[i];
        if (no_event_file_[i]) return EvtReaderHandle(nullptr, {r}); // may have no file
        EvtReaderHandle reader(OTF2_Reader_GetEvtReader(r, loc.otf2_id), {r});
        if (!reader) {
            if (CutRank* cut = cut_rank(trace, loc.rank)) {
                cut->read_note = "its event file is unreadable from the start";
                return reader;
            }
            throw TraceError(with_cause(location_file(loc.otf2_id, ".evt") + ": cannot open",
                                        capture_, OTF2_ERROR_INVALID));
        }
        // Our clock correction replaces OTF2's, so OTF2 must not apply offsets.
        check(OTF2_EvtReader_ApplyClockOffsets(reader.get(), false),
              location_file(loc.otf2_id, ".evt"), "cannot configure reader");
        return reader;
    }

    // The record of `rank` when the run was cut short, else null.
    static CutRank* cut_rank(Trace& trace, uint32_t rank) {
        for (CutRank& r : trace.cut)
            if (r.rank == rank) return &r;
        return nullptr;
    }

    uint64_t declared_events(uint64_t id) const {
        return declared_.count(id) ? declared_.at(id) : 0;
    }

    std::vector<ClockOffset> read_local_definitions(OTF2_Reader* r, uint64_t id) {
        LocalDefinitions local;
        const std::string file = location_file(id, ".def");
        // Local definitions are optional in OTF2 (no mapping tables, no clock offsets).
        if (posix_layout_ && !fs::exists(file)) return {};
        std::error_code ec;
        if (posix_layout_) local.max_records = fs::file_size(file, ec);
        OTF2_DefReader* dr = OTF2_Reader_GetDefReader(r, id);
        if (!dr) throw TraceError(with_cause(file + ": cannot open", capture_, OTF2_ERROR_INVALID));
        OTF2_DefReaderCallbacks* cb = OTF2_DefReaderCallbacks_New();
        if (!cb) throw TraceError(file + ": out of memory");
        OTF2_DefReaderCallbacks_SetClockOffsetCallback(cb, on_clock_offset);
        OTF2_ErrorCode status = OTF2_Reader_RegisterDefCallbacks(r, dr, cb, &local);
        OTF2_DefReaderCallbacks_Delete(cb);
        check(status, file, "cannot register definition callbacks");
        uint64_t count = 0;
        status = OTF2_Reader_ReadAllLocalDefinitions(r, dr, &count);
        if (!local.error.empty()) throw TraceError(file + ": " + local.error);
        check(status, file, "damaged local definitions");
        OTF2_Reader_CloseDefReader(r, dr);
        return std::move(local.offsets);
    }

    void read_events(OTF2_Reader* r, OTF2_EvtReader* evt, Trace& trace, std::size_t index,
                     const OTF2_EvtReaderCallbacks* cb) {
        const Location& loc = trace.defs.locations[index];
        EventContext ctx;
        ctx.defs = &trace.defs;
        ctx.maps = &maps_;
        ctx.out = &trace.locations[index];
        ctx.file = location_file(loc.otf2_id, ".evt");
        ctx.program = &programs_[index];
        const uint64_t declared = declared_events(loc.otf2_id);
        // The declared count comes from the (possibly damaged) definitions; a record takes
        // at least two bytes of the file, which bounds the reservation.
        std::error_code ec;
        const uint64_t file_size = posix_layout_ ? fs::file_size(ctx.file, ec) : 0;
        const uint64_t room = std::min<uint64_t>(declared, ec ? 0 : file_size / 2);
        // Mapped ahead only for a count the file can hold; a damaged count only reserves.
        if (room == declared)
            reserve_prefaulted(ctx.out->events, room);
        else
            ctx.out->events.reserve(room);
        if (posix_layout_ && !ec) {
            ctx.max_events = file_size;
            // A rank of a run that died has a file cut anywhere, which is read up to the cut
            // below (the records OTF2 decodes past it are dropped); every other file must
            // end whole.
            if (!cut_rank(trace, loc.rank)) check_event_file_end(ctx.file, event_chunk_size_);
        }
        check(OTF2_Reader_RegisterEvtCallbacks(r, evt, cb, &ctx), ctx.file,
              "cannot register event callbacks");
        uint64_t count = 0;
        OTF2_ErrorCode status = OTF2_Reader_ReadAllLocalEvents(r, evt, &count);
        // A rank of a run that died keeps the events before the cut, however it ends.
        if (CutRank* cut = cut_rank(trace, loc.rank)) {
            // OTF2 decodes the bytes after a cut inside a chunk as records: beyond the count
            // the rank wrote, unknown to OTF2 (we write none) or after the rank's death, they
            // are not the rank's. (Time may go back a little: a BufferFlush record is written
            // before the record whose time was taken when the flush began.)
            std::vector<Event>& events = ctx.out->events;
            const int64_t offset = loc.clock_offsets.empty() ? 0 : loc.clock_offsets[0].offset;
            auto after_death = [&](Time local) {
                return cut->died_at && static_cast<__int128>(local) + offset > *cut->died_at;
            };
            size_t keep = std::min<size_t>(events.size(), declared);
            for (size_t i = 0; i < keep; ++i)
                if (events[i].kind == EventKind::Other || after_death(events[i].time)) keep = i;
            const bool garbage = keep < events.size();
            events.resize(keep);
            std::erase_if(ctx.out->requests, [&](const RequestRef& r) { return r.event >= keep; });
            const uint64_t read = keep;
            // (A file cut at a chunk boundary ends as OTF2 expects the next chunk.)
            if (!ctx.error.empty() || status != OTF2_SUCCESS || garbage)
                cut->read_note =
                    "its event file breaks off after " + std::to_string(read) + " events" +
                    (read < declared ? " of " + std::to_string(declared) + " written" : "") +
                    " (read up to there)";
            else if (read < declared)
                cut->read_note = std::to_string(read) + " of " + std::to_string(declared) +
                                 " events written are in its file";
            correct_clock(loc, *ctx.out, ctx.file);
            return;
        }
        if (!ctx.error.empty()) throw TraceError(ctx.error);
        check(status, ctx.file, "damaged event file after " + std::to_string(count) + " records");
        if (count < declared)
            throw TraceError(ctx.file + ": truncated: " + std::to_string(count) + " of " +
                             std::to_string(declared) + " events");
        correct_clock(loc, *ctx.out, ctx.file);
    }

    static void correct_clock(const Location& loc, LocationEvents& le, const std::string& file) {
        if (loc.clock_offsets.empty()) return;
        ClockCorrection clock(loc.clock_offsets);
        auto global = [&](uint64_t local) {
            std::optional<Time> t = clock.to_global(local);
            if (!t)
                throw TraceError(file + ": clock offset moves tick " + std::to_string(local) +
                                 " outside the time range");
            return *t;
        };
        for (Event& e : le.events) {
            e.time = global(e.time);
            if (e.kind == EventKind::BufferFlush)
                e.value = static_cast<int64_t>(global(static_cast<uint64_t>(e.value)));
        }
    }

    std::string anchor_;
    std::string stem_; // anchor without .otf2: <stem>.def, <stem>/<id>.evt
    bool posix_layout_ = false;
    bool have_local_defs_ = false; // the archive has a directory of local definitions
    uint64_t definition_chunk_size_ = 0, event_chunk_size_ = 0; // as the anchor declares them
    std::vector<bool> no_event_file_; // per location: its event file does not exist
    Otf2ErrorCapture capture_;
    ReaderHandle reader_;
    const ReadHooks* hooks_ = nullptr;
    RefMaps maps_;
    std::unordered_map<uint64_t, uint64_t> declared_; // numberOfEvents of each location
    std::vector<Program> programs_;                   // per location: its ProgramBegin's
};

} // namespace

std::string find_anchor(const std::string& path) {
    std::error_code ec;
    fs::file_status st = fs::status(path, ec);
    if (!fs::exists(st)) throw TraceError(path + ": no such file or directory");
    if (fs::is_regular_file(st)) return path;
    if (!fs::is_directory(st)) throw TraceError(path + ": not a file or directory");
    const fs::path dir(path);
    if (fs::is_regular_file(dir / "traces.otf2", ec)) return (dir / "traces.otf2").string();
    std::vector<std::string> anchors;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
        if (it->path().extension() == ".otf2" && it->is_regular_file(ec))
            anchors.push_back(it->path().string());
    if (ec) throw TraceError(path + ": cannot list directory: " + ec.message());
    if (anchors.empty())
        throw TraceError(path + ": not an OTF2 archive (no .otf2 anchor file in the directory)");
    if (anchors.size() > 1) {
        std::sort(anchors.begin(), anchors.end());
        throw TraceError(path + ": several OTF2 anchor files (" + anchors[0] + ", " + anchors[1] +
                         ", ...): name one");
    }
    return anchors.front();
}

void read_trace_into(const std::string& path, Trace& out, unsigned threads, const ReadHooks& hooks,
                     LocationShare share) {
    ArchiveReader reader(find_anchor(path));
    reader.read(out, threads == 0 ? worker_threads() : threads, hooks, share);
}

Trace read_trace(const std::string& path, unsigned threads) {
    Trace trace;
    read_trace_into(path, trace, threads, {});
    return trace;
}

} // namespace topolens::trace
