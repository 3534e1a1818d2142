// Values packed into bytes and read back in the same order: what the ranks of an
// MPI-parallel analysis send each other (trace/exchange.h), and what a backward replay's
// step hands the other end of its message.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace topolens::trace {

using Bytes = std::vector<std::byte>;

class ByteWriter {
  public:
    explicit ByteWriter(Bytes& out) : out_(out) {}
    template <class T> void put(const T& value) {
        static_assert(std::is_trivially_copyable_v<T>, "only plain values travel as bytes");
        // Appended, not resized then overwritten: a resize fills with zeros first, and small
        // values are put often (a backward replay's payloads).
        const auto* bytes = reinterpret_cast<const std::byte*>(&value);
        out_.insert(out_.end(), bytes, bytes + sizeof(T));
    }
    // A count, then the values.
    template <class T> void put_all(std::span<const T> values) {
        static_assert(std::is_trivially_copyable_v<T>, "only plain values travel as bytes");
        put<uint64_t>(values.size());
        const size_t at = out_.size();
        out_.resize(at + values.size_bytes());
        if (!values.empty()) std::memcpy(out_.data() + at, values.data(), values.size_bytes());
    }
    template <class T> void put_all(const std::vector<T>& values) {
        put_all(std::span<const T>(values));
    }
    void put_string(const std::string& text) {
        put_all(std::span<const char>(text.data(), text.size()));
    }
    // Room for `bytes` more at the end, for a writer that fills many values at once (one
    // resize instead of an insert per value).
    std::byte* room(size_t bytes) {
        const size_t at = out_.size();
        out_.resize(at + bytes);
        return out_.data() + at;
    }

  private:
    Bytes& out_;
};

// Reads what a ByteWriter wrote, in the same order; reading past the end is an error that
// names the buffer (a sender and a reader that disagree are a bug, not bad input).
class ByteReader {
  public:
    ByteReader(std::span<const std::byte> in, const char* what) : in_(in), what_(what) {}
    template <class T> T get() {
        static_assert(std::is_trivially_copyable_v<T>, "only plain values travel as bytes");
        T value;
        std::memcpy(&value, take(sizeof(T)), sizeof(T));
        return value;
    }
    template <class T> std::vector<T> get_all() {
        static_assert(std::is_trivially_copyable_v<T>, "only plain values travel as bytes");
        const auto count = get<uint64_t>();
        if (count > (in_.size() - at_) / (sizeof(T) == 0 ? 1 : sizeof(T)))
            throw std::logic_error(std::string(what_) + ": a count beyond the bytes received");
        std::vector<T> values(count);
        if (count > 0) std::memcpy(values.data(), take(count * sizeof(T)), count * sizeof(T));
        return values;
    }
    std::string get_string() {
        const std::vector<char> chars = get_all<char>();
        return std::string(chars.begin(), chars.end());
    }
    bool done() const { return at_ == in_.size(); }
    // The next `bytes` bytes, for a reader that parses many values at once.
    const std::byte* get_raw(size_t bytes) { return take(bytes); }

  private:
    const std::byte* take(size_t bytes) {
        if (bytes > in_.size() - at_)
            throw std::logic_error(std::string(what_) + ": read past the bytes received");
        const std::byte* here = in_.data() + at_;
        at_ += bytes;
        return here;
    }
    std::span<const std::byte> in_;
    size_t at_ = 0;
    const char* what_;
};

} // namespace topolens::trace
