// topolens summary REPORT [--top N]: the metric tree with totals, the process grid the
// analysis used (and where it came from), then where each wait state happened (call paths,
// locations with their grid coordinates, mean per grid role; for collectives per row and
// column), clock-condition violations and the report's topolens attributes. In the spirit
// of Cube's cube_stat.
#include "analyzer/cli/commands.h"
#include "analyzer/cli/options.h"
#include "analyzer/cli/report_input.h"
#include "analyzer/cli/text.h"

#include "analyzer/engine/grid.h"
#include "analyzer/engine/grid_slices.h"
#include "analyzer/report/report_grid.h"
#include "analyzer/report/root_causes.h"
#include "patterns/audit/codelet_audit.h"
#include "patterns/audit/codelet_measurements.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iostream>
#include <optional>
#include <set>

namespace topolens::cli {
namespace {

namespace rp = topolens::report;
namespace an = topolens::analysis;
namespace pt = topolens::patterns;

constexpr std::size_t kDefaultTop = 5;

std::string field(const std::string& label, const std::string& value) {
    std::string line = label + ":";
    line.append(line.size() < 14 ? 14 - line.size() : 1, ' ');
    return line + value + "\n";
}

// Seconds with microseconds; counts as whole numbers where they are whole.
std::string format_value(double value, const std::string& unit) {
    if (unit != "sec" && std::fabs(value) < 1e15 && value == std::floor(value))
        return (value < 0 ? "-" : "") + grouped(static_cast<uint64_t>(std::fabs(value)));
    return fixed(value, 6);
}

std::string percent(double part, double whole) {
    return whole > 0 ? fixed(100.0 * part / whole, 2) : "";
}

// Wait states are the metrics below Late Sender/Late Receiver (themselves included) and below
// the synchronization and collective categories, and the parts of wait states kept in a tree
// of their own (the wave metrics, a part of Late Sender); Scalasca's intermediate time
// categories are not wait states.
bool is_wait_state(const rp::Report& report, int metric) {
    static const std::set<std::string> categories = {
        "mpi_sync_collective", "mpi_rma_synchronization", "mpi_rma_sync_active",
        "mpi_rma_sync_passive", "mpi_rma_communication"};
    if (!report.metrics[metric].derived_type.empty()) return false;
    if (categories.count(report.metrics[metric].unique_name)) return false;
    // Up the tree, and from a part kept in a tree of its own on to what it is a part of; a
    // damaged report's loops end after as many steps as there are metrics.
    std::size_t steps = 0;
    for (int m = metric; m != -1 && steps++ <= report.metrics.size();) {
        const std::string& name = report.metrics[m].unique_name;
        if (name == "mpi_latesender" || name == "mpi_latereceiver") return true;
        if ((name == "mpi_synchronization" || name == "mpi_collective") && m != metric) return true;
        const std::optional<int> whole = report.part_of(m);
        m = whole ? *whole : report.metrics[m].parent;
    }
    return false;
}

std::optional<int> time_metric(const rp::Report& report) {
    if (auto t = report.find_metric("time")) return t;
    for (std::size_t m = 0; m < report.metrics.size(); ++m)
        if (report.metrics[m].parent == -1 && report.metrics[m].unit == "sec")
            return static_cast<int>(m);
    return std::nullopt;
}

// Coordinates in `grid` ("x y"), empty where the location has none.
std::string coords_text(const rp::CartTopology* grid, int location) {
    if (!grid || static_cast<std::size_t>(location) >= grid->coords.size()) return "";
    std::string text;
    for (uint32_t x : grid->coords[location]) text += (text.empty() ? "" : " ") + std::to_string(x);
    return text;
}

// The topology whose coordinates the tables show: the analysis grid, else (no grid chosen)
// the first topology, as before grids were chosen.
const rp::CartTopology* coords_topology(const rp::Report& report, const rp::ReportGrid& grid) {
    if (grid.grid) return grid.grid;
    return report.topologies.empty() ? nullptr : &report.topologies.front();
}

bool multithreaded(const rp::Report& report) {
    return std::any_of(report.locations.begin(), report.locations.end(),
                       [](const rp::Location& l) { return l.thread != 0; });
}

// "grid 4x4, periodic no,no"; the sizes are not repeated for names that end in them
// ("inferred 4x4, periodic no,no").
std::string topology_line(const rp::CartTopology& topo) {
    std::vector<std::string> sizes, periodic;
    for (std::size_t d = 0; d < topo.sizes.size(); ++d) {
        sizes.push_back(std::to_string(topo.sizes[d]));
        periodic.push_back(d < topo.periodic.size() && topo.periodic[d] ? "yes" : "no");
    }
    const std::string dims = " " + join(sizes, "x");
    const std::string name = topo.name.empty() ? "(unnamed)" : topo.name;
    const bool named_by_size = name.size() > dims.size() &&
                               name.compare(name.size() - dims.size(), dims.size(), dims) == 0;
    return name + (named_by_size ? "" : dims) + ", periodic " + join(periodic, ",");
}

void print_overview(std::ostream& out, const std::string& path, const rp::Report& report) {
    out << field("report", path);
    std::set<int> ranks;
    std::set<std::string> hosts;
    for (const rp::Location& l : report.locations) {
        ranks.insert(l.rank);
        hosts.insert(l.host);
    }
    std::string where = grouped(report.locations.size()) + " (" + grouped(ranks.size()) +
                        (ranks.size() == 1 ? " rank" : " ranks") + " on " + grouped(hosts.size()) +
                        (hosts.size() == 1 ? " host)" : " hosts)");
    out << field("locations", where);
    out << field("call paths", grouped(report.callpaths.size()));
    if (report.topologies.empty()) {
        out << field("topology", "none");
    } else {
        for (std::size_t t = 0; t < report.topologies.size(); ++t) {
            const rp::CartTopology& topo = report.topologies[t];
            std::string line = topology_line(topo);
            if (t == 0 && report.topologies.size() > 1) line += " (coordinates below)";
            if (t == 0)
                out << field(report.topologies.size() == 1 ? "topology" : "topologies", line);
            else
                out << std::string(14, ' ') << line << "\n";
        }
    }
}

// Why a grid has no roles (an::has_roles is false).
std::string no_roles_reason(const rp::CartTopology& grid) {
    const bool larger =
        std::any_of(grid.sizes.begin(), grid.sizes.end(), [](uint32_t size) { return size > 1; });
    return larger ? "periodic in every dimension: no process lies on a boundary"
                  : "no dimension larger than 1";
}

// Which grid explains the wait states below, where it came from, and how many processes
// have each role in it.
void print_grid(std::ostream& out, const rp::ReportGrid& grid) {
    out << "\ngrid\n";
    if (!grid.grid) {
        out << "  " << field("used", "none");
    } else {
        out << "  "
            << field("used", topology_line(*grid.grid) +
                                 (grid.source == "unknown"
                                      ? " (the report's first topology; source unknown)"
                                      : " (" + grid.source + ")"));
    }
    if (!grid.explanation.empty()) out << "  " << field("explanation", grid.explanation);
    if (!grid.grid) return;
    if (!an::has_roles(*grid.grid)) {
        out << "  " << field("roles", "none (" + no_roles_reason(*grid.grid) + ")");
        return;
    }
    std::size_t counts[4] = {0, 0, 0, 0};
    for (const auto& coords : grid.grid->coords)
        if (!coords.empty() && coords.size() == grid.grid->sizes.size())
            ++counts[static_cast<int>(*an::grid_role(*grid.grid, coords))];
    std::vector<std::string> roles;
    for (int r = 0; r < 4; ++r)
        if (counts[r])
            roles.push_back(std::to_string(counts[r]) + " " +
                            std::string(an::grid_role_name(static_cast<an::GridRole>(r))));
    out << "  "
        << field("roles", roles.empty() ? "no location has coordinates" : join(roles, ", "));
}

std::string metric_name(const rp::Metric& metric) {
    return metric.display_name.empty() ? metric.unique_name : metric.display_name;
}

// The metric a metric's total is compared with: the one it is a part of (Late Sender for the
// wave metrics, kept in a tree of their own), else its parent; none for a root, a derived
// metric or parent, or another unit.
std::optional<int> whole_of(const rp::Report& report, int m) {
    const rp::Metric& metric = report.metrics[m];
    if (!metric.derived_type.empty()) return std::nullopt;
    std::optional<int> whole = report.part_of(m);
    if (!whole && metric.parent >= 0) whole = metric.parent;
    if (!whole) return std::nullopt;
    const rp::Metric& other = report.metrics[*whole];
    if (!other.derived_type.empty() || other.unit != metric.unit) return std::nullopt;
    return whole;
}

// The metric's share of that metric's total in percent (Wavefront from SW: 23.40 of Late
// Sender), empty where there is none or its total is 0.
std::string whole_percent(const rp::Report& report, const std::vector<double>& totals, int m) {
    const std::optional<int> whole = whole_of(report, m);
    return whole ? percent(totals[m], totals[*whole]) : "";
}

void print_metric_tree(std::ostream& out, const rp::Report& report,
                       const std::vector<double>& totals, std::optional<int> time) {
    out << "\nmetrics\n";
    Table table({"metric", "total", "unit", "% of time", "% of parent"},
                {false, true, false, true, true});
    const double time_total = time ? totals[*time] : 0.0;
    for (std::size_t root = 0; root < report.metrics.size(); ++root) {
        if (report.metrics[root].parent != -1) continue;
        std::vector<std::pair<int, int>> stack = {{static_cast<int>(root), 0}}; // (metric, depth)
        while (!stack.empty()) {
            const auto [m, depth] = stack.back();
            stack.pop_back();
            const rp::Metric& metric = report.metrics[m];
            const std::string name = std::string(2 * depth, ' ') + metric_name(metric);
            if (!metric.derived_type.empty()) {
                table.row({name, "derived", metric.unit, "", ""});
            } else {
                table.row({name, format_value(totals[m], metric.unit), metric.unit,
                           metric.unit == "sec" ? percent(totals[m], time_total) : "",
                           whole_percent(report, totals, m)});
            }
            for (auto it = metric.children.rbegin(); it != metric.children.rend(); ++it)
                stack.emplace_back(*it, depth + 1);
        }
    }
    out << table.render();
    // Metrics kept in a tree of their own show their share of what they are a part of.
    for (std::size_t m = 0; m < report.metrics.size(); ++m) {
        const std::optional<int> whole = whole_of(report, static_cast<int>(m));
        const int parent = report.metrics[m].parent;
        if (!whole || *whole == parent || (parent >= 0 && whole_of(report, parent) == whole))
            continue;
        out << "  % of parent of " << metric_name(report.metrics[m]) << " and below: % of "
            << metric_name(report.metrics[*whole]) << " (a part of it in a tree of its own)\n";
    }
}

// Mean per process of each grid role and its ratio to the interior's (or, without interior
// processes, to the mean of those that are not corners): corners waiting several times
// longer than the interior is how a grid shapes a wait state.
void print_roles(std::ostream& out, const rp::Report& report, int m, const rp::CartTopology& grid) {
    if (!an::has_roles(grid)) {
        out << "  by grid role: none (" << no_roles_reason(grid) << ")\n";
        return;
    }
    const std::vector<an::RoleStatistics> stats = an::role_statistics(report, m, grid);
    if (stats.empty()) return;
    const std::string& unit = report.metrics[m].unit;
    // All roles or none have a ratio, and only one kind of it.
    const bool interior = stats.back().vs_interior.has_value();
    const bool rest = stats.back().vs_rest.has_value();
    std::vector<std::string> header = {"role", "processes", "mean"};
    if (interior || rest) header.push_back(interior ? "vs interior" : "vs rest");
    Table table(header, {false, true, true, true});
    std::size_t others = 0; // processes that are not corners
    for (const an::RoleStatistics& s : stats) {
        std::vector<std::string> row = {std::string(an::grid_role_name(s.role)),
                                        grouped(s.processes), format_value(s.mean, unit)};
        if (interior || rest) row.push_back(fixed(interior ? *s.vs_interior : *s.vs_rest, 2) + "x");
        table.row(row);
        if (s.role != an::GridRole::Corner) others += s.processes;
    }
    out << "  by grid role (mean per process, " << unit << ")\n" << table.render(4);
    const an::GridRole last = stats.back().role;
    if (stats.size() == 1)
        out << "    every process is "
            << (last == an::GridRole::Edge || last == an::GridRole::Interior ? "an " : "a ")
            << an::grid_role_name(last) << ": nothing to compare\n";
    else if (last == an::GridRole::Interior && !interior)
        out << "    the interior mean is 0: ratios not available\n";
    else if (last != an::GridRole::Interior && stats.front().role != an::GridRole::Corner)
        out << "    no interior processes and no corners: ratios not available\n";
    else if (rest)
        out << "    no interior processes: ratios to the mean of the " << grouped(others)
            << (others == 1 ? " process that is not a corner\n"
                            : " processes that are not corners\n");
    else if (last != an::GridRole::Interior)
        out << "    the mean of the processes that are not corners is 0: ratios not available\n";
}

// Collective wait states: below Scalasca's collective categories, and the barrier's (ours
// sit directly below Synchronization).
bool is_collective_wait(const rp::Report& report, int metric) {
    const std::string& own = report.metrics[metric].unique_name;
    if (own.rfind("mpi_barrier_", 0) == 0) return true;
    std::size_t steps = 0;
    for (int m = report.metrics[metric].parent; m != -1 && steps++ <= report.metrics.size();
         m = report.metrics[m].parent)
        if (report.metrics[m].unique_name == "mpi_collective" ||
            report.metrics[m].unique_name == "mpi_sync_collective")
            return true;
    return false;
}

// Where a collective's waits lie along the rows and across them (grid_slices.h): per axis
// the row, column or plane whose processes wait least and most on average, and its ratio to
// the mean of the processes outside it. A row that computes longer shows as the row that
// waits least, while every column waits for its process in a collective on the columns.
void print_slices(std::ostream& out, const rp::Report& report, int m,
                  const rp::CartTopology& grid) {
    const std::vector<an::SliceStatistics> stats =
        an::slice_statistics(report, report.inclusive_by_location(m, -1), grid);
    if (stats.empty()) return;
    const bool rows = grid.sizes.size() == 2;
    static const char* const axis_letter[] = {"x", "y", "z"};
    const auto slice = [&](std::size_t axis, std::size_t c) {
        if (rows) return std::string(axis == 0 ? "row " : "column ") + std::to_string(c);
        return "plane " + std::string(axis < 3 ? axis_letter[axis] : "?") + "=" + std::to_string(c);
    };
    const auto slices = [&](std::size_t axis, std::size_t n) {
        if (rows) return std::to_string(n) + (axis == 0 ? " rows" : " columns");
        return std::to_string(n) + " " + (axis < 3 ? axis_letter[axis] : "?") + " planes";
    };
    const auto ratio = [](const std::optional<double>& r) {
        return r ? fixed(*r, 2) + "x" : std::string();
    };
    const std::string& unit = report.metrics[m].unit;
    out << (rows ? "  by row and column (mean per process, " + unit +
                       "; row i: coordinate 0 = i, column j: coordinate 1 = j)\n"
                 : "  by plane (mean per process, " + unit +
                       "; plane x=k: coordinate 0 = k, y: 1, z: 2)\n");
    Table table({"slices", "least", "mean", "vs others", "most", "mean", "vs others"},
                {false, false, true, true, false, true, true});
    for (const an::SliceStatistics& s : stats)
        table.row({slices(s.axis, s.means.size()), slice(s.axis, s.least),
                   format_value(s.means[s.least], unit), ratio(s.least_vs_others),
                   slice(s.axis, s.most), format_value(s.means[s.most], unit),
                   ratio(s.most_vs_others)});
    out << table.render(4);
}

void print_wait_state(std::ostream& out, const rp::Report& report,
                      const std::vector<double>& totals, int m, double time_total, std::size_t top,
                      const rp::ReportGrid& grid) {
    const rp::Metric& metric = report.metrics[m];
    const double total = totals[m];
    std::string heading = metric_name(metric) + " (" + metric.unique_name +
                          "): " + format_value(total, metric.unit) + " " + metric.unit;
    if (metric.unit == "sec" && time_total > 0)
        heading += ", " + percent(total, time_total) + "% of time";
    if (const std::string share = whole_percent(report, totals, m); !share.empty())
        heading += ", " + share + "% of " + metric_name(report.metrics[*whole_of(report, m)]);
    out << "\n" << heading << "\n";

    // Call paths where the wait happened (own value), ranked by their inclusive value.
    const std::vector<double> own = report.callpath_totals(m, false);
    const std::vector<double> inclusive = report.callpath_totals(m, true);
    std::vector<int> paths;
    for (std::size_t c = 0; c < own.size(); ++c)
        if (own[c] != 0.0) paths.push_back(static_cast<int>(c));
    std::stable_sort(paths.begin(), paths.end(),
                     [&](int a, int b) { return inclusive[a] > inclusive[b]; });
    Table calls({"call path", "value", "%"}, {false, true, true});
    for (std::size_t i = 0; i < paths.size() && i < top; ++i)
        calls.row({report.callpath_name(paths[i]), format_value(inclusive[paths[i]], metric.unit),
                   percent(inclusive[paths[i]], total)});
    out << "  top call paths (" << std::min(top, paths.size()) << " of " << paths.size() << ")\n"
        << calls.render(4);

    const std::vector<double> by_location = report.inclusive_by_location(m, -1);
    std::vector<int> locations;
    for (std::size_t l = 0; l < by_location.size(); ++l)
        if (by_location[l] != 0.0) locations.push_back(static_cast<int>(l));
    std::stable_sort(locations.begin(), locations.end(),
                     [&](int a, int b) { return by_location[a] > by_location[b]; });
    const bool threads = multithreaded(report);
    const rp::CartTopology* topology = coords_topology(report, grid);
    const bool coords = topology != nullptr;
    std::vector<std::string> header = {"location", "rank"};
    if (threads) header.push_back("thread");
    header.push_back("host");
    if (coords) header.push_back("coords");
    header.insert(header.end(), {"value", "%"});
    std::vector<bool> right(header.size(), false);
    right[1] = true;
    right[right.size() - 1] = right[right.size() - 2] = true;
    Table table(header, right);
    for (std::size_t i = 0; i < locations.size() && i < top; ++i) {
        const int l = locations[i];
        const rp::Location& loc = report.locations[l];
        std::vector<std::string> row = {std::to_string(l), std::to_string(loc.rank)};
        if (threads) row.push_back(std::to_string(loc.thread));
        row.push_back(loc.host);
        if (coords) row.push_back(coords_text(topology, l));
        row.push_back(format_value(by_location[l], metric.unit));
        row.push_back(percent(by_location[l], total));
        table.row(row);
    }
    out << "  top locations (" << std::min(top, locations.size()) << " of " << locations.size()
        << ")\n"
        << table.render(4);
    if (grid.grid) print_roles(out, report, m, *grid.grid);
    if (grid.grid && is_collective_wait(report, m)) print_slices(out, report, m, *grid.grid);
}

void print_clock_violations(std::ostream& out, const rp::Report& report,
                            const rp::ReportGrid& grid) {
    const auto m = report.find_metric("clock_violations");
    if (!m) {
        out << "\nclock condition violations: not counted in this report\n";
        return;
    }
    const std::vector<double> by_location = report.inclusive_by_location(*m, -1);
    double total = 0.0;
    for (double v : by_location) total += v;
    out << "\nclock condition violations: " << format_value(total, "occ") << "\n";
    if (total == 0.0) return;
    const rp::CartTopology* topology = coords_topology(report, grid);
    const bool coords = topology != nullptr;
    std::vector<std::string> header = {"location", "rank", "host"};
    if (coords) header.push_back("coords");
    header.push_back("count");
    std::vector<bool> right(header.size(), false);
    right[1] = right.back() = true;
    Table table(header, right);
    for (std::size_t l = 0; l < by_location.size(); ++l) {
        if (by_location[l] == 0.0) continue;
        const rp::Location& loc = report.locations[l];
        std::vector<std::string> row = {std::to_string(l), std::to_string(loc.rank), loc.host};
        if (coords) row.push_back(coords_text(topology, static_cast<int>(l)));
        row.push_back(format_value(by_location[l], "occ"));
        table.row(row);
    }
    out << table.render();
}

// The verdict of each tuned operation's audit (details: `topolens audit`).
void print_autotuning(std::ostream& out, const std::string& path, const rp::Report& report) {
    auto found = report.attributes.find(pt::kMeasurementsAttribute);
    if (found == report.attributes.end()) return;
    const std::vector<uint32_t> ranks = report.location_ranks();
    out << "\nautotuning (codelet audit; details: topolens audit " << path << ")\n";
    try {
        const pt::Audit audit = pt::audit(pt::parse_codelet_measurements(found->second), {}, ranks);
        for (const pt::OperationAudit& op : audit.operations)
            out << wrap(op.name + ": " + pt::verdict_name(op.verdict) + ". " + op.reason, 92, 2, 4,
                        " ");
    } catch (const std::exception& e) {
        out << "  the stored codelet measurements cannot be read: " << e.what() << "\n";
    }
}

void print_attributes(std::ostream& out, const rp::Report& report) {
    Table table;
    for (const auto& [key, value] : report.attributes) {
        if (key.rfind("topolens.", 0) != 0) continue;
        // The audit's input and result are documents, not one-line facts.
        if (value.find('\n') != std::string::npos)
            table.row({key, "(" + grouped(std::count(value.begin(), value.end(), '\n')) +
                                " lines; read by topolens audit and the GUI)"});
        else
            table.row({key, value});
    }
    if (table.empty()) return;
    out << "\nattributes\n" << table.render();
}

} // namespace

// Who made the others wait: the processes with the largest delay costs (root-cause
// analysis), last, as the answer to the wait states above.
void print_root_causes(std::ostream& out, const rp::Report& report, const rp::ReportGrid& grid,
                       std::size_t top) {
    const rp::RootCauses rc = rp::root_causes(report);
    if (rc.causes.empty()) return;
    out << "\nRoot causes (delay costs, Scalasca's root-cause analysis): delays explain "
        << format_value(rc.delay, "sec") << " s of " << format_value(rc.wait, "sec")
        << " s of waiting (" << percent(rc.delay, rc.wait) << "%)\n";
    const rp::CartTopology* topology = coords_topology(report, grid);
    std::vector<std::string> header = {"location", "rank"};
    if (topology) header.push_back("coords");
    header.insert(header.end(),
                  {"delay cost", "% of waiting", "largest at", "made wait", "reached"});
    std::vector<bool> right(header.size(), false);
    right[1] = true;
    right[topology ? 3 : 2] = right[topology ? 4 : 3] = true;
    Table table(header, right);
    for (std::size_t i = 0; i < rc.causes.size() && i < top; ++i) {
        const rp::RootCause& c = rc.causes[i];
        std::vector<std::string> row = {std::to_string(c.location),
                                        std::to_string(report.locations[c.location].rank)};
        if (topology) row.push_back(coords_text(topology, c.location));
        row.push_back(format_value(c.delay, "sec"));
        row.push_back(percent(c.delay, rc.wait));
        row.push_back(c.callpath >= 0 ? report.callpath_name(c.callpath) : "");
        row.push_back(std::to_string(c.waited_directly) + " (" +
                      format_value(c.direct_wait, "sec") + " s)");
        std::string reached = std::to_string(c.reached);
        if (c.hops)
            reached += ", up to " + std::to_string(*c.hops) + (*c.hops == 1 ? " hop" : " hops");
        row.push_back(reached);
        table.row(row);
    }
    out << "  top processes (" << std::min(top, rc.causes.size()) << " of " << rc.causes.size()
        << "): their delay costs (short and long term), where most of them are, how many\n"
           "  processes waited for them directly (and how long), and how many their waits\n"
           "  reached through processes that waited in turn (topolens values --edges)\n"
        << table.render(4);
}

void summary_usage(std::ostream& out) {
    out << "usage: topolens summary REPORT|TRACE [--top N]\n\n"
           "TRACE, a trace directory (or its .otf2 anchor), stands for its report.cubex, which\n"
           "is written first (as topolens analyze does, saying so on stderr) when it is\n"
           "missing or older than the trace.\n\n"
           "Summarizes a CUBE4 report (.cubex, ours or Scalasca's): the metric tree with each\n"
           "metric's total (inclusive over its sub-metrics, all call paths and locations), its\n"
           "share of Time and of its parent metric (the wave metrics, a part of Late Sender in\n"
           "a tree of their own: of Late Sender); the\n"
           "process grid the analysis used, where it came from (recorded in the trace,\n"
           "declared with --cart, the program's row and column communicators, inferred from\n"
           "the messages) and the processes per grid role (corner, edge, face, interior); for\n"
           "every wait state that occurred, the N call paths and N locations with the most\n"
           "waiting time (default 5), locations with their grid coordinates, and the mean per\n"
           "process of each grid role with its ratio to the interior mean (without interior\n"
           "processes: to the mean of those that are not corners; a grid periodic in every\n"
           "dimension has no roles); for collective wait states on a 2D or 3D grid also the\n"
           "row and the column (3D: the planes) whose processes wait least and most;\n"
           "clock-condition violations; the verdict of the codelet audit of each tuned\n"
           "operation (autotuned runs); the report's topolens.* attributes. Reports without a\n"
           "recorded choice of grid (older ones, Scalasca's) use their first topology.\n";
}

int summary_main(const std::vector<std::string>& args) {
    std::string path;
    std::size_t top = kDefaultTop;
    const auto set_top = [&](const std::string& value) {
        unsigned long long n = 0;
        const auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
        if (ec != std::errc() || ptr != value.data() + value.size() || n == 0)
            throw UsageError{"--top needs a positive number, not '" + value + "'", false};
        top = static_cast<std::size_t>(n);
    };
    if (const auto exit = OptionParser()
                              .help()
                              .option({"--top"}, set_top, {true, "--top needs a number", false})
                              .positional(OptionParser::single(path, "report", false))
                              .run(args, "summary: ", summary_usage, [&] {
                                  if (path.empty()) throw UsageError{};
                              }))
        return *exit;
    try {
        const rp::Report report = open_report_input(path);
        std::vector<double> totals(report.metrics.size(), 0.0);
        for (std::size_t m = 0; m < report.metrics.size(); ++m)
            totals[m] = report.total(static_cast<int>(m));
        const std::optional<int> time = time_metric(report);
        const double time_total = time ? totals[*time] : 0.0;

        std::ostream& out = std::cout;
        const rp::ReportGrid grid = rp::report_grid(report);
        print_overview(out, path, report);
        print_grid(out, grid);
        print_metric_tree(out, report, totals, time);
        // Wait states in metric-tree order.
        for (std::size_t root = 0; root < report.metrics.size(); ++root) {
            if (report.metrics[root].parent != -1) continue;
            for (int m : report.metric_subtree(static_cast<int>(root)))
                if (is_wait_state(report, m) && totals[m] != 0.0)
                    print_wait_state(out, report, totals, m, time_total, top, grid);
        }
        print_clock_violations(out, report, grid);
        print_autotuning(out, path, report);
        print_attributes(out, report);
        print_root_causes(out, report, grid, top);
    } catch (const std::exception& e) {
        print_error(e.what());
        return kExitFailure;
    }
    return kExitOk;
}

} // namespace topolens::cli
