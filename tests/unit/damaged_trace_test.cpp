// Missing, damaged and inconsistent traces: always a TraceError naming file and problem,
// never a crash.
#include "raw_archive.h"
#include "sample_trace.h"
#include "test_util.h"
#include "trace_read_error.h"

#include "trace/reader.h"

#include <gtest/gtest.h>

#include <random>

namespace topolens::test {
namespace {

namespace fs = std::filesystem;
using namespace topolens::trace;

fs::path write_sample(const ScratchDir& dir, int repeat = 1) {
    TraceBuilder b = sample_trace();
    const Ref work = b.region("work");
    // More events make truncation points fall inside records and chunks.
    for (int i = 0; i < repeat; ++i)
        for (uint32_t r = 0; r < 4; ++r) {
            b.enter(r, 2000 + 10 * i, work);
            b.leave(r, 2005 + 10 * i, work);
        }
    b.write((dir / "t").string());
    return dir / "t";
}

TEST(DamagedTrace, MissingPath) {
    const std::string e = read_error("/nonexistent/topolens/trace");
    EXPECT_EQ(e, "/nonexistent/topolens/trace: no such file or directory");
}

TEST(DamagedTrace, EmptyDirectory) {
    ScratchDir dir;
    EXPECT_CONTAINS(read_error(dir.path()), dir.path().string() + ": not an OTF2 archive");
}

TEST(DamagedTrace, SeveralAnchorsNeedAChoice) {
    ScratchDir dir;
    write_file(dir / "a.otf2", "x");
    write_file(dir / "b.otf2", "y");
    EXPECT_CONTAINS(read_error(dir.path()), "several OTF2 anchor files");
}

TEST(DamagedTrace, GarbageAnchor) {
    ScratchDir dir;
    write_file(dir / "traces.otf2", "this is not an anchor file\n");
    EXPECT_CONTAINS(read_error(dir.path()),
                    (dir / "traces.otf2").string() + ": not a readable OTF2 anchor file");
    write_file(dir / "traces.otf2", "");
    EXPECT_CONTAINS(read_error(dir.path()), "not a readable OTF2 anchor file");
}

TEST(DamagedTrace, MissingGlobalDefinitions) {
    ScratchDir dir;
    const fs::path t = write_sample(dir);
    fs::remove(t / "traces.def");
    EXPECT_EQ(read_error(t), (t / "traces.def").string() + ": global definitions file is missing");
}

TEST(DamagedTrace, GarbageAndTruncatedGlobalDefinitions) {
    ScratchDir dir;
    const fs::path t = write_sample(dir);
    const std::string good = read_file(t / "traces.def");
    write_file(t / "traces.def", std::string(4096, '\x5a'));
    EXPECT_CONTAINS(read_error(t), (t / "traces.def").string() + ":");
    // (The last byte only ends the chunk: without it nothing is lost.)
    for (std::size_t size : {std::size_t(0), std::size_t(1), good.size() / 2, good.size() - 2}) {
        write_file(t / "traces.def", good.substr(0, size));
        const std::string e = read_error(t);
        EXPECT_CONTAINS(e, (t / "traces.def").string() + ":") << "size " << size;
    }
}

TEST(DamagedTrace, TruncatedEventFile) {
    ScratchDir dir;
    const fs::path t = write_sample(dir, 500);
    const fs::path evt = t / "traces" / "1.evt";
    const std::string good = read_file(evt);
    ASSERT_GT(good.size(), 1000u);
    for (std::size_t size : {std::size_t(0), std::size_t(1), std::size_t(17), good.size() / 3,
                             good.size() / 2, good.size() - 2}) {
        write_file(evt, good.substr(0, size));
        const std::string e = read_error(t);
        EXPECT_CONTAINS(e, evt.string() + ":") << "size " << size;
    }
}

TEST(DamagedTrace, MissingEventFile) {
    ScratchDir dir;
    const fs::path t = write_sample(dir);
    fs::remove(t / "traces" / "2.evt");
    EXPECT_EQ(read_error(t), (t / "traces" / "2.evt").string() + ": event file is missing");
}

TEST(DamagedTrace, MissingLocationDirectory) {
    ScratchDir dir;
    const fs::path t = write_sample(dir);
    fs::remove_all(t / "traces");
    EXPECT_EQ(read_error(t), (t / "traces" / "0.evt").string() + ": event file is missing");
}

TEST(DamagedTrace, DamagedLocalDefinitions) {
    ScratchDir dir;
    const fs::path t = write_sample(dir);
    write_file(t / "traces" / "0.def", std::string(300, '\x07'));
    EXPECT_CONTAINS(read_error(t), (t / "traces" / "0.def").string() + ":");
}

// Without its local definitions a location's mapping tables are gone: its events then
// name ids that either do not exist or mean something else. Both are accepted by OTF2;
// what matters here is that nothing crashes and a missing file is no error in itself.
TEST(DamagedTrace, MissingLocalDefinitionsAreOptional) {
    ScratchDir dir;
    TraceBuilder b = sample_trace();
    WriteOptions global_ids;
    global_ids.local_ids = false;
    b.write((dir / "t").string(), global_ids);
    fs::remove(dir / "t" / "traces" / "0.def");
    const Trace trace = read_trace((dir / "t").string());
    EXPECT_TRUE(trace.defs.locations[0].clock_offsets.empty());
    EXPECT_EQ(trace.defs.locations[1].clock_offsets.size(), 2u);
    EXPECT_EQ(trace.locations[0].events.size(), b.trace().locations[0].events.size());
}

// ---- inconsistent references, written with OTF2's own writer

fs::path write_raw(const ScratchDir& dir, std::function<void(OTF2_GlobalDefWriter*)> extra_defs,
                   std::function<void(OTF2_EvtWriter*)> rank1_events, uint64_t events = 1) {
    RawArchive raw;
    raw.global_definitions = [&](OTF2_GlobalDefWriter* w) {
        write_minimal_definitions(w, 2, events);
        OTF2_GlobalDefWriter_WriteString(w, 7, "work");
        OTF2_GlobalDefWriter_WriteRegion(w, 0, 7, 7, OTF2_UNDEFINED_STRING,
                                         OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER,
                                         OTF2_REGION_FLAG_NONE, OTF2_UNDEFINED_STRING, 0, 0);
        if (extra_defs) extra_defs(w);
    };
    raw.events[0] = [events](OTF2_EvtWriter* w) {
        for (uint64_t i = 0; i < events; ++i) OTF2_EvtWriter_Enter(w, nullptr, 5, 0);
    };
    raw.events[1] = rank1_events;
    raw.write(dir / "raw");
    return dir / "raw";
}

TEST(DamagedTrace, EventWithUndefinedRegion) {
    ScratchDir dir;
    const fs::path t = write_raw(dir, nullptr, [](OTF2_EvtWriter* w) {
        OTF2_EvtWriter_Enter(w, nullptr, 10, 0);
        OTF2_EvtWriter_Enter(w, nullptr, 20, 5);
    });
    EXPECT_EQ(read_error(t), (t / "traces" / "1.evt").string() +
                                 ": record 2 (Enter at tick 20) refers to undefined region 5");
}

TEST(DamagedTrace, EventWithUndefinedCommunicator) {
    ScratchDir dir;
    const fs::path t = write_raw(dir, nullptr, [](OTF2_EvtWriter* w) {
        OTF2_EvtWriter_MpiSend(w, nullptr, 10, 0, 3, 1, 8);
    });
    EXPECT_CONTAINS(read_error(t),
                    "1.evt: record 1 (MpiSend at tick 10) refers to undefined communicator 3");
}

TEST(DamagedTrace, PeerOutsideItsCommunicator) {
    ScratchDir dir;
    const fs::path t = write_raw(dir, nullptr, [](OTF2_EvtWriter* w) {
        OTF2_EvtWriter_MpiRecv(w, nullptr, 10, 7, 0, 1, 8);
    });
    EXPECT_CONTAINS(read_error(t), "names rank 7 of communicator MPI_COMM_WORLD of size 2");
}

TEST(DamagedTrace, CollectiveRootOutsideItsCommunicator) {
    ScratchDir dir;
    const fs::path t = write_raw(dir, nullptr, [](OTF2_EvtWriter* w) {
        OTF2_EvtWriter_MpiCollectiveEnd(w, nullptr, 10, OTF2_COLLECTIVE_OP_BCAST, 0, 2, 0, 0);
    });
    EXPECT_CONTAINS(read_error(t), "MpiCollectiveEnd at tick 10) names rank 2");
}

TEST(DamagedTrace, EventWithUndefinedParameterOrString) {
    ScratchDir dir;
    const fs::path t = write_raw(
        dir, nullptr, [](OTF2_EvtWriter* w) { OTF2_EvtWriter_ParameterInt(w, nullptr, 10, 4, 1); });
    EXPECT_CONTAINS(read_error(t), "refers to undefined parameter 4");
    ScratchDir dir2;
    const fs::path t2 = write_raw(
        dir2,
        [](OTF2_GlobalDefWriter* w) {
            OTF2_GlobalDefWriter_WriteParameter(w, 0, 7, OTF2_PARAMETER_TYPE_STRING);
        },
        [](OTF2_EvtWriter* w) { OTF2_EvtWriter_ParameterString(w, nullptr, 10, 0, 99); });
    EXPECT_CONTAINS(read_error(t2), "refers to undefined string 99");
}

TEST(DamagedTrace, DefinitionWithUndefinedString) {
    ScratchDir dir;
    const fs::path t = write_raw(
        dir,
        [](OTF2_GlobalDefWriter* w) {
            OTF2_GlobalDefWriter_WriteRegion(w, 1, 42, 7, OTF2_UNDEFINED_STRING,
                                             OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER,
                                             OTF2_REGION_FLAG_NONE, OTF2_UNDEFINED_STRING, 0, 0);
        },
        [](OTF2_EvtWriter*) {});
    EXPECT_EQ(read_error(t),
              (t / "traces.def").string() + ": region 1 refers to undefined string 42");
}

TEST(DamagedTrace, CommunicatorWithUndefinedGroupOrParent) {
    ScratchDir dir;
    const fs::path t = write_raw(
        dir,
        [](OTF2_GlobalDefWriter* w) {
            OTF2_GlobalDefWriter_WriteComm(w, 1, 6, 9, 0, OTF2_COMM_FLAG_NONE);
        },
        [](OTF2_EvtWriter*) {});
    EXPECT_CONTAINS(read_error(t), "traces.def: communicator 1 uses undefined group 9");
    ScratchDir dir2;
    const fs::path t2 = write_raw(
        dir2,
        [](OTF2_GlobalDefWriter* w) {
            OTF2_GlobalDefWriter_WriteComm(w, 1, 6, 1, 8, OTF2_COMM_FLAG_NONE);
        },
        [](OTF2_EvtWriter*) {});
    EXPECT_CONTAINS(read_error(t2), "communicator 1 has undefined parent 8");
}

TEST(DamagedTrace, CommGroupRankOutsideCommLocations) {
    ScratchDir dir;
    const fs::path t = write_raw(
        dir,
        [](OTF2_GlobalDefWriter* w) {
            const uint64_t members[] = {1, 5};
            OTF2_GlobalDefWriter_WriteGroup(w, 2, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                            OTF2_GROUP_FLAG_NONE, 2, members);
            OTF2_GlobalDefWriter_WriteComm(w, 1, 6, 2, 0, OTF2_COMM_FLAG_NONE);
        },
        [](OTF2_EvtWriter*) {});
    EXPECT_CONTAINS(read_error(t), "group 2 lists rank 5 of 2 in COMM_LOCATIONS");
}

TEST(DamagedTrace, CartCoordinateOutsideItsGrid) {
    ScratchDir dir;
    const fs::path t = write_raw(
        dir,
        [](OTF2_GlobalDefWriter* w) {
            OTF2_GlobalDefWriter_WriteCartDimension(w, 0, 6, 2, OTF2_CART_PERIODIC_FALSE);
            const OTF2_CartDimensionRef dims[] = {0};
            OTF2_GlobalDefWriter_WriteCartTopology(w, 0, 6, 0, 1, dims);
            const uint32_t coords[] = {2};
            OTF2_GlobalDefWriter_WriteCartCoordinate(w, 0, 1, 1, coords);
        },
        [](OTF2_EvtWriter*) {});
    EXPECT_CONTAINS(read_error(t), "cart coordinate of rank 1 in topology MPI_COMM_WORLD lies "
                                   "outside dimension 0 (size 2)");
}

TEST(DamagedTrace, CartCoordinateOfARankOutsideItsCommunicator) {
    ScratchDir dir;
    const fs::path t = write_raw(
        dir,
        [](OTF2_GlobalDefWriter* w) {
            OTF2_GlobalDefWriter_WriteCartDimension(w, 0, 6, 4, OTF2_CART_PERIODIC_FALSE);
            const OTF2_CartDimensionRef dims[] = {0};
            OTF2_GlobalDefWriter_WriteCartTopology(w, 0, 6, OTF2_UNDEFINED_COMM, 1, dims);
            const uint32_t coords[] = {3};
            OTF2_GlobalDefWriter_WriteCartCoordinate(w, 0, 4000000000u, 1, coords);
        },
        [](OTF2_EvtWriter*) {});
    EXPECT_CONTAINS(read_error(t), "cart coordinate of rank 4000000000 in topology MPI_COMM_WORLD "
                                   "is outside its communicator of size 2");
}

TEST(DamagedTrace, DefinitionDefinedTwice) {
    ScratchDir dir;
    const fs::path t = write_raw(
        dir, [](OTF2_GlobalDefWriter* w) { OTF2_GlobalDefWriter_WriteString(w, 7, "again"); },
        [](OTF2_EvtWriter*) {});
    EXPECT_EQ(read_error(t), (t / "traces.def").string() + ": defines string 7 twice");
}

TEST(DamagedTrace, FewerEventsThanDeclared) {
    ScratchDir dir;
    const fs::path t = write_raw(
        dir, nullptr, [](OTF2_EvtWriter* w) { OTF2_EvtWriter_Enter(w, nullptr, 10, 0); }, 5);
    EXPECT_EQ(read_error(t), (t / "traces" / "1.evt").string() + ": truncated: 1 of 5 events");
}

// Random damage anywhere: reading either succeeds or ends in a TraceError.
TEST(DamagedTrace, RandomByteDamageNeverCrashes) {
    ScratchDir dir;
    const fs::path t = write_sample(dir, 50);
    std::mt19937 random(20240611);
    // Some anchor damage makes OTF2 itself spend seconds (huge chunk sizes): fewer rounds.
    const std::pair<fs::path, int> targets[] = {{t / "traces.otf2", 12},
                                                {t / "traces.def", 40},
                                                {t / "traces" / "0.def", 40},
                                                {t / "traces" / "3.evt", 40}};
    for (const auto& [file, rounds] : targets) {
        const std::string good = read_file(file);
        for (int round = 0; round < rounds; ++round) {
            std::string bad = good;
            const int flips = 1 + round % 8;
            for (int f = 0; f < flips; ++f)
                bad[random() % bad.size()] = static_cast<char>(random() & 0xff);
            write_file(file, bad);
            try {
                read_trace(t.string());
            } catch (const TraceError&) {
            }
        }
        write_file(file, good);
    }
    EXPECT_NO_THROW(read_trace(t.string()));
}

} // namespace
} // namespace topolens::test
