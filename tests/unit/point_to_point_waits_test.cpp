// The Late Sender and Late Receiver instances found once per analysis
// (patterns/point_to_point_waits.h): what a location's preparation found is what its replay
// reads, kept only when a pattern reads them in the replay.
#include "pattern_test_util.h"
#include "patterns/point_to_point_waits.h"
#include "trace/builder.h"
#include "trace/matching.h"

#include <gtest/gtest.h>

#include <memory>

using namespace topolens;

namespace {

// Location 1 receives at 10 what location 0 sends at 30: a Late Sender of 20 ticks.
trace::TraceBuilder late_sender() {
    trace::TraceBuilder b(2);
    test::begin(b, 2);
    b.mpi_send(0, 30, 31, 1, b.world(), 0, 8);
    b.mpi_recv(1, 10, 35, 0, b.world(), 0, 8);
    test::end(b, 2, 40);
    return b;
}

} // namespace

TEST(PointToPointWaits, TheReplayReadsWhatThePreparationFoundWhenKept) {
    const trace::TraceBuilder b = late_sender();
    const trace::Matching m = trace::match(b.trace(), 1);
    report::Report report;
    const analysis::Context c(b.trace(), m, report,
                              std::make_shared<const std::vector<uint32_t>>(m.calltree.size(), 0));
    patterns::PointToPointWaits kept;
    kept.read_in_replay();
    const auto prepared = kept.prepare(c, 1);
    ASSERT_EQ(prepared->late_senders.verdicts().size(), 1u);
    EXPECT_EQ(prepared->late_senders.verdicts()[0].wait, 20u);
    // The replay takes the preparation's own instances, once; later it finds them anew.
    EXPECT_EQ(kept.replay(c, 1).get(), prepared.get());
    const auto again = kept.replay(c, 1);
    EXPECT_NE(again.get(), prepared.get());
    EXPECT_EQ(again->late_senders.verdicts()[0].wait, 20u);
    EXPECT_EQ(kept.replay(c, 0)->late_receivers.waits().size(), 1u); // never prepared: found

    // Nobody reads them in the replay: nothing is kept, the replay finds the same values.
    patterns::PointToPointWaits unkept;
    const auto found = unkept.prepare(c, 1);
    const auto replayed = unkept.replay(c, 1);
    EXPECT_NE(replayed.get(), found.get());
    EXPECT_EQ(replayed->late_senders.verdicts()[0].wait, 20u);
}
