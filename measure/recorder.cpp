#include "recorder.h"

#include "dying.h"
#include "recorder_state.h"

#include <cstdio>
#include <fstream>
#include <unistd.h>

namespace topolens::measure {

RecorderState& state() {
    static RecorderState instance;
    return instance;
}

void warn_once(const std::string& message) {
    if (state().warned.insert(message).second)
        std::fprintf(stderr, "topolens: %s\n", message.c_str());
}

bool recording() {
    const RecorderState& s = state();
    return s.active && !s.in_mpi;
}

// ---------------------------------------------------------------- lifecycle

namespace {

// Shows messages once for the whole run: from rank 0 only.
void report(const std::vector<std::string>& messages) {
    if (state().rank != 0) return;
    for (const auto& message : messages) std::fprintf(stderr, "topolens: %s\n", message.c_str());
}

void define_mpi_regions(RecorderState& s) {
    for (size_t fn = 0; fn < static_cast<size_t>(MpiFn::Count); ++fn) {
        RegionDefinition region;
        region.name = kMpiFunctions[fn].name;
        region.canonical_name = region.name;
        region.source_file = "MPI"; // how Score-P and Scalasca recognise MPI regions
        region.role = kMpiFunctions[fn].role;
        region.paradigm = OTF2_PARADIGM_MPI;
        s.mpi_regions[fn] = s.definitions.region(region);
    }
}

// Rank 0 decides where the trace goes; everyone learns the path or the reason it failed.
bool agree_on_directory(RecorderState& s) {
    std::string error;
    std::vector<std::string> notes;
    std::string path;
    if (s.rank == 0) path = prepare_trace_directory(s.config.trace_dir, error, notes);
    report(notes);
    int length = static_cast<int>(path.size());
    PMPI_Bcast(&length, 1, MPI_INT, 0, s.tool_comm);
    path.resize(static_cast<size_t>(length));
    PMPI_Bcast(path.data(), length, MPI_CHAR, 0, s.tool_comm);
    if (path.empty()) {
        report({error + "; measurement is off, the program runs on"});
        return false;
    }
    s.directory = path;
    return true;
}

uint64_t to_global(Timestamp local, const ClockSample& sample) {
    return static_cast<uint64_t>(static_cast<int64_t>(local) + sample.offset);
}

std::string host_name() {
    char name[256] = {};
    gethostname(name, sizeof name - 1);
    return name;
}

void write_report_path(const RecorderState& s) {
    if (s.rank != 0 || s.config.report_path_file.empty()) return;
    std::ofstream out(s.config.report_path_file);
    out << s.directory << '\n';
    if (!out)
        warn_once("cannot write TOPOLENS_REPORT_PATH_FILE '" + s.config.report_path_file + "'");
}

void close_open_user_activity(RecorderState& s, Timestamp time) {
    for (auto& op : s.tuned)
        if (op.executing) {
            warn_once("tuned operation '" + op.name + "' was still executing at MPI_Finalize");
            if (op.executing_codelet >= 0)
                OTF2_EvtWriter_Leave(s.events, nullptr, time,
                                     op.codelet_regions[op.executing_codelet]);
            OTF2_EvtWriter_Leave(s.events, nullptr, time, op.region);
            op.executing = false;
        }
    while (!s.user_region_stack.empty()) {
        const uint32_t region = s.user_region_stack.back();
        warn_once("region '" + s.definitions.regions()[region].name +
                  "' was still open at MPI_Finalize");
        OTF2_EvtWriter_Leave(s.events, nullptr, time, region);
        s.user_region_stack.pop_back();
    }
}

} // namespace

void start_measurement(MpiFn init_fn, Timestamp enter_time) {
    RecorderState& s = state();
    if (s.started) return; // MPI_Init and MPI_Init_thread are allowed once per process
    s.started = true;
    PMPI_Comm_rank(MPI_COMM_WORLD, &s.rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &s.size);

    std::vector<std::string> problems;
    s.config = read_config(problems);
    report(problems);
    if (!s.config.enabled) return;

    PMPI_Comm_dup(MPI_COMM_WORLD, &s.tool_comm);
    if (!agree_on_directory(s)) return;
    std::string error;
    if (!s.archive.open(s.directory, s.config.buffer_bytes, s.tool_comm, s.rank, error)) {
        report({error + "; measurement is off, the program runs on"});
        return;
    }
    s.events = s.archive.events();
    define_mpi_regions(s);
    s.communicators.start(s.rank);
    s.same_clock = shares_reference_clock(s.tool_comm);
    s.clock.push_back(measure_clock_offset(s.tool_comm, s.same_clock));
    // The end of MPI_Init is a global synchronisation point for analyzers.
    PMPI_Barrier(s.tool_comm);
    s.first_time = enter_time;
    OTF2_EvtWriter_Enter(s.events, nullptr, enter_time,
                         s.mpi_regions[static_cast<size_t>(init_fn)]);
    OTF2_EvtWriter_Leave(s.events, nullptr, now(), s.mpi_regions[static_cast<size_t>(init_fn)]);
    s.active = true;
    write_report_path(s); // known now: a run that dies still says where its trace is
    arm_death_records();
}

void finish_measurement(Timestamp enter_time) {
    RecorderState& s = state();
    if (!s.active) {
        if (s.tool_comm != MPI_COMM_NULL) PMPI_Comm_free(&s.tool_comm);
        return;
    }
    const uint32_t finalize = s.mpi_regions[static_cast<size_t>(MpiFn::Finalize)];
    close_open_user_activity(s, enter_time);
    OTF2_EvtWriter_Enter(s.events, nullptr, enter_time, finalize);
    s.clock.push_back(measure_clock_offset(s.tool_comm, s.same_clock));
    // The end of MPI_Finalize is a global synchronisation point too: analyzers (Scalasca,
    // topolens) take no process to leave it before the last one entered.
    PMPI_Barrier(s.tool_comm);
    const Timestamp last_time = now();
    OTF2_EvtWriter_Leave(s.events, nullptr, last_time, finalize);
    s.active = false;

    ProcessContribution mine;
    mine.host = host_name();
    mine.event_count = s.archive.close_events();
    s.events = nullptr;
    note_events_closed(mine.event_count);
    mine.first_time = to_global(s.first_time, s.clock.front());
    mine.last_time = to_global(last_time, s.clock.back());
    mine.strings = s.definitions.strings();
    mine.regions = s.definitions.regions();
    mine.parameters = s.definitions.parameters();
    mine.comm_keys = s.communicators.keys();
    mine.owned_comms = s.communicators.owned();
    mine.topologies = s.topologies;

    // Everyone's definitions to rank 0; each process's id mappings back.
    const std::vector<char> bytes = serialize(mine);
    int length = static_cast<int>(bytes.size());
    std::vector<int> lengths(s.rank == 0 ? s.size : 0), displacements;
    PMPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, s.tool_comm);
    std::vector<char> gathered;
    if (s.rank == 0) {
        displacements.resize(s.size);
        for (int p = 1; p < s.size; ++p) displacements[p] = displacements[p - 1] + lengths[p - 1];
        gathered.resize(static_cast<size_t>(displacements.back() + lengths.back()));
    }
    PMPI_Gatherv(bytes.data(), length, MPI_CHAR, gathered.data(), lengths.data(),
                 displacements.data(), MPI_CHAR, 0, s.tool_comm);

    std::vector<uint64_t> flat_mappings; // per process: 4 counts, then the four tables
    std::vector<int> mapping_lengths(s.size), mapping_displacements(s.size);
    if (s.rank == 0) {
        std::vector<ProcessContribution> all;
        for (int p = 0; p < s.size; ++p)
            all.push_back(deserialize(gathered.data() + displacements[p], lengths[p]));
        std::vector<std::string> warnings;
        const std::vector<IdMappings> mappings =
            write_global_definitions(all, s.archive.global_definitions(), warnings);
        report(warnings);
        for (int p = 0; p < s.size; ++p) {
            mapping_displacements[p] = static_cast<int>(flat_mappings.size());
            const IdMappings& m = mappings[p];
            for (const auto* table : {&m.strings, &m.regions, &m.parameters, &m.comms})
                flat_mappings.push_back(table->size());
            for (const auto* table : {&m.strings, &m.regions, &m.parameters, &m.comms})
                flat_mappings.insert(flat_mappings.end(), table->begin(), table->end());
            mapping_lengths[p] = static_cast<int>(flat_mappings.size()) - mapping_displacements[p];
        }
    }
    int my_length = 0;
    PMPI_Scatter(mapping_lengths.data(), 1, MPI_INT, &my_length, 1, MPI_INT, 0, s.tool_comm);
    std::vector<uint64_t> my_flat(static_cast<size_t>(my_length));
    PMPI_Scatterv(flat_mappings.data(), mapping_lengths.data(), mapping_displacements.data(),
                  MPI_UINT64_T, my_flat.data(), my_length, MPI_UINT64_T, 0, s.tool_comm);
    IdMappings my_mappings;
    size_t position = 4;
    std::vector<uint64_t>* tables[] = {&my_mappings.strings, &my_mappings.regions,
                                       &my_mappings.parameters, &my_mappings.comms};
    for (int t = 0; t < 4; ++t) {
        tables[t]->assign(my_flat.begin() + static_cast<long>(position),
                          my_flat.begin() + static_cast<long>(position + my_flat[t]));
        position += my_flat[t];
    }
    s.archive.write_local_definitions(s.rank, my_mappings, s.clock);
    s.archive.close();
    if (s.config.verbose && s.rank == 0)
        std::fprintf(stderr, "topolens: trace written to %s\n", s.directory.c_str());
    if (s.archive.flushes() > 0 && s.config.verbose)
        std::fprintf(stderr, "topolens: rank %d flushed its event buffer %llu times\n", s.rank,
                     static_cast<unsigned long long>(s.archive.flushes()));
    write_report_path(s);
    disarm_death_records();
    PMPI_Comm_free(&s.tool_comm);
}

// ---------------------------------------------------------------- events

namespace {

inline OTF2_EvtWriter* writer() {
    return state().events;
}

inline uint32_t comm_id(MPI_Comm comm) {
    return state().communicators.local_id(comm);
}

} // namespace

namespace {
MpiEnterHook mpi_enter_hook = nullptr;
} // namespace

void set_mpi_enter_hook(MpiEnterHook hook) {
    mpi_enter_hook = hook;
}

void enter_mpi(MpiFn fn) {
    if (mpi_enter_hook) [[unlikely]]
        mpi_enter_hook(fn);
    RecorderState& s = state();
    s.in_mpi = true;
    OTF2_EvtWriter_Enter(s.events, nullptr, now(), s.mpi_regions[static_cast<size_t>(fn)]);
}

void leave_mpi(MpiFn fn) {
    RecorderState& s = state();
    if (s.events) // MPI_Finalize closes the writer before its own region ends
        OTF2_EvtWriter_Leave(s.events, nullptr, now(), s.mpi_regions[static_cast<size_t>(fn)]);
    s.in_mpi = false;
}

uint64_t message_bytes(int count, MPI_Datatype type) {
    if (count <= 0 || type == MPI_DATATYPE_NULL) return 0;
    int size = 0;
    if (PMPI_Type_size(type, &size) != MPI_SUCCESS || size < 0) return 0;
    return static_cast<uint64_t>(count) * static_cast<uint64_t>(size);
}

void send_event(MPI_Comm comm, int dest, int tag, uint64_t bytes) {
    const uint32_t id = comm_id(comm);
    if (dest == MPI_PROC_NULL || dest < 0 || id == Communicators::kUnknown) return;
    OTF2_EvtWriter_MpiSend(writer(), nullptr, now(), static_cast<uint32_t>(dest), id,
                           static_cast<uint32_t>(tag), bytes);
}

void recv_event(MPI_Comm comm, const MPI_Status& status) {
    const uint32_t id = comm_id(comm);
    if (status.MPI_SOURCE == MPI_PROC_NULL || status.MPI_SOURCE < 0 ||
        id == Communicators::kUnknown)
        return;
    int bytes = 0;
    PMPI_Get_count(&status, MPI_BYTE, &bytes);
    OTF2_EvtWriter_MpiRecv(writer(), nullptr, now(), static_cast<uint32_t>(status.MPI_SOURCE), id,
                           static_cast<uint32_t>(status.MPI_TAG),
                           bytes == MPI_UNDEFINED ? 0 : static_cast<uint64_t>(bytes));
}

void isend_started(MPI_Comm comm, int dest, int tag, uint64_t bytes, MPI_Request request) {
    RecorderState& s = state();
    RequestInfo info;
    info.comm = comm_id(comm);
    if (dest == MPI_PROC_NULL || dest < 0 || info.comm == Communicators::kUnknown) {
        s.requests.add(request, info); // completes without a message record
        return;
    }
    info.kind = RequestInfo::Kind::Send;
    info.id = s.requests.next_id();
    info.peer = dest;
    info.tag = tag;
    info.bytes = bytes;
    s.requests.add(request, info);
    OTF2_EvtWriter_MpiIsend(s.events, nullptr, now(), static_cast<uint32_t>(dest), info.comm,
                            static_cast<uint32_t>(tag), bytes, info.id);
}

void irecv_started(MPI_Comm comm, int source, MPI_Request request) {
    RecorderState& s = state();
    RequestInfo info;
    info.comm = comm_id(comm);
    if (source != MPI_PROC_NULL && info.comm != Communicators::kUnknown) {
        info.kind = RequestInfo::Kind::Recv;
        info.id = s.requests.next_id();
        OTF2_EvtWriter_MpiIrecvRequest(s.events, nullptr, now(), info.id);
    }
    s.requests.add(request, info);
}

void persistent_created(PersistentKind kind, MPI_Comm comm, int peer, int tag, uint64_t bytes,
                        MPI_Request request) {
    RequestInfo info;
    info.comm = comm_id(comm);
    info.persistent = true;
    const bool null_peer = peer == MPI_PROC_NULL || info.comm == Communicators::kUnknown;
    info.kind = null_peer ? RequestInfo::Kind::Null
                          : (kind == PersistentKind::Send ? RequestInfo::Kind::Send
                                                          : RequestInfo::Kind::Recv);
    info.peer = peer;
    info.tag = tag;
    info.bytes = bytes;
    state().requests.add(request, info);
}

void persistent_started(MPI_Request request) {
    RecorderState& s = state();
    RequestInfo* info = s.requests.find(request);
    if (!info || !info->persistent) return;
    info->active = true;
    if (info->kind == RequestInfo::Kind::Null) return;
    info->id = s.requests.next_id();
    if (info->kind == RequestInfo::Kind::Send)
        OTF2_EvtWriter_MpiIsend(s.events, nullptr, now(), static_cast<uint32_t>(info->peer),
                                info->comm, static_cast<uint32_t>(info->tag), info->bytes,
                                info->id);
    else
        OTF2_EvtWriter_MpiIrecvRequest(s.events, nullptr, now(), info->id);
}

void request_completed(MPI_Request request, const MPI_Status& status) {
    RecorderState& s = state();
    if (request == MPI_REQUEST_NULL) return;
    RequestInfo* info = s.requests.find(request);
    if (!info) return; // a request of an operation we do not record (e.g. a collective)
    if (info->persistent && !info->active) return; // an inactive persistent request
    int cancelled = 0;
    PMPI_Test_cancelled(&status, &cancelled);
    if (cancelled && info->kind != RequestInfo::Kind::Null) {
        OTF2_EvtWriter_MpiRequestCancelled(s.events, nullptr, now(), info->id);
    } else if (info->kind == RequestInfo::Kind::Send) {
        OTF2_EvtWriter_MpiIsendComplete(s.events, nullptr, now(), info->id);
    } else if (info->kind == RequestInfo::Kind::Recv) {
        int bytes = 0;
        PMPI_Get_count(&status, MPI_BYTE, &bytes);
        OTF2_EvtWriter_MpiIrecv(s.events, nullptr, now(), static_cast<uint32_t>(status.MPI_SOURCE),
                                info->comm, static_cast<uint32_t>(status.MPI_TAG),
                                bytes == MPI_UNDEFINED ? 0 : static_cast<uint64_t>(bytes),
                                info->id);
    }
    if (info->persistent)
        info->active = false;
    else
        s.requests.erase(request);
}

void request_tested(MPI_Request request) {
    RecorderState& s = state();
    if (request == MPI_REQUEST_NULL) return;
    RequestInfo* info = s.requests.find(request);
    if (!info || info->kind == RequestInfo::Kind::Null) return;
    if (info->persistent && !info->active) return;
    OTF2_EvtWriter_MpiRequestTest(s.events, nullptr, now(), info->id);
}

void request_freed(MPI_Request request) {
    // An active nonpersistent request freed by the program still completes inside MPI; we
    // can no longer observe it, so it is forgotten here.
    state().requests.erase(request);
}

void collective_begin() {
    OTF2_EvtWriter_MpiCollectiveBegin(writer(), nullptr, now());
}

void collective_end(OTF2_CollectiveOp op, MPI_Comm comm, int root, uint64_t bytes_sent,
                    uint64_t bytes_received) {
    const uint32_t id = comm_id(comm);
    OTF2_EvtWriter_MpiCollectiveEnd(
        writer(), nullptr, now(), op, id == Communicators::kUnknown ? OTF2_UNDEFINED_COMM : id,
        root < 0 ? OTF2_UNDEFINED_UINT32 : static_cast<uint32_t>(root), bytes_sent, bytes_received);
}

// ---------------------------------------------------------------- communicators

void communicator_created(MPI_Comm created, MPI_Comm parent, const char* how) {
    state().communicators.add(created, parent, how);
}

void cartesian_communicator_created(MPI_Comm created, MPI_Comm parent, const char* how) {
    RecorderState& s = state();
    const uint32_t id = s.communicators.add(created, parent, how);
    if (id == Communicators::kUnknown) return;
    int ndims = 0;
    PMPI_Cartdim_get(created, &ndims);
    TopologyRecord record;
    record.comm_key = s.communicators.key_of(id);
    record.creation = s.topologies.size();
    record.how = how;
    record.dims.resize(static_cast<size_t>(ndims));
    record.periods.resize(static_cast<size_t>(ndims));
    record.coords.resize(static_cast<size_t>(ndims));
    if (ndims > 0)
        PMPI_Cart_get(created, ndims, record.dims.data(), record.periods.data(),
                      record.coords.data());
    PMPI_Comm_rank(created, &record.rank);
    s.topologies.push_back(std::move(record));
}

void communicator_freed(MPI_Comm comm) {
    state().communicators.remove(comm);
}

} // namespace topolens::measure
