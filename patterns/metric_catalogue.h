// The metric catalogue: every metric topolens defines, with all that is said about it, in
// one table (patterns/metric_catalogue.cpp), as Scalasca keeps a metric in one block of its
// pattern file. From it come the report's metric tree (it is the analysis::MetricCatalogue of
// every CataloguedPattern: the engine defines the rows of the patterns it runs), the metric
// urls, `topolens help metrics` and the metric table of docs/metrics.md (`topolens help
// metrics --markdown`; tests/unit/metric_catalogue_test.cpp fails when it differs).
//
// The table is in tree order, parents before children, and that is the order the metrics
// are defined in: a metric's id is its place among the rows a report has. A new metric is
// one row here plus the code that adds to it: its pattern looks its id up by unique name
// once before the replay (metric_id) and adds to it.
#pragma once

#include "analyzer/engine/metric_tree.h"
#include "analyzer/report/report.h"
#include "patterns/catalogued_pattern.h"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace topolens::patterns {

// Which reports have a metric.
enum class Presence : uint8_t {
    Always,
    // When the analysis grid has corners a wave can come from (the root of PerGridCorner).
    WithGridCorners,
    // One metric per corner of the analysis grid a wave can come from
    // (patterns/wave_corners.h):
    // a templated row, "<corner>" in its unique name, display name and description.
    PerGridCorner,
    // Only when the trace has codelet regions (an autotuned run).
    WithCodelets,
};

struct MetricEntry {
    std::string_view unique_name;            // CUBE's uniq_name, Scalasca's where it has the metric
    std::string_view parent;                 // the parent's unique name; "" for a root
    std::string_view display_name;           // CUBE's disp_name
    std::string_view unit;                   // "sec", "occ" or "bytes"
    std::string_view description;            // CUBE's descr, as written into the report
    std::string_view hint;                   // what to do about it (`topolens help metrics` only)
    std::string_view documentation;          // docs/metrics.md's "meaning" column
    PatternKind pattern = PatternKind::Time; // the pattern that adds to it
    Presence presence = Presence::Always;
    // The metric it is a part of when that is not its parent: a wave metric is a part of
    // Late Sender kept in a tree of its own. Recorded in reports (report::Report::part_of):
    // `summary` and the GUI show its share of it.
    std::string_view part_of = "";
};

// Every row, in tree order.
std::span<const MetricEntry> metric_catalogue();

// The row of a unique name (a templated row's own, "mpi_wavefront_<corner>"), or nullptr.
const MetricEntry* find_catalogue_entry(std::string_view unique_name);

// The metric's url: "@mirror@docs/metrics.md#metric-<anchor>", the anchor of its row there,
// "metric-<unique name>" ("metric-mpi_wavefront_corner" for every Wavefront from <corner>),
// in the "@mirror@" form of Scalasca's reports
// ("@mirror@scalasca_patterns.html#mpi_latesender").
std::string metric_url(const MetricEntry& entry);

// A row as the report gets it; a templated row for one corner ("SW", "NE-top").
analysis::MetricDefinition metric_definition(const MetricEntry& entry,
                                             std::string_view corner = {});

// The rows `report` has (Presence: its grid's corners, its codelets) of the patterns of
// `kinds`, in catalogue order, as the engine defines them.
std::vector<analysis::MetricDefinition> catalogue_metrics(const report::Report& report,
                                                          const std::vector<PatternKind>& kinds);

// The id of a defined metric; throws std::logic_error if the report has none of that name.
int metric_id(const report::Report& report, std::string_view unique_name);

// A defined metric's id followed by its ancestors' up to the root: where a pattern adds a
// value metric-inclusive (the tree is the catalogue's, so no pattern repeats it).
std::vector<int> metric_chain(const report::Report& report, int metric);
std::vector<int> metric_chain(const report::Report& report, std::string_view unique_name);

// docs/metrics.md's metric table: header and one row per metric, depth first (each metric followed
// by its subtree), a templated row once.
std::string metric_table_markdown();

// The catalogue for a terminal: the tree, and per metric its unit, description and hint.
std::string metric_table_text();

} // namespace topolens::patterns
