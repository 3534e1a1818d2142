#include "trace/record_size.h"

#include <bit>

namespace topolens::trace::otf2_size {

namespace {

// Records of more than one attribute (and those without any) carry a record-length byte
// after their type; OTF2 leaves it out of the one-attribute records (Enter, Leave, the
// request-only records).
constexpr uint64_t kTypeAndLength = 2;

} // namespace

uint64_t compressed(uint64_t value) {
    if (value == 0 || value == ~uint64_t{0}) return 1;
    return 1 + (64 - static_cast<uint64_t>(std::countl_zero(value)) + 7) / 8;
}

uint64_t compressed32(uint32_t value) {
    if (value == ~uint32_t{0}) return 1;
    return compressed(value);
}

uint64_t event_record(const Event& e, uint64_t request, const Program& program) {
    switch (e.kind) {
    case EventKind::Enter:
        if (e.region() == program.region && program.region != kNone) {
            // ProgramBegin: program name, argument count, one string reference per argument
            // (string references of our archives take two bytes: a length byte and one).
            return kTypeAndLength + 2 +
                   compressed32(static_cast<uint32_t>(program.arguments.size())) +
                   2 * program.arguments.size();
        }
        return region_record(e.region());
    case EventKind::Leave:
        if (e.region() == program.region && program.region != kNone)
            return kTypeAndLength + compressed(static_cast<uint64_t>(e.value)); // ProgramEnd
        return region_record(e.region());
    case EventKind::MpiSend:
    case EventKind::MpiRecv:
        return kTypeAndLength + compressed32(e.peer()) + compressed32(e.comm()) +
               compressed32(e.tag()) + compressed(e.bytes);
    case EventKind::MpiIsend:
    case EventKind::MpiIrecv:
        return kTypeAndLength + compressed32(e.peer()) + compressed32(e.comm()) +
               compressed32(e.tag()) + compressed(e.bytes) + compressed(request);
    case EventKind::MpiIsendComplete:
    case EventKind::MpiIrecvRequest:
    case EventKind::MpiRequestTest:
    case EventKind::MpiRequestCancelled:
        return 1 + compressed(request);
    case EventKind::MpiCollectiveBegin:
        return kTypeAndLength;
    case EventKind::MpiCollectiveEnd:
        // Operation (one raw byte), communicator, root, bytes sent and received.
        return kTypeAndLength + 1 + compressed32(e.comm()) + compressed32(e.root()) +
               compressed(e.bytes) + compressed(request);
    case EventKind::ParameterString:
        return kTypeAndLength + compressed32(e.parameter()) + compressed32(e.string());
    case EventKind::ParameterInt:
        return kTypeAndLength + compressed32(e.parameter()) +
               compressed(static_cast<uint64_t>(e.value));
    case EventKind::BufferFlush:
        return kTypeAndLength + 8; // the stop time, raw
    case EventKind::Other:
        break;
    }
    return kTypeAndLength + 2; // a record the model does not keep: a guess
}

uint64_t event_file(uint64_t records) {
    // A chunk holds its header and a first timestamp besides the records; OTF2 starts a new
    // chunk when the next record does not fit, leaving a few bytes unused (not counted).
    constexpr uint64_t room = kChunkSize - kChunkHeader - kTimestamp;
    const uint64_t chunks = records == 0 ? 1 : (records + room - 1) / room;
    return records + chunks * kChunkHeader + (chunks - 1) * kTimestamp + kFileEnd;
}

} // namespace topolens::trace::otf2_size
