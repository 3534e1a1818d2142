#include "trace/anchor_check.h"

#include "trace/model.h"

#include <otf2/otf2.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace topolens::trace {
namespace {

namespace fs = std::filesystem;

// OTF2's buffer format (OTF2_Buffer.h): a buffer starts with a chunk header (its mark, then
// the endianness mark); definition buffers then hold the first and last record number.
constexpr uint8_t kChunkHeader = 3;
constexpr uint8_t kBigEndian = 0x23, kLittleEndian = 0x42;
constexpr uint64_t kChunkHeaderBytes = 18;
// Marks that end a chunk, a buffer, a file (not records).
constexpr uint8_t kEndOfChunk = 0, kEndOfFile = 2;
constexpr uint8_t kTimestamp = 5;          // in event files: the time of the records that follow
constexpr uint8_t kGroupRecord = 18;       // OTF2_GLOBAL_DEF_GROUP, OTF2_LOCAL_DEF_GROUP
constexpr uint8_t kMappingTableRecord = 5; // OTF2_LOCAL_DEF_MAPPING_TABLE
constexpr uint8_t kSparseIdMap = 1;        // OTF2_ID_MAP_SPARSE: pairs of ids
// The last anchor format this check knows; later ones only append fields.
constexpr uint8_t kAnchorFormat = 3;

bool host_big_endian() {
    const uint16_t one = 1;
    uint8_t first;
    std::memcpy(&first, &one, 1);
    return first == 0;
}

// Reads a buffer's bytes front to back; every read is checked against the end.
class Cursor {
  public:
    Cursor(const std::string& bytes, uint64_t begin, uint64_t end, bool big_endian)
        : bytes_(bytes), pos_(begin), end_(end), swap_(big_endian != host_big_endian()) {}

    uint64_t left() const { return end_ - pos_; }
    uint64_t position() const { return pos_; }

    bool u8(uint8_t& v) {
        if (left() < 1) return false;
        v = static_cast<uint8_t>(bytes_[pos_++]);
        return true;
    }
    // An uncompressed ("Full") 4- or 8-byte integer in the buffer's byte order.
    template <class U> bool full(U& v) {
        if (left() < sizeof(U)) return false;
        uint8_t raw[sizeof(U)];
        std::memcpy(raw, bytes_.data() + pos_, sizeof(U));
        if (swap_)
            for (size_t i = 0; i < sizeof(U) / 2; ++i) std::swap(raw[i], raw[sizeof(U) - 1 - i]);
        std::memcpy(&v, raw, sizeof(U));
        pos_ += sizeof(U);
        return true;
    }
    // A compressed integer: a byte count (0: zero, 0xff: all ones), then that many bytes.
    bool compressed(uint64_t& v, uint8_t max_bytes) {
        uint8_t size;
        if (!u8(size)) return false;
        if (size == 0 || size == 0xff) {
            v = size == 0 ? 0 : UINT64_MAX;
            return true;
        }
        if (size > max_bytes || left() < size) return false;
        v = 0;
        for (uint8_t i = 0; i < size; ++i) {
            const uint64_t b = static_cast<uint8_t>(bytes_[pos_ + (swap_ ? size - 1 - i : i)]);
            v |= b << (8 * i);
        }
        pos_ += size;
        return true;
    }
    // A NUL-terminated string that must end inside the buffer.
    bool string(std::string& s) {
        const void* nul = std::memchr(bytes_.data() + pos_, '\0', left());
        if (!nul) return false;
        const uint64_t length = static_cast<const char*>(nul) - (bytes_.data() + pos_);
        s.assign(bytes_, pos_, length);
        pos_ += length + 1;
        return true;
    }
    void skip(uint64_t n) { pos_ += n; }

  private:
    const std::string& bytes_;
    uint64_t pos_, end_;
    bool swap_;
};

// A record's length after its type byte (one byte, or 0xff and a full 8-byte length),
// checked against what is left of `within`. Returns the problem, or "" when it fits.
std::string read_record_length(Cursor& c, uint64_t at, const char* within, uint64_t& length) {
    uint8_t small;
    length = 0;
    if (!c.u8(small)) return "record at byte " + std::to_string(at) + " is cut";
    if (small != 0xff)
        length = small;
    else if (!c.full(length))
        return "record at byte " + std::to_string(at) + " is cut";
    if (length >= c.left())
        return "record at byte " + std::to_string(at) + " of length " + std::to_string(length) +
               " runs past the end of " + within;
    return "";
}

std::string read_file(const std::string& file, uint64_t size) {
    std::ifstream in(file, std::ios::binary);
    std::string bytes(size, '\0');
    if (!in.read(bytes.data(), static_cast<std::streamsize>(size)))
        throw TraceError(file + ": cannot read");
    return bytes;
}

// The size of a regular file, or nullopt-like UINT64_MAX when it is missing or not regular.
uint64_t regular_file_size(const std::string& file) {
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) return UINT64_MAX;
    const uint64_t size = fs::file_size(file, ec);
    return ec ? UINT64_MAX : size;
}

} // namespace

AnchorFacts parse_anchor(const std::string& file, const std::string& bytes) {
    auto damaged = [&](const std::string& what) {
        return TraceError(file + ": not a readable OTF2 anchor file: " + what);
    };
    AnchorFacts facts;
    if (bytes.size() < 2 || static_cast<uint8_t>(bytes[0]) != kChunkHeader)
        throw damaged("no OTF2 buffer header");
    const uint8_t endianness = static_cast<uint8_t>(bytes[1]);
    if (endianness != kBigEndian && endianness != kLittleEndian)
        throw damaged("invalid byte-order mark");
    facts.big_endian = endianness == kBigEndian;
    Cursor c(bytes, 2, bytes.size(), facts.big_endian);
    const auto cut = [&](const char* field) {
        return damaged(std::string("ends inside the ") + field + " (at byte " +
                       std::to_string(c.position()) + " of " + std::to_string(bytes.size()) + ")");
    };
    std::string magic;
    if (!c.string(magic) || magic != "OTF2") throw damaged("no OTF2 mark");
    if (!c.u8(facts.format)) throw cut("anchor format");
    if (facts.format == 0) throw damaged("anchor format 0");
    uint8_t version[4]; // trace format, OTF2 major, minor, bugfix
    for (uint8_t& v : version)
        if (!c.u8(v)) throw cut("version");
    if (!c.full(facts.event_chunk_size) || !c.full(facts.definition_chunk_size))
        throw cut("chunk sizes");
    for (uint64_t size : {facts.event_chunk_size, facts.definition_chunk_size})
        if (size < OTF2_CHUNK_SIZE_MIN || size > OTF2_CHUNK_SIZE_MAX)
            throw damaged("chunk size " + std::to_string(size) + " outside OTF2's " +
                          std::to_string(OTF2_CHUNK_SIZE_MIN) + ".." +
                          std::to_string(OTF2_CHUNK_SIZE_MAX));
    if (!c.u8(facts.substrate) || !c.u8(facts.compression)) throw cut("file substrate");
    if (facts.substrate != OTF2_SUBSTRATE_POSIX && facts.substrate != OTF2_SUBSTRATE_SION &&
        facts.substrate != OTF2_SUBSTRATE_NONE)
        throw damaged("unknown file substrate " + std::to_string(facts.substrate));
    if (facts.compression != OTF2_COMPRESSION_NONE && facts.compression != 2 /* zlib */)
        throw damaged("unknown compression " + std::to_string(facts.compression));
    if (!c.full(facts.locations) || !c.full(facts.global_definitions))
        throw cut("number of locations and definitions");
    if (facts.locations > facts.global_definitions)
        throw damaged("declares " + std::to_string(facts.locations) + " locations but only " +
                      std::to_string(facts.global_definitions) + " definitions");
    std::string machine, description;
    if (!c.string(machine)) throw damaged("machine name not terminated within the file");
    if (!c.string(facts.creator)) throw damaged("creator not terminated within the file");
    if (!c.string(description)) throw damaged("description not terminated within the file");
    if (facts.format > 1) {
        if (!c.full(facts.properties)) throw cut("number of properties");
        // A property is two strings of at least their NUL each.
        if (facts.properties > c.left() / 2)
            throw damaged("declares " + std::to_string(facts.properties) +
                          " properties, more than the " + std::to_string(c.left()) +
                          " bytes left can hold");
        std::string name, value;
        for (uint32_t i = 0; i < facts.properties; ++i)
            if (!c.string(name) || !c.string(value))
                throw damaged("property " + std::to_string(i) + " not terminated within the file");
        uint64_t trace_id;
        if (!c.full(trace_id)) throw cut("trace id");
    }
    if (facts.format > 2) {
        uint32_t snapshots, thumbnails;
        if (!c.full(snapshots) || !c.full(thumbnails)) throw cut("number of snapshots");
    }
    if (facts.format == kAnchorFormat) {
        uint8_t end;
        if (!c.u8(end)) throw cut("end mark");
        if (end != kEndOfFile) throw damaged("no end mark after the last field");
    }
    return facts;
}

namespace {

// The records of a definitions file (global or local) against the file's size. OTF2 reads
// group members and mapping tables by their counts, allocating first and checking the
// record's end never: those counts must fit their records.
uint64_t check_definition_records(const std::string& file, const std::string& bytes, bool local,
                                  uint64_t chunk_size) {
    auto damaged = [&](const std::string& what) {
        return TraceError(file + ": damaged " + (local ? "local" : "global") +
                          " definitions: " + what);
    };
    if (chunk_size == 0) chunk_size = bytes.size() + 1; // not known: one chunk
    uint64_t records = 0;
    // Definition files are chunked like event files: each chunk has its header, records do
    // not cross chunks, and an end-of-chunk mark sends the reader to the next chunk.
    for (uint64_t chunk = 0;; chunk += chunk_size) {
        if (chunk > 0 && chunk >= bytes.size())
            throw damaged("an end-of-chunk mark but no further chunk (the file ends at byte " +
                          std::to_string(bytes.size()) + ")");
        if (bytes.size() - chunk < kChunkHeaderBytes ||
            static_cast<uint8_t>(bytes[chunk]) != kChunkHeader)
            throw damaged("no OTF2 buffer header at byte " + std::to_string(chunk));
        const uint8_t endianness = static_cast<uint8_t>(bytes[chunk + 1]);
        if (endianness != kBigEndian && endianness != kLittleEndian)
            throw damaged("invalid byte-order mark at byte " + std::to_string(chunk + 1));
        const bool big = endianness == kBigEndian;
        const uint64_t chunk_end = std::min<uint64_t>(bytes.size(), chunk + chunk_size);
        Cursor c(bytes, chunk + kChunkHeaderBytes, chunk_end, big);
        for (;;) {
            const uint64_t at = c.position();
            uint8_t type;
            if (!c.u8(type)) {
                if (chunk_end == bytes.size()) return UINT64_MAX; // OTF2 reports no end mark
                break; // a full chunk: the next one follows
            }
            if (type == kEndOfFile) return records;
            if (type == kEndOfChunk) break;
            uint64_t length = 0;
            if (const std::string problem = read_record_length(c, at, "its chunk", length);
                !problem.empty())
                throw damaged(problem);
            Cursor r(bytes, c.position(), c.position() + length, big);
            // OTF2 reads these fields past the record's end when they do not fit: refused too.
            const auto fields_cut = [&](const char* record) {
                return damaged(std::string(record) + " at byte " + std::to_string(at) +
                               ": its fields run past its length " + std::to_string(length));
            };
            if (type == kGroupRecord) {
                uint64_t self, name, members;
                uint8_t pre12;
                if (!r.compressed(self, 4) || !r.compressed(name, 4) || !r.u8(pre12) ||
                    !r.compressed(members, 4))
                    throw fields_cut("group");
                if (members > r.left())
                    throw damaged("group " + std::to_string(self) + " at byte " +
                                  std::to_string(at) + " declares " + std::to_string(members) +
                                  " members in " + std::to_string(length) + " bytes");
            } else if (local && type == kMappingTableRecord) {
                uint8_t kind, mode;
                uint64_t size;
                if (!r.u8(kind) || !r.compressed(size, 8) || !r.u8(mode))
                    throw fields_cut("mapping table");
                if (size > r.left() || (mode == kSparseIdMap && size > r.left() / 2))
                    throw damaged("mapping table at byte " + std::to_string(at) + " declares " +
                                  std::to_string(size) + " entries in " + std::to_string(length) +
                                  " bytes");
            }
            c.skip(length);
            ++records;
        }
    }
}

} // namespace

void check_global_definitions(const std::string& file, const std::string& bytes,
                              const AnchorFacts& facts) {
    // Every record takes at least its type and length bytes.
    if (facts.global_definitions > bytes.size() / 2)
        throw TraceError(file + ": damaged global definitions: the anchor file declares " +
                         std::to_string(facts.global_definitions) + " definitions, more than the " +
                         std::to_string(bytes.size()) + "-byte file can hold");
    const uint64_t records =
        check_definition_records(file, bytes, false, facts.definition_chunk_size);
    if (records < facts.global_definitions)
        throw TraceError(file + ": damaged global definitions: the anchor file declares " +
                         std::to_string(facts.global_definitions) +
                         " definitions, the file holds " + std::to_string(records));
}

void check_local_definitions_file(const std::string& file, uint64_t chunk_size) {
    const uint64_t size = regular_file_size(file);
    if (size == UINT64_MAX) return; // the reader names a missing file
    check_definition_records(file, read_file(file, size), true, chunk_size);
}

namespace {

// Whether the records of an event file's last chunk, from `p` (after its header) to `end`,
// run whole to the end-of-file mark: a walk from record to record by the lengths alone,
// without naming a problem (the careful walk below names it). Records of one-byte length
// are nearly all of a trace: this walk costs a few instructions each.
bool event_records_end_whole(const uint8_t* p, const uint8_t* end) {
    // Far from the end no record can run past it (a short one takes at most 257 bytes, a
    // timestamp 9): no bounds to check there. The marks and what looks like a long record
    // go to the checked walk.
    constexpr ptrdiff_t kLongestShort = 2 + 0xfe;
    while (end - p > kLongestShort) {
        const uint8_t type = *p;
        if (type == kTimestamp) {
            p += 9;
            continue;
        }
        if (type <= kEndOfFile || p[1] == 0xff) break;
        p += 2 + p[1];
    }
    while (p < end) {
        const uint8_t type = *p++;
        if (type == kEndOfFile) return true;
        if (type == kEndOfChunk) return false;
        if (type == kTimestamp) {
            if (end - p < 8) return false;
            p += 8;
            continue;
        }
        if (p == end) return false;
        const uint8_t small = *p++;
        // A long record's 8-byte length: left to the careful walk (byte order, range).
        if (small == 0xff) return false;
        if (small >= end - p) return false;
        p += small;
    }
    return false;
}

} // namespace

void check_event_file_end(const std::string& file, uint64_t chunk_size) {
    const uint64_t size = regular_file_size(file);
    if (size == UINT64_MAX || size == 0 || chunk_size == 0) return; // the reader reports these
    auto damaged = [&](const std::string& what) {
        // As OTF2's causes are given: "<file>: damaged event file (<cause>)".
        return TraceError(file + ": damaged event file (" + what + ")");
    };
    const uint64_t begin = (size - 1) / chunk_size * chunk_size;
    std::ifstream in(file, std::ios::binary);
    std::string bytes(size - begin, '\0');
    if (!in.seekg(static_cast<std::streamoff>(begin)) ||
        !in.read(bytes.data(), static_cast<std::streamsize>(bytes.size())))
        throw TraceError(file + ": cannot read");
    if (bytes.size() < kChunkHeaderBytes || static_cast<uint8_t>(bytes[0]) != kChunkHeader)
        throw damaged("no OTF2 buffer header at byte " + std::to_string(begin));
    const uint8_t endianness = static_cast<uint8_t>(bytes[1]);
    if (endianness != kBigEndian && endianness != kLittleEndian)
        throw damaged("invalid byte-order mark at byte " + std::to_string(begin + 1));
    const auto* const first = reinterpret_cast<const uint8_t*>(bytes.data());
    if (event_records_end_whole(first + kChunkHeaderBytes, first + bytes.size())) return;
    Cursor c(bytes, kChunkHeaderBytes, bytes.size(), endianness == kBigEndian);
    for (;;) {
        const uint64_t at = begin + c.position();
        uint8_t type;
        if (!c.u8(type)) throw damaged("cut: the last chunk ends without the end-of-file mark");
        if (type == kEndOfFile) return;
        if (type == kEndOfChunk)
            throw damaged("an end-of-chunk mark at byte " + std::to_string(at) +
                          " in the last chunk: OTF2 would read a chunk the file does not have");
        if (type == kTimestamp) {
            uint64_t time;
            if (!c.full(time)) throw damaged("timestamp at byte " + std::to_string(at) + " is cut");
            continue;
        }
        uint64_t length = 0;
        if (const std::string problem = read_record_length(c, at, "the file", length);
            !problem.empty())
            throw damaged(problem);
        c.skip(length);
    }
}

AnchorFacts check_archive_files(const std::string& anchor) {
    const uint64_t size = regular_file_size(anchor);
    if (size == UINT64_MAX) throw TraceError(anchor + ": not a regular file");
    if (size > kMaxAnchorBytes)
        throw TraceError(anchor + ": not a readable OTF2 anchor file: " + std::to_string(size) +
                         " bytes, more than an anchor file holds (" +
                         std::to_string(kMaxAnchorBytes) + ")");
    const AnchorFacts facts = parse_anchor(anchor, read_file(anchor, size));
    if (facts.substrate != OTF2_SUBSTRATE_POSIX || facts.compression != OTF2_COMPRESSION_NONE)
        return facts; // other layouts: OTF2 finds the files
    const fs::path a(anchor);
    const std::string defs = (a.parent_path() / a.stem()).string() + ".def";
    const uint64_t defs_size = regular_file_size(defs);
    if (defs_size == UINT64_MAX) return facts; // the reader names the missing file
    check_global_definitions(defs, read_file(defs, defs_size), facts);
    return facts;
}

} // namespace topolens::trace
