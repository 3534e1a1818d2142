// topolens values REPORT --metric NAME [--callpath PATH] [--format csv|json] [--topology NAME]:
// one metric's inclusive value per location, with rank, thread, host, grid coordinates and
// grid role, for scripts, plots and other tools.
#include "analyzer/cli/commands.h"
#include "analyzer/cli/options.h"
#include "analyzer/cli/report_input.h"

#include "analyzer/engine/grid.h"
#include "analyzer/report/json.h"
#include "analyzer/report/report_grid.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <optional>
#include <set>
#include <type_traits>

namespace topolens::cli {
namespace {

namespace rp = topolens::report;
namespace an = topolens::analysis;

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t above = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
            diagonal = above;
        }
    }
    return row[b.size()];
}

// Candidates that look like `wanted` (small edit distance, or one contains the other),
// closest first; each candidate is (name compared, text shown).
std::vector<std::string> close_names(const std::string& wanted,
                                     const std::vector<std::pair<std::string, std::string>>& all) {
    const std::string w = lower(wanted);
    std::vector<std::pair<std::size_t, std::string>> scored;
    std::set<std::string> shown;
    for (const auto& [name, text] : all) {
        const std::string n = lower(name);
        const std::size_t d = edit_distance(w, n);
        // "sender" finds "Late Sender"; the reverse ("program" in "program/main/x") would
        // offer every prefix of a mistyped path.
        const bool contains = !w.empty() && n.find(w) != std::string::npos;
        if ((d <= std::max<std::size_t>(2, w.size() / 3) || contains) && shown.insert(text).second)
            scored.emplace_back(d, text);
    }
    std::stable_sort(scored.begin(), scored.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<std::string> result;
    for (std::size_t i = 0; i < scored.size() && i < 5; ++i) result.push_back(scored[i].second);
    return result;
}

std::string list(const std::vector<std::string>& items, std::size_t most) {
    std::string out;
    for (std::size_t i = 0; i < items.size() && i < most; ++i) out += (i ? ", " : "") + items[i];
    if (items.size() > most) out += ", ... (" + std::to_string(items.size()) + " in all)";
    return out;
}

std::string metric_label(const rp::Metric& m) {
    return m.display_name.empty() || m.display_name == m.unique_name
               ? m.unique_name
               : m.display_name + " (" + m.unique_name + ")";
}

int resolve_metric(const rp::Report& report, const std::string& name) {
    if (auto m = report.find_metric(name)) {
        if (!report.metrics[*m].derived_type.empty())
            throw std::runtime_error(
                "metric '" + name + "' is derived (" + report.metrics[*m].derived_type +
                "): Cube computes it from the CubePL expression '" + report.metrics[*m].cubepl +
                "', which topolens does not evaluate");
        return *m;
    }
    std::vector<std::pair<std::string, std::string>> all;
    std::vector<std::string> every;
    for (const rp::Metric& m : report.metrics) {
        all.emplace_back(m.unique_name, metric_label(m));
        all.emplace_back(m.display_name, metric_label(m));
        every.push_back(m.unique_name);
    }
    const auto close = close_names(name, all);
    throw std::runtime_error("unknown metric '" + name + "'; " +
                             (close.empty() ? "metrics in this report: " + list(every, 30)
                                            : "close names: " + list(close, 5)));
}

// The call paths a --callpath argument stands for: one full path "a/b/c", or for a single
// name every call path of that region not nested in another call path of the same region.
std::vector<int> resolve_callpath(const rp::Report& report, const std::string& path) {
    if (path.find('/') != std::string::npos) {
        if (auto c = report.find_callpath(path)) return {*c};
        std::vector<std::pair<std::string, std::string>> all;
        for (std::size_t c = 0; c < report.callpaths.size(); ++c) {
            const std::string name = report.callpath_name(static_cast<int>(c));
            all.emplace_back(name, name);
        }
        const auto close = close_names(path, all);
        throw std::runtime_error("unknown call path '" + path + "'" +
                                 (close.empty() ? "" : "; close names: " + list(close, 5)));
    }
    auto region_name = [&](int c) -> const std::string& {
        return report.regions[report.callpaths[c].region].name;
    };
    std::vector<int> found;
    for (std::size_t c = 0; c < report.callpaths.size(); ++c) {
        if (region_name(static_cast<int>(c)) != path) continue;
        bool nested = false;
        std::size_t steps = 0;
        for (int p = report.callpaths[c].parent; p != -1 && steps++ <= report.callpaths.size();
             p = report.callpaths[p].parent)
            nested = nested || region_name(p) == path;
        if (!nested) found.push_back(static_cast<int>(c));
    }
    if (!found.empty()) return found;
    std::vector<std::pair<std::string, std::string>> all;
    for (std::size_t c = 0; c < report.callpaths.size(); ++c)
        all.emplace_back(region_name(static_cast<int>(c)), region_name(static_cast<int>(c)));
    const auto close = close_names(path, all);
    throw std::runtime_error("no call path of a region named '" + path + "'" +
                             (close.empty() ? "" : "; close names: " + list(close, 5)));
}

// The topology NAME, or by default the grid the analysis used (else the first topology).
const rp::CartTopology* resolve_topology(const rp::Report& report, const std::string& name) {
    if (name.empty()) {
        if (const rp::CartTopology* grid = rp::report_grid(report).grid) return grid;
        return report.topologies.empty() ? nullptr : &report.topologies[0];
    }
    for (const rp::CartTopology& t : report.topologies)
        if (t.name == name) return &t;
    for (const rp::CartTopology& t : report.topologies)
        if (lower(t.name) == lower(name)) return &t;
    std::vector<std::string> names;
    for (const rp::CartTopology& t : report.topologies) names.push_back("'" + t.name + "'");
    throw std::runtime_error(
        "no topology named '" + name + "'; " +
        (names.empty() ? "the report has none" : "the report has " + list(names, 20)));
}

std::string csv_field(const std::string& s) {
    if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

const std::vector<uint32_t>* coords_of(const rp::CartTopology* topology, std::size_t location) {
    if (!topology || location >= topology->coords.size() || topology->coords[location].empty())
        return nullptr;
    return &topology->coords[location];
}

// The location's coordinates when they fit `topology` (one per dimension), else null.
const std::vector<uint32_t>* usable_coords(const rp::CartTopology* topology, std::size_t location) {
    const auto* coords = coords_of(topology, location);
    return coords && coords->size() == topology->sizes.size() ? coords : nullptr;
}

// The location's role in `topology`, or nullopt where it has no (usable) coordinates or
// the grid has no roles (periodic in every dimension).
std::optional<an::GridRole> role_of(const rp::CartTopology* topology, std::size_t location) {
    const auto* coords = usable_coords(topology, location);
    if (!coords) return std::nullopt;
    return an::grid_role(*topology, *coords);
}

// Where `topology` came from: the analysis's grid carries its recorded source; any other
// topology of a report that records its choice was recorded in the trace.
std::string topology_source(const rp::Report& report, const rp::CartTopology* topology) {
    const rp::ReportGrid grid = rp::report_grid(report);
    if (topology == grid.grid) return grid.source;
    return report.attributes.count(rp::kGridSourceAttribute) ? "recorded" : "unknown";
}

std::string joined(const std::vector<uint32_t>& items, const std::string& separator) {
    std::string out;
    for (std::size_t i = 0; i < items.size(); ++i)
        out += (i ? separator : "") + std::to_string(items[i]);
    return out;
}

// Per location, the metric-inclusive value summed over the call trees below `callpaths`
// (-1: everything). The subtrees are disjoint, so one pass over the rows does it, however
// many call paths a region name stands for.
std::vector<double> location_values(const rp::Report& report, int metric,
                                    const std::vector<int>& callpaths) {
    const bool everything = callpaths.size() == 1 && callpaths[0] == -1;
    std::vector<char> inside(report.callpaths.size(), everything ? 1 : 0);
    std::vector<int> stack = everything ? std::vector<int>{} : callpaths;
    while (!stack.empty()) {
        const int c = stack.back();
        stack.pop_back();
        if (inside[c]) continue;
        inside[c] = 1;
        for (int child : report.callpaths[c].children) stack.push_back(child);
    }
    std::vector<double> values(report.locations.size(), 0.0);
    for (int m : report.metric_subtree(metric))
        for (std::size_t c = 0; c < inside.size(); ++c)
            if (inside[c])
                if (const std::vector<double>* row = report.row(m, static_cast<int>(c)))
                    for (std::size_t l = 0; l < row->size() && l < values.size(); ++l)
                        values[l] += (*row)[l];
    return values;
}

struct Options {
    std::string report, metric, callpath, topology, format = "csv";
    bool has_callpath = false;
    bool edges = false;
};

// An array of numbers or flags on one line: [4,4], [false,true].
template <class T> void packed(json::Writer& w, const std::vector<T>& items) {
    w.begin_packed_array();
    for (std::size_t i = 0; i < items.size(); ++i) {
        if constexpr (std::is_same_v<T, bool>)
            w.value(static_cast<bool>(items[i]));
        else
            w.value(items[i]);
    }
    w.end_array();
}

// The JSON document of `values` (values_usage): one line of facts about the metric, the
// topology and its roles, then one line per location.
std::string values_json(const rp::Report& report, const Options& o, int metric,
                        const std::vector<int>& callpaths, const rp::CartTopology* topology,
                        const std::vector<double>& values, double total) {
    const rp::Metric& m = report.metrics[metric];
    json::Writer w;
    w.begin_inline_object();
    w.key("report").value(o.report).key("metric").value(m.unique_name);
    w.key("metric_name").value(m.display_name).key("unit").value(m.unit);
    w.key("callpath").value(o.has_callpath ? std::optional(o.callpath) : std::nullopt);
    w.key("callpaths").begin_array();
    for (int c : callpaths)
        if (c != -1) w.value(report.callpath_name(c));
    w.end_array();
    w.line_break(1).key("topology");
    if (topology) {
        w.begin_object().key("name").value(topology->name).key("dims");
        packed(w, topology->sizes);
        w.key("periodic");
        packed(w, topology->periodic);
        w.end_object();
        w.key("grid_source").value(topology_source(report, topology));
        w.line_break(1).key("roles");
        if (an::has_roles(*topology)) {
            w.begin_array();
            for (const an::RoleStatistics& r : an::role_statistics(report, values, *topology)) {
                w.begin_object().key("role").value(std::string(an::grid_role_name(r.role)));
                w.key("processes").value(r.processes).key("mean").value(r.mean);
                w.key("vs_interior").value(r.vs_interior).key("vs_rest").value(r.vs_rest);
                w.end_object();
            }
            w.end_array();
        } else {
            w.null(); // periodic in every dimension: no process has a role
        }
    } else {
        w.null().key("grid_source").null().key("roles").null();
    }
    w.line_break(1).key("locations").begin_array();
    for (std::size_t l = 0; l < values.size(); ++l) {
        const rp::Location& loc = report.locations[l];
        w.line_break(2).begin_object();
        w.key("location").value(l).key("rank").value(loc.rank).key("thread").value(loc.thread);
        w.key("host").value(loc.host).key("coords");
        if (const auto* coords = coords_of(topology, l))
            packed(w, *coords);
        else
            w.null();
        if (topology) {
            const auto role = role_of(topology, l);
            w.key("role").value(role ? std::optional(std::string(an::grid_role_name(*role)))
                                     : std::nullopt);
            w.key("boundary");
            if (const auto* usable = usable_coords(topology, l))
                packed(w, an::boundary_sides(*topology, *usable));
            else
                w.null();
        }
        w.key("value").value(values[l]).end_object();
    }
    w.end_array();
    w.line_break(1).key("total").value(total);
    w.end_object();
    return w.text() + "\n";
}

// `--edges`: who made whom wait (the report's wait edges), with each end's coordinates.
std::string edges_text(const rp::Report& report, const Options& o,
                       const rp::CartTopology* topology) {
    auto coords = [&](int l) {
        const auto* c = coords_of(topology, static_cast<std::size_t>(l));
        return c ? joined(*c, " ") : std::string();
    };
    if (o.format == "csv") {
        std::string out = "kind,waiting,waiting_rank,waiting_coords,causing,causing_rank,"
                          "causing_coords,seconds\n";
        for (const rp::WaitEdge& e : report.wait_edges)
            out += e.kind + "," + std::to_string(e.waiting) + "," +
                   std::to_string(report.locations[e.waiting].rank) + "," + coords(e.waiting) +
                   "," + std::to_string(e.causing) + "," +
                   std::to_string(report.locations[e.causing].rank) + "," + coords(e.causing) +
                   "," + json::shortest_number(e.seconds) + "\n";
        return out;
    }
    json::Writer w;
    w.begin_object();
    w.key("report").value(o.report);
    w.key("topology").value(topology ? topology->name : std::string());
    w.key("edges").begin_array();
    for (const rp::WaitEdge& e : report.wait_edges) {
        w.begin_inline_object();
        w.key("kind").value(e.kind);
        w.key("waiting").value(e.waiting);
        w.key("causing").value(e.causing);
        for (const auto& [key, l] :
             {std::pair{"waiting_coords", e.waiting}, std::pair{"causing_coords", e.causing}}) {
            w.key(key);
            if (const auto* c = coords_of(topology, static_cast<std::size_t>(l)))
                packed(w, *c);
            else
                w.null();
        }
        w.key("seconds").value(e.seconds).end_object();
    }
    w.end_array();
    w.end_object();
    return w.text() + "\n";
}

} // namespace

void values_usage(std::ostream& out) {
    out << "usage: topolens values REPORT|TRACE --metric NAME [--callpath PATH]\n"
           "                       [--format csv|json] [--topology NAME]\n"
           "       topolens values REPORT|TRACE --edges [--format csv|json] [--topology NAME]\n\n"
           "TRACE, a trace directory (or its .otf2 anchor), stands for its report.cubex, which\n"
           "is written first (as topolens analyze does, saying so on stderr) when it is\n"
           "missing or older than the trace.\n\n"
           "Prints one metric's value per location of a CUBE4 report, inclusive over the\n"
           "metric's sub-metrics and the call tree below PATH, with rank, thread, host,\n"
           "Cartesian coordinates and grid role. --metric takes a metric's unique or display\n"
           "name (any case), --topology a topology's name. PATH is a path of region names from a "
           "root, separated by\n"
           "'/' (program/main/MPI_Recv; the root may be left out when there is one), or one\n"
           "region name: the sum over its call paths not nested in another of its call paths.\n"
           "Without --callpath: the whole call tree. The default topology is the grid the\n"
           "analysis used (else the first one). CSV columns:\n"
           "location,rank,thread,host,coords,value,role (coords as \"x y\"; role corner, edge,\n"
           "face or interior, empty without coordinates and on a grid periodic in every\n"
           "dimension, which has no roles). JSON: an object with report, metric, metric_name,\n"
           "unit, callpath, topology, grid_source (recorded, declared, communicators, inferred,\n"
           "unknown), roles (null without roles; per role: processes, mean per process,\n"
           "vs_interior = mean / the interior mean or null, vs_rest = mean / the mean of the\n"
           "processes that are not corners when there is no interior, else null), locations\n"
           "(each with coords, role and boundary: per dimension -1 low, 1 high, 0 neither) and\n"
           "total.\n\n"
           "--edges prints who made whom wait instead (the root-cause analysis): per kind of\n"
           "wait (latesender, latereceiver, barrier, n2n, 12n, n21), waiting and causing\n"
           "location, the seconds the one waited for the other directly. CSV columns:\n"
           "kind,waiting,waiting_rank,waiting_coords,causing,causing_rank,causing_coords,seconds;\n"
           "JSON: an object with report, topology and edges.\n";
}

int values_main(const std::vector<std::string>& args) {
    Options o;
    const auto set = [](std::string& target) {
        return [&target](const std::string& v) { target = v; };
    };
    const auto set_callpath = [&](const std::string& v) {
        o.callpath = v;
        o.has_callpath = true;
    };
    const OptionValue value = {true, "", false}; // "--name value" or "--name=value"
    if (const auto exit = OptionParser()
                              .help()
                              .option({"--metric"}, set(o.metric), value)
                              .option({"--topology"}, set(o.topology), value)
                              .option({"--format"}, set(o.format), value)
                              .option({"--callpath"}, set_callpath, value)
                              .flag({"--edges"}, [&] { o.edges = true; })
                              .positional(OptionParser::single(o.report, "report", false))
                              .run(args, "values: ", values_usage, [&] {
                                  if (o.report.empty() || (o.metric.empty() && !o.edges))
                                      throw UsageError{o.report.empty() ? "no report given"
                                                                        : "--metric is required"};
                                  if (o.edges && (!o.metric.empty() || o.has_callpath))
                                      throw UsageError{"--edges takes no --metric or --callpath"};
                              }))
        return *exit;
    if (o.format != "csv" && o.format != "json") {
        print_error("values: --format must be csv or json, not '" + o.format + "'");
        return kExitUsage;
    }
    try {
        const rp::Report report = open_report_input(o.report);
        if (o.edges) {
            std::cout << edges_text(report, o, resolve_topology(report, o.topology));
            return kExitOk;
        }
        const int metric = resolve_metric(report, o.metric);
        const std::vector<int> callpaths =
            o.has_callpath ? resolve_callpath(report, o.callpath) : std::vector<int>{-1};
        const rp::CartTopology* topology = resolve_topology(report, o.topology);

        const std::vector<double> values = location_values(report, metric, callpaths);
        double total = 0.0;
        for (double v : values) total += v;

        std::string out;
        if (o.format == "csv") {
            // New columns go at the end so scripts reading the old ones keep working.
            out = "location,rank,thread,host,coords,value,role\n";
            for (std::size_t l = 0; l < values.size(); ++l) {
                const rp::Location& loc = report.locations[l];
                const auto* coords = coords_of(topology, l);
                const auto role = role_of(topology, l);
                out += std::to_string(l) + "," + std::to_string(loc.rank) + "," +
                       std::to_string(loc.thread) + "," + csv_field(loc.host) + "," +
                       (coords ? joined(*coords, " ") : "") + "," +
                       json::shortest_number(values[l]) + "," +
                       (role ? std::string(an::grid_role_name(*role)) : "") + "\n";
            }
        } else {
            out = values_json(report, o, metric, callpaths, topology, values, total);
        }
        std::cout << out;
    } catch (const std::exception& e) {
        print_error(e.what());
        return kExitFailure;
    }
    return kExitOk;
}

} // namespace topolens::cli
