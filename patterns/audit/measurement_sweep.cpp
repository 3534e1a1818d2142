// The decision by number of measurements; definitions in the header.
#include "patterns/audit/measurement_sweep.h"

#include <algorithm>

namespace topolens::patterns {

const char* decider_key(std::size_t decider) {
    if (decider == kAdclDecider) return "adcl";
    if (decider == kConsensusDecider) return "consensus";
    return method_key(Method(decider - 1));
}

const char* decider_name(std::size_t decider) {
    if (decider == kAdclDecider) return "ADCL";
    if (decider == kConsensusDecider) return "consensus";
    return method_name(Method(decider - 1));
}

namespace {

SweepStep step_of(const OperationAudit& op, std::size_t n) {
    SweepStep s;
    s.measurements = n;
    s.winner[kAdclDecider] = op.adcl.winner;
    s.adcl_basis = op.adcl.basis;
    for (std::size_t m = 0; m < kMethods; ++m)
        s.winner[method_decider(Method(m))] = op.method_winner[m];
    s.winner[kConsensusDecider] = op.best;
    return s;
}

// From the last step backwards: the first N of the final run of equal winners.
void stable_from(OperationSweep& sweep) {
    if (sweep.steps.empty()) return;
    for (std::size_t d = 0; d < kDeciders; ++d) {
        const auto full = sweep.steps.back().winner[d];
        std::size_t k = sweep.steps.size() - 1;
        while (k > 0 && sweep.steps[k - 1].winner[d] == full) --k;
        sweep.stable_from[d] = sweep.steps[k].measurements;
    }
}

} // namespace

std::vector<OperationSweep> sweep_measurements(const CodeletMeasurements& input,
                                               const AuditParameters& parameters,
                                               const std::vector<uint32_t>& ranks) {
    std::vector<OperationSweep> sweeps;
    for (const OperationMeasurements& op : input.operations) {
        CodeletMeasurements one;
        one.run_seconds = input.run_seconds;
        one.operations.push_back(op);
        AuditParameters p = parameters;
        p.measurements = 0;
        const OperationAudit full = audit(one, p, ranks).operations.at(0);
        OperationSweep sweep;
        sweep.name = op.name;
        sweep.tuner_winner = full.tuner_winner;
        sweep.available = full.available_measurements;
        std::size_t last = sweep.available;
        if (parameters.measurements) last = std::min(last, parameters.measurements);
        for (std::size_t n = 1; n <= last; ++n) {
            p.measurements = n;
            sweep.steps.push_back(step_of(audit(one, p, ranks).operations.at(0), n));
        }
        stable_from(sweep);
        sweeps.push_back(std::move(sweep));
    }
    return sweeps;
}

} // namespace topolens::patterns
