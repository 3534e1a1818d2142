// Byte packing for the definitions each process sends to rank 0 at finalize.
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace topolens::measure {

class ByteWriter {
  public:
    template <typename T> void put(T value) {
        static_assert(std::is_trivially_copyable_v<T>);
        const auto* bytes = reinterpret_cast<const char*>(&value);
        data_.insert(data_.end(), bytes, bytes + sizeof(T));
    }
    void put_string(std::string_view text) {
        put<uint32_t>(static_cast<uint32_t>(text.size()));
        data_.insert(data_.end(), text.begin(), text.end());
    }
    template <typename T> void put_vector(const std::vector<T>& values) {
        put<uint32_t>(static_cast<uint32_t>(values.size()));
        for (const T& value : values) put(value);
    }
    const std::vector<char>& data() const { return data_; }

  private:
    std::vector<char> data_;
};

class ByteReader {
  public:
    ByteReader(const char* data, size_t size) : data_(data), size_(size) {}
    template <typename T> T get() {
        need(sizeof(T));
        T value;
        std::memcpy(&value, data_ + pos_, sizeof(T));
        pos_ += sizeof(T);
        return value;
    }
    std::string get_string() {
        const auto length = get<uint32_t>();
        need(length);
        std::string text(data_ + pos_, length);
        pos_ += length;
        return text;
    }
    template <typename T> std::vector<T> get_vector() {
        const auto count = get<uint32_t>();
        std::vector<T> values;
        values.reserve(count);
        for (uint32_t i = 0; i < count; ++i) values.push_back(get<T>());
        return values;
    }
    bool done() const { return pos_ == size_; }
    size_t position() const { return pos_; }

  private:
    void need(size_t bytes) const {
        if (pos_ + bytes > size_) throw std::runtime_error("truncated definition message");
    }
    const char* data_;
    size_t size_;
    size_t pos_ = 0;
};

} // namespace topolens::measure
