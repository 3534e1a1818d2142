// Checks the files OTF2 loads whole when an archive is opened (the anchor file, the global
// definitions) before the OTF2 library sees them. OTF2 trusts their lengths and counts: a
// damaged count makes it allocate gigabytes or read past its buffer. Every length and count
// is checked here against the file sizes, so that a damaged file fails at once with one line
// naming the file and the problem.
#pragma once

#include <cstdint>
#include <string>

namespace topolens::trace {

// What the anchor file declares (OTF2's anchor format 1 to 3 and later, which only append).
struct AnchorFacts {
    bool big_endian = false;
    uint8_t format = 0;      // anchor format
    uint8_t substrate = 0;   // OTF2_FileSubstrate
    uint8_t compression = 0; // OTF2_Compression
    uint64_t event_chunk_size = 0, definition_chunk_size = 0;
    uint64_t locations = 0, global_definitions = 0;
    uint32_t properties = 0;
    std::string creator;
};

// The largest anchor file accepted: genuine ones hold a few strings (about 100 bytes).
inline constexpr uint64_t kMaxAnchorBytes = 16u << 20;

// Parses the anchor file's bytes; throws TraceError
// "<file>: not a readable OTF2 anchor file: <problem>".
AnchorFacts parse_anchor(const std::string& file, const std::string& bytes);

// Checks the anchor file `anchor` and, for an uncompressed POSIX archive, that its declared
// counts fit the global definitions file `<stem>.def` and that file's records fit their
// lengths. A missing definitions file is left to the reader (it names it). Throws TraceError.
AnchorFacts check_archive_files(const std::string& anchor);

// Checks the records of a global definitions file's bytes against `facts`: record lengths
// within the file, group member counts within their records, the declared number of
// definitions within the records found. Throws TraceError "<file>: ...".
void check_global_definitions(const std::string& file, const std::string& bytes,
                              const AnchorFacts& facts);

// Checks the records of a location's local definitions file (POSIX layout): record lengths
// within the file, group and mapping table sizes within their records. Throws TraceError.
// `chunk_size`: the anchor's definition chunk size.
void check_local_definitions_file(const std::string& file, uint64_t chunk_size);

// Checks the last chunk of an event file (`chunk_size`: the anchor's event chunk size): its
// records within the file and ending in the end-of-file mark. OTF2 reads a chunk the file
// does not have after an end-of-chunk mark there, and parses the unread rest of its chunk
// buffer when the file is cut. Throws TraceError.
void check_event_file_end(const std::string& file, uint64_t chunk_size);

} // namespace topolens::trace
