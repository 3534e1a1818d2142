// What a filter saves, and which filter to suggest.
#include "analyzer/score/score.h"

#include <cstdio>
#include <sstream>

namespace topolens::score {

FilterEffect apply_filter(const Score& score, const trace::RegionFilter& filter) {
    FilterEffect effect;
    effect.excluded.assign(score.regions.size(), false);
    effect.process_bytes = score.process_bytes;
    for (std::size_t i = 0; i < score.regions.size(); ++i) {
        const RegionScore& r = score.regions[i];
        if (r.unfilterable || !filter.excludes(r.name, r.mangled_name, r.source_file)) continue;
        effect.excluded[i] = true;
        for (std::size_t p = 0; p < r.enter_leave.size() && p < effect.process_bytes.size(); ++p) {
            effect.process_bytes[p] -= std::min(effect.process_bytes[p], r.enter_leave[p]);
            effect.saved_bytes += r.enter_leave[p];
        }
    }
    return effect;
}

std::string SuggestionRule::describe() const {
    char text[200];
    std::snprintf(text, sizeof text,
                  "USR functions (not MPI, not on a call path to MPI) with less than %g us per "
                  "visit that cost at least %g%% of the trace",
                  max_time_per_visit * 1e6, min_share * 100.0);
    return text;
}

std::vector<std::size_t> suggest_filter(const Score& score, const SuggestionRule& rule) {
    std::vector<std::size_t> chosen;
    const double total = static_cast<double>(score.total_bytes());
    for (std::size_t i = 0; i < score.regions.size(); ++i) {
        const RegionScore& r = score.regions[i];
        if (r.type != RegionType::Usr || r.unfilterable || r.total_visits() == 0) continue;
        if (r.time_per_visit() >= rule.max_time_per_visit) continue;
        if (static_cast<double>(r.total_bytes()) < rule.min_share * total) continue;
        chosen.push_back(i);
    }
    return chosen;
}

std::string filter_file_text(const Score& score, const std::vector<std::size_t>& regions,
                             const SuggestionRule& rule) {
    std::ostringstream out;
    out << "# Suggested by topolens score: " << rule.describe() << ".\n"
        << "# Score-P filter syntax; use with TOPOLENS_FILTER or topolens run --filter.\n"
        << "SCOREP_REGION_NAMES_BEGIN\n";
    for (std::size_t i : regions) {
        const RegionScore& r = score.regions[i];
        // The mangled name where there is one: no blanks, no wildcard characters to escape.
        if (!r.mangled_name.empty())
            out << "  EXCLUDE MANGLED " << trace::escape_pattern(r.mangled_name) << "  # " << r.name
                << "\n";
        else
            out << "  EXCLUDE " << trace::escape_pattern(r.name) << "\n";
    }
    out << "SCOREP_REGION_NAMES_END\n";
    return out.str();
}

} // namespace topolens::score
