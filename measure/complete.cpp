#include "complete.h"

#include "death_record.h"
#include "definitions.h"

#include <otf2/otf2.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <stdexcept>

namespace topolens::measure {

namespace fs = std::filesystem;

namespace {

constexpr const char* kCreator = "topolens measure 0.1 (completed after the run died)";

bool is_record_name(const std::string& name) {
    return name.rfind("rank-", 0) == 0 && name.size() > 10 &&
           name.compare(name.size() - 5, 5, ".defs") == 0;
}

std::vector<char> read_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error(path.string() + ": cannot read");
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// One record per rank of the run; ranks without one (died before MPI_Init ended) get an
// empty contribution.
std::vector<DeathRecord> read_records(const fs::path& dir) {
    std::map<uint32_t, DeathRecord> by_rank;
    uint32_t size = 0;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        if (!is_record_name(it->path().filename().string())) continue;
        DeathRecord record;
        try {
            record = deserialize_death_record(read_file(it->path()));
        } catch (const std::exception& e) {
            throw std::runtime_error(it->path().string() + ": " + e.what());
        }
        if (size != 0 && record.size != size)
            throw std::runtime_error(it->path().string() + ": a run of " +
                                     std::to_string(record.size) + " processes, the others say " +
                                     std::to_string(size));
        size = record.size;
        by_rank[record.rank] = std::move(record);
    }
    if (ec) throw std::runtime_error(dir.string() + ": cannot list: " + ec.message());
    if (by_rank.empty())
        throw std::runtime_error(dir.string() +
                                 ": no per-rank records (rank-<r>.defs) to complete");
    std::vector<DeathRecord> all(size);
    for (uint32_t r = 0; r < size; ++r) {
        auto found = by_rank.find(r);
        if (found != by_rank.end()) {
            all[r] = std::move(found->second);
            if (!all[r].died) all[r].cause = kSilentCause;
        } else {
            all[r].rank = r;
            all[r].size = size;
            all[r].cause = "no record (died before its measurement started)";
        }
    }
    return all;
}

struct ArchiveCloser {
    void operator()(OTF2_Archive* a) const { OTF2_Archive_Close(a); }
};

OTF2_FlushType always_flush(void*, OTF2_FileType, OTF2_LocationRef, void*, bool) {
    return OTF2_FLUSH;
}
const OTF2_FlushCallbacks kFlush = {always_flush, nullptr};

void check(OTF2_ErrorCode code, const fs::path& dir, const char* what) {
    if (code != OTF2_SUCCESS)
        throw std::runtime_error(dir.string() + ": cannot write the definitions: " + what + " (" +
                                 OTF2_Error_GetDescription(code) + ")");
}

// Global and local definitions into a fresh archive `scratch` (no event files).
std::vector<std::string> write_definitions(const fs::path& scratch,
                                           const std::vector<DeathRecord>& records) {
    // OTF2 reads event files in chunks of the size the anchor names: the ranks' own.
    uint64_t chunk_size = 0;
    for (const DeathRecord& r : records) chunk_size = std::max(chunk_size, r.event_chunk_size);
    if (chunk_size == 0) chunk_size = OTF2_CHUNK_SIZE_EVENTS_DEFAULT;
    std::unique_ptr<OTF2_Archive, ArchiveCloser> archive(
        OTF2_Archive_Open(scratch.c_str(), "traces", OTF2_FILEMODE_WRITE, chunk_size,
                          4 * 1024 * 1024, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE));
    if (!archive) throw std::runtime_error(scratch.string() + ": OTF2 cannot create an archive");
    OTF2_Archive* a = archive.get();
    check(OTF2_Archive_SetFlushCallbacks(a, &kFlush, nullptr), scratch, "flush callbacks");
    check(OTF2_Archive_SetSerialCollectiveCallbacks(a), scratch, "collective callbacks");
    check(OTF2_Archive_SetCreator(a, kCreator), scratch, "creator");

    std::vector<ProcessContribution> all;
    for (const DeathRecord& r : records) all.push_back(r.contribution);
    std::vector<std::string> warnings;
    OTF2_GlobalDefWriter* global = OTF2_Archive_GetGlobalDefWriter(a);
    if (!global) throw std::runtime_error(scratch.string() + ": no global definition writer");
    const std::vector<IdMappings> mappings = write_global_definitions(all, global, warnings);

    check(OTF2_Archive_OpenDefFiles(a), scratch, "open local definition files");
    for (size_t p = 0; p < records.size(); ++p) {
        OTF2_DefWriter* writer = OTF2_Archive_GetDefWriter(a, p);
        if (!writer) throw std::runtime_error(scratch.string() + ": no local definition writer");
        const IdMappings& m = mappings[p];
        const std::pair<OTF2_MappingType, const std::vector<uint64_t>*> tables[] = {
            {OTF2_MAPPING_STRING, &m.strings},
            {OTF2_MAPPING_REGION, &m.regions},
            {OTF2_MAPPING_PARAMETER, &m.parameters},
            {OTF2_MAPPING_COMM, &m.comms}};
        for (const auto& [type, ids] : tables) {
            if (ids->empty()) continue;
            OTF2_IdMap* map = OTF2_IdMap_CreateFromUint64Array(ids->size(), ids->data(), false);
            check(OTF2_DefWriter_WriteMappingTable(writer, type, map), scratch, "mapping table");
            OTF2_IdMap_Free(map);
        }
        for (const ClockOffsetRecord& c : records[p].clock)
            check(OTF2_DefWriter_WriteClockOffset(writer, c.local_time, c.offset, c.deviation),
                  scratch, "clock offset");
        check(OTF2_Archive_CloseDefWriter(a, writer), scratch, "close local definitions");
    }
    check(OTF2_Archive_CloseDefFiles(a), scratch, "close local definition files");
    check(OTF2_Archive_Close(archive.release()), scratch, "close archive");
    return warnings;
}

std::string cut_text(const std::vector<DeathRecord>& records) {
    std::string text = "# topolens: the run was cut short; written by topolens-complete.\n"
                       "# rank<TAB>events written<TAB>time of death (ns, global clock; - if "
                       "unknown)<TAB>cause\n";
    for (const DeathRecord& r : records)
        text += std::to_string(r.rank) + "\t" + std::to_string(r.contribution.event_count) + "\t" +
                (r.died ? std::to_string(r.death_time) : "-") + "\t" + r.cause + "\n";
    return text;
}

std::string ranks_text(const std::vector<uint32_t>& ranks) {
    std::string text = ranks.size() == 1 ? "rank " : "ranks ";
    for (size_t i = 0; i < ranks.size(); ++i) text += (i ? "," : "") + std::to_string(ranks[i]);
    return text;
}

std::string summary_of(const std::vector<DeathRecord>& records) {
    std::map<std::string, std::vector<uint32_t>> by_cause;
    std::vector<std::string> order;
    for (const DeathRecord& r : records) {
        if (!by_cause.count(r.cause)) order.push_back(r.cause);
        by_cause[r.cause].push_back(r.rank);
    }
    std::string text;
    for (const std::string& cause : order)
        text += (text.empty() ? "" : "; ") + ranks_text(by_cause[cause]) + ": " + cause;
    return text;
}

} // namespace

bool needs_completion(const std::string& directory) {
    std::error_code ec;
    const fs::path dir(directory);
    if (!fs::is_directory(dir, ec) || fs::exists(dir / "traces.otf2", ec)) return false;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
        if (is_record_name(it->path().filename().string())) return true;
    return false;
}

Completion complete_trace(const std::string& directory) {
    const fs::path dir = fs::absolute(directory).lexically_normal();
    std::error_code ec;
    if (fs::exists(dir / "traces.otf2", ec))
        throw std::runtime_error(dir.string() + ": already a complete trace (traces.otf2 exists)");
    const std::vector<DeathRecord> records = read_records(dir);

    // OTF2 creates its archive directory itself: write into a scratch one, then move the
    // definitions beside the event files, the anchor last (its presence means complete).
    const fs::path scratch = dir / ".topolens-complete";
    fs::remove_all(scratch, ec);
    Completion done;
    done.warnings = write_definitions(scratch, records);
    fs::create_directories(dir / "traces", ec);
    for (uint32_t p = 0; p < records.size(); ++p) {
        const std::string name = std::to_string(p) + ".def";
        if (fs::exists(scratch / "traces" / name, ec))
            fs::rename(scratch / "traces" / name, dir / "traces" / name, ec);
        if (ec)
            throw std::runtime_error(dir.string() + ": cannot move " + name + ": " + ec.message());
    }
    {
        std::ofstream cut(dir / "cut.txt");
        cut << cut_text(records);
        if (!cut) throw std::runtime_error((dir / "cut.txt").string() + ": cannot write");
    }
    fs::rename(scratch / "traces.def", dir / "traces.def", ec);
    if (!ec) fs::rename(scratch / "traces.otf2", dir / "traces.otf2", ec);
    if (ec)
        throw std::runtime_error(dir.string() + ": cannot move the definitions: " + ec.message());
    fs::remove_all(scratch, ec);
    for (const DeathRecord& r : records) fs::remove(dir / death_record_name(r.rank), ec);
    done.summary = summary_of(records);
    return done;
}

} // namespace topolens::measure
