// Every pattern topolens knows. The engine defines their metrics in the metric catalogue's
// tree order (patterns/metric_catalogue.h), whatever the order here; the order here is the
// order in which callbacks run and published instances reach their subscribers.
#pragma once

#include "analyzer/engine/engine.h"

#include <memory>
#include <vector>

namespace topolens::patterns {

// `root_causes` false leaves out the root-cause analysis (delay costs, wait propagation, the
// critical path), the costliest part, as Scalasca's --no-rootcause does.
std::vector<std::unique_ptr<analysis::Pattern>> all_patterns(bool root_causes = true);

// The individual families, for tests that run one alone (with its parents' metrics).
std::unique_ptr<analysis::Pattern> time_pattern();
std::unique_ptr<analysis::Pattern> point_to_point_patterns();
std::unique_ptr<analysis::Pattern> collective_patterns();
std::unique_ptr<analysis::Pattern> wavefront_patterns();
std::unique_ptr<analysis::Pattern> codelet_patterns();
std::unique_ptr<analysis::Pattern> message_statistics();
std::unique_ptr<analysis::Pattern> delay_costs();
std::unique_ptr<analysis::Pattern> critical_path();

} // namespace topolens::patterns
