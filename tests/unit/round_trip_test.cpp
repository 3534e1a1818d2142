// Builder -> OTF2 archive -> reader: everything comes back exactly, with and without
// per-location local ids (mapping tables), and other OTF2 tools can read the archive.
#include "sample_trace.h"
#include "test_util.h"

#include "test_paths.h"
#include "trace/names.h"
#include "trace/reader.h"

#include <gtest/gtest.h>

#include <limits>

namespace topolens::test {
namespace {

using namespace topolens::trace;

// region(), comm() and tag() read the three slots the kinds share.
std::string describe(const Event& e) {
    return std::string(event_kind_name(e.kind)) + " t=" + std::to_string(e.time) +
           " a=" + std::to_string(e.region()) + " b=" + std::to_string(e.comm()) +
           " c=" + std::to_string(e.tag()) + " bytes=" + std::to_string(e.bytes);
}

void expect_same_events(const LocationEvents& got, const LocationEvents& want, std::size_t loc) {
    ASSERT_EQ(got.events.size(), want.events.size()) << "location " << loc;
    for (std::size_t i = 0; i < want.events.size(); ++i)
        EXPECT_EQ(describe(got.events[i]), describe(want.events[i]))
            << "location " << loc << " event " << i;
    ASSERT_EQ(got.requests.size(), want.requests.size()) << "location " << loc;
    for (std::size_t i = 0; i < want.requests.size(); ++i) {
        EXPECT_EQ(got.requests[i].event, want.requests[i].event) << "location " << loc;
        EXPECT_EQ(got.requests[i].request, want.requests[i].request) << "location " << loc;
    }
}

class RoundTrip : public ::testing::TestWithParam<bool> {};

TEST_P(RoundTrip, EverythingComesBackExactly) {
    ScratchDir dir;
    TraceBuilder b = sample_trace();
    WriteOptions options;
    options.local_ids = GetParam();
    const std::string anchor = b.write((dir / "archive").string(), options);
    EXPECT_EQ(anchor, (dir / "archive" / "traces.otf2").string());
    const Trace& want = b.trace();
    const Trace got = read_trace((dir / "archive").string());

    EXPECT_EQ(got.path, anchor);
    EXPECT_EQ(got.defs.creator, "topolens trace builder");
    EXPECT_EQ(got.defs.timer_resolution, 1'000'000'000u);
    EXPECT_EQ(got.defs.global_offset, 0u);   // earliest event: MPI_Init enter at 0
    EXPECT_EQ(got.defs.trace_length, 1003u); // latest: rank 3 leaves MPI_Finalize at 1003

    ASSERT_EQ(got.defs.locations.size(), 4u);
    for (std::size_t l = 0; l < 4; ++l) {
        const Location& g = got.defs.locations[l];
        const Location& w = want.defs.locations[l];
        EXPECT_EQ(g.name, "Master thread");
        EXPECT_EQ(g.rank, l);
        EXPECT_EQ(g.otf2_id, l);
        EXPECT_EQ(g.host, l < 2 ? "nodeA" : "nodeB");
        ASSERT_EQ(g.clock_offsets.size(), 2u);
        for (std::size_t i = 0; i < 2; ++i) {
            EXPECT_EQ(g.clock_offsets[i].time, w.clock_offsets[i].time);
            EXPECT_EQ(g.clock_offsets[i].offset, w.clock_offsets[i].offset);
            EXPECT_EQ(g.clock_offsets[i].stddev, 0.5);
        }
    }

    ASSERT_EQ(got.defs.regions.size(), want.defs.regions.size());
    for (std::size_t r = 0; r < want.defs.regions.size(); ++r) {
        const Region& g = got.defs.regions[r];
        const Region& w = want.defs.regions[r];
        EXPECT_EQ(g.name, w.name);
        EXPECT_EQ(g.canonical_name, w.canonical_name);
        EXPECT_EQ(g.description, w.description);
        EXPECT_EQ(g.source_file, w.source_file);
        EXPECT_EQ(g.paradigm, w.paradigm) << g.name;
        EXPECT_EQ(g.role, w.role) << g.name;
        EXPECT_EQ(g.is_mpi(), g.name.rfind("MPI_", 0) == 0) << g.name;
    }

    ASSERT_EQ(got.defs.communicators.size(), 3u);
    EXPECT_EQ(got.defs.communicators[0].name, "MPI_COMM_WORLD");
    EXPECT_EQ(got.defs.communicators[0].members, (std::vector<uint32_t>{0, 1, 2, 3}));
    EXPECT_EQ(got.defs.communicators[0].parent, kNone);
    EXPECT_EQ(got.defs.communicators[1].name, "MPI_COMM_SELF");
    EXPECT_TRUE(got.defs.communicators[1].is_self);
    EXPECT_TRUE(got.defs.communicators[1].members.empty());
    EXPECT_EQ(got.defs.communicators[2].name, "pair");
    EXPECT_EQ(got.defs.communicators[2].members, (std::vector<uint32_t>{3, 1}));
    EXPECT_EQ(got.defs.communicators[2].parent, 0u);
    EXPECT_FALSE(got.defs.communicators[2].is_self);

    ASSERT_EQ(got.defs.topologies.size(), 2u);
    const CartTopology& grid = got.defs.topologies[0];
    EXPECT_EQ(grid.name, "grid");
    EXPECT_EQ(grid.communicator, 0u);
    ASSERT_EQ(grid.dims.size(), 2u);
    EXPECT_EQ(grid.dims[0].name, "grid dim 0");
    EXPECT_EQ(grid.dims[0].size, 2u);
    EXPECT_TRUE(grid.dims[0].periodic);
    EXPECT_FALSE(grid.dims[1].periodic);
    EXPECT_EQ(grid.coords_by_rank,
              (std::vector<std::vector<uint32_t>>{{0, 0}, {1, 0}, {0, 1}, {1, 1}}));
    const CartTopology& line = got.defs.topologies[1];
    EXPECT_EQ(line.communicator, 2u);
    EXPECT_EQ(line.coords_by_rank, (std::vector<std::vector<uint32_t>>{{0}, {}}));

    ASSERT_EQ(got.defs.parameters.size(), want.defs.parameters.size());
    for (std::size_t p = 0; p < want.defs.parameters.size(); ++p) {
        EXPECT_EQ(got.defs.parameters[p].name, want.defs.parameters[p].name);
        EXPECT_EQ(got.defs.parameters[p].type, want.defs.parameters[p].type);
    }
    // The builder's strings keep their indices (ParameterString values refer to them).
    ASSERT_GE(got.defs.strings.size(), want.defs.strings.size());
    for (std::size_t s = 0; s < want.defs.strings.size(); ++s)
        EXPECT_EQ(got.defs.strings[s], want.defs.strings[s]);

    ASSERT_EQ(got.locations.size(), 4u);
    for (std::size_t l = 0; l < 4; ++l) expect_same_events(got.locations[l], want.locations[l], l);
}

INSTANTIATE_TEST_SUITE_P(LocalIds, RoundTrip, ::testing::Bool(), [](const auto& info) {
    return info.param ? "MappingTables" : "GlobalIds";
});

// Spot checks against literal values, so that a bug shared by builder and reader cannot hide.
TEST(RoundTrip, RecordsHaveTheirLiteralValues) {
    ScratchDir dir;
    TraceBuilder b = sample_trace();
    b.write(dir.path().string());
    const Trace t = read_trace(dir.path().string());
    auto region_name = [&](const Event& e) { return t.defs.regions.at(e.region()).name; };

    const auto& r0 = t.locations[0].events;
    auto send = std::find_if(r0.begin(), r0.end(),
                             [](const Event& e) { return e.kind == EventKind::MpiSend; });
    ASSERT_NE(send, r0.end());
    EXPECT_EQ(send->time, 300u);
    EXPECT_EQ(send->peer(), 1u);
    EXPECT_EQ(t.defs.communicators.at(send->comm()).name, "MPI_COMM_WORLD");
    EXPECT_EQ(send->tag(), 7u);
    EXPECT_EQ(send->bytes, 64u);
    EXPECT_EQ(region_name(*(send - 1)), "MPI_Send");
    EXPECT_EQ((send - 1)->kind, EventKind::Enter);

    auto param_string = std::find_if(r0.begin(), r0.end(), [&](const Event& e) {
        return e.kind == EventKind::ParameterString && e.time == 220;
    });
    ASSERT_NE(param_string, r0.end());
    EXPECT_EQ(t.defs.parameters.at(param_string->parameter()).name, "mode");
    EXPECT_EQ(t.defs.strings.at(param_string->string()), "fast");

    const auto& r1 = t.locations[1];
    auto uparam = std::find_if(r1.events.begin(), r1.events.end(), [&](const Event& e) {
        return e.kind == EventKind::ParameterInt &&
               t.defs.parameters[e.parameter()].name == "bytes";
    });
    ASSERT_NE(uparam, r1.events.end());
    EXPECT_EQ(static_cast<uint64_t>(uparam->value), std::numeric_limits<uint64_t>::max());
    auto bcast_end = std::find_if(r1.events.begin(), r1.events.end(), [](const Event& e) {
        return e.kind == EventKind::MpiCollectiveEnd && e.op() == CollectiveOp::Bcast;
    });
    ASSERT_NE(bcast_end, r1.events.end());
    EXPECT_EQ(t.defs.communicators.at(bcast_end->comm()).name, "pair");
    EXPECT_EQ(bcast_end->root(), 1u);
    EXPECT_EQ(bcast_end->bytes, 16u);
    EXPECT_EQ(bcast_end->time, 799u);

    const auto& r2 = t.locations[2];
    ASSERT_EQ(r2.requests.size(), 3u); // Isend, IsendComplete, Allreduce's received bytes
    EXPECT_EQ(r2.requests[0].request, 0xDEADBEEF00000001ull);
    EXPECT_EQ(r2.events[r2.requests[0].event].kind, EventKind::MpiIsend);
    EXPECT_EQ(r2.events[r2.requests[1].event].kind, EventKind::MpiIsendComplete);
    EXPECT_EQ(r2.requests[1].request, 0xDEADBEEF00000001ull);
    auto flush = std::find_if(r2.events.begin(), r2.events.end(),
                              [](const Event& e) { return e.kind == EventKind::BufferFlush; });
    ASSERT_NE(flush, r2.events.end());
    EXPECT_EQ(flush->time, 810u);
    EXPECT_EQ(flush->value, 900);

    const auto& r3 = t.locations[3];
    auto irecv = std::find_if(r3.events.begin(), r3.events.end(),
                              [](const Event& e) { return e.kind == EventKind::MpiIrecv; });
    ASSERT_NE(irecv, r3.events.end());
    EXPECT_EQ(irecv->time, 520u);
    EXPECT_EQ(irecv->peer(), 2u);
    EXPECT_EQ(irecv->tag(), 9u);
    EXPECT_EQ(irecv->bytes, 128u);
}

TEST(RoundTrip, AnchorFileAndDirectoryReadTheSame) {
    ScratchDir dir;
    TraceBuilder b = sample_trace();
    const std::string anchor = b.write(dir.path().string());
    const Trace by_dir = read_trace(dir.path().string());
    const Trace by_anchor = read_trace(anchor);
    EXPECT_EQ(by_dir.path, by_anchor.path);
    ASSERT_EQ(by_dir.locations.size(), by_anchor.locations.size());
    for (std::size_t l = 0; l < by_dir.locations.size(); ++l)
        expect_same_events(by_anchor.locations[l], by_dir.locations[l], l);
}

TEST(RoundTrip, WritingAgainReplacesTheOldArchive) {
    ScratchDir dir;
    TraceBuilder big = sample_trace();
    big.write(dir.path().string());
    TraceBuilder small(1);
    small.mpi_init(0, 5, 6);
    small.write(dir.path().string());
    const Trace t = read_trace(dir.path().string());
    ASSERT_EQ(t.locations.size(), 1u);
    EXPECT_EQ(t.locations[0].events.size(), 2u);
    EXPECT_FALSE(std::filesystem::exists(dir / "traces" / "3.evt"));
}

TEST(RoundTrip, RefusesToReplaceSomethingElse) {
    ScratchDir dir;
    write_file(dir / "notes.txt", "keep me");
    TraceBuilder b(1);
    try {
        b.write(dir.path().string());
        FAIL() << "wrote over a directory that is not an archive";
    } catch (const TraceError& e) {
        EXPECT_NE(std::string(e.what()).find("refusing to replace"), std::string::npos) << e.what();
    }
    EXPECT_EQ(read_file(dir / "notes.txt"), "keep me");
}

// OTF2's own tool reads the archive and shows our MPI records and definitions.
TEST(RoundTrip, Otf2PrintReadsTheArchive) {
    const std::string otf2_print = topolens::test::otf2_print();
    if (otf2_print.empty() || otf2_print.find("NOTFOUND") != std::string::npos)
        GTEST_SKIP() << "otf2-print not installed";
    ScratchDir dir;
    TraceBuilder b = sample_trace();
    const std::string anchor = b.write(dir.path().string());
    const CommandResult events = run_command({otf2_print, anchor});
    ASSERT_EQ(events.exit_code, 0) << events.err;
    for (const char* record :
         {"MPI_SEND", "MPI_RECV", "MPI_ISEND", "MPI_IRECV", "MPI_COLLECTIVE_END",
          "PARAMETER_STRING", "BUFFER_FLUSH", "\"MPI_Send\""})
        EXPECT_NE(events.out.find(record), std::string::npos) << record;
    const CommandResult defs = run_command({otf2_print, "-G", anchor});
    ASSERT_EQ(defs.exit_code, 0) << defs.err;
    for (const char* def : {"CART_TOPOLOGY", "CART_COORDINATE", "COMM_LOCATIONS", "\"pair\"",
                            "\"topolens.tuned:halo3d\""})
        EXPECT_NE(defs.out.find(def), std::string::npos) << def;
}

} // namespace
} // namespace topolens::test
