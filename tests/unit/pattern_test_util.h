// Helpers of the pattern tests on hand-built traces (1 tick = 1 ns): run every pattern,
// read a metric back, and the MPI_Init / MPI_Finalize every location starts and ends with.
#pragma once

#include "analyzer/engine/engine.h"
#include "patterns/registry.h"
#include "trace/builder.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace topolens::test {

inline constexpr double kTick = 1e-9; // seconds per tick at the builder's default resolution

inline analysis::AnalysisResult run(const trace::TraceBuilder& b) {
    return analysis::analyze(b.trace(), patterns::all_patterns());
}

// Metric-inclusive, call-path-inclusive value at one call path ("program/MPI_Recv"). An
// unknown metric or call path fails the test: a misspelled name must not read as 0. (A test
// that means "nobody entered this call path" asserts that with find_callpath.)
inline double value(const analysis::AnalysisResult& r, const char* metric_name,
                    const std::string& path, uint32_t location) {
    const auto m = r.report.find_metric(metric_name);
    const auto cp = r.report.find_callpath(path);
    if (!m) ADD_FAILURE() << "no metric " << metric_name;
    if (!cp) ADD_FAILURE() << "no call path " << path;
    if (!m || !cp) return 0.0;
    return r.report.inclusive(*m, *cp, static_cast<int>(location));
}

// Over the whole call tree.
inline double total(const analysis::AnalysisResult& r, const char* metric_name, uint32_t location) {
    const auto m = r.report.find_metric(metric_name);
    if (!m) ADD_FAILURE() << "no metric " << metric_name;
    return m ? r.report.total(*m, static_cast<int>(location)) : 0.0;
}

// Every location starts with MPI_Init [0, 5] ...
inline void begin(trace::TraceBuilder& b, uint32_t ranks) {
    for (uint32_t r = 0; r < ranks; ++r) b.mpi_init(r, 0, 5);
}

// ... and ends with MPI_Finalize [end, end + 5]; events in between are added in time order.
inline void end(trace::TraceBuilder& b, uint32_t ranks, trace::Time end) {
    for (uint32_t r = 0; r < ranks; ++r) b.mpi_finalize(r, end, end + 5);
}

// A test's own pattern: clonable (a copy), with nothing to merge and no metrics; the test
// writes name() and subscribe().
template <class Derived> struct TestPattern : analysis::Pattern {
    std::unique_ptr<analysis::Pattern> clone() const override {
        return std::make_unique<Derived>(static_cast<const Derived&>(*this));
    }
    void merge(analysis::Pattern&) override {}
    void define_metrics(report::Report&) override {}
};

} // namespace topolens::test
