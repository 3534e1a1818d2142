// Traces of other OTF2 producers in Score-P's layout: ids that are not dense or in order,
// several locations per process, compiler-instrumented regions, records the model does not
// distinguish, communicators whose records carry world ranks, no local definitions.
#include "raw_archive.h"
#include "test_util.h"

#include "trace/reader.h"

#include <gtest/gtest.h>

namespace topolens::test {
namespace {

using namespace topolens::trace;

constexpr uint64_t kThread = uint64_t(1) << 32; // Score-P: second thread of rank 0

void write_scorep_like(const std::filesystem::path& dir) {
    RawArchive raw;
    raw.global_definitions = [](OTF2_GlobalDefWriter* w) {
        OTF2_GlobalDefWriter_WriteClockProperties(w, 2'500'000'000, 1000, 50,
                                                  OTF2_UNDEFINED_TIMESTAMP);
        // Strings defined out of order, with gaps.
        const std::pair<OTF2_StringRef, const char*> strings[] = {
            {40, "split"},         {2, "node"},          {0, ""},
            {1, "machine Linux"},  {3, "hostX"},         {5, "MPI Rank 0"},
            {6, "MPI Rank 1"},     {7, "Master thread"}, {8, "Pthread 1"},
            {20, "main"},          {21, "MPI_Send"},     {22, "MPI_Recv"},
            {23, "MPI"},           {24, "main.c"},       {30, "MPI_COMM_WORLD"},
            {31, "MPI_COMM_SELF"}, {9, "machine"}};
        for (const auto& [ref, s] : strings) OTF2_GlobalDefWriter_WriteString(w, ref, s);
        OTF2_GlobalDefWriter_WriteSystemTreeNode(w, 0, 1, 9, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
        OTF2_GlobalDefWriter_WriteSystemTreeNode(w, 1, 3, 2, 0);
        OTF2_GlobalDefWriter_WriteLocationGroup(w, 1, 6, OTF2_LOCATION_GROUP_TYPE_PROCESS, 1,
                                                OTF2_UNDEFINED_LOCATION_GROUP);
        OTF2_GlobalDefWriter_WriteLocationGroup(w, 0, 5, OTF2_LOCATION_GROUP_TYPE_PROCESS, 1,
                                                OTF2_UNDEFINED_LOCATION_GROUP);
        OTF2_GlobalDefWriter_WriteLocation(w, kThread, 8, OTF2_LOCATION_TYPE_CPU_THREAD, 2, 0);
        OTF2_GlobalDefWriter_WriteLocation(w, 1, 7, OTF2_LOCATION_TYPE_CPU_THREAD, 4, 1);
        OTF2_GlobalDefWriter_WriteLocation(w, 0, 7, OTF2_LOCATION_TYPE_CPU_THREAD, 6, 0);
        OTF2_GlobalDefWriter_WriteRegion(w, 10, 20, 20, 0, OTF2_REGION_ROLE_FUNCTION,
                                         OTF2_PARADIGM_COMPILER, OTF2_REGION_FLAG_NONE, 24, 3, 9);
        OTF2_GlobalDefWriter_WriteRegion(w, 11, 21, 21, 0, OTF2_REGION_ROLE_POINT2POINT,
                                         OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, 23, 0, 0);
        OTF2_GlobalDefWriter_WriteRegion(w, 12, 22, 22, 0, OTF2_REGION_ROLE_POINT2POINT,
                                         OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, 23, 0, 0);
        const uint64_t locations[] = {0, 1}, world[] = {0, 1}, second[] = {1};
        OTF2_GlobalDefWriter_WriteGroup(w, 0, 0, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                        OTF2_GROUP_FLAG_NONE, 2, locations);
        OTF2_GlobalDefWriter_WriteGroup(w, 1, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                        OTF2_GROUP_FLAG_NONE, 2, world);
        OTF2_GlobalDefWriter_WriteGroup(w, 2, 0, OTF2_GROUP_TYPE_COMM_SELF, OTF2_PARADIGM_MPI,
                                        OTF2_GROUP_FLAG_NONE, 0, nullptr);
        OTF2_GlobalDefWriter_WriteGroup(w, 3, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                        OTF2_GROUP_FLAG_GLOBAL_MEMBERS, 1, second);
        OTF2_GlobalDefWriter_WriteComm(w, 0, 30, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
        OTF2_GlobalDefWriter_WriteComm(w, 1, 31, 2, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
        OTF2_GlobalDefWriter_WriteComm(w, 5, 40, 3, 0, OTF2_COMM_FLAG_NONE);
    };
    raw.events[0] = [](OTF2_EvtWriter* w) {
        OTF2_EvtWriter_Enter(w, nullptr, 1000, 10);
        OTF2_EvtWriter_Enter(w, nullptr, 1010, 11);
        OTF2_EvtWriter_MpiSend(w, nullptr, 1010, 1, 0, 3, 4);
        OTF2_EvtWriter_Leave(w, nullptr, 1020, 11);
        OTF2_EvtWriter_MeasurementOnOff(w, nullptr, 1030, OTF2_MEASUREMENT_OFF);
        OTF2_EvtWriter_Leave(w, nullptr, 1040, 10);
    };
    raw.events[1] = [](OTF2_EvtWriter* w) {
        OTF2_EvtWriter_Enter(w, nullptr, 1005, 12);
        OTF2_EvtWriter_MpiRecv(w, nullptr, 1030, 0, 0, 3, 4);
        OTF2_EvtWriter_Leave(w, nullptr, 1030, 12);
        // Communicator "split" has GLOBAL_MEMBERS: the record names world rank 1.
        OTF2_EvtWriter_MpiSend(w, nullptr, 1035, 1, 5, 0, 0);
    };
    raw.events[kThread] = [](OTF2_EvtWriter* w) {
        OTF2_EvtWriter_Enter(w, nullptr, 1002, 10);
        OTF2_EvtWriter_Leave(w, nullptr, 1050, 10);
    };
    raw.write(dir);
}

TEST(ForeignTrace, ScorePLayoutReadsIntoTheModel) {
    ScratchDir dir;
    write_scorep_like(dir / "scorep");
    const Trace t = read_trace((dir / "scorep").string());

    EXPECT_EQ(t.defs.timer_resolution, 2'500'000'000u);
    EXPECT_EQ(t.defs.global_offset, 1000u);
    EXPECT_EQ(t.defs.trace_length, 50u);
    // Strings dense in id order: "", machine Linux, node, hostX, MPI Rank 0, ...
    ASSERT_EQ(t.defs.strings.size(), 17u);
    EXPECT_EQ(t.defs.strings[0], "");
    EXPECT_EQ(t.defs.strings[3], "hostX");
    EXPECT_EQ(t.defs.strings[16], "split");

    // Locations by rank, then id: rank 0's threads first.
    ASSERT_EQ(t.defs.locations.size(), 3u);
    EXPECT_EQ(t.defs.locations[0].otf2_id, 0u);
    EXPECT_EQ(t.defs.locations[0].rank, 0u);
    EXPECT_EQ(t.defs.locations[1].otf2_id, kThread);
    EXPECT_EQ(t.defs.locations[1].rank, 0u);
    EXPECT_EQ(t.defs.locations[1].name, "Pthread 1");
    EXPECT_EQ(t.defs.locations[2].otf2_id, 1u);
    EXPECT_EQ(t.defs.locations[2].rank, 1u);
    for (const Location& l : t.defs.locations) EXPECT_EQ(l.host, "hostX");

    ASSERT_EQ(t.defs.regions.size(), 3u);
    EXPECT_EQ(t.defs.regions[0].name, "main");
    EXPECT_EQ(t.defs.regions[0].paradigm, Paradigm::User); // COMPILER is user code
    EXPECT_EQ(t.defs.regions[0].source_file, "main.c");
    EXPECT_FALSE(t.defs.regions[0].is_mpi());
    EXPECT_TRUE(t.defs.regions[1].is_mpi());
    EXPECT_EQ(t.defs.regions[1].role, RegionRole::PointToPoint);

    ASSERT_EQ(t.defs.communicators.size(), 3u);
    EXPECT_EQ(t.defs.communicators[0].members, (std::vector<uint32_t>{0, 1}));
    EXPECT_TRUE(t.defs.communicators[1].is_self);
    EXPECT_EQ(t.defs.communicators[2].name, "split");
    EXPECT_EQ(t.defs.communicators[2].members, (std::vector<uint32_t>{1}));
    EXPECT_EQ(t.defs.communicators[2].parent, 0u);

    const auto& r0 = t.locations[0].events;
    ASSERT_EQ(r0.size(), 6u);
    EXPECT_EQ(r0[0].kind, EventKind::Enter);
    EXPECT_EQ(r0[0].region(), 0u); // region id 10 -> index 0
    EXPECT_EQ(r0[2].kind, EventKind::MpiSend);
    EXPECT_EQ(r0[2].peer(), 1u);
    EXPECT_EQ(r0[4].kind, EventKind::Other);
    EXPECT_EQ(r0[4].time, 1030u);
    ASSERT_EQ(t.locations[1].events.size(), 2u);
    EXPECT_EQ(t.locations[1].events[1].time, 1050u);
    const auto& r1 = t.locations[2].events;
    ASSERT_EQ(r1.size(), 4u);
    EXPECT_EQ(r1[1].kind, EventKind::MpiRecv);
    EXPECT_EQ(r1[1].peer(), 0u);
    EXPECT_EQ(r1[3].kind, EventKind::MpiSend);
    EXPECT_EQ(r1[3].comm(), 2u); // comm id 5 -> index 2
    EXPECT_EQ(r1[3].peer(), 0u); // world rank 1 is rank 0 of "split"
}

} // namespace
} // namespace topolens::test
