#include "gui/verification_runs.h"

#include "gui/report_loading.h"
#include "patterns/audit/codelet_measurements.h"

namespace topolens::gui {

namespace {

namespace pt = topolens::patterns;

// The codelet measurements a report stores (AUDIT_FORMAT.md), nullopt when it has none.
std::optional<pt::CodeletMeasurements> stored_measurements(const report::Report& report) {
    const auto found = report.attributes.find(pt::kMeasurementsAttribute);
    if (found == report.attributes.end()) return std::nullopt;
    return pt::parse_codelet_measurements(found->second);
}

pt::CodeletMeasurements read_run(const std::string& path,
                                 const std::function<void(const std::string&)>& progress) {
    try {
        auto measurements = stored_measurements(load_report_or_trace(path, progress));
        if (!measurements)
            throw pt::VerificationError("verification run " + path +
                                        " holds no tuned operation (no codelet measurements)");
        return std::move(*measurements);
    } catch (const pt::VerificationError&) {
        throw;
    } catch (const std::exception& e) {
        throw pt::VerificationError("verification run " + path + ": " + e.what());
    }
}

} // namespace

pt::Verification verify_runs(const report::Report& tuned, const Audit& audit,
                             const std::vector<std::string>& paths,
                             const std::function<void(const std::string&)>& progress) {
    std::optional<pt::CodeletMeasurements> measurements;
    try {
        measurements = stored_measurements(tuned);
    } catch (const std::exception& e) {
        throw pt::VerificationError(std::string("the open report's codelet measurements: ") +
                                    e.what());
    }
    if (!measurements)
        throw pt::VerificationError(
            "the open report holds no codelet measurements: nothing to verify");
    std::vector<pt::VerificationInput> runs;
    for (const std::string& path : paths) runs.push_back({path, read_run(path, progress)});
    return pt::verify(*measurements, audit, runs);
}

} // namespace topolens::gui
