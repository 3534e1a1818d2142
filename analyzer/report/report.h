// The analysis result: severities per (metric, call path, location), plus the definitions
// needed to read them (metric tree, call tree, system tree, Cartesian topologies).
// Written to and read from CUBE4 (.cubex) by analyzer/report/cube4.h; shown by `topolens summary`,
// `topolens values` and the GUI.
//
// Values held here are EXCLUSIVE in both trees: a metric's own value excludes its child
// metrics, a call path's own value excludes its child call paths. Inclusive values are
// derived (see the functions at the end): what `summary`, `values` and the GUI show.
//
// This is the one place the conventions meet. A CUBE4 file stores values INCLUSIVE along
// the metric tree (a parent's stored value contains its children's, as Scalasca writes
// and cubelib reads them: Cube::get_sev subtracts the children's stored values for a
// metric's exclusive view) and, along the call tree, per the metric's type (EXCLUSIVE or
// INCLUSIVE; cubelib's ExclusiveMetric/InclusiveMetric). analyzer/report/cube4_writer.cpp turns
// the values here into Cube's form and analyzer/report/cube4_reader.cpp back, so a report shows
// the same numbers in `topolens summary` and in Cube's tools. Reports of topolens before
// it named itself in the Creator attribute stored each metric's own part; the reader
// recognises them and takes their values as they are.
#pragma once

#include "analyzer/report/wait_edges.h"

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace topolens::report {

// Any failure to read or write a report: the message names the file and the problem.
class ReportError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

struct Metric {
    std::string unique_name;  // "late_sender"
    std::string display_name; // "Late Sender"
    std::string description;  // one or two sentences for users (Help, summary)
    std::string unit = "sec"; // "sec", "occ" or "bytes"
    // Where the metric is described; "@mirror@" at its start stands for each of the
    // report's mirrors in turn, as in Cube ("@mirror@docs/metrics.md#metric-time").
    std::string url;
    int parent = -1;
    std::vector<int> children;
    // A derived metric read from another tool's report (e.g. Scalasca's): CUBE computes it
    // from a CubePL expression, so it holds no values here. Empty for stored metrics.
    std::string derived_type; // "POSTDERIVED", "PREDERIVED_EXCLUSIVE", "PREDERIVED_INCLUSIVE"
    std::string cubepl;       // the expression (<cubepl>)
    std::string cubepl_init;  // its initialisation (<cubeplinit>), may be empty
};

struct Region {
    std::string name;
    std::string canonical_name;
    std::string description;
    std::string source_file;
    std::string paradigm = "user"; // "mpi", "user", "compiler", ... (CUBE's words)
    std::string role = "function"; // "function", "point2point", "barrier", ...
    int begin_line = -1;
    int end_line = -1;
};

struct Callpath {
    int region = -1;
    int parent = -1;
    std::vector<int> children;
};

// The system tree as CUBE has it: machine > node (host) > process (rank) > thread.
struct Location {
    std::string name;    // "Master thread"
    std::string host;    // node name
    std::string process; // "MPI Rank 3"
    int rank = 0;        // process rank
    int thread = 0;      // thread rank within the process
};

struct CartTopology {
    std::string name;
    std::vector<std::string> dim_names; // may be empty
    std::vector<uint32_t> sizes;
    std::vector<bool> periodic;
    // coords[location] = the location's coordinates; empty when it has none.
    std::vector<std::vector<uint32_t>> coords;
};

// "mpi_wavefront=mpi_latesender mpi_wavefront_sw=mpi_latesender ...": which metrics are a
// part of another one that is not their parent (Report::part_of), by unique name.
inline constexpr const char* kPartOfAttribute = "topolens.part_of";

class Report {
  public:
    std::vector<Metric> metrics;
    std::vector<Region> regions;
    std::vector<Callpath> callpaths; // roots have parent -1
    std::vector<Location> locations;
    std::vector<CartTopology> topologies;
    // Free-form key/value pairs kept in the file, e.g. "topolens.trace",
    // "topolens.topology_source".
    std::map<std::string, std::string> attributes;
    // Base URLs of the metric descriptions, tried in order for a url's "@mirror@" (CUBE's
    // <doc><mirrors><murl>).
    std::vector<std::string> mirrors;
    // Who made whom wait (analyzer/report/wait_edges.h); empty without root-cause analysis.
    std::vector<WaitEdge> wait_edges;

    // ---- building
    int add_metric(Metric metric);            // links parent/children; returns id
    int add_region(Region region);            // returns id
    int add_callpath(int region, int parent); // returns id (existing one if equal)
    int add_location(Location location);      // returns id

    // ---- the locations whose values are kept
    // All by default. An analysis shared out to ranks keeps a rank's own locations only
    // (analyzer/engine/gathered_report.h writes the whole report from the ranks' parts): the
    // rows then hold [first, last), values for other locations are dropped when added or set
    // and read as zero. Values already held outside the window are dropped too.
    struct LocationWindow {
        int first = 0;
        int last = 0; // one past the last kept location
    };
    void keep_locations(int first, int last);
    LocationWindow kept_locations() const;
    bool keeps_all_locations() const {
        const LocationWindow kept = kept_locations();
        return kept.first == 0 && static_cast<std::size_t>(kept.last) == locations.size();
    }

    // ---- exclusive severities
    double value(int metric, int callpath, int location) const;
    void add_value(int metric, int callpath, int location, double value);
    void set_value(int metric, int callpath, int location, double value);
    // The row of one (metric, call path): one value per KEPT location, the first being
    // location kept_locations().first (every location of a report read from a file), or
    // nullptr if all zero.
    const std::vector<double>* row(int metric, int callpath) const;
    // Call paths with a non-zero row for `metric`, ascending.
    std::vector<int> callpaths_with_values(int metric) const;

    // ---- lookups
    std::optional<int> find_metric(const std::string& unique_or_display_name) const;
    // "main/solver/MPI_Recv" style path of region names from the root.
    std::string callpath_name(int callpath) const;
    // Also accepts a path below the root when the report has a single root ("main/MPI_Recv"
    // for "program/main/MPI_Recv") and no root matches the path's first name, and then
    // "program" for that root ("program/MPI_Recv" for "ssor/MPI_Recv").
    std::optional<int> find_callpath(const std::string& path) const;
    // The metric and all metrics below it, parent before children.
    std::vector<int> metric_subtree(int metric) const;
    // The metric `metric` is a part of when that is not its parent (the wave metrics: Late
    // Sender, of which they are a part kept in a tree of their own), recorded in the
    // attribute kPartOfAttribute; nullopt for every other metric.
    std::optional<int> part_of(int metric) const;
    // Records that `part` is a part of `whole` (unique names) in kPartOfAttribute.
    void set_part_of(const std::string& part, const std::string& whole);

    // ---- derived values
    // Sum over the metric's subtree (metric inclusive) at one call path and location.
    double metric_inclusive(int metric, int callpath, int location) const;
    // Sum over the call path's subtree (call-path inclusive) of the metric-inclusive value.
    double inclusive(int metric, int callpath, int location) const;
    // Inclusive over the whole call tree for one location / over everything.
    double total(int metric, int location) const;
    double total(int metric) const;
    // Per location: metric-inclusive and call-path-inclusive value of `callpath` (-1: the
    // whole call tree). One pass over the stored rows, for views over many locations. One
    // value per location (zero where not kept).
    std::vector<double> inclusive_by_location(int metric, int callpath) const;
    // Per call path, summed over all locations: metric-inclusive values, call-path-inclusive
    // if `callpath_inclusive`, else each call path's own (exclusive) part.
    std::vector<double> callpath_totals(int metric, bool callpath_inclusive) const;
    // `own` holds one value per call path; the result, per call path, the sum over its
    // subtree (call-path inclusive).
    std::vector<double> callpath_subtree_sums(std::vector<double> own) const;
    // The MPI rank of each location, by location id.
    std::vector<uint32_t> location_ranks() const;

  private:
    // rows_[metric][callpath] -> values per kept location (empty = zero)
    std::vector<std::vector<std::vector<double>>> rows_;
    int kept_first_ = 0;
    int kept_last_ = -1; // -1: up to the last location, also those added later
    std::vector<double>& row_for(int metric, int callpath);
    // The row index of `location`, or -1 when its values are not kept.
    int kept_index(int location) const;
};

} // namespace topolens::report
