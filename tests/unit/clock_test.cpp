// Clock-offset correction: interpolation values, and the reader applying it.
#include "test_util.h"

#include "trace/builder.h"
#include "trace/clock.h"
#include "trace/reader.h"

#include <gtest/gtest.h>

namespace topolens::test {
namespace {

using namespace topolens::trace;

TEST(ClockCorrection, InterpolatesBetweenOffsetsAndHoldsOutside) {
    const ClockCorrection c({{300, 30, 0}, {100, 10, 0}}); // unsorted on purpose
    EXPECT_EQ(c.offset_at(0), 10);
    EXPECT_EQ(c.offset_at(100), 10);
    EXPECT_EQ(c.offset_at(200), 20);
    EXPECT_EQ(c.offset_at(250), 25);
    EXPECT_EQ(c.offset_at(300), 30);
    EXPECT_EQ(c.offset_at(1000000), 30);
    EXPECT_EQ(c.to_global(250), std::optional<Time>(275));
}

TEST(ClockCorrection, RoundsToTheNearestTickHalvesAwayFromZero) {
    const ClockCorrection up({{0, 0, 0}, {3, 1, 0}});
    EXPECT_EQ(up.offset_at(1), 0); // 1/3
    EXPECT_EQ(up.offset_at(2), 1); // 2/3
    const ClockCorrection down({{0, 0, 0}, {2, -1, 0}});
    EXPECT_EQ(down.offset_at(1), -1); // -1/2
    const ClockCorrection half({{0, 0, 0}, {2, 1, 0}});
    EXPECT_EQ(half.offset_at(1), 1); // +1/2
}

TEST(ClockCorrection, ThreeOffsetsUseTheSurroundingPair) {
    const ClockCorrection c({{0, 0, 0}, {1000, 100, 0}, {2000, -100, 0}});
    EXPECT_EQ(c.offset_at(500), 50);
    EXPECT_EQ(c.offset_at(1500), 0);
    EXPECT_EQ(c.offset_at(1750), -50);
}

TEST(ClockCorrection, LargeTimestampsStayExact) {
    const uint64_t t0 = 1'700'000'000'000'000'000ull; // ns since 1970: 2023
    const ClockCorrection c({{t0, -1'000'000, 0}, {t0 + 4'000'000'000ull, 3'000'000, 0}});
    EXPECT_EQ(c.offset_at(t0 + 1'000'000'000ull), 0);
    EXPECT_EQ(c.offset_at(t0 + 1500), -999'998); // -1e6 + 1.5, the increment rounded up
    EXPECT_EQ(c.to_global(t0 + 3), std::optional<Time>(t0 + 3 - 1'000'000));
}

TEST(ClockCorrection, NoOffsetsIsTheIdentityAndNegativeResultsAreRefused) {
    const ClockCorrection none;
    EXPECT_TRUE(none.empty());
    EXPECT_EQ(none.to_global(42), std::optional<Time>(42));
    const ClockCorrection back({{0, -100, 0}});
    EXPECT_EQ(back.to_global(50), std::nullopt);
    EXPECT_EQ(back.to_global(150), std::optional<Time>(50));
}

// The reader corrects each location by its own offsets; OTF2 must not correct a second time.
TEST(ClockCorrection, ReaderAppliesEachLocationsOffsets) {
    ScratchDir dir;
    TraceBuilder b(3);
    const Ref r = b.region("work");
    for (uint32_t l = 0; l < 3; ++l) {
        b.enter(l, 0, r);
        b.leave(l, 500, r);
        b.enter(l, 1000, r);
        b.leave(l, 2000, r);
    }
    b.clock_offset(1, 0, 1000);
    b.clock_offset(1, 1000, 3000);
    b.clock_offset(2, 400, 7); // a single offset is constant
    b.buffer_flush(1, 2000, 2000);
    b.write(dir.path().string());
    const Trace t = read_trace(dir.path().string());
    auto times = [&](std::size_t l) {
        std::vector<Time> v;
        for (const Event& e : t.locations[l].events) v.push_back(e.time);
        return v;
    };
    EXPECT_EQ(times(0), (std::vector<Time>{0, 500, 1000, 2000}));
    EXPECT_EQ(times(1), (std::vector<Time>{1000, 2500, 4000, 5000, 5000}));
    EXPECT_EQ(t.locations[1].events.back().value, 5000); // BufferFlush stop time too
    EXPECT_EQ(times(2), (std::vector<Time>{7, 507, 1007, 2007}));
    ASSERT_EQ(t.defs.locations[1].clock_offsets.size(), 2u);
    EXPECT_EQ(t.defs.locations[1].clock_offsets[1].offset, 3000);
    EXPECT_TRUE(t.defs.locations[0].clock_offsets.empty());
}

TEST(ClockCorrection, ReaderRefusesOffsetsThatMakeTimesNegative) {
    ScratchDir dir;
    TraceBuilder b(1);
    const Ref r = b.region("work");
    b.enter(0, 50, r);
    b.leave(0, 500, r);
    b.clock_offset(0, 0, -100);
    b.set_clock_properties(0, 400);
    b.write(dir.path().string());
    try {
        read_trace(dir.path().string());
        FAIL() << "no error";
    } catch (const TraceError& e) {
        EXPECT_NE(std::string(e.what()).find("traces/0.evt: clock offset moves tick 50"),
                  std::string::npos)
            << e.what();
    }
}

} // namespace
} // namespace topolens::test
