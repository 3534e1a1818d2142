// POSIX ustar archives, as far as CUBE4 reports need them (see tar.h).
#include "analyzer/report/tar.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace topolens::tar {
namespace {

constexpr std::size_t kBlock = 512;
using Block = std::array<char, kBlock>;

// Field offsets and widths of a ustar header.
constexpr std::size_t kName = 0, kNameLen = 100;
constexpr std::size_t kMode = 100, kUid = 108, kGid = 116, kIdLen = 8;
constexpr std::size_t kSize = 124, kSizeLen = 12;
constexpr std::size_t kMtime = 136, kMtimeLen = 12;
constexpr std::size_t kChecksum = 148, kChecksumLen = 8;
constexpr std::size_t kType = 156;
constexpr std::size_t kMagic = 257, kVersion = 263;
constexpr std::size_t kPrefix = 345, kPrefixLen = 155;

uint64_t round_up(uint64_t n) {
    return (n + kBlock - 1) / kBlock * kBlock;
}

// Zero-padded octal with a terminating NUL, as POSIX writes numeric fields.
void put_octal(Block& b, std::size_t at, std::size_t width, uint64_t value) {
    std::snprintf(b.data() + at, width, "%0*llo", static_cast<int>(width - 1),
                  static_cast<unsigned long long>(value));
}

// The checksum counts the checksum field as eight spaces; old writers summed signed chars.
std::pair<uint64_t, int64_t> checksums(const Block& b) {
    uint64_t unsigned_sum = 0;
    int64_t signed_sum = 0;
    for (std::size_t i = 0; i < kBlock; ++i) {
        const bool in_field = i >= kChecksum && i < kChecksum + kChecksumLen;
        const char c = in_field ? ' ' : b[i];
        unsigned_sum += static_cast<unsigned char>(c);
        signed_sum += static_cast<signed char>(c);
    }
    return {unsigned_sum, signed_sum};
}

std::string field_string(const Block& b, std::size_t at, std::size_t width) {
    const char* begin = b.data() + at;
    return std::string(begin, std::find(begin, begin + width, '\0'));
}

// Octal, blank/NUL terminated; or GNU base-256 (first byte 0x80) for sizes beyond 8 GiB.
bool parse_number(const Block& b, std::size_t at, std::size_t width, uint64_t& value) {
    const auto* p = reinterpret_cast<const unsigned char*>(b.data() + at);
    value = 0;
    if (p[0] & 0x80) {
        if (p[0] != 0x80) return false; // negative numbers are not sizes
        for (std::size_t i = 1; i < width; ++i) {
            if (value >> 56) return false;
            value = value << 8 | p[i];
        }
        return true;
    }
    std::size_t i = 0;
    while (i < width && p[i] == ' ') ++i;
    bool digits = false;
    for (; i < width && p[i] >= '0' && p[i] <= '7'; ++i) {
        if (value >> 61) return false;
        value = value * 8 + (p[i] - '0');
        digits = true;
    }
    for (; i < width; ++i)
        if (p[i] != ' ' && p[i] != '\0') return false;
    return digits;
}

bool is_zero(const Block& b) {
    return std::all_of(b.begin(), b.end(), [](char c) { return c == '\0'; });
}

std::string at_byte(uint64_t offset) {
    return " at byte " + std::to_string(offset);
}

// Applies the "path" and "size" records of a pax extended header ("<len> key=value\n"...).
// A pax header's size record overrides the next header's size field.
struct PaxSize {
    bool set = false;
    uint64_t value = 0;
};

void parse_pax(const std::string& data, std::string& path, PaxSize& size, uint64_t offset) {
    std::size_t pos = 0;
    while (pos < data.size()) {
        const std::size_t space = data.find(' ', pos);
        if (space == std::string::npos) break;
        std::size_t length = 0;
        for (std::size_t i = pos; i < space; ++i) {
            if (data[i] < '0' || data[i] > '9' || length > data.size())
                throw TarError("damaged pax header" + at_byte(offset));
            length = length * 10 + static_cast<std::size_t>(data[i] - '0');
        }
        if (length <= space - pos || pos + length > data.size() || data[pos + length - 1] != '\n')
            throw TarError("damaged pax header" + at_byte(offset));
        const std::string record = data.substr(space + 1, pos + length - space - 2);
        const std::size_t eq = record.find('=');
        if (eq != std::string::npos) {
            const std::string key = record.substr(0, eq), value = record.substr(eq + 1);
            if (key == "path") path = value;
            if (key == "size") {
                uint64_t v = 0;
                for (char c : value) {
                    if (c < '0' || c > '9' || v > (UINT64_MAX - 9) / 10)
                        throw TarError("damaged pax size record" + at_byte(offset));
                    v = v * 10 + static_cast<uint64_t>(c - '0');
                }
                size = PaxSize{true, v};
            }
        }
        pos += length;
    }
}

std::string clean_name(std::string name) {
    while (name.rfind("./", 0) == 0) name.erase(0, 2);
    return name;
}

} // namespace

// ---------------------------------------------------------------- writing

Writer::Writer(const std::string& path) : path_(path), temporary_(path + ".tmp") {
    out_.open(temporary_, std::ios::binary | std::ios::trunc);
    if (!out_) throw TarError("cannot create " + temporary_ + ": " + std::strerror(errno));
}

Writer::~Writer() {
    if (finished_) return;
    out_.close();
    std::error_code ec;
    std::filesystem::remove(temporary_, ec);
}

namespace {

// One ustar header block; `size` must fit its octal field.
Block ustar_header(const std::string& name, uint64_t size, char type) {
    Block header{};
    std::memcpy(header.data() + kName, name.data(), name.size());
    put_octal(header, kMode, kIdLen, 0644);
    put_octal(header, kUid, kIdLen, 0);
    put_octal(header, kGid, kIdLen, 0);
    put_octal(header, kSize, kSizeLen, size);
    put_octal(header, kMtime, kMtimeLen, 0); // fixed, so equal reports give equal files
    header[kType] = type;
    std::memcpy(header.data() + kMagic, "ustar", 6); // with its NUL
    std::memcpy(header.data() + kVersion, "00", 2);
    std::snprintf(header.data() + kChecksum, kChecksumLen, "%06llo",
                  static_cast<unsigned long long>(checksums(header).first));
    header[kChecksum + 7] = ' ';
    return header;
}

} // namespace

std::string member_header(const std::string& name, uint64_t size) {
    if (name.empty() || name.size() > kNameLen)
        throw TarError("tar member name '" + name + "' must have 1 to 100 bytes");
    std::string out;
    constexpr uint64_t kOctalLimit = uint64_t{1} << 33; // 11 octal digits
    if (size >= kOctalLimit) {
        // A pax record "<length> size=<size>\n" (the length counts its own digits), alone
        // in its extended header: cubelib reads exactly that form, as do GNU tar and we.
        const std::string rest = " size=" + std::to_string(size) + "\n";
        std::size_t length = rest.size() + 1;
        while (std::to_string(length).size() + rest.size() != length) ++length;
        const std::string record = std::to_string(length) + rest;
        const Block pax =
            ustar_header("PaxHeader/" + name.substr(0, kNameLen - 10), record.size(), 'x');
        out.append(pax.data(), kBlock);
        out += record;
        out.append(round_up(record.size()) - record.size(), '\0');
        size = 0; // the pax record holds it
    }
    const Block header = ustar_header(name, size, '0');
    out.append(header.data(), kBlock);
    return out;
}

void Writer::add(const std::string& name, std::string_view data) {
    const std::string header = member_header(name, data.size());
    out_.write(header.data(), static_cast<std::streamsize>(header.size()));
    out_.write(data.data(), static_cast<std::streamsize>(data.size()));
    static const Block zeros{};
    out_.write(zeros.data(), static_cast<std::streamsize>(round_up(data.size()) - data.size()));
    if (!out_) throw TarError("cannot write " + temporary_ + ": " + std::strerror(errno));
}

void Writer::finish() {
    static const Block zeros{};
    out_.write(zeros.data(), kBlock); // two zero blocks end the archive
    out_.write(zeros.data(), kBlock);
    out_.close();
    if (!out_) throw TarError("cannot write " + temporary_ + ": " + std::strerror(errno));
    std::error_code ec;
    std::filesystem::rename(temporary_, path_, ec);
    if (ec) throw TarError("cannot rename " + temporary_ + " to " + path_ + ": " + ec.message());
    finished_ = true;
}

// ---------------------------------------------------------------- reading

void require_regular_file(const std::string& path) {
    std::error_code ec;
    const std::filesystem::file_status status = std::filesystem::status(path, ec);
    if (ec || !std::filesystem::exists(status)) return; // opening it says why
    if (std::filesystem::is_directory(status)) throw TarError("is a directory, not a file");
    if (!std::filesystem::is_regular_file(status))
        throw TarError(std::string("not a regular file (") +
                       (std::filesystem::is_fifo(status)     ? "a FIFO"
                        : std::filesystem::is_socket(status) ? "a socket"
                                                             : "a device") +
                       "); reports are read from files");
}

Reader::Reader(const std::string& path) {
    require_regular_file(path);
    in_.open(path, std::ios::binary);
    if (!in_) throw TarError(std::string("cannot open: ") + std::strerror(errno));
    in_.seekg(0, std::ios::end);
    file_size_ = static_cast<uint64_t>(in_.tellg());
    in_.seekg(0);
    if (file_size_ == 0) throw TarError("empty file, not a tar archive");
    if (file_size_ < kBlock) throw TarError("not a tar archive (shorter than one tar header)");

    std::string pending_name;
    PaxSize pending_size;
    uint64_t offset = 0;
    bool any_header = false;
    size_t zero_blocks = 0; // in a row, since the last member
    Block b;
    while (offset + kBlock <= file_size_) {
        in_.clear();
        in_.seekg(static_cast<std::streamoff>(offset));
        if (!in_.read(b.data(), kBlock)) throw TarError("read error" + at_byte(offset));
        if (is_zero(b)) {
            // End-of-archive blocks; cubew also leaves a stray one after some members, so
            // keep looking until the file ends.
            offset += kBlock;
            ++zero_blocks;
            continue;
        }
        zero_blocks = 0;
        const auto [unsigned_sum, signed_sum] = checksums(b);
        uint64_t stored = 0;
        if (!parse_number(b, kChecksum, kChecksumLen, stored) ||
            (stored != unsigned_sum && static_cast<int64_t>(stored) != signed_sum)) {
            if (!any_header) throw TarError("not a tar archive (no valid tar header at its start)");
            throw TarError("damaged tar header (checksum mismatch)" + at_byte(offset));
        }
        any_header = true;
        uint64_t size = 0;
        if (!parse_number(b, kSize, kSizeLen, size))
            throw TarError("damaged tar header (bad size field)" + at_byte(offset));
        if (pending_size.set) size = pending_size.value;
        const char type = b[kType];
        std::string name = field_string(b, kName, kNameLen);
        if (field_string(b, kMagic, 6) == "ustar" && b[kMagic + 5] == '\0') {
            const std::string prefix = field_string(b, kPrefix, kPrefixLen);
            if (!prefix.empty()) name = prefix + "/" + name;
        }
        if (!pending_name.empty()) name = pending_name;
        const uint64_t data_offset = offset + kBlock;
        if (size > file_size_ - data_offset)
            throw TarError("truncated: member '" + name + "' needs " + std::to_string(size) +
                           " bytes" + at_byte(data_offset) + " but the file ends at byte " +
                           std::to_string(file_size_));
        const bool header_only = type == 'x' || type == 'g' || type == 'L';
        if (!header_only) {
            pending_name.clear();
            pending_size = PaxSize{};
        }
        if (type == 'x') {
            parse_pax(read(Entry{name, data_offset, size}), pending_name, pending_size, offset);
        } else if (type == 'L') {
            std::string long_name = read(Entry{name, data_offset, size});
            pending_name = long_name.substr(0, long_name.find('\0'));
        } else if (type == '0' || type == '\0' || type == '7') {
            entries_.push_back(Entry{clean_name(name), data_offset, size});
        }
        offset = data_offset + round_up(size);
    }
    if (offset < file_size_) {
        // A partial block at the end: harmless padding if zero, else the archive was cut.
        const auto rest = static_cast<std::size_t>(file_size_ - offset);
        in_.clear();
        in_.seekg(static_cast<std::streamoff>(offset));
        std::string tail(rest, '\0');
        in_.read(tail.data(), static_cast<std::streamsize>(rest));
        if (tail.find_first_not_of('\0') != std::string::npos)
            throw TarError("truncated: " + std::to_string(rest) +
                           " bytes of an incomplete tar block" + at_byte(offset));
    }
    if (!any_header) throw TarError("not a tar archive (only zero bytes)");
    // A complete archive ends with two zero blocks; without them the file was cut after a
    // member, and members after the cut would silently be missing.
    if (zero_blocks < 2)
        throw TarError("truncated: the end-of-archive blocks are missing (the file ends at byte " +
                       std::to_string(file_size_) + ", after member '" +
                       (entries_.empty() ? std::string("?") : entries_.back().name) + "')");
}

const Entry* Reader::find(const std::string& name) const {
    // The last member of a name wins, as when tar extracts an archive.
    for (auto it = entries_.rbegin(); it != entries_.rend(); ++it)
        if (it->name == name) return &*it;
    return nullptr;
}

std::string Reader::read(const Entry& entry) {
    if (entry.offset > file_size_ || entry.size > file_size_ - entry.offset)
        throw TarError("member '" + entry.name + "' lies beyond the end of the file");
    std::string data(static_cast<std::size_t>(entry.size), '\0');
    in_.clear();
    in_.seekg(static_cast<std::streamoff>(entry.offset));
    if (!in_.read(data.data(), static_cast<std::streamsize>(entry.size)))
        throw TarError("read error in member '" + entry.name + "'");
    return data;
}

} // namespace topolens::tar
