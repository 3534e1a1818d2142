#include "analyzer/score/score.h"

#include <algorithm>
#include <numeric>

namespace topolens::score {

const char* region_type_name(RegionType type) {
    switch (type) {
    case RegionType::Mpi:
        return "MPI";
    case RegionType::Com:
        return "COM";
    case RegionType::Usr:
        break;
    }
    return "USR";
}

namespace {

uint64_t sum(const std::vector<uint64_t>& values) {
    return std::accumulate(values.begin(), values.end(), uint64_t{0});
}

uint64_t most(const std::vector<uint64_t>& values) {
    return values.empty() ? 0 : *std::max_element(values.begin(), values.end());
}

} // namespace

uint64_t RegionScore::total_visits() const {
    return sum(visits);
}
uint64_t RegionScore::max_visits() const {
    return most(visits);
}
uint64_t RegionScore::total_bytes() const {
    return sum(bytes);
}
uint64_t RegionScore::max_bytes() const {
    return most(bytes);
}

double RegionScore::time_per_visit() const {
    const uint64_t n = total_visits();
    return n ? time / static_cast<double>(n) : 0.0;
}

uint64_t Score::total_bytes() const {
    return sum(process_bytes);
}
uint64_t Score::max_process_bytes() const {
    return most(process_bytes);
}
uint64_t FilterEffect::total_bytes() const {
    return sum(process_bytes);
}
uint64_t FilterEffect::max_process_bytes() const {
    return most(process_bytes);
}

} // namespace topolens::score
