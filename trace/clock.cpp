#include "trace/clock.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace topolens::trace {
namespace {

// (delta * part) / whole rounded to nearest, halves away from zero; part <= whole.
int64_t scaled(int64_t delta, uint64_t part, uint64_t whole) {
    // 128-bit is exact while |delta| < 2^63; beyond that only absurd offsets remain.
    if (delta > INT64_MIN) {
        __int128 num = static_cast<__int128>(delta) * static_cast<__int128>(part);
        __int128 den = whole;
        __int128 q = num / den;
        __int128 r = num % den;
        if (2 * (r < 0 ? -r : r) >= den) q += num < 0 ? -1 : 1;
        return static_cast<int64_t>(q);
    }
    long double f = static_cast<long double>(delta) * part / whole;
    return static_cast<int64_t>(std::llround(f));
}

} // namespace

ClockCorrection::ClockCorrection(std::vector<ClockOffset> offsets) : offsets_(std::move(offsets)) {
    std::stable_sort(offsets_.begin(), offsets_.end(),
                     [](const ClockOffset& x, const ClockOffset& y) { return x.time < y.time; });
}

int64_t ClockCorrection::offset_at(uint64_t local) const {
    if (offsets_.empty()) return 0;
    if (local <= offsets_.front().time) return offsets_.front().offset;
    if (local >= offsets_.back().time) return offsets_.back().offset;
    // First offset measured after `local`; its predecessor was measured before (or at) it.
    auto next = std::upper_bound(offsets_.begin(), offsets_.end(), local,
                                 [](uint64_t t, const ClockOffset& o) { return t < o.time; });
    auto prev = next - 1;
    uint64_t whole = next->time - prev->time; // > 0: local lies strictly between distinct times
    // The difference of two int64 fits int64 for any realistic offsets; saturate otherwise.
    __int128 wide_delta = static_cast<__int128>(next->offset) - prev->offset;
    int64_t delta = wide_delta > INT64_MAX   ? INT64_MAX
                    : wide_delta < INT64_MIN ? INT64_MIN
                                             : static_cast<int64_t>(wide_delta);
    return prev->offset + scaled(delta, local - prev->time, whole);
}

std::optional<Time> ClockCorrection::to_global(uint64_t local) const {
    __int128 global = static_cast<__int128>(local) + offset_at(local);
    if (global < 0 || global > static_cast<__int128>(UINT64_MAX)) return std::nullopt;
    return static_cast<Time>(global);
}

} // namespace topolens::trace
