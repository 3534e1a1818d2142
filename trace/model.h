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

// Measurement: regions of the measurement system itself (OTF2_PARADIGM_MEASUREMENT_SYSTEM),
// such as the program region.
enum class Paradigm : uint8_t { Unknown, User, Mpi, Measurement, Other };

enum class RegionRole : uint8_t {
    Function,
    PointToPoint,
    CollOneToAll,
    CollAllToOne,
    CollAllToAll,
    Barrier,
    CollOther,
    Artificial, // a region the measurement made up, such as the program region
    Other
};

struct Region {
    std::string name;
    std::string canonical_name;
    std::string description;
    std::string source_file;
    uint32_t begin_line = 0; // 0: unknown
    Paradigm paradigm = Paradigm::Unknown;
    RegionRole role = RegionRole::Function;
    bool is_mpi() const { return paradigm == Paradigm::Mpi || source_file == "MPI"; }
};

// A communicator: members[i] is the world rank of communicator rank i: a process (location
// group), whose records may be on any of its locations (threads).
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

// Whose events to read: locations [first, last) of the trace's location order (`last` is
// clamped to the number of locations). The definitions are read whole, the other locations
// keep no events: one share per process of an analysis run across processes.
struct LocationShare {
    uint32_t first = 0;
    uint32_t last = std::numeric_limits<uint32_t>::max();
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

// The program itself, as Score-P records it: OTF2's ProgramBegin and ProgramEnd records
// enter and leave `region` (role Artificial, paradigm Measurement, named after the
// executable, trace/program_encoding.h). The model holds them as that region's Enter and Leave, so
// every consumer sees one more balanced region around the run; a Leave of `region` carries
// ProgramEnd's exit status in Event::value. No program region (region kNone): an older
// trace, or another writer's.
struct Program {
    Ref region = kNone;
    std::string name; // ProgramBegin's program name: the executable's path
    std::vector<std::string> arguments;
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
    Program program;
};

enum class EventKind : uint8_t {
    Enter,
    Leave,
    MpiSend,             // peer (comm rank) comm tag  bytes
    MpiIsend,            // peer comm tag  bytes  request
    MpiIsendComplete,    // request
    MpiIrecvRequest,     // request
    MpiRecv,             // peer comm tag  bytes
    MpiIrecv,            // peer comm tag  bytes  request
    MpiRequestTest,      // request
    MpiRequestCancelled, // request
    MpiCollectiveBegin,
    MpiCollectiveEnd, // root (comm rank or kNone) comm op, bytes=sent, request=received
    ParameterString,  // parameter string
    ParameterInt,     // parameter, value in `value`
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

// 32 bytes: the analysis benchmark budgets <= 64 bytes per event in memory. Three slots are
// shared by the kinds; the accessors name them, and each is valid for the kinds listed above.
struct Event {
    Time time = 0;
    union {
        uint64_t bytes; // message / collective size
        int64_t value;  // parameter value, buffer-flush stop time, program exit status
    };

  private:
    // Declared here to keep the layout: 8 + 8 + 3 * 4 + kind + padding.
    uint32_t a_ = kNone; // region | peer | root | parameter
    uint32_t b_ = kNone; // communicator | string
    uint32_t c_ = 0;     // tag | collective op

  public:
    EventKind kind = EventKind::Other;

    Event() : bytes(0) {}

    // Enter, Leave.
    Ref region() const { return a_; }
    // Point-to-point records: the peer is a rank of comm().
    uint32_t peer() const { return a_; }
    uint32_t tag() const { return c_; }
    // Point-to-point records and MpiCollectiveEnd.
    Ref comm() const { return b_; }
    // MpiCollectiveEnd: the root is a rank of comm(), or kNone.
    uint32_t root() const { return a_; }
    CollectiveOp op() const { return static_cast<CollectiveOp>(c_); }
    // ParameterString, ParameterInt.
    Ref parameter() const { return a_; }
    // ParameterString.
    Ref string() const { return b_; }

    void set_region(Ref region) { a_ = region; }
    void set_message(uint32_t peer, Ref comm, uint32_t tag, uint64_t size) {
        a_ = peer;
        b_ = comm;
        c_ = tag;
        bytes = size;
    }
    void set_collective(uint32_t root, Ref comm, CollectiveOp op, uint64_t sent) {
        a_ = root;
        b_ = comm;
        c_ = static_cast<uint32_t>(op);
        bytes = sent;
    }
    void set_parameter_string(Ref parameter, Ref string) {
        a_ = parameter;
        b_ = string;
    }
    void set_parameter_int(Ref parameter, int64_t v) {
        a_ = parameter;
        value = v;
    }

  private:
    uint8_t pad_[3] = {};
};
static_assert(sizeof(Event) == 32, "the analysis benchmark budgets the event size");

// Request ids live beside the events: only nonblocking records carry one.
struct RequestRef {
    uint32_t event = 0; // index into LocationEvents::events
    uint64_t request = 0;
};

struct LocationEvents {
    std::vector<Event> events;
    std::vector<RequestRef> requests; // ascending by event index
};

// How one rank of a run that died before MPI_Finalize ended (cut.txt, trace/cut.h).
struct CutRank {
    uint32_t rank = 0;
    uint64_t events_written = 0; // events its file should hold
    std::optional<Time> died_at; // global clock; none when it left no word (SIGKILL)
    std::string cause;           // "signal SIGSEGV", "MPI_Abort(errorcode 3)", ...
    std::string read_note;       // what the reader found short of that, if anything
};

struct Trace {
    std::string path; // anchor file
    Definitions defs;
    std::vector<LocationEvents> locations; // parallel to defs.locations
    std::vector<CutRank> cut;              // empty unless the run was cut short
};

} // namespace topolens::trace
