#include "patterns/registry.h"

namespace topolens::patterns {

std::vector<std::unique_ptr<analysis::Pattern>> all_patterns(bool root_causes) {
    std::vector<std::unique_ptr<analysis::Pattern>> patterns;
    patterns.push_back(time_pattern());
    patterns.push_back(point_to_point_patterns());
    patterns.push_back(collective_patterns());
    patterns.push_back(wavefront_patterns()); // takes its part of Late Sender
    patterns.push_back(codelet_patterns());
    patterns.push_back(message_statistics());
    if (root_causes) {
        patterns.push_back(delay_costs()); // root causes of the waits the patterns above find
        patterns.push_back(critical_path());
    }
    return patterns;
}

} // namespace topolens::patterns
