// Comparing a report with `topolens synth`'s expectations, per location and exactly (for
// the synth pattern tests).
#pragma once

#include "analyzer/report/report.h"
#include "patterns/metric_names.h"
#include "trace/synthetic.h"

#include <gtest/gtest.h>

#include <cctype>
#include <string>

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

} // namespace topolens::synth_expect
