// The steps score_trace and score_report share.
#pragma once

#include "analyzer/score/score.h"

#include <algorithm>
#include <vector>

namespace topolens::score {

// The regions with visits or bytes, most bytes first (then by name, for a stable output).
inline std::vector<RegionScore> visited_by_bytes(std::vector<RegionScore> regions) {
    std::erase_if(regions, [](const RegionScore& r) {
        return r.total_visits() == 0 && r.total_bytes() == 0;
    });
    std::stable_sort(regions.begin(), regions.end(),
                     [](const RegionScore& a, const RegionScore& b) {
                         const uint64_t x = a.total_bytes(), y = b.total_bytes();
                         return x != y ? x > y : a.name < b.name;
                     });
    return regions;
}

} // namespace topolens::score
