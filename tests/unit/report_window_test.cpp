// A report that keeps a part of its locations (Report::keep_locations), as each rank's of an
// analysis shared out to ranks: rows hold the window, values elsewhere are dropped, and the
// derived values are those of the window (numbers from report_sample.h).
#include "report_sample.h"

#include <gtest/gtest.h>

namespace topolens::test {
namespace {

using namespace topolens::report;

// Metric and call path ids of report_sample.h.
constexpr int kTime = 0, kMpi = 1, kLateSender = 2, kWaitNxN = 5, kClockViolations = 7;
constexpr int kProgram = 0, kSolver = 2, kAllreduce = 3, kRecv = 4, kSend = 5;

TEST(ReportWindow, AllLocationsAreKeptUntilAWindowIsSet) {
    Report r = sample_report();
    EXPECT_TRUE(r.keeps_all_locations());
    EXPECT_EQ(r.kept_locations().first, 0);
    EXPECT_EQ(r.kept_locations().last, 4);
    ASSERT_NE(r.row(kTime, kProgram), nullptr);
    EXPECT_EQ(r.row(kTime, kProgram)->size(), 4u);
    // A window of every location keeps them all, but not those added after it.
    r.keep_locations(0, 4);
    EXPECT_TRUE(r.keeps_all_locations());
    r.add_location(Location{});
    EXPECT_FALSE(r.keeps_all_locations());
    EXPECT_EQ(r.row(kTime, kProgram)->size(), 4u);
}

TEST(ReportWindow, RowsHoldTheWindowOnly) {
    Report r = sample_report();
    r.keep_locations(2, 4);
    EXPECT_FALSE(r.keeps_all_locations());
    EXPECT_EQ(r.kept_locations().first, 2);
    EXPECT_EQ(r.kept_locations().last, 4);
    ASSERT_NE(r.row(kTime, kProgram), nullptr);
    EXPECT_EQ(*r.row(kTime, kProgram), (std::vector<double>{1, 1}));
    EXPECT_EQ(*r.row(kMpi, kAllreduce), (std::vector<double>{.5, .5}));
    EXPECT_EQ(*r.row(kMpi, kSend), (std::vector<double>{0, .125}));
    EXPECT_EQ(*r.row(kWaitNxN, kAllreduce), (std::vector<double>{.25, .375}));
    // Rows with values outside the window only are gone.
    EXPECT_EQ(r.row(kMpi, kRecv), nullptr);
    EXPECT_EQ(r.callpaths_with_values(kMpi), (std::vector<int>{kAllreduce, kSend}));
    EXPECT_TRUE(r.callpaths_with_values(kLateSender).empty());
    EXPECT_TRUE(r.callpaths_with_values(kClockViolations).empty());
    // Values by (global) location id.
    EXPECT_EQ(r.value(kMpi, kAllreduce, 0), 0.0);
    EXPECT_EQ(r.value(kMpi, kAllreduce, 2), .5);
    EXPECT_EQ(r.value(kWaitNxN, kAllreduce, 3), .375);
    EXPECT_EQ(r.value(kMpi, kRecv, 1), 0.0);
}

TEST(ReportWindow, ValuesOutsideTheWindowAreDropped) {
    Report r = sample_report();
    r.keep_locations(1, 3);
    r.add_value(kTime, kSolver, 0, 7.0);
    r.add_value(kTime, kSolver, 3, 7.0);
    r.set_value(kTime, kProgram, 3, 9.0);
    EXPECT_EQ(r.value(kTime, kSolver, 0), 0.0);
    EXPECT_EQ(r.value(kTime, kSolver, 3), 0.0);
    EXPECT_EQ(r.value(kTime, kProgram, 3), 0.0);
    EXPECT_EQ(*r.row(kTime, kSolver), (std::vector<double>{2, 2}));
    EXPECT_EQ(*r.row(kTime, kProgram), (std::vector<double>{1, 1}));
    // Inside it they count.
    r.add_value(kTime, kSolver, 2, .5);
    r.set_value(kTime, kProgram, 1, 3.0);
    EXPECT_EQ(*r.row(kTime, kSolver), (std::vector<double>{2, 2.5}));
    EXPECT_EQ(*r.row(kTime, kProgram), (std::vector<double>{3, 1}));
    // A new row is as wide as the window.
    r.add_value(kClockViolations, kSend, 2, 4.0);
    EXPECT_EQ(*r.row(kClockViolations, kSend), (std::vector<double>{0, 4}));
    // Ids that do not exist are refused, inside the window or not.
    EXPECT_THROW(r.add_value(kTime, kSolver, 4, 1.0), std::out_of_range);
    EXPECT_THROW(r.add_value(99, kSolver, 0, 1.0), std::out_of_range);
    EXPECT_THROW(r.set_value(kTime, 99, 3, 1.0), std::out_of_range);
}

TEST(ReportWindow, AWindowSetBeforeAnyValueKeepsItsOwn) {
    Report whole = sample_report();
    Report r;
    for (const Metric& m : whole.metrics) r.add_metric(m);
    r.regions = whole.regions;
    r.callpaths = whole.callpaths;
    for (const Location& l : whole.locations) r.add_location(l);
    r.keep_locations(0, 1);
    for (int l = 0; l < 4; ++l) r.add_value(kMpi, kRecv, l, 1.0 + l);
    EXPECT_EQ(*r.row(kMpi, kRecv), (std::vector<double>{1}));
    EXPECT_EQ(r.value(kMpi, kRecv, 0), 1.0);
    EXPECT_EQ(r.value(kMpi, kRecv, 1), 0.0);
    // Locations added later are outside the window.
    Location extra;
    extra.rank = 4;
    const int added = r.add_location(extra);
    r.add_value(kMpi, kRecv, added, 5.0);
    EXPECT_EQ(r.row(kMpi, kRecv)->size(), 1u);
    EXPECT_EQ(r.kept_locations().last, 1);
}

TEST(ReportWindow, InclusiveValuesAreTheWindows) {
    Report r = sample_report();
    r.keep_locations(2, 4);
    // time's subtree at location 2: 1 + 2 + .5 + .25; at 3: 1 + 2 + .5 + .125 + .375.
    EXPECT_EQ(r.inclusive_by_location(kTime, -1), (std::vector<double>{0, 0, 3.75, 4}));
    EXPECT_EQ(r.inclusive_by_location(kMpi, kSolver), (std::vector<double>{0, 0, 0, .125}));
    EXPECT_EQ(r.total(kTime, 3), 4.0);
    EXPECT_EQ(r.total(kTime, 0), 0.0);
    EXPECT_EQ(r.total(kTime), 7.75);
    EXPECT_EQ(r.metric_inclusive(kMpi, kAllreduce, 3), .875);
    EXPECT_EQ(r.inclusive(kMpi, kProgram, 2), .75);
    const std::vector<double> own = r.callpath_totals(kMpi, false);
    EXPECT_EQ(own[kAllreduce], 1.625);
    EXPECT_EQ(own[kSend], .125);
    EXPECT_EQ(own[kRecv], 0.0);
    const std::vector<double> inclusive = r.callpath_totals(kMpi, true);
    EXPECT_EQ(inclusive[kProgram], 1.75);
    EXPECT_EQ(inclusive[kSolver], .125);
}

TEST(ReportWindow, AWindowMustLieWithinTheLocations) {
    Report r = sample_report();
    EXPECT_THROW(r.keep_locations(3, 2), std::out_of_range);
    EXPECT_THROW(r.keep_locations(-1, 2), std::out_of_range);
    EXPECT_THROW(r.keep_locations(0, 5), std::out_of_range);
    r.keep_locations(2, 2); // a rank without locations keeps none
    EXPECT_TRUE(r.callpaths_with_values(kTime).empty());
    EXPECT_EQ(r.total(kTime), 0.0);
}

} // namespace
} // namespace topolens::test
