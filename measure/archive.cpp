#include "archive.h"

#include "otf2_errors.h"

#include "trace/experiment_files.h"

#define OTF2_MPI_USE_PMPI // our own collectives must not be recorded
#include <otf2/OTF2_MPI_Collectives.h>
#include <otf2/OTF2_Pthread_Locks.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

namespace topolens::measure {

namespace fs = std::filesystem;

// ---------------------------------------------------------------- directory

namespace {

std::string program_name() {
    std::ifstream comm("/proc/self/comm");
    std::string name;
    std::getline(comm, name);
    return name.empty() ? "program" : name;
}

std::string default_directory_name() {
    char stamp[32];
    const std::time_t t = std::time(nullptr);
    std::strftime(stamp, sizeof stamp, "%Y%m%d_%H%M%S", std::localtime(&t));
    return "topolens-" + program_name() + "-" + stamp;
}

// The result of an earlier run: a trace, or a profile (profile mode writes no trace).
bool is_trace_archive(const fs::path& dir) {
    std::error_code ec;
    return fs::exists(dir / "traces.otf2", ec) || fs::exists(dir / trace::kProfileName, ec);
}

// What a run that never reached MPI_Finalize leaves: OTF2's directory of event files, the
// per-rank records of a dying run, or the marker of a completed cut.
bool is_unfinished_trace(const fs::path& dir) {
    std::error_code ec;
    if (fs::is_directory(dir / "traces", ec) || fs::exists(dir / "traces.def", ec) ||
        fs::exists(dir / "cut.txt", ec))
        return true;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.rfind("rank-", 0) == 0 && it->path().extension() == ".defs") return true;
    }
    return false;
}

// `base`-YYYYmmdd_HHMMSS (Score-P keeps an old experiment directory so), or a free name
// beside that.
fs::path timestamped_sibling(const fs::path& base) {
    char stamp[32];
    const std::time_t t = std::time(nullptr);
    std::strftime(stamp, sizeof stamp, "%Y%m%d_%H%M%S", std::localtime(&t));
    fs::path candidate = base.string() + "-" + stamp;
    std::error_code ec;
    if (!fs::exists(candidate, ec)) return candidate;
    for (int n = 1;; ++n) {
        fs::path numbered = candidate.string() + "." + std::to_string(n);
        if (!fs::exists(numbered, ec)) return numbered;
    }
}

// A free name beside `base`: base.1, base.2, ...
fs::path free_sibling(const fs::path& base) {
    for (int n = 1;; ++n) {
        fs::path candidate = base.string() + "." + std::to_string(n);
        std::error_code ec;
        if (!fs::exists(candidate, ec)) return candidate;
    }
}

} // namespace

std::string prepare_trace_directory(const std::string& requested, std::string& error,
                                    std::vector<std::string>& notes) {
    std::error_code ec;
    fs::path dir = requested.empty() ? fs::path(default_directory_name()) : fs::path(requested);
    dir = fs::absolute(dir, ec).lexically_normal();
    if (ec) {
        error = "cannot resolve trace directory '" + requested + "': " + ec.message();
        return {};
    }
    if (!dir.has_filename()) dir = dir.parent_path(); // "out/" -> "out"

    if (fs::exists(dir, ec)) {
        if (requested.empty()) {
            dir = free_sibling(dir);
        } else if (is_trace_archive(dir)) {
            // Never overwrite an earlier trace or profile: keep it under a new name.
            const fs::path kept = free_sibling(dir);
            fs::rename(dir, kept, ec);
            if (ec) {
                error = "trace directory '" + dir.string() +
                        "' holds an earlier trace that cannot be moved aside: " + ec.message();
                return {};
            }
            notes.push_back("kept the earlier trace in '" + dir.string() + "' as '" +
                            kept.string() + "'");
        } else if (fs::is_directory(dir, ec) && is_unfinished_trace(dir)) {
            // An earlier run died here: its data stays, out of the way of this run.
            const fs::path kept = timestamped_sibling(dir);
            fs::rename(dir, kept, ec);
            if (ec) {
                error = "trace directory '" + dir.string() +
                        "' holds an unfinished trace that cannot be moved aside: " + ec.message();
                return {};
            }
            notes.push_back("kept the unfinished trace of an earlier run in '" + dir.string() +
                            "' as '" + kept.string() + "'");
        } else if (fs::is_directory(dir, ec) && fs::is_empty(dir, ec)) {
            fs::remove(dir, ec); // OTF2 wants to create the archive directory itself
        } else {
            error = "trace directory '" + dir.string() +
                    "' exists and is not a topolens trace; choose another TOPOLENS_TRACE_DIR";
            return {};
        }
    }
    const fs::path parent = dir.parent_path();
    fs::create_directories(parent, ec);
    if (ec) {
        error = "cannot create '" + parent.string() + "' for the trace: " + ec.message();
        return {};
    }
    // Create the directory once to prove it can be (root passes access() checks even where
    // nothing can be created, e.g. under /proc), then leave its creation to OTF2.
    if (access(parent.c_str(), W_OK | X_OK) != 0 || mkdir(dir.c_str(), 0755) != 0) {
        error = "cannot write the trace into '" + dir.string() + "': " + std::strerror(errno);
        return {};
    }
    rmdir(dir.c_str());
    return dir.string();
}

// ---------------------------------------------------------------- bounded event buffer

namespace {

// Chunks handed to OTF2's event buffers come from a fixed pool; when it is empty OTF2
// flushes the buffer to disk and frees its chunks, so memory stays bounded and no event is
// lost. Other buffers (definitions) are small and use plain allocation.
struct ChunkPool {
    uint64_t chunk_size = 0;
    size_t max_chunks = 0;
    size_t allocated = 0;
    std::vector<void*> spare;
    uint64_t flushes = 0;
    uint64_t bytes_flushed = 0;    // chunk bytes handed to OTF2's file layer before the close
    bool events_abandoned = false; // see Archive::abandon_events
};

struct BufferChunks {
    std::vector<void*> chunks;
};

ChunkPool pool;
// The pool is shared by the writers of all threads (threaded archives). Chunks are asked
// for rarely (one per chunk_size bytes of events), so the lock costs nothing measurable.
std::mutex pool_mutex;
void (*before_flush_hook)() = nullptr;

void* allocate_chunk(void*, OTF2_FileType type, OTF2_LocationRef, void** per_buffer,
                     uint64_t chunk_size) {
    std::lock_guard<std::mutex> lock(pool_mutex);
    auto*& owned = reinterpret_cast<BufferChunks*&>(*per_buffer);
    if (!owned) owned = new BufferChunks;
    void* chunk = nullptr;
    if (type != OTF2_FILETYPE_EVENTS || chunk_size != pool.chunk_size) {
        chunk = std::malloc(chunk_size);
    } else if (!pool.spare.empty()) {
        chunk = pool.spare.back();
        pool.spare.pop_back();
    } else if (pool.allocated < pool.max_chunks || owned->chunks.empty()) {
        // A writer without any chunk cannot make room by flushing: each thread's writer
        // gets at least one, beyond the pool if there are more threads than chunks.
        chunk = std::malloc(chunk_size);
        if (chunk) ++pool.allocated;
    }
    if (chunk) owned->chunks.push_back(chunk);
    return chunk; // nullptr: pool exhausted, OTF2 flushes and asks again
}

void free_chunks(void*, OTF2_FileType type, OTF2_LocationRef, void** per_buffer, bool final) {
    std::lock_guard<std::mutex> lock(pool_mutex);
    auto*& owned = reinterpret_cast<BufferChunks*&>(*per_buffer);
    if (!owned) return;
    for (void* chunk : owned->chunks) {
        if (type == OTF2_FILETYPE_EVENTS && !final)
            pool.spare.push_back(chunk);
        else
            std::free(chunk);
    }
    if (type == OTF2_FILETYPE_EVENTS && final)
        pool.allocated -= std::min(pool.allocated, owned->chunks.size());
    owned->chunks.clear();
    if (final) {
        delete owned;
        owned = nullptr;
    }
}

OTF2_FlushType pre_flush(void*, OTF2_FileType type, OTF2_LocationRef, void*, bool final) {
    std::lock_guard<std::mutex> lock(pool_mutex);
    // An abandoned event writer is never touched again; this only guards that promise.
    if (type == OTF2_FILETYPE_EVENTS && pool.events_abandoned) return OTF2_NO_FLUSH;
    if (type == OTF2_FILETYPE_EVENTS && !final) {
        ++pool.flushes;
        // The pool is exhausted: the event buffer holds all its chunks, written whole.
        pool.bytes_flushed += pool.allocated * pool.chunk_size;
        if (before_flush_hook) before_flush_hook();
    }
    return OTF2_FLUSH;
}

OTF2_TimeStamp post_flush(void*, OTF2_FileType, OTF2_LocationRef) {
    return now();
}

const OTF2_FlushCallbacks kFlushCallbacks = {pre_flush, post_flush};
const OTF2_MemoryCallbacks kMemoryCallbacks = {allocate_chunk, free_chunks};

} // namespace

void set_before_flush_hook(void (*hook)()) {
    before_flush_hook = hook;
}

// ---------------------------------------------------------------- archive

bool Archive::open(const std::string& directory, uint64_t buffer_bytes, MPI_Comm comm, int rank,
                   bool threaded, std::string& error) {
    // Chunks between OTF2's limits; at least one chunk, more when the buffer allows.
    pool.chunk_size = std::clamp<uint64_t>(buffer_bytes / 8, OTF2_CHUNK_SIZE_MIN, 1 << 20);
    pool.max_chunks = std::max<uint64_t>(1, buffer_bytes / pool.chunk_size);
    pool.flushes = 0;
    pool.bytes_flushed = 0;
    pool.events_abandoned = false;
    otf2_errors::capture(); // OTF2's errors become our own one-line messages

    archive_ = OTF2_Archive_Open(directory.c_str(), "traces", OTF2_FILEMODE_WRITE, pool.chunk_size,
                                 OTF2_CHUNK_SIZE_DEFINITIONS_DEFAULT, OTF2_SUBSTRATE_POSIX,
                                 OTF2_COMPRESSION_NONE);
    int ok = archive_ != nullptr;
    if (ok) {
        ok =
            OTF2_Archive_SetFlushCallbacks(archive_, &kFlushCallbacks, nullptr) == OTF2_SUCCESS &&
            OTF2_Archive_SetMemoryCallbacks(archive_, &kMemoryCallbacks, nullptr) == OTF2_SUCCESS &&
            OTF2_MPI_Archive_SetCollectiveCallbacks(archive_, comm, MPI_COMM_NULL) ==
                OTF2_SUCCESS &&
            OTF2_Archive_SetCreator(archive_, "topolens measure 0.1") == OTF2_SUCCESS &&
            // Writers of several threads share the archive (OTF2 requires the callbacks
            // before the first writer is asked for).
            (!threaded ||
             OTF2_Pthread_Archive_SetLockingCallbacks(archive_, nullptr) == OTF2_SUCCESS) &&
            OTF2_Archive_OpenEvtFiles(archive_) == OTF2_SUCCESS;
    }
    if (ok) {
        events_ = OTF2_Archive_GetEvtWriter(archive_, static_cast<OTF2_LocationRef>(rank));
        ok = events_ != nullptr;
    }
    int all_ok = 0;
    PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    if (!all_ok) {
        error = "OTF2 could not open the archive in '" + directory + "'" +
                (ok ? " on another process" : "");
        // A half-opened archive is abandoned, not closed: OTF2 3.0 can crash closing it,
        // and the application must run on.
        archive_ = nullptr;
        events_ = nullptr;
        return false;
    }
    return true;
}

uint64_t Archive::event_chunk_size() const {
    return pool.chunk_size;
}

uint64_t Archive::flushes() const {
    return pool.flushes;
}

PendingEvents Archive::pending_events() const {
    PendingEvents pending;
    if (!events_) return pending;
    std::lock_guard<std::mutex> lock(pool_mutex);
    // OTF2 3.0 writes through a 4 MiB buffer (OTF2_FILE_BUFFER_SIZE, internal): what passed
    // it before stays there until the close, and the close writes the buffer's chunks (the
    // last one partly: this is an upper bound; with several threads' writers the pool's
    // chunks are counted together).
    constexpr uint64_t kWriteBehind = 4 << 20;
    const uint64_t held = pool.allocated - std::min(pool.allocated, pool.spare.size());
    pending.bytes = pool.bytes_flushed % kWriteBehind + held * pool.chunk_size;
    pending.through_full_buffer = pending.bytes >= kWriteBehind;
    return pending;
}

OTF2_EvtWriter* Archive::thread_events(uint64_t location) {
    return OTF2_Archive_GetEvtWriter(archive_, location);
}

uint64_t Archive::recorded_events(OTF2_EvtWriter* writer) {
    uint64_t count = 0;
    if (writer) OTF2_EvtWriter_GetNumberOfEvents(writer, &count);
    return count;
}

uint64_t Archive::close_thread_events(OTF2_EvtWriter* writer) {
    const uint64_t count = recorded_events(writer);
    // An abandoned archive's writers are never touched again (abandon_events).
    if (writer && !abandoned_) OTF2_Archive_CloseEvtWriter(archive_, writer);
    return count;
}

uint64_t Archive::recorded_events() const {
    return recorded_events(events_);
}

uint64_t free_disk_bytes(const std::string& directory) {
    struct statvfs disk {};
    if (statvfs(directory.c_str(), &disk) != 0) return UINT64_MAX; // unknown: no limit
    return static_cast<uint64_t>(disk.f_bavail) * disk.f_frsize;
}

void Archive::abandon_events() {
    abandoned_ = true;
    std::lock_guard<std::mutex> lock(pool_mutex);
    pool.events_abandoned = true;
    events_ = nullptr;
}

namespace {

// The first error of a step: a failed call's code, else what OTF2 reported meanwhile.
OTF2_ErrorCode first_error(OTF2_ErrorCode returned, uint64_t mark) {
    const OTF2_ErrorCode reported = otf2_errors::first_since(mark);
    return reported != OTF2_SUCCESS ? reported : returned;
}

// Keeps the first failure of a sequence of calls.
void keep(OTF2_ErrorCode& first, OTF2_ErrorCode rc) {
    if (first == OTF2_SUCCESS) first = rc;
}

} // namespace

OTF2_ErrorCode Archive::close_events(uint64_t& count) {
    count = 0;
    if (abandoned_ || !archive_) return OTF2_ERROR_INVALID_CALL;
    const uint64_t mark = otf2_errors::count();
    OTF2_ErrorCode rc = OTF2_SUCCESS;
    if (events_) {
        keep(rc, OTF2_EvtWriter_GetNumberOfEvents(events_, &count));
        keep(rc, OTF2_Archive_CloseEvtWriter(archive_, events_));
        events_ = nullptr;
    }
    keep(rc, OTF2_Archive_CloseEvtFiles(archive_));
    return first_error(rc, mark);
}

uint64_t Archive::close_event_writer() {
    uint64_t count = 0;
    if (events_) {
        OTF2_EvtWriter_GetNumberOfEvents(events_, &count);
        OTF2_Archive_CloseEvtWriter(archive_, events_);
        events_ = nullptr;
    }
    return count;
}

OTF2_GlobalDefWriter* Archive::global_definitions() {
    return OTF2_Archive_GetGlobalDefWriter(archive_);
}

OTF2_ErrorCode Archive::write_local_definitions(int rank, size_t threads,
                                                const IdMappings& mappings,
                                                const std::vector<ClockSample>& clock) {
    if (!archive_) return OTF2_ERROR_INVALID_CALL;
    const uint64_t mark = otf2_errors::count();
    OTF2_ErrorCode rc = OTF2_Archive_OpenDefFiles(archive_);
    for (uint32_t thread = 0; thread < threads; ++thread) {
        OTF2_DefWriter* writer =
            OTF2_Archive_GetDefWriter(archive_, thread_location_id(rank, thread));
        if (!writer) {
            keep(rc, OTF2_ERROR_INVALID_CALL);
            return first_error(rc, mark);
        }
        keep(rc, write_mappings_and_clock(writer, mappings, clock));
        keep(rc, OTF2_Archive_CloseDefWriter(archive_, writer));
    }
    keep(rc, OTF2_Archive_CloseDefFiles(archive_));
    return first_error(rc, mark);
}

OTF2_ErrorCode Archive::write_mappings_and_clock(OTF2_DefWriter* writer, const IdMappings& mappings,
                                                 const std::vector<ClockSample>& clock) {
    OTF2_ErrorCode rc = OTF2_SUCCESS;
    const std::pair<OTF2_MappingType, const std::vector<uint64_t>*> tables[] = {
        {OTF2_MAPPING_STRING, &mappings.strings},
        {OTF2_MAPPING_REGION, &mappings.regions},
        {OTF2_MAPPING_PARAMETER, &mappings.parameters},
        {OTF2_MAPPING_COMM, &mappings.comms}};
    for (const auto& [type, ids] : tables) {
        if (ids->empty()) continue;
        OTF2_IdMap* map = OTF2_IdMap_CreateFromUint64Array(ids->size(), ids->data(), false);
        keep(rc, OTF2_DefWriter_WriteMappingTable(writer, type, map));
        OTF2_IdMap_Free(map);
    }
    for (const ClockSample& sample : clock)
        keep(rc, OTF2_DefWriter_WriteClockOffset(writer, sample.local_time, sample.offset,
                                                 sample.deviation));
    return rc;
}

OTF2_ErrorCode Archive::close() {
    if (!archive_ || abandoned_) return OTF2_ERROR_INVALID_CALL;
    const uint64_t mark = otf2_errors::count();
    const OTF2_ErrorCode rc = OTF2_Archive_Close(archive_);
    archive_ = nullptr;
    return first_error(rc, mark);
}

} // namespace topolens::measure
