// CUBE4 values as Cube defines them (issue 12): Scalasca's reports of the oracle traces read
// as Cube shows them (scalasca-values.csv, through the reader and through `topolens
// summary` and `values`); our reports of the same traces, decoded by Cube's rules, give the
// figures `topolens summary` prints and no negative exclusive value anywhere; the report an
// earlier topolens wrote keeps its values; every metric's url names its row in docs/metrics.md.
#include "cube_view.h"
#include "oracle_values.h"
#include "test_util.h"

#include "analyzer/engine/engine.h"
#include "analyzer/report/cube4.h"
#include "patterns/registry.h"
#include "test_paths.h"
#include "trace/matching.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sstream>

namespace topolens::test {
namespace {

namespace fs = std::filesystem;

const fs::path kOracle = topolens::test::oracle_dir();
const char* const kTraces[] = {"wavefront2d", "autotune_halo", "cg3d", "collectives",
                               "synth-mixed"};

// The CSV prints, with 9 decimals, sums of cube_dump's rows, which cube_dump prints with 6
// significant digits: exact up to those roundings.
bool near_csv(double got, double want) {
    return std::fabs(got - want) <= 1e-9 + 1e-12 * std::fabs(want);
}

// What `topolens values` and `summary` print is not rounded per call path like the CSV's
// rows: equal within the 6 significant digits of cube_dump's rows (half a unit of the 6th
// digit: at most 5e-6 of the value).
bool near_csv_rows(double got, double want) {
    return std::fabs(got - want) <= 1e-9 + 5e-6 * std::fabs(want);
}

// A value as cube_dump prints it (ostream's default: 6 significant digits).
double as_cube_dump_prints(double value) {
    std::ostringstream text;
    text << value;
    return std::stod(text.str());
}

// The CSV's value: per call path the metric's value (with its sub-metrics) there, as
// cube_dump prints it, summed over the call paths.
double csv_value(const report::Report& r, int metric, int location) {
    double sum = 0.0;
    for (std::size_t c = 0; c < r.callpaths.size(); ++c)
        sum += as_cube_dump_prints(r.metric_inclusive(metric, static_cast<int>(c), location));
    return sum;
}

std::set<std::string> metric_names(const test::OracleValues& csv) {
    std::set<std::string> names;
    for (const auto& entry : csv) names.insert(entry.first.first);
    return names;
}

class CubeValues : public testing::TestWithParam<const char*> {};

// ---------------------------------------------------------------- Scalasca's reports

TEST_P(CubeValues, ScalascasReportReadsAsItsCsv) {
    const fs::path dir = kOracle / GetParam();
    const auto csv = test::read_oracle_values(dir / "scalasca-values.csv");
    const report::Report r = report::read_cube4((dir / "scalasca.cubex").string());
    for (const std::string& name : metric_names(csv)) {
        const auto m = r.find_metric(name);
        ASSERT_TRUE(m) << name;
        EXPECT_EQ(r.metrics[*m].unique_name, name);
        std::size_t compared = 0;
        for (std::size_t l = 0; l < r.locations.size(); ++l) {
            const auto want = csv.find({name, static_cast<int>(l)});
            ASSERT_NE(want, csv.end()) << name << " at location " << l;
            EXPECT_PRED2(near_csv, csv_value(r, *m, static_cast<int>(l)), want->second)
                << name << " at location " << l;
            EXPECT_PRED2(near_csv_rows, r.total(*m, static_cast<int>(l)), want->second)
                << name << " at location " << l;
            ++compared;
        }
        EXPECT_EQ(compared * metric_names(csv).size(), csv.size()) << name;
    }
}

// Metrics topolens has no pattern for keep Scalasca's names, and Cube's exclusive value is
// what the reader holds at every metric, call path and location.
TEST_P(CubeValues, ScalascasReportKeepsEveryMetricWithCubesExclusiveValues) {
    const fs::path path = kOracle / GetParam() / "scalasca.cubex";
    const CubeView cube = read_cube_view(path.string());
    const report::Report r = report::read_cube4(path.string());
    ASSERT_EQ(r.metrics.size(), cube.metrics.size());
    ASSERT_EQ(r.locations.size(), cube.locations);
    // Scalasca's call paths are one per cnode here (no two call sites of one region); the
    // report numbers them by the file's cnode ids.
    ASSERT_EQ(r.callpaths.size(), cube.cnode_parent.size());
    std::vector<int> callpath;
    for (const std::string& path : cube.cnode_path) {
        const auto found = r.find_callpath(path);
        ASSERT_TRUE(found) << path;
        callpath.push_back(*found);
    }
    for (std::size_t m = 0; m < cube.metrics.size(); ++m) {
        const auto id = r.find_metric(cube.metrics[m].unique_name); // ids: the file's order
        ASSERT_TRUE(id) << cube.metrics[m].unique_name;
        for (std::size_t c = 0; c < cube.cnode_parent.size(); ++c)
            for (std::size_t l = 0; l < cube.locations; ++l) {
                const double want = cube.exclusive(static_cast<int>(m), static_cast<int>(c), l);
                EXPECT_NEAR(r.value(*id, callpath[c], static_cast<int>(l)), want,
                            1e-12 * std::max(1.0, std::fabs(cube.stored[m][c][l])))
                    << cube.metrics[m].unique_name << " cnode " << c << " location " << l;
            }
    }
    // Nothing is counted twice: a parent's total is its stored value, not that plus its
    // children's (Late Sender holds Wrong Order).
    const int ls = cube.metric("mpi_latesender");
    ASSERT_GE(ls, 0);
    for (std::size_t l = 0; l < cube.locations; ++l)
        EXPECT_NEAR(r.total(*r.find_metric("mpi_latesender"), static_cast<int>(l)),
                    cube.total(ls, l), 1e-12);
}

// `topolens values` prints the CSV's values; `topolens summary` its totals.
TEST_P(CubeValues, ValuesAndSummaryOfScalascasReportShowItsCsv) {
    const fs::path dir = kOracle / GetParam();
    const std::string report = (dir / "scalasca.cubex").string();
    const auto csv = test::read_oracle_values(dir / "scalasca-values.csv");
    const CommandResult summary = run_command({topolens::test::topolens_bin(), "summary", report});
    ASSERT_EQ(summary.exit_code, 0) << summary.err;
    const report::Report r = report::read_cube4(report);
    for (const std::string& name : metric_names(csv)) {
        const CommandResult values =
            run_command({topolens::test::topolens_bin(), "values", report, "--metric", name});
        ASSERT_EQ(values.exit_code, 0) << values.err;
        std::istringstream lines(values.out);
        std::string line;
        std::getline(lines, line); // header
        double total = 0.0;
        int rows = 0;
        while (std::getline(lines, line)) {
            // location,rank,thread,host,coords,value,role
            std::vector<std::string> fields;
            std::istringstream cells(line);
            for (std::string cell; std::getline(cells, cell, ',');) fields.push_back(cell);
            ASSERT_GE(fields.size(), 6u) << line;
            const int location = std::stoi(fields[0]);
            const double value = std::stod(fields[5]);
            EXPECT_PRED2(near_csv_rows, value, csv.at({name, location})) << name << " " << line;
            total += csv.at({name, location});
            ++rows;
        }
        EXPECT_EQ(rows, static_cast<int>(r.locations.size())) << name;
        // summary's metric table: "<display name>  <total>  <unit> ...", seconds with 6
        // decimals, counts with thousands separators.
        const report::Metric& metric = r.metrics[*r.find_metric(name)];
        std::istringstream summary_lines(summary.out);
        std::optional<double> shown;
        while (!shown && std::getline(summary_lines, line)) {
            const std::size_t start = line.find_first_not_of(' ');
            if (start == std::string::npos ||
                line.compare(start, metric.display_name.size() + 2, metric.display_name + "  "))
                continue;
            std::istringstream rest(line.substr(start + metric.display_name.size()));
            std::string number, unit;
            rest >> number >> unit;
            std::erase(number, ',');
            if (unit == metric.unit) shown = std::stod(number);
        }
        ASSERT_TRUE(shown) << metric.display_name << " not in\n" << summary.out;
        EXPECT_NEAR(*shown, total, 5e-7 + 5e-6 * std::fabs(total)) << metric.display_name;
    }
}

// ---------------------------------------------------------------- our reports

// A report of the trace, written and decoded by Cube's rules, gives what `topolens summary`
// shows (Report::total, its figures) and Cube's exclusive value is nowhere negative.
TEST_P(CubeValues, OurReportReadByCubesRulesGivesSummarysFigures) {
    const fs::path dir = kOracle / GetParam();
    const auto [trace, matching] = trace::read_and_match((dir / "traces.otf2").string());
    const report::Report r = analysis::analyze(trace, matching, patterns::all_patterns()).report;
    ScratchDir scratch;
    const std::string path = (scratch / "report.cubex").string();
    report::write_cube4(r, path);
    const CubeView cube = read_cube_view(path);

    ASSERT_EQ(cube.metrics.size(), r.metrics.size());
    ASSERT_EQ(cube.locations, r.locations.size());
    for (std::size_t m = 0; m < r.metrics.size(); ++m) {
        const std::string& name = r.metrics[m].unique_name;
        const int cm = cube.metric(name); // the file lists metrics depth-first
        ASSERT_GE(cm, 0) << name;
        EXPECT_EQ(cube.metrics[cm].type, "EXCLUSIVE") << name;
        for (std::size_t l = 0; l < r.locations.size(); ++l) {
            const double summary = r.total(static_cast<int>(m), static_cast<int>(l));
            EXPECT_NEAR(cube.total(cm, l), summary, 1e-12 * std::max(1.0, std::fabs(summary)))
                << name << " at location " << l;
        }
        for (std::size_t c = 0; c < cube.cnode_parent.size(); ++c)
            for (std::size_t l = 0; l < cube.locations; ++l)
                EXPECT_GE(cube.exclusive(cm, static_cast<int>(c), l), 0.0)
                    << name << " cnode " << c << " location " << l << ": parent below the sum "
                    << "of its children";
    }
    // Read back, the report holds its values again, none negative.
    const report::Report back = report::read_cube4(path);
    for (std::size_t m = 0; m < r.metrics.size(); ++m) {
        for (std::size_t l = 0; l < r.locations.size(); ++l) {
            const double want = r.total(static_cast<int>(m), static_cast<int>(l));
            EXPECT_NEAR(back.total(static_cast<int>(m), static_cast<int>(l)), want,
                        1e-12 * std::max(1.0, std::fabs(want)))
                << r.metrics[m].unique_name << " at location " << l;
        }
        for (int c : back.callpaths_with_values(static_cast<int>(m)))
            for (double v : *back.row(static_cast<int>(m), c))
                EXPECT_GE(v, 0.0) << back.metrics[m].unique_name << " at " << back.callpath_name(c);
    }
}

INSTANTIATE_TEST_SUITE_P(Oracle, CubeValues, testing::ValuesIn(kTraces), [](const auto& info) {
    std::string name = info.param;
    for (char& c : name)
        if (c == '-') c = '_';
    return name;
});

// ---------------------------------------------------------------- metric descriptions

// Each metric's url is "@mirror@docs/metrics.md#metric-..." (Scalasca writes
// "@mirror@scalasca_patterns.html#..."), the anchor exists in docs/metrics.md, and the
// report's mirror is the folder that holds docs/metrics.md.
TEST(CubeValuesUrls, EveryMetricsUrlNamesItsRowInDocs) {
    const fs::path dir = kOracle / "wavefront2d";
    const auto [trace, matching] = trace::read_and_match((dir / "traces.otf2").string());
    const report::Report r = analysis::analyze(trace, matching, patterns::all_patterns()).report;
    const std::string doc = read_file(fs::path(__FILE__).parent_path().parent_path().parent_path() /
                                      "docs" / "metrics.md");
    const std::string prefix = "@mirror@docs/metrics.md#";
    for (const report::Metric& m : r.metrics) {
        ASSERT_EQ(m.url.rfind(prefix, 0), 0u) << m.unique_name << ": " << m.url;
        const std::string anchor = m.url.substr(prefix.size());
        EXPECT_NE(doc.find("<a id=\"" + anchor + "\"></a>"), std::string::npos)
            << m.unique_name << ": docs/metrics.md has no anchor " << anchor;
    }
    ASSERT_EQ(r.mirrors.size(), 1u);
    EXPECT_EQ(r.mirrors[0].back(), '/');
    if (r.mirrors[0].rfind("file://", 0) == 0) {
        EXPECT_TRUE(fs::exists(r.mirrors[0].substr(7) + "docs/metrics.md")) << r.mirrors[0];
    }

    ScratchDir scratch;
    const std::string path = (scratch / "report.cubex").string();
    report::write_cube4(r, path);
    const report::Report back = report::read_cube4(path);
    EXPECT_EQ(back.mirrors, r.mirrors);
    EXPECT_EQ(back.metrics.at(*back.find_metric("mpi_latesender")).url,
              "@mirror@docs/metrics.md#metric-mpi_latesender");
}

// ---------------------------------------------------------------- earlier topolens reports

// topolens-report.cubex was written before reports named their Creator: it stores each
// metric's own part. It opens with the values it meant (the sum over each metric's subtree),
// which are not what Cube's rule would make of the same bytes.
TEST(CubeValuesOfEarlierReports, WavefrontReportOpensWithItsValues) {
    const fs::path path = kOracle / "wavefront2d" / "topolens-report.cubex";
    const CubeView cube = read_cube_view(path.string());
    for (const auto& [key, value] : cube.attributes) ASSERT_NE(key, "Creator");
    const report::Report r = report::read_cube4(path.string());
    ASSERT_EQ(r.metrics.size(), cube.metrics.size());
    std::function<double(int, std::size_t)> own_parts = [&](int m, std::size_t l) {
        double sum = cube.total(m, l);
        for (int child : cube.metrics[m].children) sum += own_parts(child, l);
        return sum;
    };
    for (std::size_t m = 0; m < cube.metrics.size(); ++m) {
        const auto id = r.find_metric(cube.metrics[m].unique_name); // ids: the file's order
        ASSERT_TRUE(id);
        for (std::size_t l = 0; l < cube.locations; ++l)
            EXPECT_NEAR(r.total(*id, static_cast<int>(l)), own_parts(static_cast<int>(m), l), 1e-12)
                << cube.metrics[m].unique_name << " at location " << l;
    }
    // The figures the issue quotes from `topolens summary` of this report.
    EXPECT_NEAR(r.total(*r.find_metric("time")), 29.158544, 5e-7);
    EXPECT_NEAR(r.total(*r.find_metric("mpi_latesender")), 6.965310, 5e-7);
    EXPECT_NEAR(r.total(*r.find_metric("mpi_latesender_wo")), 1.821063, 5e-7);
    // Cube's rule on these bytes gives Time 4.86 s (cube-view-of-topolens-report.csv).
    const auto cube_csv =
        test::read_oracle_values(kOracle / "wavefront2d" / "cube-view-of-topolens-report.csv");
    double time = 0.0;
    for (std::size_t l = 0; l < cube.locations; ++l)
        time += cube_csv.at({"time", static_cast<int>(l)});
    EXPECT_NEAR(time, 4.86, 0.005);
}

} // namespace
} // namespace topolens::test
