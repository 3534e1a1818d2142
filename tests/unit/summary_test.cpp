// Event statistics of the sample trace.
#include "sample_trace.h"

#include "trace/summary.h"

#include <gtest/gtest.h>

namespace topolens::test {
namespace {

using namespace topolens::trace;

uint64_t count(const KindCounts& c, EventKind k) {
    return c[static_cast<std::size_t>(k)];
}

TEST(Summary, CountsPerKindPerLocationAndSpan) {
    const TraceBuilder b = sample_trace();
    const TraceSummary s = summarize(b.trace());
    ASSERT_EQ(s.locations.size(), 4u);
    EXPECT_EQ(s.count(EventKind::MpiSend), 1u);
    EXPECT_EQ(s.count(EventKind::MpiRecv), 1u);
    EXPECT_EQ(s.count(EventKind::MpiIsend), 1u);
    EXPECT_EQ(s.count(EventKind::MpiIsendComplete), 1u);
    EXPECT_EQ(s.count(EventKind::MpiIrecvRequest), 2u);
    EXPECT_EQ(s.count(EventKind::MpiIrecv), 1u);
    EXPECT_EQ(s.count(EventKind::MpiRequestTest), 1u);
    EXPECT_EQ(s.count(EventKind::MpiRequestCancelled), 1u);
    EXPECT_EQ(s.count(EventKind::MpiCollectiveBegin), 6u); // 4 Allreduce + 2 Bcast
    EXPECT_EQ(s.count(EventKind::MpiCollectiveEnd), 6u);
    EXPECT_EQ(s.count(EventKind::ParameterString), 13u); // 3 phases x 4 ranks + "fast"
    EXPECT_EQ(s.count(EventKind::ParameterInt), 14u);    // 2 switches + decision x 4, 2 others
    EXPECT_EQ(s.count(EventKind::BufferFlush), 1u);
    EXPECT_EQ(s.count(EventKind::Other), 0u);
    // Rank 0: MPI_Init, 3 executions x (operation + codelet), main, MPI_Send,
    // MPI_Allreduce, MPI_Finalize.
    EXPECT_EQ(count(s.locations[0].counts, EventKind::Enter), 11u);
    EXPECT_EQ(count(s.locations[0].counts, EventKind::Leave), 11u);
    EXPECT_EQ(count(s.min_per_location, EventKind::MpiCollectiveEnd), 1u);
    EXPECT_EQ(count(s.max_per_location, EventKind::MpiCollectiveEnd), 2u);
    EXPECT_EQ(count(s.min_per_location, EventKind::MpiSend), 0u);
    EXPECT_EQ(count(s.max_per_location, EventKind::MpiSend), 1u);
    EXPECT_EQ(s.first, 0u);
    EXPECT_EQ(s.last, 1003u);
    EXPECT_EQ(s.locations[2].last, 1002u);
    EXPECT_DOUBLE_EQ(s.span_seconds(), 1003e-9);
    uint64_t total = 0;
    for (const LocationEvents& l : b.trace().locations) total += l.events.size();
    EXPECT_EQ(s.events, total);
}

TEST(Summary, EmptyTraceHasNoSpan) {
    Trace t;
    t.defs.locations.resize(2);
    t.locations.resize(2);
    const TraceSummary s = summarize(t);
    EXPECT_EQ(s.events, 0u);
    EXPECT_EQ(s.span_seconds(), 0.0);
}

} // namespace
} // namespace topolens::test
