#include "patterns/codelet_regions.h"

#include "trace/tuned_encoding.h"

namespace topolens::patterns {

bool has_codelets(const report::Report& report) {
    for (const report::Region& region : report.regions)
        if (region.canonical_name.rfind(trace::kCodeletPrefix, 0) == 0) return true;
    return false;
}

} // namespace topolens::patterns
