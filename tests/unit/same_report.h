// Two analyses of one trace gave the same report: every stored value bit for bit, the same
// attributes, warnings and event count.
#pragma once

#include "analyzer/engine/engine.h"

#include <gtest/gtest.h>

namespace topolens::test {

// Every stored value, bit for bit: each cell is summed by one location's replay, then the
// values other locations found for it are added in location order, so the order in which
// threads finish cannot change it.
inline void expect_same_report(const analysis::AnalysisResult& a,
                               const analysis::AnalysisResult& b) {
    const report::Report& x = a.report;
    const report::Report& y = b.report;
    ASSERT_EQ(x.metrics.size(), y.metrics.size());
    ASSERT_EQ(x.callpaths.size(), y.callpaths.size());
    ASSERT_EQ(x.locations.size(), y.locations.size());
    size_t values = 0;
    for (int m = 0; m < static_cast<int>(x.metrics.size()); ++m) {
        EXPECT_EQ(x.metrics[m].unique_name, y.metrics[m].unique_name);
        EXPECT_EQ(x.callpaths_with_values(m), y.callpaths_with_values(m))
            << x.metrics[m].unique_name;
        for (int c = 0; c < static_cast<int>(x.callpaths.size()); ++c)
            for (int l = 0; l < static_cast<int>(x.locations.size()); ++l) {
                const double v = x.value(m, c, l);
                values += v != 0.0;
                EXPECT_EQ(v, y.value(m, c, l))
                    << x.metrics[m].unique_name << " call path " << c << " location " << l;
            }
    }
    EXPECT_GT(values, 0u);
    EXPECT_EQ(x.attributes, y.attributes);
    EXPECT_EQ(a.warnings, b.warnings);
    EXPECT_EQ(a.events, b.events);
}

} // namespace topolens::test
