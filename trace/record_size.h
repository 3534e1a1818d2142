// The bytes an OTF2 event file spends on each record (OTF2 3.x, uncompressed archives): what
// `topolens score` adds up to predict a trace's size. OTF2 writes integers in a compressed
// form (a length byte, then only the significant bytes), puts a timestamp record before
// every event whose time differs from the one before, and cuts the file into chunks, each
// with a header.
#pragma once

#include "trace/model.h"

#include <cstdint>

namespace topolens::trace::otf2_size {

inline constexpr uint64_t kTimestamp = 9;       // record type + the raw 8-byte time
inline constexpr uint64_t kChunkHeader = 18;    // type, endianness, first and last event number
inline constexpr uint64_t kFileEnd = 2;         // end-of-file and end-of-chunk markers
inline constexpr uint64_t kChunkSize = 1 << 20; // ours (measure/archive.cpp, trace/writer.cpp)

// A compressed unsigned integer: one byte for 0 and for OTF2's "undefined" (all bits set),
// else one length byte and the significant bytes.
uint64_t compressed(uint64_t value);
uint64_t compressed32(uint32_t value);

// Enter and Leave: the record type and the compressed region reference.
inline uint64_t region_record(uint32_t region) {
    return 1 + compressed32(region);
}

// One event's record without its timestamp. `request` is the request id of nonblocking
// records (0 for the others); `program` the program definition, whose region's Enter and
// Leave are ProgramBegin and ProgramEnd records in the file.
uint64_t event_record(const Event& event, uint64_t request, const Program& program);

// The size of an event file holding `records` bytes of records (timestamps included): whole
// chunks of kChunkSize, each with its header and a timestamp again, the last one cut short.
uint64_t event_file(uint64_t records);

} // namespace topolens::trace::otf2_size
