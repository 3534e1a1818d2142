// A run that died before MPI_Finalize: the per-rank records (measure/death_record.h), their
// offline completion (measure/complete.h), and the reading of the cut-short trace
// (trace/cut.h, trace/reader.h), on hand-made event files with exact expectations.
#include "complete.h"
#include "death_record.h"

#include "test_paths.h"
#include "test_util.h"
#include "trace/cut.h"
#include "trace/reader.h"

#include <gtest/gtest.h>
#include <otf2/otf2.h>

#include <filesystem>
#include <unistd.h>

using namespace topolens::measure;
namespace trace = topolens::trace;
namespace fs = std::filesystem;
using topolens::test::ScratchDir;

namespace {

constexpr uint64_t kSecond = 1000000000ULL;

RegionDefinition mpi_region(const char* name) {
    RegionDefinition region;
    region.name = name;
    region.canonical_name = name;
    region.source_file = "MPI";
    region.paradigm = OTF2_PARADIGM_MPI;
    return region;
}

OTF2_FlushType flush(void*, OTF2_FileType, OTF2_LocationRef, void*, bool) {
    return OTF2_FLUSH;
}
const OTF2_FlushCallbacks kFlush = {flush, nullptr};

// Event files as the ranks of a dying run leave them: written with local ids (regions 0
// MPI_Init, 1 MPI_Send on rank 0 and MPI_Abort on rank 1; communicator 0 = world), nothing
// else. OTF2 writes a whole archive; all but the event files is removed.
void write_event_files(const fs::path& dir) {
    const fs::path scratch = dir / "scratch";
    OTF2_Archive* a =
        OTF2_Archive_Open(scratch.c_str(), "traces", OTF2_FILEMODE_WRITE, 1024 * 1024,
                          4 * 1024 * 1024, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    ASSERT_NE(a, nullptr);
    OTF2_Archive_SetFlushCallbacks(a, &kFlush, nullptr);
    OTF2_Archive_SetSerialCollectiveCallbacks(a);
    OTF2_Archive_OpenEvtFiles(a);
    OTF2_EvtWriter* r0 = OTF2_Archive_GetEvtWriter(a, 0);
    OTF2_EvtWriter_Enter(r0, nullptr, 1 * kSecond, 0);
    OTF2_EvtWriter_Leave(r0, nullptr, 1 * kSecond + 100, 0);
    OTF2_EvtWriter_Enter(r0, nullptr, kSecond + kSecond / 5, 1);
    OTF2_EvtWriter_MpiSend(r0, nullptr, kSecond + kSecond / 5 + 10, 1, 0, 7, 8);
    OTF2_EvtWriter_Leave(r0, nullptr, kSecond + kSecond / 5 + 20, 1);
    OTF2_EvtWriter_Enter(r0, nullptr, kSecond + kSecond / 2, 1); // in MPI_Send at SIGTERM
    OTF2_Archive_CloseEvtWriter(a, r0);
    OTF2_EvtWriter* r1 = OTF2_Archive_GetEvtWriter(a, 1);
    OTF2_EvtWriter_Enter(r1, nullptr, 1 * kSecond, 0);
    OTF2_EvtWriter_Leave(r1, nullptr, 1 * kSecond + 50, 0);
    OTF2_EvtWriter_Enter(r1, nullptr, kSecond + kSecond / 4, 1); // MPI_Abort
    OTF2_Archive_CloseEvtWriter(a, r1);
    OTF2_Archive_CloseEvtFiles(a);
    OTF2_Archive_Close(a);
    fs::create_directories(dir / "traces");
    for (const char* file : {"0.evt", "1.evt"})
        fs::rename(scratch / "traces" / file, dir / "traces" / file);
    fs::remove_all(scratch);
}

DeathRecord record(uint32_t rank, const char* second_region, uint64_t events) {
    DeathRecord r;
    r.rank = rank;
    r.size = 3;
    r.event_chunk_size = 1024 * 1024; // as write_event_files
    r.clock = {{0, 0, 0.0}};
    r.contribution.host = "node-a";
    r.contribution.event_count = events;
    r.contribution.first_time = kSecond;
    r.contribution.last_time = kSecond + kSecond / 2;
    r.contribution.regions = {mpi_region("MPI_Init"), mpi_region(second_region)};
    r.contribution.comm_keys = {kWorldKey};
    return r;
}

// Rank 1 called MPI_Abort at 1.26 s, rank 0 was terminated at 1.55 s inside MPI_Send, and
// rank 2 left only the record written at MPI_Init (SIGKILL before any flush).
void make_dead_run(const fs::path& dir) {
    write_event_files(dir);
    DeathRecord r0 = record(0, "MPI_Send", 6);
    r0.died = true;
    r0.cause = "signal SIGTERM";
    r0.death_time = kSecond + kSecond * 55 / 100;
    DeathRecord r1 = record(1, "MPI_Abort", 3);
    r1.died = true;
    r1.cause = "MPI_Abort(errorcode 3)";
    r1.death_time = kSecond + kSecond * 26 / 100;
    DeathRecord r2 = record(2, "MPI_Send", 0);
    for (const DeathRecord& r : {r0, r1, r2}) ASSERT_TRUE(write_death_record(dir.string(), r));
}

} // namespace

TEST(CutShort, DeathRecordRoundTrip) {
    DeathRecord r = record(1, "MPI_Abort", 3);
    r.died = true;
    r.cause = "signal SIGSEGV";
    r.death_time = 42;
    r.event_chunk_size = 256 * 1024;
    r.clock = {{5, -7, 0.5}, {9, 3, 1.5}};
    const DeathRecord back = deserialize_death_record(serialize(r));
    EXPECT_EQ(back.rank, 1u);
    EXPECT_EQ(back.size, 3u);
    EXPECT_TRUE(back.died);
    EXPECT_EQ(back.cause, "signal SIGSEGV");
    EXPECT_EQ(back.death_time, 42u);
    EXPECT_EQ(back.event_chunk_size, 256u * 1024);
    ASSERT_EQ(back.clock.size(), 2u);
    EXPECT_EQ(back.clock[1].local_time, 9u);
    EXPECT_EQ(back.clock[0].offset, -7);
    EXPECT_EQ(back.clock[1].deviation, 1.5);
    EXPECT_EQ(back.contribution.event_count, 3u);
    ASSERT_EQ(back.contribution.regions.size(), 2u);
    EXPECT_EQ(back.contribution.regions[1].name, "MPI_Abort");

    std::vector<char> bytes = serialize(r);
    bytes.pop_back();
    EXPECT_THROW(deserialize_death_record(bytes), std::runtime_error);
    EXPECT_THROW(deserialize_death_record(std::vector<char>(10, 'x')), std::runtime_error);
}

TEST(CutShort, CompletionWritesDefinitionsAndMarker) {
    ScratchDir dir;
    make_dead_run(dir.path());
    EXPECT_TRUE(needs_completion(dir.path().string()));
    const Completion done = complete_trace(dir.path().string());
    EXPECT_EQ(done.summary, std::string("rank 0: signal SIGTERM; rank 1: MPI_Abort(errorcode 3); "
                                        "rank 2: ") +
                                kSilentCause);
    EXPECT_FALSE(needs_completion(dir.path().string()));
    EXPECT_TRUE(fs::exists(dir / "traces.otf2"));
    EXPECT_TRUE(fs::exists(dir / "traces/1.def"));
    for (const char* gone : {"rank-0.defs", "rank-1.defs", "rank-2.defs", ".topolens-complete"})
        EXPECT_FALSE(fs::exists(dir / gone)) << gone;
    EXPECT_EQ(topolens::test::read_file(dir / "cut.txt"),
              std::string("# topolens: the run was cut short; written by topolens-complete.\n"
                          "# rank<TAB>events written<TAB>time of death (ns, global clock; - if "
                          "unknown)<TAB>cause\n"
                          "0\t6\t1550000000\tsignal SIGTERM\n"
                          "1\t3\t1260000000\tMPI_Abort(errorcode 3)\n"
                          "2\t0\t-\t") +
                  kSilentCause + "\n");
    // A second completion is refused: the anchor is there.
    EXPECT_THROW(complete_trace(dir.path().string()), std::runtime_error);
}

TEST(CutShort, ReaderReadsEachRankUpToItsEnd) {
    ScratchDir dir;
    make_dead_run(dir.path());
    complete_trace(dir.path().string());
    const trace::Trace t = trace::read_trace(dir.path().string());
    ASSERT_EQ(t.defs.locations.size(), 3u);
    ASSERT_EQ(t.locations.size(), 3u);
    EXPECT_EQ(t.locations[0].events.size(), 6u);
    EXPECT_EQ(t.locations[1].events.size(), 3u);
    EXPECT_EQ(t.locations[2].events.size(), 0u);
    EXPECT_EQ(t.defs.regions[t.locations[1].events[2].region()].name, "MPI_Abort");
    EXPECT_EQ(t.defs.regions[t.locations[0].events[5].region()].name, "MPI_Send");
    EXPECT_EQ(t.locations[0].events[3].kind, trace::EventKind::MpiSend);
    ASSERT_EQ(t.cut.size(), 3u);
    EXPECT_EQ(t.cut[1].cause, "MPI_Abort(errorcode 3)");
    EXPECT_EQ(t.cut[1].died_at, std::optional<uint64_t>(1260000000));
    EXPECT_FALSE(t.cut[2].died_at.has_value());
    EXPECT_EQ(t.cut[0].read_note, "");
    EXPECT_EQ(trace::describe_cut(t),
              std::string("the run was cut short: rank 1 died (MPI_Abort(errorcode 3)) at "
                          "0.260 s, events up to 0.250 s; rank 0 (signal SIGTERM) stops at "
                          "0.500 s; rank 2 (") +
                  kSilentCause + ") has no events");
}

TEST(CutShort, EventFileCutInsideAChunkIsReadUpToTheCut) {
    ScratchDir dir;
    make_dead_run(dir.path());
    complete_trace(dir.path().string());
    const fs::path evt = dir / "traces/0.evt";
    const trace::Trace whole = trace::read_trace(dir.path().string());
    ASSERT_EQ(whole.locations[0].events.size(), 6u);
    // Only the end-of-chunk bytes lost: OTF2 decodes the rest as one more record, which
    // is not the rank's (the rank wrote 6).
    fs::resize_file(evt, fs::file_size(evt) - 3);
    trace::Trace t = trace::read_trace(dir.path().string());
    EXPECT_EQ(t.locations[0].events.size(), 6u);
    EXPECT_EQ(t.cut[0].read_note, "its event file breaks off after 6 events (read up to there)");
    // Cut inside a record: the events before it, each as written.
    fs::resize_file(evt, fs::file_size(evt) / 2);
    t = trace::read_trace(dir.path().string());
    const size_t read = t.locations[0].events.size();
    ASSERT_LT(read, 6u);
    for (size_t i = 0; i < read; ++i) {
        EXPECT_EQ(t.locations[0].events[i].kind, whole.locations[0].events[i].kind) << i;
        EXPECT_EQ(t.locations[0].events[i].time, whole.locations[0].events[i].time) << i;
    }
    EXPECT_EQ(t.cut[0].read_note, "its event file breaks off after " + std::to_string(read) +
                                      " events of 6 written (read up to there)");
    EXPECT_EQ(t.locations[1].events.size(), 3u);
    EXPECT_TRUE(topolens::test::contains_words(trace::describe_cut(t),
                                               "; rank 0: its event file breaks off after"));
}

TEST(CutShort, CompleteTraceWithoutMarkerStaysStrict) {
    // Without cut.txt a short event file is an error, as before.
    ScratchDir dir;
    make_dead_run(dir.path());
    complete_trace(dir.path().string());
    const fs::path evt = dir / "traces/0.evt";
    fs::resize_file(evt, fs::file_size(evt) / 2);
    fs::remove(dir / "cut.txt");
    EXPECT_THROW(trace::read_trace(dir.path().string()), trace::TraceError);
}

TEST(CutShort, DamagedMarkerIsNamed) {
    ScratchDir dir;
    make_dead_run(dir.path());
    complete_trace(dir.path().string());
    topolens::test::write_file(dir / "cut.txt", "0\tmany\t-\tsignal SIGTERM\n");
    try {
        trace::read_trace(dir.path().string());
        FAIL() << "a damaged marker was accepted";
    } catch (const trace::TraceError& e) {
        EXPECT_EQ(std::string(e.what()), (dir / "cut.txt").string() + ":1: 'many' is not a number");
    }
}

TEST(CutShort, InfoCompletesInPlaceAndSaysSo) {
    ScratchDir dir;
    make_dead_run(dir.path());
    const auto result =
        topolens::test::run_command({topolens::test::topolens_bin(), "info", dir.path().string()});
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_TRUE(topolens::test::contains_words(
        result.err, "topolens: completed the trace of a run cut short in " + dir.path().string()))
        << result.err;
    EXPECT_TRUE(topolens::test::contains_words(
        result.out, "cut short: rank 1 died (MPI_Abort(errorcode 3)) at 0.260 s, events up to "
                    "0.250 s; rank 0 (signal SIGTERM) stops at 0.500 s"))
        << result.out;
    EXPECT_TRUE(fs::exists(dir / "traces.otf2"));
}

TEST(CutShort, ReadOnlyDirectoryIsNotCompleted) {
    if (geteuid() == 0) GTEST_SKIP() << "root writes everywhere";
    ScratchDir dir;
    make_dead_run(dir.path());
    fs::permissions(dir.path(), fs::perms::owner_write, fs::perm_options::remove);
    const auto result =
        topolens::test::run_command({topolens::test::topolens_bin(), "info", dir.path().string()});
    fs::permissions(dir.path(), fs::perms::owner_write, fs::perm_options::add);
    EXPECT_EQ(result.exit_code, 1);
    EXPECT_TRUE(topolens::test::contains_words(result.err, "is not writable")) << result.err;
}
