// The metric catalogue (patterns/metric_catalogue.h): tree order, the metrics a report gets
// from it and their ids, the urls, `topolens help metrics`, and the metric table of
// docs/metrics.md, which must be the catalogue's (`topolens help metrics --markdown` prints it).
#include "analyzer/engine/engine.h"
#include "patterns/codelet_regions.h"
#include "patterns/metric_catalogue.h"
#include "patterns/metric_names.h"
#include "patterns/registry.h"
#include "patterns/wave_corners.h"
#include "test_paths.h"
#include "test_util.h"
#include "trace/synthetic.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

using namespace topolens;
using test::read_file;

namespace {

namespace fs = std::filesystem;

// The metric table of docs/metrics.md, header to last row.
std::string docs_metric_table() {
    const std::string doc = read_file(fs::path(__FILE__).parent_path().parent_path().parent_path() /
                                      "docs" / "metrics.md");
    const std::string header = "| metric (unique name) | under | meaning |\n";
    const size_t begin = doc.find(header);
    if (begin == std::string::npos) return "docs/metrics.md has no metric table";
    const size_t end = doc.find("\n\n", begin);
    return doc.substr(begin, end == std::string::npos ? end : end + 1 - begin);
}

std::vector<std::string> names(const std::vector<analysis::MetricDefinition>& metrics) {
    std::vector<std::string> out;
    for (const auto& m : metrics) out.push_back(m.unique_name);
    return out;
}

std::vector<std::string> names(const report::Report& r) {
    std::vector<std::string> out;
    for (const auto& m : r.metrics) out.push_back(m.unique_name);
    return out;
}

// The metrics of a report on a 2D grid, in id order (as before the catalogue).
const std::vector<std::string> kOnA2DGrid = {
    "time",
    "execution",
    "comp",
    "outside_regions",
    "visits",
    "mpi",
    "mpi_init_exit",
    "mpi_synchronization",
    "mpi_communication",
    "mpi_point2point",
    "mpi_collective",
    "overhead",
    "mpi_latesender",
    "mpi_latesender_wo",
    "mpi_lswo_same",
    "mpi_lswo_different",
    "mpi_latereceiver",
    "clock_violations",
    "clock_violations_p2p",
    "mpi_barrier_wait",
    "mpi_barrier_completion",
    "mpi_wait_nxn",
    "mpi_nxn_completion",
    "mpi_latebroadcast",
    "mpi_earlyreduce",
    "clock_violations_coll",
    "syncs",
    "syncs_p2p",
    "syncs_send",
    "syncs_recv",
    "syncs_coll",
    "comms",
    "comms_p2p",
    "comms_send",
    "comms_recv",
    "comms_coll",
    "comms_cxch",
    "comms_csrc",
    "comms_cdst",
    "bytes",
    "bytes_p2p",
    "bytes_sent",
    "bytes_rcvd",
    "bytes_coll",
    "bytes_cout",
    "bytes_cin",
    "mpi_wavefront",
    "mpi_wavefront_sw",
    "mpi_wavefront_se",
    "mpi_wavefront_nw",
    "mpi_wavefront_ne",
    "delay",
    "delay_mpi",
    "delay_p2p",
    "delay_latesender_aggregate",
    "delay_latesender",
    "delay_latesender_longterm",
    "delay_latereceiver_aggregate",
    "delay_latereceiver",
    "delay_latereceiver_longterm",
    "delay_collective",
    "delay_barrier_aggregate",
    "delay_barrier",
    "delay_barrier_longterm",
    "delay_n2n_aggregate",
    "delay_n2n",
    "delay_n2n_longterm",
    "delay_12n_aggregate",
    "delay_12n",
    "delay_12n_longterm",
    "delay_n21_aggregate",
    "delay_n21",
    "delay_n21_longterm",
    "waitstates_direct_vs_indirect",
    "mpi_wait_direct",
    "mpi_wait_direct_latesender",
    "mpi_wait_direct_latereceiver",
    "mpi_wait_indirect",
    "mpi_wait_indirect_latesender",
    "mpi_wait_indirect_latereceiver",
    "waitstates_propagating_vs_terminal",
    "mpi_wait_propagating",
    "mpi_wait_propagating_ls",
    "mpi_wait_propagating_lr",
    "mpi_wait_terminal",
    "mpi_wait_terminal_ls",
    "mpi_wait_terminal_lr",
    "critical_path",
    "performance_impact",
    "performance_impact_criticalpath",
    "critical_path_activities",
    "critical_imbalance_impact",
    "inter_partition_imbalance",
    "non_critical_path_activities",
};

// kOnA2DGrid without the wave metrics (a report without grid corners, or without the
// wavefront pattern).
std::vector<std::string> a_2d_grid_without_waves() {
    std::vector<std::string> out;
    for (const std::string& name : kOnA2DGrid)
        if (name.rfind("mpi_wavefront", 0) != 0) out.push_back(name);
    return out;
}

// The kinds of the registry's patterns, in its order.
std::vector<patterns::PatternKind> registry_kinds() {
    std::vector<patterns::PatternKind> kinds;
    for (const auto& pattern : patterns::all_patterns())
        kinds.push_back(dynamic_cast<const patterns::CataloguedPattern&>(*pattern).kind());
    return kinds;
}

analysis::AnalysisResult wavefront_2d() {
    trace::SynthOptions options;
    options.grid = {3, 2};
    options.pattern = trace::SynthPattern::Wavefront;
    options.iterations = 1;
    options.blocks = 2;
    const trace::Synthetic s = trace::synthesize(options);
    return analysis::analyze(s.builder.trace(), patterns::all_patterns());
}

} // namespace

TEST(MetricCatalogue, IsInTreeOrderWithUniqueNamesAndEveryFieldFilled) {
    std::set<std::string_view> seen;
    const std::vector<patterns::PatternKind> kinds = registry_kinds();
    for (const patterns::MetricEntry& e : patterns::metric_catalogue()) {
        SCOPED_TRACE(std::string(e.unique_name));
        EXPECT_TRUE(e.parent.empty() || seen.count(e.parent)) << "parent " << e.parent;
        EXPECT_TRUE(seen.insert(e.unique_name).second) << "twice";
        EXPECT_FALSE(e.display_name.empty());
        EXPECT_TRUE(e.unit == "sec" || e.unit == "occ" || e.unit == "bytes") << e.unit;
        EXPECT_FALSE(e.description.empty());
        EXPECT_FALSE(e.hint.empty());
        EXPECT_FALSE(e.documentation.empty());
        EXPECT_NE(std::find(kinds.begin(), kinds.end(), e.pattern), kinds.end())
            << "no pattern " << patterns::pattern_kind_name(e.pattern);
        EXPECT_EQ(patterns::find_catalogue_entry(e.unique_name), &e);
        const bool templated = e.unique_name.find("<corner>") != std::string_view::npos;
        EXPECT_EQ(templated, e.presence == patterns::Presence::PerGridCorner);
    }
    EXPECT_EQ(patterns::metric_catalogue().size(), 93u);
    EXPECT_EQ(patterns::find_catalogue_entry("mpi_wavefront_sw"), nullptr);
}

TEST(MetricCatalogue, UrlsPointToTheirRowsInDocs) {
    const auto url = [](const char* name) {
        return patterns::metric_url(*patterns::find_catalogue_entry(name));
    };
    EXPECT_EQ(url(patterns::metric::kLateSender), "@mirror@docs/metrics.md#metric-mpi_latesender");
    EXPECT_EQ(url(patterns::metric::kWavefrontRoot),
              "@mirror@docs/metrics.md#metric-mpi_wavefront");
    EXPECT_EQ(url(patterns::metric::kWavefront),
              "@mirror@docs/metrics.md#metric-mpi_wavefront_corner");
    EXPECT_EQ(url(patterns::metric::kTime), "@mirror@docs/metrics.md#metric-time");
    const std::string table = docs_metric_table();
    for (const patterns::MetricEntry& e : patterns::metric_catalogue()) {
        const std::string anchor =
            patterns::metric_url(e).substr(std::string("@mirror@docs/metrics.md#").size());
        EXPECT_NE(table.find("<a id=\"" + anchor + "\"></a>"), std::string::npos) << anchor;
    }
}

TEST(MetricCatalogue, TheTemplatedWavefrontRowExpandsPerCorner) {
    const auto d = patterns::metric_definition(
        *patterns::find_catalogue_entry(patterns::metric::kWavefront), "NE-top");
    EXPECT_EQ(d.unique_name, "mpi_wavefront_ne_top");
    EXPECT_EQ(d.parent, "mpi_wavefront");
    EXPECT_EQ(d.display_name, "Wavefront from NE-top");
    EXPECT_EQ(d.unit, "sec");
    EXPECT_EQ(d.url, "@mirror@docs/metrics.md#metric-mpi_wavefront_corner");
    EXPECT_EQ(d.description.rfind("Late Sender time, Wrong Order included, where a pipelined "
                                  "wave coming from the NE-top corner of the process grid",
                                  0),
              0u);
    EXPECT_EQ(d.description.find("<corner>"), std::string::npos);
    // A part of Late Sender in a tree of its own, root and corners alike.
    EXPECT_EQ(d.part_of, "mpi_latesender");
}

// The engine defines the patterns' rows in the registry's order: the catalogue's order, so
// ids are what they were before the catalogue.
TEST(MetricCatalogue, AReportsMetricsAreTheCataloguesInItsOrder) {
    const analysis::AnalysisResult a = wavefront_2d();
    EXPECT_EQ(names(a.report), kOnA2DGrid);
    for (const report::Metric& m : a.report.metrics) {
        const std::string name = m.unique_name.rfind("mpi_wavefront_", 0) == 0
                                     ? patterns::metric::kWavefront
                                     : m.unique_name;
        const patterns::MetricEntry* e = patterns::find_catalogue_entry(name);
        ASSERT_NE(e, nullptr) << m.unique_name;
        EXPECT_EQ(m.unit, e->unit);
        EXPECT_EQ(m.url, patterns::metric_url(*e));
        if (e->presence == patterns::Presence::Always) {
            EXPECT_EQ(m.display_name, e->display_name);
            EXPECT_EQ(m.description, e->description);
        }
        const int parent = m.parent;
        EXPECT_EQ(parent < 0 ? std::string() : a.report.metrics[parent].unique_name, e->parent);
    }

    // With codelets too: every row of the catalogue, in its order.
    report::Report r = a.report;
    report::Region codelet;
    codelet.canonical_name = "topolens.codelet:halo:0:isend";
    r.regions.push_back(codelet);
    const std::vector<std::string> all = names(patterns::catalogue_metrics(r, registry_kinds()));
    std::vector<std::string> expected = kOnA2DGrid;
    expected.push_back("codelet_time");
    expected.push_back("codelet_outlier_time");
    EXPECT_EQ(all, expected);
}

// The engine defines the rows of the patterns it runs, and only theirs: without the wavefront
// pattern a report on a grid has no wave metrics, and the other ids stay as they were.
TEST(MetricCatalogue, TheEngineDefinesTheRowsOfThePatternsItRuns) {
    trace::SynthOptions options;
    options.grid = {3, 2};
    options.pattern = trace::SynthPattern::Wavefront;
    options.iterations = 1;
    const trace::Synthetic s = trace::synthesize(options);
    std::vector<std::unique_ptr<analysis::Pattern>> without_waves;
    for (auto& pattern : patterns::all_patterns())
        if (pattern->name() != "wavefront") without_waves.push_back(std::move(pattern));
    const analysis::AnalysisResult r = analysis::analyze(s.builder.trace(), without_waves);
    EXPECT_EQ(names(r.report), a_2d_grid_without_waves());
    // A pattern outside the catalogue defines its own metrics and gets none of the catalogue's.
    EXPECT_EQ(patterns::catalogue_metrics(r.report, {}).size(), 0u);
}

TEST(MetricCatalogue, TheEngineDefinesMetricsInTreeOrderWhateverThePatternsOrder) {
    // The registry's order is not a rule to remember: patterns listed children first give
    // the same metric tree, with the same ids.
    trace::SynthOptions options;
    options.grid = {3, 2};
    options.pattern = trace::SynthPattern::Wavefront;
    options.iterations = 1;
    const trace::Synthetic s = trace::synthesize(options);
    auto reversed = patterns::all_patterns();
    std::reverse(reversed.begin(), reversed.end());
    const analysis::AnalysisResult r = analysis::analyze(s.builder.trace(), reversed);
    EXPECT_EQ(names(r.report), kOnA2DGrid);
}

TEST(MetricCatalogue, WithoutGridOrCodeletsThoseRowsAreLeftOut) {
    report::Report r;
    const std::vector<std::string> all = names(patterns::catalogue_metrics(r, registry_kinds()));
    EXPECT_EQ(all, a_2d_grid_without_waves());
    EXPECT_TRUE(patterns::wavefront_corners(r).empty());
    EXPECT_FALSE(patterns::has_codelets(r));
}

TEST(MetricCatalogue, DocsMetricTableIsTheCatalogues) {
    // On failure: `topolens help metrics --markdown` prints the table docs/metrics.md must have.
    EXPECT_EQ(docs_metric_table(), patterns::metric_table_markdown());
}

TEST(MetricCatalogue, HelpMetricsPrintsTheCatalogue) {
    const test::CommandResult md =
        test::run_command({topolens::test::topolens_bin(), "help", "metrics", "--markdown"});
    EXPECT_EQ(md.exit_code, 0);
    EXPECT_EQ(md.out, docs_metric_table());

    const test::CommandResult text =
        test::run_command({topolens::test::topolens_bin(), "help", "metrics"});
    EXPECT_EQ(text.exit_code, 0);
    EXPECT_EQ(text.out, patterns::metric_table_text());
    for (const patterns::MetricEntry& e : patterns::metric_catalogue()) {
        EXPECT_NE(text.out.find(std::string(e.display_name) + "  (" + std::string(e.unique_name)),
                  std::string::npos)
            << e.unique_name;
        EXPECT_NE(text.out.find(std::string(e.hint.substr(0, 20))), std::string::npos)
            << e.unique_name;
    }
    EXPECT_NE(text.out.find("\n    MPI  (mpi, sec, under execution)\n"), std::string::npos);

    const test::CommandResult bad =
        test::run_command({topolens::test::topolens_bin(), "help", "metrics", "--x"});
    EXPECT_EQ(bad.exit_code, 2);
    EXPECT_NE(bad.err.find("usage: topolens help metrics"), std::string::npos);
}
