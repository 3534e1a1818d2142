// Time per call path (call path -> ticks), as the root-cause analysis compares processes by
// it: a few call paths per synchronisation interval, so a sorted vector (one allocation, no
// tree) with the part of std::map's interface the analysis uses.
#pragma once

#include "trace/bytes.h"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace topolens::patterns {

class TimeMap {
  public:
    using value_type = std::pair<uint32_t, double>;
    using const_iterator = std::vector<value_type>::const_iterator;
    using iterator = std::vector<value_type>::iterator;

    double& operator[](uint32_t callpath) {
        // Call paths often come ascending (a map built from another) or repeat the last one.
        if (entries_.empty() || entries_.back().first < callpath)
            return entries_.emplace_back(callpath, 0.0).second;
        if (entries_.back().first == callpath) return entries_.back().second;
        auto at = lower(callpath);
        if (at == entries_.end() || at->first != callpath)
            at = entries_.insert(at, value_type{callpath, 0.0});
        return at->second;
    }
    const_iterator find(uint32_t callpath) const {
        const auto at =
            std::lower_bound(entries_.begin(), entries_.end(), callpath,
                             [](const value_type& e, uint32_t cp) { return e.first < cp; });
        return at != entries_.end() && at->first == callpath ? at : entries_.end();
    }
    // The ticks at `callpath`, 0 where it has none.
    double at(uint32_t callpath) const {
        const auto found = find(callpath);
        return found == end() ? 0.0 : found->second;
    }
    double sum() const {
        double total = 0;
        for (const auto& [cp, ticks] : entries_) total += ticks;
        return total;
    }
    const_iterator begin() const { return entries_.begin(); }
    const_iterator end() const { return entries_.end(); }
    size_t size() const { return entries_.size(); }
    bool empty() const { return entries_.empty(); }
    void clear() { entries_.clear(); }
    void reserve(size_t n) { entries_.reserve(n); }
    bool operator==(const TimeMap&) const = default;

    // As bytes, for another location's replay: a count, then call path and ticks of each
    // entry (the doubles bit for bit).
    void write(trace::ByteWriter& out) const {
        out.put<uint32_t>(static_cast<uint32_t>(entries_.size()));
        for (const auto& [cp, ticks] : entries_) {
            out.put(cp);
            out.put(ticks);
        }
    }
    static TimeMap read(trace::ByteReader& in) {
        TimeMap map;
        const auto n = in.get<uint32_t>();
        map.entries_.reserve(n);
        for (uint32_t k = 0; k < n; ++k) {
            const auto cp = in.get<uint32_t>();
            map.entries_.emplace_back(cp, in.get<double>());
        }
        return map;
    }

  private:
    iterator lower(uint32_t callpath) {
        return std::lower_bound(entries_.begin(), entries_.end(), callpath,
                                [](const value_type& e, uint32_t cp) { return e.first < cp; });
    }
    std::vector<value_type> entries_; // ascending by call path
};

} // namespace topolens::patterns
