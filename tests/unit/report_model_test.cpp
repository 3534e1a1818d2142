// The report model: building, exclusive values, lookups and the inclusive values derived
// from them (numbers from report_sample.h).
#include "report_sample.h"

#include <gtest/gtest.h>

namespace topolens::test {
namespace {

using namespace topolens::report;

TEST(ReportModel, AddMetricLinksParentAndChildren) {
    Report r;
    Metric a;
    a.unique_name = "a";
    const int ia = r.add_metric(a);
    Metric b;
    b.unique_name = "b";
    b.parent = ia;
    b.children = {7}; // stale children are dropped: children link themselves
    const int ib = r.add_metric(b);
    EXPECT_EQ(ia, 0);
    EXPECT_EQ(ib, 1);
    EXPECT_EQ(r.metrics[ia].children, std::vector<int>{ib});
    EXPECT_TRUE(r.metrics[ib].children.empty());
    Metric orphan;
    orphan.parent = 5;
    EXPECT_THROW(r.add_metric(orphan), std::out_of_range);
    EXPECT_EQ(r.metrics.size(), 2u);
}

TEST(ReportModel, AddCallpathReturnsTheExistingOne) {
    Report r;
    Region region;
    region.name = "f";
    const int f = r.add_region(region);
    region.name = "g";
    const int g = r.add_region(region);
    const int root = r.add_callpath(f, -1);
    const int child = r.add_callpath(g, root);
    EXPECT_EQ(r.add_callpath(f, -1), root);
    EXPECT_EQ(r.add_callpath(g, root), child);
    EXPECT_NE(r.add_callpath(g, -1), root); // same region, other parent: a new call path
    EXPECT_EQ(r.callpaths.size(), 3u);
    EXPECT_EQ(r.callpaths[root].children, std::vector<int>{child});
    EXPECT_EQ(r.callpaths[child].parent, root);
    EXPECT_THROW(r.add_callpath(9, -1), std::out_of_range);
    EXPECT_THROW(r.add_callpath(f, 9), std::out_of_range);
}

TEST(ReportModel, ExclusiveValuesRowsAndSparseness) {
    Report r = sample_report();
    EXPECT_EQ(r.value(2, 4, 1), 1.0);
    EXPECT_EQ(r.value(2, 3, 1), 0.0); // no row
    r.add_value(2, 4, 1, 0.5);
    EXPECT_EQ(r.value(2, 4, 1), 1.5);
    ASSERT_NE(r.row(2, 4), nullptr);
    EXPECT_EQ(*r.row(2, 4), (std::vector<double>{.5, 1.5, 0, 0}));
    EXPECT_EQ(r.row(2, 3), nullptr);
    EXPECT_EQ(r.callpaths_with_values(1), (std::vector<int>{3, 4, 5}));
    EXPECT_EQ(r.callpaths_with_values(4), std::vector<int>{}); // mpi_collective: children only

    // A row set back to zeros counts as no row.
    r.set_value(3, 4, 1, 0.0);
    EXPECT_EQ(r.row(3, 4), nullptr);
    EXPECT_TRUE(r.callpaths_with_values(3).empty());

    // Locations added later extend every row.
    Location extra;
    extra.rank = 4;
    const int l = r.add_location(extra);
    EXPECT_EQ(l, 4);
    ASSERT_NE(r.row(0, 0), nullptr);
    EXPECT_EQ(r.row(0, 0)->size(), 5u);
    EXPECT_EQ(r.value(0, 0, 4), 0.0);
    r.add_value(0, 0, 4, 3.0);
    EXPECT_EQ(r.total(0, 4), 3.0);

    EXPECT_THROW(r.value(8, 0, 0), std::out_of_range);
    EXPECT_THROW(r.value(0, 6, 0), std::out_of_range);
    EXPECT_THROW(r.add_value(0, 0, 5, 1.0), std::out_of_range);
    EXPECT_THROW(r.set_value(-1, 0, 0, 1.0), std::out_of_range);
}

TEST(ReportModel, FindMetricByUniqueOrDisplayName) {
    const Report r = sample_report();
    EXPECT_EQ(r.find_metric("mpi_latesender"), 2);
    EXPECT_EQ(r.find_metric("Late Sender"), 2);
    EXPECT_EQ(r.find_metric("late sender"), 2);
    EXPECT_EQ(r.find_metric("MPI_LATESENDER"), 2);
    EXPECT_EQ(r.find_metric("Visits"), 6);
    EXPECT_EQ(r.find_metric("late"), std::nullopt);
    EXPECT_EQ(r.find_metric(""), std::nullopt);
}

TEST(ReportModel, CallpathNamesAndLookup) {
    Report r = sample_report();
    EXPECT_EQ(r.callpath_name(0), "program");
    EXPECT_EQ(r.callpath_name(4), "program/main/solver/MPI_Recv");
    EXPECT_EQ(r.callpath_name(3), "program/main/MPI_Allreduce");
    for (int c = 0; c < static_cast<int>(r.callpaths.size()); ++c)
        EXPECT_EQ(r.find_callpath(r.callpath_name(c)), c) << r.callpath_name(c);
    EXPECT_EQ(r.find_callpath("/program/main/"), 1);
    // The single root may be left out.
    EXPECT_EQ(r.find_callpath("main/solver/MPI_Recv"), 4);
    EXPECT_EQ(r.find_callpath("main"), 1);
    EXPECT_EQ(r.find_callpath("program/solver"), std::nullopt);
    EXPECT_EQ(r.find_callpath("solver"), std::nullopt);
    EXPECT_EQ(r.find_callpath(""), std::nullopt);

    // Two regions of one name: the path still finds the branch that continues.
    Region other;
    other.name = "solver";
    other.source_file = "other.c";
    const int other_solver = r.add_region(other);
    const int c_other = r.add_callpath(other_solver, 1);
    const int c_deep = r.add_callpath(4 /* MPI_Recv region */, c_other);
    EXPECT_EQ(r.find_callpath("program/main/solver/MPI_Recv"), 4);
    EXPECT_EQ(r.callpath_name(c_deep), "program/main/solver/MPI_Recv");

    EXPECT_THROW(r.callpath_name(99), std::out_of_range);
}

TEST(ReportModel, MetricSubtreeIsPreorder) {
    const Report r = sample_report();
    EXPECT_EQ(r.metric_subtree(0), (std::vector<int>{0, 1, 2, 3, 4, 5}));
    EXPECT_EQ(r.metric_subtree(2), (std::vector<int>{2, 3}));
    EXPECT_EQ(r.metric_subtree(6), std::vector<int>{6});
}

TEST(ReportModel, InclusiveValues) {
    const Report r = sample_report();
    // metric inclusive: mpi + late sender + wrong order at MPI_Recv, rank 1
    EXPECT_EQ(r.metric_inclusive(1, 4, 1), 0.5 + 1.0 + 0.25);
    EXPECT_EQ(r.metric_inclusive(3, 4, 1), 0.25);
    EXPECT_EQ(r.metric_inclusive(4, 3, 3), 0.375);
    // call-path inclusive: time below solver at rank 0 (solver 2, Recv .25+.5, Send .125)
    EXPECT_EQ(r.inclusive(0, 2, 0), 2.875);
    EXPECT_EQ(r.inclusive(2, 0, 1), 1.25);
    EXPECT_EQ(r.inclusive(5, 2, 3), 0.0); // Wait at NxN is under MPI_Allreduce, not solver
    // totals
    EXPECT_EQ(r.total(0, 1), 1 + 2 + 0.5 + 0.125 + 0.5 + 1 + 0.25);
    EXPECT_EQ(r.total(0), 17.5);
    EXPECT_EQ(r.total(1), 5.5);
    EXPECT_EQ(r.total(2), 1.75);
    EXPECT_EQ(r.total(3), 0.25);
    EXPECT_EQ(r.total(4), 0.75);
    EXPECT_EQ(r.total(5), 0.75);
    EXPECT_EQ(r.total(6), 44.0);
    EXPECT_EQ(r.total(7), 2.0);
    double sum = 0;
    for (int l = 0; l < 4; ++l) sum += r.total(0, l);
    EXPECT_EQ(sum, r.total(0));
}

TEST(ReportModel, ValuesByLocationAndByCallpath) {
    const Report r = sample_report();
    EXPECT_EQ(r.inclusive_by_location(2, -1), (std::vector<double>{.5, 1.25, 0, 0}));
    EXPECT_EQ(r.inclusive_by_location(1, 3), (std::vector<double>{.5, .625, .75, .875}));
    EXPECT_EQ(r.inclusive_by_location(0, 2), (std::vector<double>{2.875, 3.75, 2, 2.125}));
    for (int l = 0; l < 4; ++l) EXPECT_EQ(r.inclusive_by_location(0, 2)[l], r.inclusive(0, 2, l));

    const std::vector<double> own = r.callpath_totals(1, false);
    EXPECT_EQ(own, (std::vector<double>{0, 0, 0, 2.75, 2.5, .25}));
    const std::vector<double> inclusive = r.callpath_totals(1, true);
    EXPECT_EQ(inclusive, (std::vector<double>{5.5, 5.5, 2.75, 2.75, 2.5, .25}));
}

} // namespace
} // namespace topolens::test
