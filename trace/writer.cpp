#include "trace/writer.h"

#include "trace/otf2_error.h"

#include <otf2/otf2.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <numeric>
#include <set>
#include <unordered_map>

namespace topolens::trace {
namespace {

namespace fs = std::filesystem;
using detail::Otf2ErrorCapture;

OTF2_FlushType pre_flush(void*, OTF2_FileType, OTF2_LocationRef, void*, bool) {
    return OTF2_FLUSH;
}
// No post-flush callback: OTF2 then writes no BufferFlush records of its own, so the
// archive holds exactly the events of the model.
OTF2_FlushCallbacks flush_callbacks = {pre_flush, nullptr};

OTF2_Paradigm to_otf2(Paradigm paradigm) {
    switch (paradigm) {
    case Paradigm::Unknown:
        return OTF2_PARADIGM_UNKNOWN;
    case Paradigm::User:
        return OTF2_PARADIGM_USER;
    case Paradigm::Mpi:
        return OTF2_PARADIGM_MPI;
    case Paradigm::Measurement:
        return OTF2_PARADIGM_MEASUREMENT_SYSTEM;
    case Paradigm::Other:
        return OTF2_PARADIGM_NONE;
    }
    return OTF2_PARADIGM_UNKNOWN;
}

OTF2_RegionRole to_otf2(RegionRole role) {
    switch (role) {
    case RegionRole::Function:
        return OTF2_REGION_ROLE_FUNCTION;
    case RegionRole::PointToPoint:
        return OTF2_REGION_ROLE_POINT2POINT;
    case RegionRole::CollOneToAll:
        return OTF2_REGION_ROLE_COLL_ONE2ALL;
    case RegionRole::CollAllToOne:
        return OTF2_REGION_ROLE_COLL_ALL2ONE;
    case RegionRole::CollAllToAll:
        return OTF2_REGION_ROLE_COLL_ALL2ALL;
    case RegionRole::Barrier:
        return OTF2_REGION_ROLE_BARRIER;
    case RegionRole::CollOther:
        return OTF2_REGION_ROLE_COLL_OTHER;
    case RegionRole::Artificial:
        return OTF2_REGION_ROLE_ARTIFICIAL;
    case RegionRole::Other:
        return OTF2_REGION_ROLE_UNKNOWN;
    }
    return OTF2_REGION_ROLE_UNKNOWN;
}

OTF2_ParameterType to_otf2(ParameterType type) {
    switch (type) {
    case ParameterType::String:
        return OTF2_PARAMETER_TYPE_STRING;
    case ParameterType::Int:
        return OTF2_PARAMETER_TYPE_INT64;
    case ParameterType::UnsignedInt:
        return OTF2_PARAMETER_TYPE_UINT64;
    }
    return OTF2_PARAMETER_TYPE_STRING;
}

bool has_request(EventKind kind) {
    switch (kind) {
    case EventKind::MpiIsend:
    case EventKind::MpiIsendComplete:
    case EventKind::MpiIrecvRequest:
    case EventKind::MpiIrecv:
    case EventKind::MpiRequestTest:
    case EventKind::MpiRequestCancelled:
    case EventKind::MpiCollectiveEnd:
        return true;
    default:
        return false;
    }
}

// The model's strings keep their indices (ParameterString events refer to them); every
// other name is appended once.
class StringTable {
  public:
    explicit StringTable(const std::vector<std::string>& model_strings) {
        for (const std::string& s : model_strings) append(s);
    }
    OTF2_StringRef ref(const std::string& s) {
        auto it = index_.find(s);
        return it != index_.end() ? it->second : append(s);
    }
    // Empty optional strings (description, source file) are left undefined, as Score-P does.
    OTF2_StringRef optional_ref(const std::string& s) {
        return s.empty() ? OTF2_UNDEFINED_STRING : ref(s);
    }
    const std::vector<std::string>& strings() const { return strings_; }

  private:
    OTF2_StringRef append(const std::string& s) {
        OTF2_StringRef r = static_cast<OTF2_StringRef>(strings_.size());
        strings_.push_back(s);
        index_.emplace(s, r); // keeps the first index of duplicates
        return r;
    }
    std::vector<std::string> strings_;
    std::unordered_map<std::string, OTF2_StringRef> index_;
};

// Refuses to write a model the archive could not represent, naming the first problem.
void validate(const Trace& trace) {
    const Definitions& defs = trace.defs;
    auto fail = [](const std::string& what) { throw TraceError("cannot write trace: " + what); };
    if (defs.locations.empty()) fail("no locations");
    if (trace.locations.size() != defs.locations.size())
        fail("event arrays (" + std::to_string(trace.locations.size()) +
             ") do not match locations (" + std::to_string(defs.locations.size()) + ")");
    std::set<uint64_t> ids;
    std::set<uint32_t> ranks;
    for (const Location& l : defs.locations) {
        if (!ids.insert(l.otf2_id).second)
            fail("location id " + std::to_string(l.otf2_id) + " used twice");
        ranks.insert(l.rank);
    }
    if (*ranks.rbegin() + 1 != ranks.size()) fail("location ranks are not 0..N-1");
    for (std::size_t c = 0; c < defs.communicators.size(); ++c) {
        const Communicator& comm = defs.communicators[c];
        if (comm.parent != kNone && comm.parent >= defs.communicators.size())
            fail("communicator " + comm.name + " has an undefined parent");
        for (uint32_t m : comm.members)
            if (!ranks.count(m))
                fail("communicator " + comm.name + " has member rank " + std::to_string(m) +
                     " without a location");
    }
    for (const CartTopology& t : defs.topologies) {
        if (t.communicator != kNone && t.communicator >= defs.communicators.size())
            fail("topology " + t.name + " refers to an undefined communicator");
        for (const auto& coords : t.coords_by_rank)
            if (!coords.empty() && coords.size() != t.dims.size())
                fail("topology " + t.name + " has coordinates of the wrong dimension");
    }
    for (std::size_t l = 0; l < trace.locations.size(); ++l) {
        const LocationEvents& le = trace.locations[l];
        std::size_t next_request = 0;
        for (std::size_t i = 0; i < le.events.size(); ++i) {
            const Event& e = le.events[i];
            auto where = [&] {
                return "event " + std::to_string(i) + " (" + std::to_string(int(e.kind)) +
                       ") of location " + std::to_string(l);
            };
            switch (e.kind) {
            case EventKind::Enter:
            case EventKind::Leave:
                if (e.region() >= defs.regions.size())
                    fail(where() + " refers to an undefined region");
                break;
            case EventKind::MpiSend:
            case EventKind::MpiIsend:
            case EventKind::MpiRecv:
            case EventKind::MpiIrecv:
            case EventKind::MpiCollectiveEnd:
                if (e.comm() >= defs.communicators.size())
                    fail(where() + " refers to an undefined communicator");
                break;
            case EventKind::ParameterString:
                if (e.string() >= defs.strings.size())
                    fail(where() + " refers to an undefined string");
                [[fallthrough]];
            case EventKind::ParameterInt:
                if (e.parameter() >= defs.parameters.size())
                    fail(where() + " refers to an undefined parameter");
                break;
            default:
                break;
            }
            if (has_request(e.kind)) {
                while (next_request < le.requests.size() && le.requests[next_request].event < i)
                    ++next_request;
                if (next_request == le.requests.size() || le.requests[next_request].event != i)
                    fail(where() + " has no request id");
            }
        }
    }
}

// Per location, local ids are the global ids rotated by (location index + 1): every local
// id differs from its global one, so a reader that forgets the mapping tables fails tests.
struct LocalIds {
    bool enabled = false;
    uint64_t shift = 0;
    uint32_t map(uint32_t global, std::size_t count) const {
        if (!enabled || count == 0) return global;
        return static_cast<uint32_t>((global + shift) % count);
    }
};

struct ArchiveCloser {
    void operator()(OTF2_Archive* archive) const { OTF2_Archive_Close(archive); }
};

class ArchiveWriter {
  public:
    ArchiveWriter(const Trace& trace, const fs::path& dir, const WriteOptions& options)
        : trace_(trace), defs_(trace.defs), dir_(dir), options_(options),
          strings_(trace.defs.strings) {}

    void write() {
        archive_.reset(OTF2_Archive_Open(dir_.c_str(), options_.archive_name.c_str(),
                                         OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
                                         OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE));
        if (!archive_) fail("OTF2_Archive_Open", OTF2_ERROR_INVALID);
        OTF2_Archive* a = archive_.get();
        check(OTF2_Archive_SetFlushCallbacks(a, &flush_callbacks, nullptr), "set flush callbacks");
        check(OTF2_Archive_SetSerialCollectiveCallbacks(a), "set collective callbacks");
        check(
            OTF2_Archive_SetCreator(a, defs_.creator.empty() ? "topolens" : defs_.creator.c_str()),
            "set creator");
        intern_names();
        write_events();
        write_local_definitions();
        write_global_definitions();
        OTF2_ErrorCode status = OTF2_Archive_Close(archive_.release());
        check(status, "close archive");
    }

  private:
    [[noreturn]] void fail(const char* what, OTF2_ErrorCode code) {
        std::string cause = capture_.first();
        if (cause.empty()) cause = detail::otf2_status_text(code);
        throw TraceError(dir_.string() + ": cannot write OTF2 archive: " + what + ": " + cause);
    }
    void check(OTF2_ErrorCode code, const char* what) {
        if (code != OTF2_SUCCESS) fail(what, code);
    }

    LocalIds local_ids(std::size_t location) const {
        return LocalIds{options_.local_ids, location + 1};
    }

    void write_events() {
        OTF2_Archive* a = archive_.get();
        check(OTF2_Archive_OpenEvtFiles(a), "open event files");
        for (std::size_t l = 0; l < trace_.locations.size(); ++l) {
            OTF2_EvtWriter* w = OTF2_Archive_GetEvtWriter(a, defs_.locations[l].otf2_id);
            if (!w) fail("get event writer", OTF2_ERROR_INVALID);
            write_location_events(w, trace_.locations[l], local_ids(l));
            check(OTF2_Archive_CloseEvtWriter(a, w), "close event writer");
        }
        check(OTF2_Archive_CloseEvtFiles(a), "close event files");
    }

    void write_location_events(OTF2_EvtWriter* w, const LocationEvents& le, const LocalIds& ids) {
        const std::size_t n_regions = defs_.regions.size();
        const std::size_t n_comms = defs_.communicators.size();
        const std::size_t n_params = defs_.parameters.size();
        const std::size_t n_strings = strings_.strings().size();
        std::size_t next_request = 0;
        auto request_of = [&](std::size_t i) {
            while (le.requests[next_request].event < i) ++next_request; // validated
            return le.requests[next_request].request;
        };
        for (std::size_t i = 0; i < le.events.size(); ++i) {
            const Event& e = le.events[i];
            const OTF2_TimeStamp t = e.time;
            OTF2_ErrorCode s = OTF2_SUCCESS;
            switch (e.kind) {
            // The program region is entered and left by ProgramBegin and ProgramEnd.
            case EventKind::Enter:
                if (e.region() == defs_.program.region)
                    s = program_begin(w, t, ids, n_strings);
                else
                    s = OTF2_EvtWriter_Enter(w, nullptr, t, ids.map(e.region(), n_regions));
                break;
            case EventKind::Leave:
                if (e.region() == defs_.program.region)
                    s = OTF2_EvtWriter_ProgramEnd(w, nullptr, t, e.value);
                else
                    s = OTF2_EvtWriter_Leave(w, nullptr, t, ids.map(e.region(), n_regions));
                break;
            case EventKind::MpiSend:
                s = OTF2_EvtWriter_MpiSend(w, nullptr, t, e.peer(), ids.map(e.comm(), n_comms),
                                           e.tag(), e.bytes);
                break;
            case EventKind::MpiIsend:
                s = OTF2_EvtWriter_MpiIsend(w, nullptr, t, e.peer(), ids.map(e.comm(), n_comms),
                                            e.tag(), e.bytes, request_of(i));
                break;
            case EventKind::MpiIsendComplete:
                s = OTF2_EvtWriter_MpiIsendComplete(w, nullptr, t, request_of(i));
                break;
            case EventKind::MpiIrecvRequest:
                s = OTF2_EvtWriter_MpiIrecvRequest(w, nullptr, t, request_of(i));
                break;
            case EventKind::MpiRecv:
                s = OTF2_EvtWriter_MpiRecv(w, nullptr, t, e.peer(), ids.map(e.comm(), n_comms),
                                           e.tag(), e.bytes);
                break;
            case EventKind::MpiIrecv:
                s = OTF2_EvtWriter_MpiIrecv(w, nullptr, t, e.peer(), ids.map(e.comm(), n_comms),
                                            e.tag(), e.bytes, request_of(i));
                break;
            case EventKind::MpiRequestTest:
                s = OTF2_EvtWriter_MpiRequestTest(w, nullptr, t, request_of(i));
                break;
            case EventKind::MpiRequestCancelled:
                s = OTF2_EvtWriter_MpiRequestCancelled(w, nullptr, t, request_of(i));
                break;
            case EventKind::MpiCollectiveBegin:
                s = OTF2_EvtWriter_MpiCollectiveBegin(w, nullptr, t);
                break;
            case EventKind::MpiCollectiveEnd:
                s = OTF2_EvtWriter_MpiCollectiveEnd(
                    w, nullptr, t, static_cast<OTF2_CollectiveOp>(e.op()),
                    ids.map(e.comm(), n_comms), e.root(), e.bytes, request_of(i));
                break;
            case EventKind::ParameterString:
                s = OTF2_EvtWriter_ParameterString(w, nullptr, t, ids.map(e.parameter(), n_params),
                                                   ids.map(e.string(), n_strings));
                break;
            case EventKind::ParameterInt:
                if (defs_.parameters[e.parameter()].type == ParameterType::UnsignedInt)
                    s = OTF2_EvtWriter_ParameterUnsignedInt(w, nullptr, t,
                                                            ids.map(e.parameter(), n_params),
                                                            static_cast<uint64_t>(e.value));
                else
                    s = OTF2_EvtWriter_ParameterInt(w, nullptr, t, ids.map(e.parameter(), n_params),
                                                    e.value);
                break;
            case EventKind::BufferFlush:
                s = OTF2_EvtWriter_BufferFlush(w, nullptr, t, static_cast<uint64_t>(e.value));
                break;
            case EventKind::Other:
                continue; // nothing OTF2 could say about it
            }
            check(s, "write event");
        }
    }

    OTF2_ErrorCode program_begin(OTF2_EvtWriter* w, OTF2_TimeStamp t, const LocalIds& ids,
                                 std::size_t n_strings) {
        std::vector<OTF2_StringRef> arguments;
        for (const std::string& argument : defs_.program.arguments)
            arguments.push_back(ids.map(strings_.ref(argument), n_strings));
        return OTF2_EvtWriter_ProgramBegin(
            w, nullptr, t, ids.map(strings_.ref(defs_.program.name), n_strings),
            static_cast<uint32_t>(arguments.size()), arguments.data());
    }

    // Mapping table of one kind: local id -> global id, the inverse of LocalIds::map.
    void write_mapping(OTF2_DefWriter* w, OTF2_MappingType type, std::size_t count,
                       const LocalIds& ids) {
        if (count == 0) return;
        std::vector<uint64_t> global_of_local(count);
        for (std::size_t g = 0; g < count; ++g)
            global_of_local[ids.map(static_cast<uint32_t>(g), count)] = g;
        OTF2_IdMap* map = OTF2_IdMap_CreateFromUint64Array(count, global_of_local.data(), false);
        if (!map) fail("create mapping table", OTF2_ERROR_MEM_ALLOC_FAILED);
        OTF2_ErrorCode s = OTF2_DefWriter_WriteMappingTable(w, type, map);
        OTF2_IdMap_Free(map);
        check(s, "write mapping table");
    }

    void write_local_definitions() {
        OTF2_Archive* a = archive_.get();
        check(OTF2_Archive_OpenDefFiles(a), "open local definition files");
        for (std::size_t l = 0; l < defs_.locations.size(); ++l) {
            const Location& loc = defs_.locations[l];
            OTF2_DefWriter* w = OTF2_Archive_GetDefWriter(a, loc.otf2_id);
            if (!w) fail("get definition writer", OTF2_ERROR_INVALID);
            LocalIds ids = local_ids(l);
            if (ids.enabled) {
                write_mapping(w, OTF2_MAPPING_STRING, strings_.strings().size(), ids);
                write_mapping(w, OTF2_MAPPING_REGION, defs_.regions.size(), ids);
                write_mapping(w, OTF2_MAPPING_COMM, defs_.communicators.size(), ids);
                write_mapping(w, OTF2_MAPPING_PARAMETER, defs_.parameters.size(), ids);
            }
            for (const ClockOffset& o : loc.clock_offsets)
                check(OTF2_DefWriter_WriteClockOffset(w, o.time, o.offset, o.stddev),
                      "write clock offset");
            check(OTF2_Archive_CloseDefWriter(a, w), "close definition writer");
        }
        check(OTF2_Archive_CloseDefFiles(a), "close local definition files");
    }

    // Every name is interned before anything is written: the string count must be final
    // before the first mapping table, and references must exist when strings are written.
    void intern_names() {
        strings_.ref("");
        for (std::size_t l = 0; l < defs_.locations.size(); ++l) {
            const Location& loc = defs_.locations[l];
            host_nodes_.emplace(host_of(loc), 0);
            if (loc.rank >= first_location_of_rank_.size())
                first_location_of_rank_.resize(loc.rank + 1, kNone);
            if (first_location_of_rank_[loc.rank] == kNone)
                first_location_of_rank_[loc.rank] = static_cast<uint32_t>(l);
            strings_.ref(loc.name);
        }
        strings_.ref("machine");
        strings_.ref("node");
        for (auto& [host, node] : host_nodes_) strings_.ref(host);
        for (std::size_t r = 0; r < first_location_of_rank_.size(); ++r) strings_.ref(rank_name(r));
        for (const Region& r : defs_.regions) {
            strings_.ref(r.name);
            strings_.ref(canonical_of(r));
            strings_.optional_ref(r.description);
            strings_.optional_ref(r.source_file);
        }
        strings_.ref(defs_.program.name);
        for (const std::string& argument : defs_.program.arguments) strings_.ref(argument);
        for (const Communicator& c : defs_.communicators) strings_.ref(c.name);
        for (const Parameter& p : defs_.parameters) strings_.ref(p.name);
        for (const CartTopology& t : defs_.topologies) {
            strings_.ref(t.name);
            for (const CartDimension& d : t.dims) strings_.ref(d.name);
        }
    }
    static std::string host_of(const Location& loc) {
        return loc.host.empty() ? "localhost" : loc.host;
    }
    static std::string rank_name(std::size_t rank) { return "MPI Rank " + std::to_string(rank); }
    static const std::string& canonical_of(const Region& r) {
        return r.canonical_name.empty() ? r.name : r.canonical_name;
    }

    void write_global_definitions() {
        OTF2_GlobalDefWriter* w = OTF2_Archive_GetGlobalDefWriter(archive_.get());
        if (!w) fail("get global definition writer", OTF2_ERROR_INVALID);

        check(OTF2_GlobalDefWriter_WriteClockProperties(w, defs_.timer_resolution,
                                                        defs_.global_offset, defs_.trace_length,
                                                        OTF2_UNDEFINED_TIMESTAMP),
              "write clock properties");

        for (std::size_t s = 0; s < strings_.strings().size(); ++s)
            check(OTF2_GlobalDefWriter_WriteString(w, static_cast<OTF2_StringRef>(s),
                                                   strings_.strings()[s].c_str()),
                  "write string");

        // System tree: machine -> one node per host.
        const OTF2_StringRef machine = strings_.ref("machine");
        check(OTF2_GlobalDefWriter_WriteSystemTreeNode(w, 0, machine, machine,
                                                       OTF2_UNDEFINED_SYSTEM_TREE_NODE),
              "write system tree node");
        OTF2_SystemTreeNodeRef next_node = 1;
        for (auto& [host, node] : host_nodes_) {
            node = next_node++;
            check(OTF2_GlobalDefWriter_WriteSystemTreeNode(w, node, strings_.ref(host),
                                                           strings_.ref("node"), 0),
                  "write system tree node");
        }
        auto host_node = [&](const Location& loc) { return host_nodes_.at(host_of(loc)); };

        // One PROCESS location group per rank (id = rank), then the locations.
        for (std::size_t r = 0; r < first_location_of_rank_.size(); ++r) {
            const Location& first = defs_.locations[first_location_of_rank_[r]];
            check(OTF2_GlobalDefWriter_WriteLocationGroup(
                      w, static_cast<OTF2_LocationGroupRef>(r), strings_.ref(rank_name(r)),
                      OTF2_LOCATION_GROUP_TYPE_PROCESS, host_node(first),
                      OTF2_UNDEFINED_LOCATION_GROUP),
                  "write location group");
        }
        for (std::size_t l = 0; l < defs_.locations.size(); ++l) {
            const Location& loc = defs_.locations[l];
            uint64_t written = 0;
            for (const Event& e : trace_.locations[l].events) written += e.kind != EventKind::Other;
            check(OTF2_GlobalDefWriter_WriteLocation(w, loc.otf2_id, strings_.ref(loc.name),
                                                     OTF2_LOCATION_TYPE_CPU_THREAD, written,
                                                     loc.rank),
                  "write location");
        }

        for (std::size_t i = 0; i < defs_.regions.size(); ++i) {
            const Region& r = defs_.regions[i];
            check(OTF2_GlobalDefWriter_WriteRegion(
                      w, static_cast<OTF2_RegionRef>(i), strings_.ref(r.name),
                      strings_.ref(canonical_of(r)), strings_.optional_ref(r.description),
                      to_otf2(r.role), to_otf2(r.paradigm), OTF2_REGION_FLAG_NONE,
                      strings_.optional_ref(r.source_file), 0, 0),
                  "write region");
        }

        write_communicators(w);

        for (std::size_t i = 0; i < defs_.parameters.size(); ++i) {
            const Parameter& p = defs_.parameters[i];
            check(OTF2_GlobalDefWriter_WriteParameter(w, static_cast<OTF2_ParameterRef>(i),
                                                      strings_.ref(p.name), to_otf2(p.type)),
                  "write parameter");
        }

        write_topologies(w);
    }

    void write_communicators(OTF2_GlobalDefWriter* w) {
        if (defs_.communicators.empty()) return;
        // The COMM_LOCATIONS group comes first: COMM_GROUP members index into it.
        std::vector<uint64_t> comm_locations;
        for (uint32_t l : first_location_of_rank_)
            comm_locations.push_back(defs_.locations[l].otf2_id);
        OTF2_GroupRef next_group = 0;
        const OTF2_StringRef empty = strings_.ref("");
        check(OTF2_GlobalDefWriter_WriteGroup(
                  w, next_group++, empty, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                  OTF2_GROUP_FLAG_NONE, static_cast<uint32_t>(comm_locations.size()),
                  comm_locations.data()),
              "write group");
        // Communicators with equal members share one COMM_GROUP, as in Score-P traces.
        std::map<std::vector<uint32_t>, OTF2_GroupRef> groups;
        OTF2_GroupRef self_group = OTF2_UNDEFINED_GROUP;
        std::vector<OTF2_GroupRef> group_of_comm;
        for (const Communicator& c : defs_.communicators) {
            if (c.is_self) {
                if (self_group == OTF2_UNDEFINED_GROUP) {
                    self_group = next_group++;
                    check(OTF2_GlobalDefWriter_WriteGroup(
                              w, self_group, empty, OTF2_GROUP_TYPE_COMM_SELF, OTF2_PARADIGM_MPI,
                              OTF2_GROUP_FLAG_NONE, 0, nullptr),
                          "write group");
                }
                group_of_comm.push_back(self_group);
                continue;
            }
            auto [it, added] = groups.emplace(c.members, next_group);
            if (added) {
                ++next_group;
                std::vector<uint64_t> members(c.members.begin(), c.members.end());
                check(OTF2_GlobalDefWriter_WriteGroup(
                          w, it->second, empty, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                          OTF2_GROUP_FLAG_NONE, static_cast<uint32_t>(members.size()),
                          members.data()),
                      "write group");
            }
            group_of_comm.push_back(it->second);
        }
        for (std::size_t i = 0; i < defs_.communicators.size(); ++i) {
            const Communicator& c = defs_.communicators[i];
            check(OTF2_GlobalDefWriter_WriteComm(
                      w, static_cast<OTF2_CommRef>(i), strings_.ref(c.name), group_of_comm[i],
                      c.parent == kNone ? OTF2_UNDEFINED_COMM : c.parent, OTF2_COMM_FLAG_NONE),
                  "write communicator");
        }
    }

    void write_topologies(OTF2_GlobalDefWriter* w) {
        OTF2_CartDimensionRef next_dim = 0;
        for (std::size_t i = 0; i < defs_.topologies.size(); ++i) {
            const CartTopology& t = defs_.topologies[i];
            std::vector<OTF2_CartDimensionRef> dims;
            for (const CartDimension& d : t.dims) {
                dims.push_back(next_dim++);
                check(OTF2_GlobalDefWriter_WriteCartDimension(
                          w, dims.back(), strings_.ref(d.name), d.size,
                          d.periodic ? OTF2_CART_PERIODIC_TRUE : OTF2_CART_PERIODIC_FALSE),
                      "write cart dimension");
            }
            const OTF2_CartTopologyRef ref = static_cast<OTF2_CartTopologyRef>(i);
            check(OTF2_GlobalDefWriter_WriteCartTopology(
                      w, ref, strings_.ref(t.name),
                      t.communicator == kNone ? OTF2_UNDEFINED_COMM : t.communicator,
                      static_cast<uint8_t>(dims.size()), dims.data()),
                  "write cart topology");
            for (std::size_t rank = 0; rank < t.coords_by_rank.size(); ++rank) {
                const std::vector<uint32_t>& coords = t.coords_by_rank[rank];
                if (coords.empty()) continue;
                check(OTF2_GlobalDefWriter_WriteCartCoordinate(w, ref, static_cast<uint32_t>(rank),
                                                               static_cast<uint8_t>(coords.size()),
                                                               coords.data()),
                      "write cart coordinate");
            }
        }
    }

    const Trace& trace_;
    const Definitions& defs_;
    fs::path dir_;
    WriteOptions options_;
    StringTable strings_;
    Otf2ErrorCapture capture_;
    std::unique_ptr<OTF2_Archive, ArchiveCloser> archive_;
    std::map<std::string, OTF2_SystemTreeNodeRef> host_nodes_;
    std::vector<uint32_t> first_location_of_rank_;
};

// OTF2_Archive_Open fails late on an existing archive, so an earlier one is removed first;
// anything that does not look like an archive is left alone.
void clear_target(const fs::path& dir, const std::string& name) {
    std::error_code ec;
    fs::file_status st = fs::symlink_status(dir, ec);
    if (!fs::exists(st)) {
        if (dir.has_parent_path()) fs::create_directories(dir.parent_path(), ec);
        return;
    }
    if (!fs::is_directory(st)) throw TraceError(dir.string() + ": exists and is not a directory");
    bool empty = fs::is_empty(dir, ec);
    if (!empty && !fs::exists(dir / (name + ".otf2")))
        throw TraceError(dir.string() + ": refusing to replace a directory that is not an OTF2 "
                                        "archive");
    fs::remove_all(dir, ec);
    if (ec) throw TraceError(dir.string() + ": cannot remove the old archive: " + ec.message());
}

} // namespace

std::string write_otf2(const Trace& trace, const std::string& dir, const WriteOptions& options) {
    validate(trace);
    fs::path target = fs::absolute(dir).lexically_normal();
    if (target.filename().empty()) target = target.parent_path(); // "dir/" -> "dir"
    clear_target(target, options.archive_name);
    ArchiveWriter(trace, target, options).write();
    return (target / (options.archive_name + ".otf2")).string();
}

} // namespace topolens::trace
