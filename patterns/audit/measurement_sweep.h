// How many measurements each method needs (Benkert 2011, Fig. 5.7): the decision of ADCL's
// rule and of each of the audit's methods redone from the first N measurements of every
// codelet per process, N = 1, 2, ..., and from which N on each winner stays the one of the
// full data.
#pragma once

#include "patterns/audit/codelet_audit.h"

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace topolens::patterns {

// Who decides, in the sweep's column order: ADCL's rule, the five methods (Method + 1), the
// audit's winner (lowest consensus).
inline constexpr std::size_t kDeciders = 2 + kMethods;
inline constexpr std::size_t kAdclDecider = 0;
inline constexpr std::size_t kConsensusDecider = kDeciders - 1;
constexpr std::size_t method_decider(Method m) {
    return 1 + static_cast<std::size_t>(m);
}
// "adcl", "raw", "heuristic", "iqr", "cluster", "student_t", "consensus"
const char* decider_key(std::size_t decider);
// "ADCL", "raw mean", "heuristic", "IQR", "cluster", "Student-t", "consensus"
const char* decider_name(std::size_t decider);

struct SweepStep {
    std::size_t measurements = 0;                           // N
    std::array<std::optional<int64_t>, kDeciders> winner{}; // codelet index; nullopt: none
    AdclBasis adcl_basis = AdclBasis::None;
};

struct OperationSweep {
    std::string name;
    std::optional<int64_t> tuner_winner;
    // The most measurements any process has of any codelet (what exists).
    std::size_t available = 0;
    std::vector<SweepStep> steps; // N = 1 .. the last; the last is the full data
    // Per decider the smallest N from which its winner equals that of the last step for every
    // larger N; 0 when there are no steps.
    std::array<std::size_t, kDeciders> stable_from{};
};

// Per operation of `input`, N from 1 to its available measurements, or to
// `parameters.measurements` when that is set and smaller. The other parameters (b, nomax,
// nu, aggregate, ADCL's) apply to every step.
std::vector<OperationSweep> sweep_measurements(const CodeletMeasurements& input,
                                               const AuditParameters& parameters,
                                               const std::vector<uint32_t>& ranks);

} // namespace topolens::patterns
