#include "analyzer/report/report_grid.h"

namespace topolens::report {

ReportGrid report_grid(const Report& report) {
    ReportGrid result;
    const auto attribute = [&](const char* key) -> const std::string* {
        const auto found = report.attributes.find(key);
        return found == report.attributes.end() ? nullptr : &found->second;
    };
    const std::string* source = attribute(kGridSourceAttribute);
    if (!source) {
        if (!report.topologies.empty()) result.grid = &report.topologies.front();
        result.source = result.grid ? "unknown" : "none";
        return result;
    }
    result.source = *source;
    if (const std::string* explanation = attribute(kGridExplanationAttribute))
        result.explanation = *explanation;
    // An analysis that found no grid says so; a topology covering only some processes is
    // then in the report but explains nothing.
    if (*source == "none") return result;
    if (const std::string* name = attribute(kGridAttribute))
        for (const CartTopology& t : report.topologies)
            if (t.name == *name) {
                result.grid = &t;
                return result;
            }
    if (!report.topologies.empty()) result.grid = &report.topologies.front();
    return result;
}

} // namespace topolens::report
