// Time per call path (call path -> ticks), as the root-cause analysis compares processes by
// it: a few call paths per synchronisation interval, so a sorted array (no tree) with the
// part of std::map's interface the analysis uses. Up to kInline entries live in the map
// itself: the analysis makes and drops hundreds of thousands of small maps (intervals,
// their differences, what a wait posts), and their allocations were a twentieth of it.
#pragma once

#include "trace/bytes.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>

namespace topolens::patterns {

class TimeMap {
  public:
    // No initializers: the inline room is not zeroed at every map made.
    struct Entry {
        uint32_t first; // call path
        double second;  // ticks
        bool operator==(const Entry&) const = default;
    };
    using value_type = Entry;
    using const_iterator = const Entry*;
    using iterator = Entry*;
    static_assert(std::is_trivially_copyable_v<Entry>);

    TimeMap() = default;
    TimeMap(const TimeMap& other) { copy_from(other); }
    TimeMap(TimeMap&& other) noexcept { move_from(other); }
    TimeMap& operator=(const TimeMap& other) {
        if (this != &other) {
            size_ = 0;
            copy_from(other);
        }
        return *this;
    }
    TimeMap& operator=(TimeMap&& other) noexcept {
        if (this != &other) {
            heap_.reset();
            data_ = inline_;
            capacity_ = kInline;
            size_ = 0;
            move_from(other);
        }
        return *this;
    }

    double& operator[](uint32_t callpath) {
        // Call paths often come ascending (a map built from another) or repeat the last one.
        if (size_ == 0 || data_[size_ - 1].first < callpath) return append(callpath).second;
        if (data_[size_ - 1].first == callpath) return data_[size_ - 1].second;
        Entry* at = lower(callpath);
        if (at->first == callpath) return at->second;
        const auto index = static_cast<uint32_t>(at - data_);
        grow_for(size_ + 1);
        at = data_ + index;
        std::memmove(at + 1, at, (size_ - index) * sizeof(Entry));
        ++size_;
        *at = Entry{callpath, 0.0};
        return at->second;
    }
    const_iterator find(uint32_t callpath) const {
        const Entry* at = std::lower_bound(
            begin(), end(), callpath, [](const Entry& e, uint32_t cp) { return e.first < cp; });
        return at != end() && at->first == callpath ? at : end();
    }
    // The ticks at `callpath`, 0 where it has none.
    double at(uint32_t callpath) const {
        const auto found = find(callpath);
        return found == end() ? 0.0 : found->second;
    }
    double sum() const {
        double total = 0;
        for (const auto& [cp, ticks] : *this) total += ticks;
        return total;
    }
    const_iterator begin() const { return data_; }
    const_iterator end() const { return data_ + size_; }
    size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    void clear() { size_ = 0; }
    void reserve(size_t n) { grow_for(n); }
    bool operator==(const TimeMap& other) const {
        return std::equal(begin(), end(), other.begin(), other.end());
    }

    // As bytes, for another location's replay: a count, then call path and ticks of each
    // entry (the doubles bit for bit).
    void write(trace::ByteWriter& out) const {
        // Written at once (a put per value: 7% of the backward replay's instructions).
        std::byte* to = out.room(sizeof(uint32_t) + size_ * kEntryBytes);
        std::memcpy(to, &size_, sizeof(uint32_t));
        to += sizeof(uint32_t);
        for (const auto& [cp, ticks] : *this) {
            std::memcpy(to, &cp, sizeof cp);
            std::memcpy(to + sizeof cp, &ticks, sizeof ticks);
            to += kEntryBytes;
        }
    }
    static TimeMap read(trace::ByteReader& in) {
        const auto n = in.get<uint32_t>();
        const std::byte* from = in.get_raw(size_t{n} * kEntryBytes);
        TimeMap map;
        map.grow_for(n);
        for (uint32_t k = 0; k < n; ++k, from += kEntryBytes) {
            std::memcpy(&map.data_[k].first, from, sizeof(uint32_t));
            std::memcpy(&map.data_[k].second, from + sizeof(uint32_t), sizeof(double));
        }
        map.size_ = n;
        return map;
    }

  private:
    static constexpr uint32_t kInline = 8;
    static constexpr size_t kEntryBytes = sizeof(uint32_t) + sizeof(double); // packed

    Entry& append(uint32_t callpath) {
        grow_for(size_ + 1);
        data_[size_] = Entry{callpath, 0.0};
        return data_[size_++];
    }
    Entry* lower(uint32_t callpath) {
        return std::lower_bound(data_, data_ + size_, callpath,
                                [](const Entry& e, uint32_t cp) { return e.first < cp; });
    }
    void grow_for(size_t n) {
        if (n <= capacity_) return;
        const auto capacity = static_cast<uint32_t>(std::max<size_t>(n, 2 * size_t{capacity_}));
        auto bigger = std::make_unique_for_overwrite<Entry[]>(capacity);
        std::memcpy(bigger.get(), data_, size_ * sizeof(Entry));
        heap_ = std::move(bigger);
        data_ = heap_.get();
        capacity_ = capacity;
    }
    void copy_from(const TimeMap& other) {
        grow_for(other.size_);
        std::memcpy(data_, other.data_, other.size_ * sizeof(Entry));
        size_ = other.size_;
    }
    // Into an empty map with its inline room: the other's heap array is taken over, its
    // inline entries copied; the other is left empty.
    void move_from(TimeMap& other) {
        if (other.heap_) {
            heap_ = std::move(other.heap_);
            data_ = heap_.get();
            capacity_ = other.capacity_;
        } else {
            std::memcpy(inline_, other.inline_, other.size_ * sizeof(Entry));
        }
        size_ = other.size_;
        other.data_ = other.inline_;
        other.capacity_ = kInline;
        other.size_ = 0;
    }

    Entry* data_ = inline_;
    uint32_t size_ = 0, capacity_ = kInline;
    std::unique_ptr<Entry[]> heap_;
    Entry inline_[kInline]; // not zeroed: entries [0, size_) are written before they are read
};

} // namespace topolens::patterns
