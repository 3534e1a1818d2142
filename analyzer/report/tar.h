// A minimal POSIX tar (ustar) writer and reader: the container of CUBE4 .cubex reports.
//
// Writing: regular files only, written in the order added, with fixed owner, mode and time so
// the same content always gives the same bytes; sizes of 8 GiB and more in pax headers. Reading:
// indexes the regular files of an archive (ustar, GNU and pax headers for long names and sizes)
// without loading their contents, and reads one member on demand. Every problem is a tar::TarError
// whose message says what is wrong where; callers add the file name.
#pragma once

#include <cstdint>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace topolens::tar {

class TarError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// Streams members into a new archive. The archive appears at `path` only when finish()
// succeeds (written to a temporary file next to it, then renamed).
class Writer {
  public:
    explicit Writer(const std::string& path);
    ~Writer(); // without finish(): removes the temporary file
    Writer(const Writer&) = delete;
    Writer& operator=(const Writer&) = delete;

    // Names up to 100 bytes (ours are "anchor.xml", "12.index").
    void add(const std::string& name, std::string_view data);
    void finish();

  private:
    std::string path_, temporary_;
    std::ofstream out_;
    bool finished_ = false;
};

// The header block(s) written before a member of `size` bytes: one ustar header, preceded
// for 8 GiB and more by a pax extended header holding the size.
std::string member_header(const std::string& name, uint64_t size);

struct Entry {
    std::string name;
    uint64_t offset = 0; // of the data in the archive
    uint64_t size = 0;
};

// Throws TarError unless `path` is a regular file: a directory, a FIFO, a socket or a
// device is refused before it is opened (opening a FIFO would wait for a writer forever).
void require_regular_file(const std::string& path);

class Reader {
  public:
    // Indexes the archive; throws TarError if it is not a tar archive or is cut short.
    explicit Reader(const std::string& path);
    const std::vector<Entry>& entries() const { return entries_; }
    const Entry* find(const std::string& name) const;
    std::string read(const Entry& entry);

  private:
    std::ifstream in_;
    uint64_t file_size_ = 0;
    std::vector<Entry> entries_;
};

} // namespace topolens::tar
