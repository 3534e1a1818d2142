#include "gui/wait_arrows.h"

#include "analyzer/report/root_causes.h"
#include "gui/value_model.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

namespace topolens::gui {

RootCauseArrows root_cause_arrows(const report::Report& report) {
    RootCauseArrows out;
    std::map<std::pair<int, int>, double> summed; // (causing, waiting)
    for (const report::WaitEdge& e : report.wait_edges)
        if (e.causing != e.waiting) summed[{e.causing, e.waiting}] += e.seconds;
    for (const auto& [ends, seconds] : summed)
        if (seconds > 0) out.arrows.push_back({ends.first, ends.second, seconds});
    std::stable_sort(out.arrows.begin(), out.arrows.end(),
                     [](const WaitArrow& a, const WaitArrow& b) { return a.seconds > b.seconds; });
    out.reached.assign(report.locations.size(), -1);
    if (!out.arrows.empty())
        for (const report::RootCause& cause : report::root_causes(report).causes)
            if (cause.location < static_cast<int>(out.reached.size()))
                out.reached[cause.location] = cause.reached;
    return out;
}

std::vector<WaitArrow> arrows_at_or_above(const std::vector<WaitArrow>& arrows, double share) {
    if (arrows.empty()) return {};
    const double largest = arrows.front().seconds;
    std::vector<WaitArrow> out;
    for (const WaitArrow& a : arrows) {
        if (a.seconds < share * largest) break; // largest first
        out.push_back(a);
    }
    return out;
}

std::string cause_text(const RootCauseArrows& causes, int location) {
    double caused = 0.0, waited = 0.0;
    std::set<int> victims, culprits;
    for (const WaitArrow& a : causes.arrows) {
        if (a.causing == location) {
            caused += a.seconds;
            victims.insert(a.waiting);
        }
        if (a.waiting == location) {
            waited += a.seconds;
            culprits.insert(a.causing);
        }
    }
    if (victims.empty() && culprits.empty()) return {};
    const auto processes = [](size_t n) {
        return std::to_string(n) + (n == 1 ? " process" : " processes");
    };
    std::string text;
    if (!victims.empty()) {
        text =
            "made " + processes(victims.size()) + " wait " + format_number(caused) + " s directly";
        if (location >= 0 && location < static_cast<int>(causes.reached.size()) &&
            causes.reached[location] >= 0)
            text += "; reached " + std::to_string(causes.reached[location]);
    } else {
        text = "made no process wait";
    }
    text += culprits.empty()
                ? "; waited for no process"
                : "; waited " + format_number(waited) + " s for " + processes(culprits.size());
    return text;
}

} // namespace topolens::gui
