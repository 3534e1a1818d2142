// In-memory model of an OTF2 trace: global definitions plus one event array per location.
// Filled by trace/reader (from OTF2) and by the trace builder (synthetic traces).
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace topolens::trace {

using Ref = uint32_t;
inline constexpr Ref kNone = std::numeric_limits<Ref>::max();
using Time = uint64_t; // ticks of ClockProperties::resolution, globally corrected

// Any failure to read or interpret a trace: the message names file, location and event.
class TraceError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

enum class Paradigm : uint8_t { Unknown, User, Mpi, Other };

enum class RegionRole : uint8_t {
    Function,
    PointToPoint,
    CollOneToAll,
    CollAllToOne,
    CollAllToAll,
    Barrier,
    CollOther,
    Other
};

struct Region {
    std::string name;
    std::string canonical_name;
    std::string description;
    std::string source_file;
    Paradigm paradigm = Paradigm::Unknown;
    RegionRole role = RegionRole::Function;
    bool is_mpi() const { return paradigm == Paradigm::Mpi || source_file == "MPI"; }
};

// A communicator: members[i] is the world rank (location) of communicator rank i.
struct Communicator {
    std::string name;
    std::vector<uint32_t> members;
    Ref parent = kNone;
    // MPI_COMM_SELF-like (OTF2 COMM_SELF group): members is empty, rank 0 is the calling location.
    bool is_self = false;
};

struct CartDimension {
    std::string name;
    uint32_t size = 0;
    bool periodic = false;
};

struct CartTopology {
    std::string name;
    Ref communicator = kNone;
    std::vector<CartDimension> dims;
    // coords_by_rank[r] = coordinates of communicator rank r (empty if not recorded).
    std::vector<std::vector<uint32_t>> coords_by_rank;
};

struct ClockOffset {
    uint64_t time = 0;  // local timestamp when measured
    int64_t offset = 0; // global = local + offset
    double stddev = 0.0;
};

struct Location {
    std::string name;
    uint32_t rank = 0; // MPI world rank (location group id)
    std::string host;
    uint64_t otf2_id = 0; // OTF2 location id: names the event file traces/<id>.evt
    // As recorded (local times); event times are already corrected with them.
    std::vector<ClockOffset> clock_offsets;
};

enum class ParameterType : uint8_t { String, Int, UnsignedInt };

struct Parameter {
    std::string name;
    ParameterType type = ParameterType::String;
};

struct Definitions {
    uint64_t timer_resolution = 1; // ticks per second
    uint64_t global_offset = 0;
    uint64_t trace_length = 0;
    std::vector<std::string> strings;
    std::vector<Region> regions;
    std::vector<Communicator> communicators;
    std::vector<CartTopology> topologies;
    std::vector<Location> locations; // index = location index used by events
    std::vector<Parameter> parameters;
    std::string creator;
};

enum class EventKind : uint8_t {
    Enter,
    Leave,
    MpiSend,             // a=peer (comm rank) b=comm c=tag  bytes
    MpiIsend,            // a=peer b=comm c=tag  bytes  request
    MpiIsendComplete,    // request
    MpiIrecvRequest,     // request
    MpiRecv,             // a=peer b=comm c=tag  bytes
    MpiIrecv,            // a=peer b=comm c=tag  bytes  request
    MpiRequestTest,      // request
    MpiRequestCancelled, // request
    MpiCollectiveBegin,
    MpiCollectiveEnd, // a=root (comm rank or kNone) b=comm c=collective op, bytes=sent,
                      // request=received
    ParameterString,  // a=parameter b=string
    ParameterInt,     // a=parameter, value in `value`
    BufferFlush,      // value = stop time
    Other
};

// OTF2 collective operations we distinguish (values follow OTF2_CollectiveOp).
enum class CollectiveOp : uint8_t {
    Barrier = 0,
    Bcast = 1,
    Gather = 2,
    Gatherv = 3,
    Scatter = 4,
    Scatterv = 5,
    Allgather = 6,
    Allgatherv = 7,
    Alltoall = 8,
    Alltoallv = 9,
    Alltoallw = 10,
    Allreduce = 11,
    Reduce = 12,
    ReduceScatter = 13,
    Scan = 14,
    Exscan = 15,
    ReduceScatterBlock = 16,
    Other = 255
};

// 32 bytes: the analysis benchmark budgets <= 64 bytes per event in memory.
struct Event {
    Time time = 0;
    union {
        uint64_t bytes; // message / collective size
        int64_t value;  // parameter value, buffer-flush stop time
    };
    uint32_t a = kNone; // region | peer | root | parameter
    uint32_t b = kNone; // communicator | string
    uint32_t c = 0;     // tag | collective op
    EventKind kind = EventKind::Other;
    uint8_t pad_[3] = {};
    Event() : bytes(0) {}
};

// Request ids live beside the events: only nonblocking records carry one.
struct RequestRef {
    uint32_t event = 0; // index into LocationEvents::events
    uint64_t request = 0;
};

struct LocationEvents {
    std::vector<Event> events;
    std::vector<RequestRef> requests; // ascending by event index
};

struct Trace {
    std::string path; // anchor file
    Definitions defs;
    std::vector<LocationEvents> locations; // parallel to defs.locations
};

} // namespace topolens::trace
