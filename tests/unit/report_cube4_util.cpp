#include "report_cube4_util.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace topolens::test {

namespace {

std::string bytes_of(uint64_t v, int n, bool big) {
    std::string out(static_cast<std::size_t>(n), '\0');
    for (int i = 0; i < n; ++i) {
        const char byte = static_cast<char>((v >> (8 * i)) & 0xff);
        out[big ? n - 1 - i : i] = byte;
    }
    return out;
}

uint64_t bits_of(double v) {
    uint64_t u;
    std::memcpy(&u, &v, sizeof u);
    return u;
}

} // namespace

std::string le16(uint16_t v) {
    return bytes_of(v, 2, false);
}
std::string le32(uint32_t v) {
    return bytes_of(v, 4, false);
}
std::string le64(uint64_t v) {
    return bytes_of(v, 8, false);
}
std::string le_double(double v) {
    return bytes_of(bits_of(v), 8, false);
}
std::string be32(uint32_t v) {
    return bytes_of(v, 4, true);
}
std::string be_double(double v) {
    return bytes_of(bits_of(v), 8, true);
}

std::string sparse_index(const std::vector<uint32_t>& positions) {
    std::string out = "CUBEX.INDEX" + le32(1) + le16(0) + std::string(1, '\1') +
                      le32(static_cast<uint32_t>(positions.size()));
    for (uint32_t p : positions) out += le32(p);
    return out;
}

std::string dense_index() {
    return "CUBEX.INDEX" + le32(1) + le16(0) + std::string(1, '\3');
}

void write_archive(const std::string& path,
                   const std::vector<std::pair<std::string, std::string>>& members,
                   bool stray_zero_blocks) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    for (const auto& [name, content] : members) {
        char header[512] = {};
        std::snprintf(header, 100, "%s", name.c_str());
        std::snprintf(header + 100, 8, "%07o", 0644);
        std::snprintf(header + 108, 8, "%07o", 0);
        std::snprintf(header + 116, 8, "%07o", 0);
        std::snprintf(header + 124, 12, "%011llo", static_cast<unsigned long long>(content.size()));
        std::snprintf(header + 136, 12, "%011o", 0);
        header[156] = '0';
        std::memcpy(header + 257,
                    "ustar\0"
                    "00",
                    8);
        std::memset(header + 148, ' ', 8);
        unsigned sum = 0;
        for (unsigned char c : header) sum += c;
        std::snprintf(header + 148, 8, "%06o", sum);
        out.write(header, 512);
        out << content;
        out << std::string((512 - content.size() % 512) % 512, '\0');
        if (stray_zero_blocks) out << std::string(512, '\0');
    }
    out << std::string(1024, '\0');
    if (!out) throw std::runtime_error("cannot write " + path);
}

} // namespace topolens::test
