#include "recorder.h"

#include "dying.h"
#include "function_hooks.h"
#include "recorder_state.h"

#include "otf2_errors.h"
#include "program.h"

#include "trace/program_encoding.h"

#include <cstdio>
#include <fstream>
#include <optional>
#include <unistd.h>

namespace topolens::measure {

RecorderState& state() {
    static RecorderState instance;
    return instance;
}

void warn_once(const std::string& message) {
    static std::mutex guard; // its own: warnings come also from under shared_lock()
    std::lock_guard<std::mutex> lock(guard);
    if (state().warned.insert(message).second)
        std::fprintf(stderr, "topolens: %s\n", message.c_str());
}

namespace {

thread_local ThreadLocation* this_thread = nullptr;

// When a recording thread ends, its location is free for the next new thread (as Score-P
// reuses the locations of ended threads): a program that starts a thread per task does not
// get a location per task. Its events stay in time order: the next thread starts later.
struct ThreadEnd {
    ~ThreadEnd() {
        ThreadLocation* location = this_thread;
        this_thread = nullptr;
        if (!location || location->number == 0) return;
        RecorderState& s = state();
        std::lock_guard<std::mutex> lock(s.mutex);
        if (!s.active) return; // finalized: the writers are closed
        if (!location->user_region_stack.empty()) {
            warn_once("a thread ended inside a topolens region; the region ends with it");
            for (auto region = location->user_region_stack.rbegin();
                 region != location->user_region_stack.rend(); ++region)
                record_leave_to(s, location->events, location->profile, *region, now());
            location->user_region_stack.clear();
        }
        location->in_mpi = false;
        s.free_threads.insert(location->number);
    }
};
thread_local ThreadEnd thread_end;

} // namespace

ThreadLocation& thread_location() {
    if (this_thread) [[likely]]
        return *this_thread;
    RecorderState& s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    (void)&thread_end; // registers the end of this thread
    if (!s.free_threads.empty()) {
        this_thread = s.threads[*s.free_threads.begin()].get();
        s.free_threads.erase(s.free_threads.begin());
        return *this_thread;
    }
    auto location = std::make_unique<ThreadLocation>();
    location->number = static_cast<uint32_t>(s.threads.size());
    // Score-P's numbering: the thread number above the rank; thread 0 keeps id = rank.
    if (s.config.trace) // profile mode alone: no archive
        location->events = s.archive.thread_events(thread_location_id(s.rank, location->number));
    this_thread = location.get();
    s.threads.push_back(std::move(location));
    return *this_thread;
}

OTF2_EvtWriter* event_writer() {
    RecorderState& s = state();
    if (!s.threaded) [[likely]]
        return s.events;
    if (s.write_failed) [[unlikely]]
        return nullptr;
    return thread_location().events;
}

std::vector<uint32_t>& user_region_stack() {
    RecorderState& s = state();
    if (!s.threaded) [[likely]]
        return s.user_region_stack;
    return thread_location().user_region_stack;
}

std::unique_lock<std::mutex> shared_lock() {
    RecorderState& s = state();
    if (!s.threaded) [[likely]]
        return {};
    return std::unique_lock<std::mutex>(s.mutex);
}

bool on_init_thread(const char* what) {
    if (!state().threaded || thread_location().number == 0) return true;
    warn_once(std::string(what) +
              " on a thread other than the one that called MPI_Init: at "
              "MPI_THREAD_SERIALIZED and MPI_THREAD_MULTIPLE it is recorded on that thread "
              "only; not recorded");
    return false;
}

void copy_definitions(const RecorderState& s, ProcessContribution& c) {
    c.strings = s.definitions.strings();
    c.regions = s.definitions.regions();
    c.parameters = s.definitions.parameters();
    c.comm_keys = s.communicators.keys();
    c.owned_comms = s.communicators.owned();
    c.topologies = s.topologies;
}

bool recording() {
    const RecorderState& s = state();
    if (!s.threaded) [[likely]]
        return s.active && !s.in_mpi;
    return s.active && !thread_location().in_mpi;
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

// The program region as Scalasca's reader finds the region a ProgramBegin enters
// (trace/program_encoding.h); returns when the program started.
Timestamp define_program(RecorderState& s) {
    const ProgramInfo program = program_info();
    RegionDefinition region;
    region.name = trace::program_region_name(program.name);
    region.canonical_name = trace::program_canonical_name(program.name, program.arguments);
    region.role = OTF2_REGION_ROLE_ARTIFICIAL;
    region.paradigm = OTF2_PARADIGM_MEASUREMENT_SYSTEM;
    s.program_region = s.definitions.region(region);
    s.program_name = s.definitions.string(program.name);
    s.program_arguments.clear();
    for (const std::string& argument : program.arguments)
        s.program_arguments.push_back(s.definitions.string(argument));
    return program.start;
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

// At MPI_Init: the directory alone, so that a run that dies still says where its trace is
// (report_outcome rewrites the file with the trace's state at the end).
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
                record_leave(s, op.codelet_regions[op.executing_codelet], time);
            record_leave(s, op.region, time);
            op.executing = false;
        }
    auto close_regions = [&](std::vector<uint32_t>& stack, OTF2_EvtWriter* events,
                             CallTree& profile) {
        while (!stack.empty()) {
            const uint32_t region = stack.back();
            warn_once("region '" + s.definitions.regions()[region].name +
                      "' was still open at MPI_Finalize");
            record_leave_to(s, events, profile, region, time);
            stack.pop_back();
        }
    };
    if (!s.threaded) {
        close_regions(s.user_region_stack, s.events, s.profile);
        return;
    }
    for (auto& thread : s.threads)
        close_regions(thread->user_region_stack, thread->events, thread->profile);
}

// The thread level decides how the run is recorded (before the archive opens: threads
// need OTF2's locking); said once, by rank 0, at MPI_Init when verbose.
void choose_thread_mode(RecorderState& s) {
    int provided = MPI_THREAD_SINGLE;
    PMPI_Query_thread(&provided);
    s.threaded = provided == MPI_THREAD_SERIALIZED || provided == MPI_THREAD_MULTIPLE;
    if (s.threaded && s.config.verbose)
        report({std::string(provided == MPI_THREAD_MULTIPLE ? "MPI_THREAD_MULTIPLE"
                                                            : "MPI_THREAD_SERIALIZED") +
                ": each thread that calls MPI is recorded as its own location; tuned "
                "operations and topolens topologies on the thread that called MPI_Init only"});
}

// The thread that called MPI_Init is thread 0, with the process's first writer.
void adopt_init_thread(RecorderState& s) {
    if (!s.threaded) return;
    s.requests.set_threaded(true);
    auto master = std::make_unique<ThreadLocation>();
    master->events = s.events;
    this_thread = master.get();
    s.threads.push_back(std::move(master));
}

} // namespace

void start_measurement(MpiFn init_fn, Timestamp enter_time) {
    RecorderState& s = state();
    if (s.started) return; // MPI_Init and MPI_Init_thread are allowed once per process
    s.started = true;
    // However MPI_Init ends, instrumented functions learn whether they are recorded.
    struct FunctionsAfterStart {
        RecorderState& s;
        ~FunctionsAfterStart() { functions_after_start(s); }
    } functions_after{s};
    PMPI_Comm_rank(MPI_COMM_WORLD, &s.rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &s.size);

    std::vector<std::string> problems;
    s.config = read_config(problems);
    report(problems);
    if (!s.config.enabled) return;

    PMPI_Comm_dup(MPI_COMM_WORLD, &s.tool_comm);
    if (!agree_on_directory(s)) return;
    choose_thread_mode(s);
    std::string error;
    if (s.config.trace) { // profile mode alone writes no trace
        if (!s.archive.open(s.directory, s.config.buffer_bytes, s.tool_comm, s.rank, s.threaded,
                            error)) {
            report({error + "; measurement is off, the program runs on"});
            s.threaded = false;
            return;
        }
        s.events = s.archive.events();
    }
    s.otf2_error_mark = otf2_errors::count();
    adopt_init_thread(s);
    define_mpi_regions(s);
    const Timestamp program_start = define_program(s);
    s.communicators.start(s.rank);
    s.same_clock = shares_reference_clock(s.tool_comm);
    s.clock.push_back(measure_clock_offset(s.tool_comm, s.same_clock));
    // The end of MPI_Init is a global synchronisation point for analyzers.
    PMPI_Barrier(s.tool_comm);
    // The program region spans the run from the library's load (before main; MPI_Init's
    // enter if MPI_Init came first, from a constructor) to the end of MPI_Finalize.
    s.first_time = program_start > 0 && program_start <= enter_time ? program_start : enter_time;
    s.init_time = enter_time;
    record([&](OTF2_EvtWriter* w) {
        return OTF2_EvtWriter_ProgramBegin(w, nullptr, s.first_time, s.program_name,
                                           static_cast<uint32_t>(s.program_arguments.size()),
                                           s.program_arguments.data());
    });
    if (CallTree* tree = profile_tree(s)) tree->enter(s.program_region, s.first_time);
    functions_begin_recording(s, s.first_time, enter_time); // main and what it called so far
    const uint32_t init = s.mpi_regions[static_cast<size_t>(init_fn)];
    record_enter(s, init, enter_time);
    record_leave(s, init, now());
    s.active = s.events != nullptr || !s.config.trace;
    write_report_path(s); // known now: a run that dies still says where its trace is
    if (s.config.trace) arm_death_records(); // a profile is written at MPI_Finalize only
}

void stop_recording(OTF2_ErrorCode rc) {
    RecorderState& s = state();
    // Once per process, also when several threads' writes fail at the same time.
    if (s.write_failed.exchange(true) || s.outcome.error != 0) return;
    // OTF2 reports the failing system call first (e.g. ENOSPC), then each layer above it.
    const OTF2_ErrorCode reported = otf2_errors::first_since(s.otf2_error_mark);
    s.outcome.error = reported != OTF2_SUCCESS ? reported : rc;
    s.outcome.stage = static_cast<int32_t>(WriteStage::Run);
    s.outcome.seconds = static_cast<double>(now() - s.init_time) / kTicksPerSecond;
    s.outcome.events = s.archive.recorded_events(); // nothing is written or flushed again
    s.archive.abandon_events();
    s.events = nullptr;
    s.active = false;
    std::fprintf(stderr, "topolens: %s\n", write_failure_line(s.rank, s.outcome).c_str());
}

namespace {

// A failure while finishing the trace, kept unless the rank failed before.
void finalize_failed(RecorderState& s, OTF2_ErrorCode rc, WriteStage stage) {
    if (rc == OTF2_SUCCESS || s.outcome.error != 0) return;
    s.outcome.error = rc;
    s.outcome.stage = static_cast<int32_t>(stage);
    s.outcome.seconds = static_cast<double>(now() - s.init_time) / kTicksPerSecond;
    std::fprintf(stderr, "topolens: %s\n", write_failure_line(s.rank, s.outcome).c_str());
}

// Collective. Whether this rank may close its event writer. OTF2 3.0 crashes when a write
// fails inside a close whose bytes pass its full write-behind buffer (Archive::
// abandon_events), so such closes only go ahead when the disk has room for them: rank 0
// counts the bytes of every close, the safe ones first, then grants the others in rank
// order. A rank refused keeps its writer abandoned, as if its write had failed; only a disk
// filled from elsewhere at the same time can still bring the crash.
bool room_to_close_events(RecorderState& s) {
    // Slack per rank: pages of the file system, the local definitions.
    constexpr uint64_t kSlack = 64 << 10;
    PendingEvents mine;
    if (!s.archive.events_abandoned()) mine = s.archive.pending_events();
    const uint64_t request[2] = {mine.bytes + kSlack, mine.through_full_buffer ? 1u : 0u};
    std::vector<uint64_t> all(s.rank == 0 ? 2 * static_cast<size_t>(s.size) : 0);
    PMPI_Gather(request, 2, MPI_UINT64_T, all.data(), 2, MPI_UINT64_T, 0, s.tool_comm);
    std::vector<int> granted(s.rank == 0 ? static_cast<size_t>(s.size) : 0, 1);
    if (s.rank == 0) {
        const uint64_t free = free_disk_bytes(s.directory);
        uint64_t used = 0;
        for (size_t r = 0; r < granted.size(); ++r)
            if (!all[2 * r + 1]) used += all[2 * r];
        for (size_t r = 0; r < granted.size(); ++r) {
            if (!all[2 * r + 1]) continue;
            granted[r] = used <= free && all[2 * r] <= free - used;
            if (granted[r]) used += all[2 * r];
        }
    }
    int ok = 1;
    PMPI_Scatter(granted.data(), 1, MPI_INT, &ok, 1, MPI_INT, 0, s.tool_comm);
    return ok != 0;
}

// Rank 0: what every rank wrote, said once, and told to `topolens run`.
void report_outcome(RecorderState& s, bool definitions_written, OTF2_ErrorCode definitions_error) {
    std::vector<RankOutcome> all(static_cast<size_t>(s.rank == 0 ? s.size : 0));
    PMPI_Gather(&s.outcome, sizeof(RankOutcome), MPI_BYTE, all.data(), sizeof(RankOutcome),
                MPI_BYTE, 0, s.tool_comm);
    if (s.rank != 0) return;
    const TraceStatus status = trace_status(all, definitions_written, definitions_error);
    bool told = false; // through the report file, to `topolens run`, which says it
    if (!s.config.report_path_file.empty()) {
        std::ofstream out(s.config.report_path_file);
        out << report_path_text(s.directory, status);
        told = static_cast<bool>(out);
        if (!told)
            warn_once("cannot write TOPOLENS_REPORT_PATH_FILE '" + s.config.report_path_file + "'");
    }
    if ((!status.complete && !told) || s.config.verbose)
        std::fprintf(stderr, "topolens: %s\n", trace_summary_line(s.directory, status).c_str());
}

} // namespace

void finish_measurement(Timestamp enter_time) {
    RecorderState& s = state();
    // A rank that stopped after a write error still takes part in every collective step.
    const bool measured = s.active || s.outcome.error != 0;
    if (!measured) {
        if (s.tool_comm != MPI_COMM_NULL) PMPI_Comm_free(&s.tool_comm);
        return;
    }
    const uint32_t finalize = s.mpi_regions[static_cast<size_t>(MpiFn::Finalize)];
    close_open_user_activity(s, enter_time);
    record_enter(s, finalize, enter_time);
    s.clock.push_back(measure_clock_offset(s.tool_comm, s.same_clock));
    // The end of MPI_Finalize is a global synchronisation point too: analyzers (Scalasca,
    // topolens) take no process to leave it before the last one entered.
    PMPI_Barrier(s.tool_comm);
    const Timestamp last_time = now();
    record_leave(s, finalize, last_time);
    functions_end_recording(s, last_time); // main and its callers of MPI_Finalize
    // The exit status is not known yet (Score-P's undefined value).
    record([&](OTF2_EvtWriter* w) {
        return OTF2_EvtWriter_ProgramEnd(w, nullptr, last_time, OTF2_UNDEFINED_INT64);
    });
    if (CallTree* tree = profile_tree(s)) tree->leave(last_time);
    {
        // Other threads must be done with MPI by now (MPI's rule); any late one records
        // nothing once `active` is off.
        std::unique_lock<std::mutex> lock = shared_lock();
        s.active = false;
    }
    if (s.config.profile) write_profile(s);
    if (!s.config.trace) {
        PMPI_Comm_free(&s.tool_comm);
        return;
    }
    ProcessContribution mine;
    mine.host = host_name();
    if (!room_to_close_events(s) && !s.archive.events_abandoned()) {
        s.outcome.events = s.archive.recorded_events();
        s.write_failed = true;
        s.archive.abandon_events();
        finalize_failed(s, OTF2_ERROR_ENOSPC, WriteStage::Finalize);
    }
    if (s.threaded) {
        // The other threads' writers (left as they are in an abandoned archive).
        const uint64_t mark = otf2_errors::count();
        for (auto& thread : s.threads)
            if (thread->number > 0)
                mine.thread_event_counts.push_back(s.archive.close_thread_events(thread->events));
        for (auto& thread : s.threads) thread->events = nullptr;
        finalize_failed(s, otf2_errors::first_since(mark), WriteStage::Finalize);
    }
    if (s.archive.events_abandoned())
        mine.event_count = s.outcome.events;
    else
        finalize_failed(s, s.archive.close_events(mine.event_count), WriteStage::Finalize);
    s.events = nullptr;
    note_events_closed(mine.event_count);
    mine.first_time = to_global(s.first_time, s.clock.front());
    mine.last_time = to_global(last_time, s.clock.back());
    functions_add_sources(s);
    copy_definitions(s, mine);

    // Rank 0 writes the global definitions and the anchor only with a healthy archive (an
    // abandoned event writer keeps it from ever closing it); everyone learns whether it does.
    int definitions_written = s.rank == 0 && !s.archive.events_abandoned();
    PMPI_Bcast(&definitions_written, 1, MPI_INT, 0, s.tool_comm);
    OTF2_ErrorCode definitions_error = OTF2_SUCCESS;
    if (!definitions_written) {
        report_outcome(s, false, definitions_error);
        PMPI_Barrier(s.tool_comm);
        disarm_death_records(); // the run ends normally; its trace is incomplete, not cut
        PMPI_Comm_free(&s.tool_comm);
        return;
    }

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
        const uint64_t mark = otf2_errors::count();
        const std::vector<IdMappings> mappings =
            write_global_definitions(all, s.archive.global_definitions(), warnings);
        definitions_error = otf2_errors::first_since(mark);
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
    finalize_failed(s,
                    s.archive.write_local_definitions(s.rank, 1 + mine.thread_event_counts.size(),
                                                      my_mappings, s.clock),
                    WriteStage::Definitions);
    if (!s.archive.events_abandoned()) {
        // Rank 0 writes the anchor here; the close's errors on other ranks are their own.
        const OTF2_ErrorCode closed = s.archive.close();
        if (s.rank == 0) {
            if (definitions_error == OTF2_SUCCESS) definitions_error = closed;
        } else {
            finalize_failed(s, closed, WriteStage::Definitions);
        }
    }
    if (s.archive.flushes() > 0 && s.config.verbose)
        std::fprintf(stderr, "topolens: rank %d flushed its event buffer %llu times\n", s.rank,
                     static_cast<unsigned long long>(s.archive.flushes()));
    report_outcome(s, true, definitions_error);
    // Only when every rank has written all it writes (a gather does not wait for its root):
    // a record removed earlier would free room for another rank's files on a full disk.
    PMPI_Barrier(s.tool_comm);
    disarm_death_records();
    PMPI_Comm_free(&s.tool_comm);
}

// ---------------------------------------------------------------- events

namespace {

inline uint32_t comm_id(MPI_Comm comm) {
    RecorderState& s = state();
    if (!s.threaded) [[likely]]
        return s.communicators.local_id(comm);
    std::lock_guard<std::mutex> lock(s.mutex);
    return s.communicators.local_id(comm);
}

} // namespace

namespace {
MpiEnterHook mpi_enter_hook = nullptr;
} // namespace

void set_mpi_enter_hook(MpiEnterHook hook) {
    mpi_enter_hook = hook;
}

void enter_mpi(MpiFn fn) {
    RecorderState& s = state();
    if (mpi_enter_hook) [[unlikely]]
        if (!s.threaded || thread_location().number == 0) mpi_enter_hook(fn);
    if (s.threaded) [[unlikely]]
        thread_location().in_mpi = true;
    else
        s.in_mpi = true;
    record_enter(s, s.mpi_regions[static_cast<size_t>(fn)], now());
}

void leave_mpi(MpiFn fn) {
    RecorderState& s = state();
    // No writer: MPI_Finalize closed it before its own region ends, or writing failed.
    record_leave(s, s.mpi_regions[static_cast<size_t>(fn)], now());
    if (s.threaded) [[unlikely]] {
        thread_location().in_mpi = false;
        return;
    }
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
    record([&](OTF2_EvtWriter* w) {
        return OTF2_EvtWriter_MpiSend(w, nullptr, now(), static_cast<uint32_t>(dest), id,
                                      static_cast<uint32_t>(tag), bytes);
    });
    if (CallTree* tree = profile_tree(state())) tree->sent(bytes);
}

void recv_event(MPI_Comm comm, const MPI_Status& status) {
    const uint32_t id = comm_id(comm);
    if (status.MPI_SOURCE == MPI_PROC_NULL || status.MPI_SOURCE < 0 ||
        id == Communicators::kUnknown)
        return;
    int bytes = 0;
    PMPI_Get_count(&status, MPI_BYTE, &bytes);
    record([&](OTF2_EvtWriter* w) {
        return OTF2_EvtWriter_MpiRecv(w, nullptr, now(), static_cast<uint32_t>(status.MPI_SOURCE),
                                      id, static_cast<uint32_t>(status.MPI_TAG),
                                      bytes == MPI_UNDEFINED ? 0 : static_cast<uint64_t>(bytes));
    });
    if (CallTree* tree = profile_tree(state()))
        tree->received(bytes == MPI_UNDEFINED ? 0 : static_cast<uint64_t>(bytes));
}

void isend_started(MPI_Comm comm, int dest, int tag, uint64_t bytes, MPI_Request request) {
    RecorderState& s = state();
    RequestInfo info;
    info.comm = comm_id(comm);
    std::unique_lock<std::mutex> lock = shared_lock();
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
    lock = {};
    record(s, [&](OTF2_EvtWriter* w) {
        return OTF2_EvtWriter_MpiIsend(w, nullptr, now(), static_cast<uint32_t>(dest), info.comm,
                                       static_cast<uint32_t>(tag), bytes, info.id);
    });
    if (CallTree* tree = profile_tree(s)) tree->sent(bytes);
}

void irecv_started(MPI_Comm comm, int source, MPI_Request request) {
    RecorderState& s = state();
    RequestInfo info;
    info.comm = comm_id(comm);
    std::unique_lock<std::mutex> lock = shared_lock();
    if (source != MPI_PROC_NULL && info.comm != Communicators::kUnknown) {
        info.kind = RequestInfo::Kind::Recv;
        info.id = s.requests.next_id();
    }
    s.requests.add(request, info);
    lock = {};
    if (info.kind == RequestInfo::Kind::Recv)
        record(s, [&](OTF2_EvtWriter* w) {
            return OTF2_EvtWriter_MpiIrecvRequest(w, nullptr, now(), info.id);
        });
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
    std::unique_lock<std::mutex> lock = shared_lock();
    state().requests.add(request, info);
}

void persistent_started(MPI_Request request) {
    RecorderState& s = state();
    std::unique_lock<std::mutex> lock = shared_lock();
    RequestInfo* info = s.requests.find(request);
    if (!info || !info->persistent) return;
    info->active = true;
    if (info->kind == RequestInfo::Kind::Null) return;
    info->id = s.requests.next_id();
    const RequestInfo started = *info;
    lock = {};
    if (started.kind == RequestInfo::Kind::Send) {
        record(s, [&](OTF2_EvtWriter* w) {
            return OTF2_EvtWriter_MpiIsend(w, nullptr, now(), static_cast<uint32_t>(started.peer),
                                           started.comm, static_cast<uint32_t>(started.tag),
                                           started.bytes, started.id);
        });
        if (CallTree* tree = profile_tree(s)) tree->sent(started.bytes);
    } else
        record(s, [&](OTF2_EvtWriter* w) {
            return OTF2_EvtWriter_MpiIrecvRequest(w, nullptr, now(), started.id);
        });
}

uint64_t request_activation(MPI_Request request) {
    RecorderState& s = state();
    if (!s.threaded || request == MPI_REQUEST_NULL) [[likely]]
        return 0;
    std::lock_guard<std::mutex> lock(s.mutex);
    const RequestInfo* info = s.requests.find(request);
    return info ? info->serial : 0;
}

void request_completed(MPI_Request request, const MPI_Status& status, uint64_t activation) {
    RecorderState& s = state();
    if (request == MPI_REQUEST_NULL) return;
    std::unique_lock<std::mutex> lock = shared_lock();
    // Threaded: another thread may have been given the same handle since it completed.
    std::optional<RequestInfo> taken = s.requests.take(request, activation);
    if (!taken) return; // a request of an operation we do not record (e.g. a collective)
    const RequestInfo& info = *taken;
    lock = {};
    if (info.persistent && !info.active) return; // an inactive persistent request
    int cancelled = 0;
    PMPI_Test_cancelled(&status, &cancelled);
    if (cancelled && info.kind != RequestInfo::Kind::Null) {
        record(s, [&](OTF2_EvtWriter* w) {
            return OTF2_EvtWriter_MpiRequestCancelled(w, nullptr, now(), info.id);
        });
    } else if (info.kind == RequestInfo::Kind::Send) {
        record(s, [&](OTF2_EvtWriter* w) {
            return OTF2_EvtWriter_MpiIsendComplete(w, nullptr, now(), info.id);
        });
    } else if (info.kind == RequestInfo::Kind::Recv) {
        int bytes = 0;
        PMPI_Get_count(&status, MPI_BYTE, &bytes);
        record(s, [&](OTF2_EvtWriter* w) {
            return OTF2_EvtWriter_MpiIrecv(
                w, nullptr, now(), static_cast<uint32_t>(status.MPI_SOURCE), info.comm,
                static_cast<uint32_t>(status.MPI_TAG),
                bytes == MPI_UNDEFINED ? 0 : static_cast<uint64_t>(bytes), info.id);
        });
        if (CallTree* tree = profile_tree(s))
            tree->received(bytes == MPI_UNDEFINED ? 0 : static_cast<uint64_t>(bytes));
    }
}

void request_tested(MPI_Request request) {
    RecorderState& s = state();
    if (request == MPI_REQUEST_NULL) return;
    std::unique_lock<std::mutex> lock = shared_lock();
    const RequestInfo* info = s.requests.find(request);
    if (!info || info->kind == RequestInfo::Kind::Null) return;
    if (info->persistent && !info->active) return;
    const uint64_t id = info->id;
    lock = {};
    record(s,
           [&](OTF2_EvtWriter* w) { return OTF2_EvtWriter_MpiRequestTest(w, nullptr, now(), id); });
}

void request_freed(MPI_Request request) {
    // An active nonpersistent request freed by the program still completes inside MPI; we
    // can no longer observe it, so it is forgotten here.
    std::unique_lock<std::mutex> lock = shared_lock();
    state().requests.erase(request);
}

void collective_begin() {
    record([](OTF2_EvtWriter* w) { return OTF2_EvtWriter_MpiCollectiveBegin(w, nullptr, now()); });
}

void collective_end(OTF2_CollectiveOp op, MPI_Comm comm, int root, uint64_t bytes_sent,
                    uint64_t bytes_received) {
    const uint32_t id = comm_id(comm);
    record([&](OTF2_EvtWriter* w) {
        return OTF2_EvtWriter_MpiCollectiveEnd(
            w, nullptr, now(), op, id == Communicators::kUnknown ? OTF2_UNDEFINED_COMM : id,
            root < 0 ? OTF2_UNDEFINED_UINT32 : static_cast<uint32_t>(root), bytes_sent,
            bytes_received);
    });
    if (CallTree* tree = profile_tree(state())) tree->collective(bytes_sent, bytes_received);
}

// ---------------------------------------------------------------- communicators

// Communicators::add agrees on a key with the other members (collective): the shared
// table is locked only around its own changes, never across that communication.
void communicator_created(MPI_Comm created, MPI_Comm parent, const char* how) {
    RecorderState& s = state();
    s.communicators.add(created, parent, how, s.threaded ? &s.mutex : nullptr);
}

void cartesian_communicator_created(MPI_Comm created, MPI_Comm parent, const char* how) {
    RecorderState& s = state();
    const uint32_t id = s.communicators.add(created, parent, how, s.threaded ? &s.mutex : nullptr);
    if (id == Communicators::kUnknown) return;
    std::unique_lock<std::mutex> lock = shared_lock();
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
    std::unique_lock<std::mutex> lock = shared_lock();
    state().communicators.remove(comm);
}

} // namespace topolens::measure
