#include "tuned_operations.h"

#include "trace/tuned_encoding.h"

#include <utility>

namespace topolens::measure {

namespace encoding = topolens::trace;

// Definitions are shared with the other threads' user regions (threaded levels).
int define_tuned_operation(const std::string& name, const std::string& description) {
    RecorderState& s = state();
    std::unique_lock<std::mutex> lock = shared_lock();
    for (size_t i = 0; i < s.tuned.size(); ++i)
        if (s.tuned[i].name == name) return static_cast<int>(i + 1);
    TunedOperation op;
    op.name = name;
    RegionDefinition region;
    region.name = name;
    region.canonical_name = encoding::tuned_op_canonical_name(name);
    region.description = description;
    op.region = s.definitions.region(region);
    op.codelet_parameter =
        s.definitions.parameter(encoding::codelet_parameter_name(name), OTF2_PARAMETER_TYPE_INT64);
    op.phase_parameter =
        s.definitions.parameter(encoding::phase_parameter_name(name), OTF2_PARAMETER_TYPE_STRING);
    op.decision_parameter =
        s.definitions.parameter(encoding::decision_parameter_name(name), OTF2_PARAMETER_TYPE_INT64);
    s.tuned.push_back(std::move(op));
    return static_cast<int>(s.tuned.size());
}

uint32_t define_codelet_region(TunedOperation& op, int index, const std::string& name,
                               const std::string& description) {
    if (auto found = op.codelet_regions.find(index); found != op.codelet_regions.end())
        return found->second;
    RegionDefinition region;
    region.name = name;
    region.canonical_name = encoding::codelet_canonical_name(op.name, index, name);
    region.description = description;
    std::unique_lock<std::mutex> lock = shared_lock();
    const uint32_t id = state().definitions.region(region);
    op.codelet_regions[index] = id;
    return id;
}

} // namespace topolens::measure
