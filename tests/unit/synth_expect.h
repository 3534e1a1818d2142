// Comparing a report with `topolens synth`'s expectations, per location and exactly (for
// the synth pattern tests).
#pragma once

#include "analyzer/report/report.h"
#include "patterns/metric_names.h"
#include "trace/synthetic.h"

#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace topolens::synth_expect {

inline constexpr double kTick = 1e-9;   // synth's ticks are nanoseconds
inline constexpr double kExact = 1e-12; // seconds: far below one tick

// "SW-bottom" -> "mpi_wavefront_sw_bottom".
inline std::string unique_of(const std::string& corner) {
    std::string name = "mpi_wavefront_";
    for (char c : corner) name += c == '-' ? '_' : static_cast<char>(std::tolower(c));
    return name;
}

inline void expect_metric(const report::Report& r, const char* unique,
                          const trace::SynthSeverity& s, const std::string& what) {
    const auto m = r.find_metric(unique);
    ASSERT_TRUE(m.has_value()) << "no metric " << unique;
    for (size_t loc = 0; loc < s.by_location.size(); ++loc)
        EXPECT_NEAR(r.total(*m, static_cast<int>(loc)),
                    static_cast<double>(s.by_location[loc]) * kTick, kExact)
            << what << " at location " << loc;
}

// Late Sender, its Wrong Order part and the two parts of that (Scalasca's unique names),
// and Late Receiver: every point-to-point metric the generator predicts.
inline void expect_point_to_point(const report::Report& r, const trace::SynthExpected& x) {
    namespace metric = patterns::metric;
    expect_metric(r, metric::kLateSender, x.late_sender, "Late Sender");
    trace::SynthSeverity wo = x.wrong_order_same;
    for (size_t loc = 0; loc < wo.by_location.size(); ++loc)
        wo.by_location[loc] += x.wrong_order_different.by_location[loc];
    expect_metric(r, metric::kLateSenderWrongOrder, wo, "LS, Wrong Order");
    expect_metric(r, metric::kWrongOrderSameSource, x.wrong_order_same, "Wrong Order, same source");
    expect_metric(r, metric::kWrongOrderDifferentSources, x.wrong_order_different,
                  "Wrong Order, different sources");
    expect_metric(r, metric::kLateReceiver, x.late_receiver, "Late Receiver");
}

// Ticks of a scaled share (delay costs are fractions of waits) against seconds in a report.
inline void expect_ticks(double seconds, double ticks, const std::string& what) {
    EXPECT_NEAR(seconds, ticks * kTick, kExact + 1e-9 * std::abs(ticks * kTick)) << what;
}

// The root causes of `topolens synth --pattern delay` (SynthExpected::root_causes): every
// listed metric at every call path and location (exclusive along both trees, a call path
// the generator does not list must be 0), every zero metric 0 everywhere. Fails while the
// report lacks a metric: the delay and critical-path patterns of issue 23 must be there.
// With `prefix`, only the metrics whose unique name starts with it ("delay_").
inline void expect_root_causes(const report::Report& r, const trace::SynthExpected& x,
                               std::string_view prefix = {}) {
    const trace::SynthRootCauses& rc = x.root_causes;
    ASSERT_FALSE(rc.metrics.empty()) << "not a delay trace";
    for (const auto& [unique, by_location] : rc.metrics) {
        if (unique.rfind(prefix, 0) != 0) continue;
        const auto m = r.find_metric(unique);
        ASSERT_TRUE(m.has_value()) << "no metric " << unique;
        // Call path -> ticks per location; the generator names call paths from main
        // ("main/work"), which find_callpath resolves below the report's root.
        std::map<int, std::vector<double>> expected;
        for (int cp : r.callpaths_with_values(*m)) expected[cp].assign(by_location.size(), 0.0);
        for (size_t loc = 0; loc < by_location.size(); ++loc)
            for (const auto& [path, ticks] : by_location[loc]) {
                const auto cp = r.find_callpath(path);
                ASSERT_TRUE(cp.has_value()) << "no call path " << path << " (" << unique << ")";
                auto& row = expected[*cp];
                row.resize(by_location.size(), 0.0);
                row[loc] += ticks;
            }
        for (const auto& [cp, row] : expected)
            for (size_t loc = 0; loc < row.size(); ++loc)
                expect_ticks(r.value(*m, cp, static_cast<int>(loc)), row[loc],
                             unique + " at " + r.callpath_name(cp) + ", location " +
                                 std::to_string(loc));
    }
    for (const std::string& unique : rc.zero_metrics) {
        if (unique.rfind(prefix, 0) != 0) continue;
        const auto m = r.find_metric(unique);
        ASSERT_TRUE(m.has_value()) << "no metric " << unique;
        for (int cp : r.callpaths_with_values(*m))
            for (size_t loc = 0; loc < x.late_sender.by_location.size(); ++loc)
                EXPECT_EQ(r.value(*m, cp, static_cast<int>(loc)), 0.0)
                    << unique << " at " << r.callpath_name(cp) << ", location " << loc;
    }
}

} // namespace topolens::synth_expect
