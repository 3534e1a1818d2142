#include "analyzer/report/root_causes.h"

#include "analyzer/report/report_grid.h"

#include <algorithm>
#include <cstdlib>
#include <map>

namespace topolens::report {

namespace {

// The wait states the delay costs explain, and the delay-cost leaves (Scalasca's names).
constexpr const char* kWaits[] = {"mpi_latesender", "mpi_latereceiver",  "mpi_barrier_wait",
                                  "mpi_wait_nxn",   "mpi_latebroadcast", "mpi_earlyreduce"};
constexpr const char* kDelayRoot = "delay";

} // namespace

int grid_hops(const CartTopology& grid, int from, int to) {
    const auto& a = grid.coords[from];
    const auto& b = grid.coords[to];
    int hops = 0;
    for (size_t d = 0; d < a.size() && d < b.size() && d < grid.sizes.size(); ++d) {
        int step = std::abs(static_cast<int>(a[d]) - static_cast<int>(b[d]));
        if (d < grid.periodic.size() && grid.periodic[d])
            step = std::min(step, static_cast<int>(grid.sizes[d]) - step);
        hops += step;
    }
    return hops;
}

RootCauses root_causes(const Report& report) {
    RootCauses out;
    const std::optional<int> delay = report.find_metric(kDelayRoot);
    if (!delay || report.metrics[*delay].unique_name != kDelayRoot) return out;
    for (const char* name : kWaits)
        if (const auto m = report.find_metric(name); m && report.metrics[*m].unique_name == name)
            out.wait += report.total(*m);
    const int n = static_cast<int>(report.locations.size());
    // Per location and call path: the delay costs (every metric of the delay tree).
    std::vector<std::map<int, double>> by_callpath(n);
    for (int m : report.metric_subtree(*delay))
        for (int cp : report.callpaths_with_values(m))
            for (int l = 0; l < n; ++l)
                if (const double v = report.value(m, cp, l); v != 0.0) by_callpath[l][cp] += v;
    // Who waited for whom: causing -> waiting.
    std::vector<std::vector<int>> victims(n);
    std::vector<double> direct(n, 0.0);
    for (const WaitEdge& e : report.wait_edges) {
        if (e.waiting >= n || e.causing >= n) continue;
        victims[e.causing].push_back(e.waiting);
        direct[e.causing] += e.seconds;
    }
    const CartTopology* grid = analysis_grid(report);
    for (int l = 0; l < n; ++l) {
        RootCause cause;
        cause.location = l;
        for (const auto& [cp, v] : by_callpath[l]) {
            cause.delay += v;
            if (cause.callpath < 0 || v > cause.at_callpath) {
                cause.callpath = cp;
                cause.at_callpath = v;
            }
        }
        out.delay += cause.delay;
        if (!(cause.delay > 0)) continue;
        std::vector<int> first = victims[l];
        std::sort(first.begin(), first.end());
        first.erase(std::unique(first.begin(), first.end()), first.end());
        cause.waited_directly = static_cast<int>(first.size());
        cause.direct_wait = direct[l];
        // Along the edges, breadth first.
        std::vector<bool> seen(n, false);
        seen[l] = true;
        std::vector<int> queue{l};
        for (size_t k = 0; k < queue.size(); ++k)
            for (int v : victims[queue[k]])
                if (!seen[v]) {
                    seen[v] = true;
                    queue.push_back(v);
                }
        cause.reached = static_cast<int>(queue.size()) - 1;
        const bool on_grid =
            grid && grid->coords.size() == static_cast<size_t>(n) && !grid->coords[l].empty();
        if (on_grid) {
            int farthest = 0;
            for (size_t k = 1; k < queue.size(); ++k)
                if (!grid->coords[queue[k]].empty())
                    farthest = std::max(farthest, grid_hops(*grid, l, queue[k]));
            cause.hops = farthest;
        }
        out.causes.push_back(cause);
    }
    std::stable_sort(out.causes.begin(), out.causes.end(),
                     [](const RootCause& a, const RootCause& b) { return a.delay > b.delay; });
    return out;
}

} // namespace topolens::report
