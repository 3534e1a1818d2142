// Hand-made CUBE4 pieces for the report tests: byte encodings, index files and tar archives
// built independently of analyzer/report/tar.cpp, so the reader is tested against the format and
// not against our own writer.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace topolens::test {

std::string le16(uint16_t v);
std::string le32(uint32_t v);
std::string le64(uint64_t v);
std::string le_double(double v);
std::string be32(uint32_t v);
std::string be_double(double v);

// "CUBEX.INDEX", little-endian marker, version 0, sparse (1) or dense (3).
std::string sparse_index(const std::vector<uint32_t>& positions);
std::string dense_index();

// A ustar archive of (name, content) members; with `stray_zero_blocks` an extra zero block
// follows every member, as cubew leaves after members whose size is a multiple of 512.
void write_archive(const std::string& path,
                   const std::vector<std::pair<std::string, std::string>>& members,
                   bool stray_zero_blocks = false);

} // namespace topolens::test
