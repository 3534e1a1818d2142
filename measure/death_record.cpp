#include "death_record.h"

#include "serialize.h"

#include <cstdio>
#include <fcntl.h>
#include <stdexcept>
#include <unistd.h>

namespace topolens::measure {

namespace {
constexpr char kMagic[] = "topolens rank record 1\n";
constexpr size_t kMagicSize = sizeof kMagic - 1;
} // namespace

std::string death_record_name(uint32_t rank) {
    return "rank-" + std::to_string(rank) + ".defs";
}

std::vector<char> serialize(const DeathRecord& r) {
    ByteWriter out;
    for (size_t i = 0; i < kMagicSize; ++i) out.put(kMagic[i]);
    out.put(r.rank);
    out.put(r.size);
    out.put<uint8_t>(r.died ? 1 : 0);
    out.put_string(r.cause);
    out.put(r.death_time);
    out.put(r.event_chunk_size);
    out.put<uint32_t>(static_cast<uint32_t>(r.clock.size()));
    for (const ClockOffsetRecord& c : r.clock) {
        out.put(c.local_time);
        out.put(c.offset);
        out.put(c.deviation);
    }
    std::vector<char> bytes = out.data();
    const std::vector<char> contribution = serialize(r.contribution);
    bytes.insert(bytes.end(), contribution.begin(), contribution.end());
    return bytes;
}

DeathRecord deserialize_death_record(const std::vector<char>& bytes) {
    if (bytes.size() < kMagicSize || std::string(bytes.data(), kMagicSize) != kMagic)
        throw std::runtime_error("not a topolens rank record");
    ByteReader in(bytes.data() + kMagicSize, bytes.size() - kMagicSize);
    DeathRecord r;
    r.rank = in.get<uint32_t>();
    r.size = in.get<uint32_t>();
    r.died = in.get<uint8_t>() != 0;
    r.cause = in.get_string();
    r.death_time = in.get<uint64_t>();
    r.event_chunk_size = in.get<uint64_t>();
    for (uint32_t n = in.get<uint32_t>(); n > 0; --n) {
        ClockOffsetRecord c;
        c.local_time = in.get<uint64_t>();
        c.offset = in.get<int64_t>();
        c.deviation = in.get<double>();
        r.clock.push_back(c);
    }
    const size_t header = kMagicSize + in.position();
    r.contribution = deserialize(bytes.data() + header, bytes.size() - header);
    if (r.size == 0 || r.rank >= r.size)
        throw std::runtime_error("rank " + std::to_string(r.rank) + " of " +
                                 std::to_string(r.size) + " processes");
    return r;
}

bool write_death_record(const std::string& directory, const DeathRecord& record) {
    const std::vector<char> bytes = serialize(record);
    const std::string path = directory + "/" + death_record_name(record.rank);
    const std::string temporary = path + ".tmp";
    const int fd = open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return false;
    size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
        if (n <= 0) break;
        done += static_cast<size_t>(n);
    }
    const bool ok = close(fd) == 0 && done == bytes.size();
    if (!ok || std::rename(temporary.c_str(), path.c_str()) != 0) {
        unlink(temporary.c_str());
        return false;
    }
    return true;
}

} // namespace topolens::measure
