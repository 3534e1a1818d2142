#include "trace/location_shares.h"

#include "trace/model.h"

#include <algorithm>
#include <iterator>
#include <stdexcept>
#include <string>
#include <unordered_set>

namespace topolens::trace {

std::vector<LocationShare> share_locations(const std::vector<uint32_t>& process,
                                           const std::vector<uint64_t>& weight, unsigned ranks) {
    const auto n = static_cast<uint32_t>(process.size());
    if (weight.size() != n) throw std::logic_error("share_locations: one weight per location");
    // Where a process begins: the places a share may begin.
    std::vector<uint32_t> starts;
    std::unordered_set<uint32_t> seen;
    for (uint32_t loc = 0; loc < n; ++loc) {
        if (loc > 0 && process[loc] == process[loc - 1]) continue;
        if (!seen.insert(process[loc]).second)
            throw TraceError("the locations of process " + std::to_string(process[loc]) +
                             " are not next to each other in the trace (location " +
                             std::to_string(loc) +
                             "): it cannot be shared out to ranks; analyze it in one process");
        starts.push_back(loc);
    }
    if (ranks == 0 || ranks > starts.size())
        throw TraceError("the analysis has " + std::to_string(ranks) + " ranks and the trace " +
                         std::to_string(starts.size()) +
                         " processes: each rank needs a process of its own (run with at most " +
                         std::to_string(starts.size()) + ")");
    std::vector<uint64_t> before(n + 1, 0); // weight of the locations before each
    for (uint32_t loc = 0; loc < n; ++loc) before[loc + 1] = before[loc] + weight[loc];
    std::vector<LocationShare> shares(ranks);
    size_t start = 0; // index into starts of the next share's first process
    for (unsigned r = 0; r < ranks; ++r) {
        shares[r].first = starts[start];
        const size_t left_after = ranks - r - 1; // shares still to fill after this one
        // This share ends at the process start nearest its fair end, leaving a process to
        // each share after it.
        const uint64_t goal = before[n] * (r + 1) / ranks;
        size_t end = start + 1;
        while (end + left_after < starts.size() && before[starts[end]] < goal) ++end;
        if (end + left_after < starts.size() && end > start + 1 &&
            goal - before[starts[end - 1]] < before[starts[end]] - goal)
            --end;
        if (left_after == 0) end = starts.size();
        shares[r].last = end == starts.size() ? n : starts[end];
        start = end;
    }
    return shares;
}

uint32_t rank_holding(const std::vector<LocationShare>& shares, uint32_t location) {
    auto after =
        std::upper_bound(shares.begin(), shares.end(), location,
                         [](uint32_t l, const LocationShare& share) { return l < share.first; });
    if (after == shares.begin() || location >= std::prev(after)->last)
        throw std::logic_error("no rank holds location " + std::to_string(location));
    return static_cast<uint32_t>(after - shares.begin()) - 1;
}

} // namespace topolens::trace
