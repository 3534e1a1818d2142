// topolens score: OTF2 record sizes (trace/record_size.h), the score of a synthetic trace and
// of a hand-made profile with exact bytes, visits and types, what a filter saves (and that
// the saving matches the trace written without the filtered function), the suggested filter,
// and the command on the Scalasca oracle traces against their real event files.
#include "analyzer/report/cube4.h"
#include "analyzer/score/score.h"
#include "trace/builder.h"
#include "trace/reader.h"
#include "trace/record_size.h"
#include "trace/region_filter.h"

#include "test_paths.h"
#include "test_util.h"

#include <gtest/gtest.h>

#include <cmath>
#include <regex>

namespace {

namespace sc = topolens::score;
namespace tt = topolens::trace;
namespace otf2 = topolens::trace::otf2_size;
using topolens::test::run_command;
using topolens::test::ScratchDir;

const sc::RegionScore& region(const sc::Score& score, const std::string& name) {
    for (const sc::RegionScore& r : score.regions)
        if (r.name == name) return r;
    throw std::runtime_error("no region " + name + " in the score");
}

std::size_t index_of(const sc::Score& score, const std::string& name) {
    for (std::size_t i = 0; i < score.regions.size(); ++i)
        if (score.regions[i].name == name) return i;
    throw std::runtime_error("no region " + name + " in the score");
}

TEST(RecordSize, CompressedIntegers) {
    EXPECT_EQ(otf2::compressed(0), 1u);
    EXPECT_EQ(otf2::compressed(1), 2u);
    EXPECT_EQ(otf2::compressed(255), 2u);
    EXPECT_EQ(otf2::compressed(256), 3u);
    EXPECT_EQ(otf2::compressed(2048), 3u);
    EXPECT_EQ(otf2::compressed(65536), 4u);
    EXPECT_EQ(otf2::compressed(uint64_t{1} << 56), 9u);
    EXPECT_EQ(otf2::compressed(~uint64_t{0}), 1u); // undefined
    EXPECT_EQ(otf2::compressed32(~uint32_t{0}), 1u);
    EXPECT_EQ(otf2::compressed32(0x12345678u), 5u);
}

// The sizes read off real event files (tests/data/scalasca-oracle/cg3d/traces/0.evt):
// "0c 01 37" Enter region 55, "0f 0b 01 09 01 02 01 0a 02 00 08 01 04" MpiIsend to 9 on
// communicator 2, tag 10, 2048 bytes, request 4, "16 00" CollectiveBegin, "17 08 0b 01 02 ff
// 01 08 01 08" an Allreduce's CollectiveEnd.
TEST(RecordSize, RecordsAsInRealFiles) {
    const tt::Program none;
    tt::Event enter;
    enter.kind = tt::EventKind::Enter;
    enter.set_region(55);
    EXPECT_EQ(otf2::event_record(enter, 0, none), 3u);
    enter.set_region(0);
    EXPECT_EQ(otf2::event_record(enter, 0, none), 2u);
    tt::Event isend;
    isend.kind = tt::EventKind::MpiIsend;
    isend.set_message(9, 2, 10, 2048);
    EXPECT_EQ(otf2::event_record(isend, 4, none), 13u);
    tt::Event complete;
    complete.kind = tt::EventKind::MpiIsendComplete;
    EXPECT_EQ(otf2::event_record(complete, 4, none), 3u);
    tt::Event begin;
    begin.kind = tt::EventKind::MpiCollectiveBegin;
    EXPECT_EQ(otf2::event_record(begin, 0, none), 2u);
    tt::Event end;
    end.kind = tt::EventKind::MpiCollectiveEnd;
    end.set_collective(tt::kNone, 2, tt::CollectiveOp::Allreduce, 8);
    EXPECT_EQ(otf2::event_record(end, 8, none), 10u);
    // A file: one chunk header, the records, the end markers.
    EXPECT_EQ(otf2::event_file(100), 100u + 18 + 2);
    // Two chunks: a second header and a timestamp again.
    const uint64_t room = otf2::kChunkSize - 18 - 9;
    EXPECT_EQ(otf2::event_file(room + 1), room + 1 + 2 * 18 + 9 + 2);
}

// Rank 0: main { tiny() twice; MPI_Send }, rank 1: main { MPI_Recv }. As asserted below, main
// is region 0 (Enter and Leave take 2 bytes plus a 9-byte timestamp), the others below 256
// (3 bytes plus the timestamp).
struct SmallTrace {
    tt::TraceBuilder b{2};
    tt::Ref main, tiny, send, recv;
    SmallTrace() {
        main = b.region("main");
        tiny = b.region("tiny", tt::Paradigm::User, tt::RegionRole::Function, "tiny.c", "_Z4tinyv");
        send = b.mpi_region("MPI_Send");
        recv = b.mpi_region("MPI_Recv");
        b.enter(0, 0, main);
        b.enter(0, 10, tiny);
        b.leave(0, 11, tiny);
        b.enter(0, 20, tiny);
        b.leave(0, 23, tiny);
        b.mpi_send(0, 30, 40, 1, b.world(), 7, 64);
        b.leave(0, 50, main);
        b.enter(1, 0, main);
        b.mpi_recv(1, 5, 45, 0, b.world(), 7, 64);
        b.leave(1, 60, main);
    }
};

TEST(ScoreTrace, ExactVisitsBytesTimeAndTypes) {
    SmallTrace t;
    ASSERT_EQ(t.main, 0u);
    ASSERT_GE(t.tiny, 1u);
    ASSERT_LT(t.recv, 256u);
    ASSERT_EQ(t.b.world(), 0u);
    const sc::Score score = sc::score_trace(t.b.trace());
    EXPECT_FALSE(score.estimated_from_visits);

    const sc::RegionScore& tiny = region(score, "tiny");
    EXPECT_EQ(tiny.type, sc::RegionType::Usr);
    EXPECT_FALSE(tiny.unfilterable);
    EXPECT_EQ(tiny.mangled_name, "_Z4tinyv");
    EXPECT_EQ(tiny.source_file, "tiny.c");
    EXPECT_EQ(tiny.visits, (std::vector<uint64_t>{2, 0}));
    EXPECT_EQ(tiny.bytes, (std::vector<uint64_t>{4 * 12, 0}));
    EXPECT_EQ(tiny.enter_leave, tiny.bytes);
    EXPECT_DOUBLE_EQ(tiny.time, 4e-9); // 1 + 3 ticks of 1 ns
    EXPECT_DOUBLE_EQ(tiny.time_per_visit(), 2e-9);

    const sc::RegionScore& main = region(score, "main");
    EXPECT_EQ(main.type, sc::RegionType::Com);
    EXPECT_EQ(main.visits, (std::vector<uint64_t>{1, 1}));
    EXPECT_EQ(main.bytes, (std::vector<uint64_t>{22, 22}));
    // Exclusive: rank 0's main lasts 50 ticks less tiny's 4 and MPI_Send's 10; rank 1's 60
    // less MPI_Recv's 40.
    EXPECT_DOUBLE_EQ(main.time, (50 - 4 - 10 + 60 - 40) * 1e-9);
    // So the regions' times add up to the run's: main's 50 and 60 ticks.
    double all = 0;
    for (const sc::RegionScore& r : score.regions) all += r.time;
    EXPECT_NEAR(all, 110e-9, 1e-18);

    // MPI_Send: Enter 12, MpiSend at the same time (no timestamp): type, length, peer 1 (2),
    // world 0 (1), tag 7 (2), 64 bytes (2) = 9, Leave 12.
    const sc::RegionScore& send = region(score, "MPI_Send");
    EXPECT_EQ(send.type, sc::RegionType::Mpi);
    EXPECT_TRUE(send.unfilterable);
    EXPECT_EQ(send.bytes, (std::vector<uint64_t>{33, 0}));
    EXPECT_EQ(send.enter_leave, (std::vector<uint64_t>{24, 0}));
    // MPI_Recv: Enter 12, MpiRecv with its timestamp (peer 0: 1 byte) 8 + 9, Leave 3.
    const sc::RegionScore& recv = region(score, "MPI_Recv");
    EXPECT_EQ(recv.bytes, (std::vector<uint64_t>{0, 32}));
    EXPECT_EQ(recv.max_bytes(), 32u);
    EXPECT_EQ(recv.total_visits(), 1u);

    // Each file: header 18, the records, end 2.
    EXPECT_EQ(score.process_bytes, (std::vector<uint64_t>{22 + 48 + 33 + 20, 22 + 32 + 20}));
    EXPECT_EQ(score.total_bytes(), 197u);
    EXPECT_EQ(score.max_process_bytes(), 123u);
    // Most bytes first.
    EXPECT_EQ(score.regions.front().name, "tiny");
    EXPECT_EQ(score.regions.size(), 4u);
}

TEST(ScoreFilter, RemovesEnterAndLeaveOfExcludedRegionsNeverMpi) {
    SmallTrace t;
    const sc::Score score = sc::score_trace(t.b.trace());
    const auto filter = tt::RegionFilter::parse("SCOREP_REGION_NAMES_BEGIN\n"
                                                "  EXCLUDE tiny MPI_*\n"
                                                "SCOREP_REGION_NAMES_END\n");
    const sc::FilterEffect effect = sc::apply_filter(score, filter);
    EXPECT_TRUE(effect.excluded[index_of(score, "tiny")]);
    EXPECT_FALSE(effect.excluded[index_of(score, "MPI_Send")]);
    EXPECT_FALSE(effect.excluded[index_of(score, "MPI_Recv")]);
    EXPECT_FALSE(effect.excluded[index_of(score, "main")]);
    EXPECT_EQ(effect.saved_bytes, 48u);
    EXPECT_EQ(effect.process_bytes, (std::vector<uint64_t>{123 - 48, 74}));

    // By source file, and by mangled name.
    const auto by_file =
        tt::RegionFilter::parse("SCOREP_FILE_NAMES_BEGIN EXCLUDE *.c SCOREP_FILE_NAMES_END");
    EXPECT_EQ(sc::apply_filter(score, by_file).saved_bytes, 48u);
    const auto by_mangled = tt::RegionFilter::parse(
        "SCOREP_REGION_NAMES_BEGIN EXCLUDE MANGLED _Z4* SCOREP_REGION_NAMES_END");
    EXPECT_EQ(sc::apply_filter(score, by_mangled).saved_bytes, 48u);
    // A COM function may be filtered too (the user asks for it).
    const auto com =
        tt::RegionFilter::parse("SCOREP_REGION_NAMES_BEGIN EXCLUDE main SCOREP_REGION_NAMES_END");
    EXPECT_EQ(sc::apply_filter(score, com).saved_bytes, 44u);
    EXPECT_TRUE(sc::apply_filter(score, tt::RegionFilter::parse("")).excluded ==
                std::vector<bool>(score.regions.size(), false));
}

TEST(ScoreSuggestion, TinyFrequentUserFunctionsOnly) {
    SmallTrace t;
    const sc::Score score = sc::score_trace(t.b.trace());
    const sc::SuggestionRule rule;
    const std::vector<std::size_t> chosen = sc::suggest_filter(score, rule);
    ASSERT_EQ(chosen.size(), 1u);
    EXPECT_EQ(score.regions[chosen[0]].name, "tiny");
    // main is as short per visit in ticks here but on a path to MPI; MPI never.

    const std::string text = sc::filter_file_text(score, chosen, rule);
    EXPECT_NE(text.find("EXCLUDE MANGLED _Z4tinyv"), std::string::npos) << text;
    const tt::RegionFilter filter = tt::RegionFilter::parse(text, "suggested");
    const sc::FilterEffect effect = sc::apply_filter(score, filter);
    for (std::size_t i = 0; i < score.regions.size(); ++i)
        EXPECT_EQ(effect.excluded[i], i == chosen[0]) << score.regions[i].name;

    // Above the time per visit, or below the share: nothing.
    EXPECT_TRUE(sc::suggest_filter(score, {1e-9, 0.01}).empty());
    EXPECT_TRUE(sc::suggest_filter(score, {10e-6, 0.5}).empty());
}

TEST(ScoreSuggestion, NamesWithBlanksAndWildcardsRoundTrip) {
    tt::TraceBuilder b(1);
    const tt::Ref odd = b.region("operator*(Vec const&, double) [clone #1]");
    const tt::Ref mpi = b.mpi_region("MPI_Barrier");
    for (tt::Time t = 0; t < 100; t += 10) {
        b.enter(0, t, odd);
        b.leave(0, t + 1, odd);
    }
    b.mpi_collective(0, 200, 210, tt::CollectiveOp::Barrier, b.world());
    (void)mpi;
    const sc::Score score = sc::score_trace(b.trace());
    const sc::SuggestionRule rule;
    const auto chosen = sc::suggest_filter(score, rule);
    ASSERT_EQ(chosen.size(), 1u);
    const std::string text = sc::filter_file_text(score, chosen, rule);
    const tt::RegionFilter filter = tt::RegionFilter::parse(text);
    EXPECT_TRUE(filter.excludes("operator*(Vec const&, double) [clone #1]", "", ""));
    EXPECT_FALSE(filter.excludes("operator*(Vec const&, double) [clone #2]", "", ""));
    EXPECT_FALSE(filter.excludes("operatorX(Vec const&, double) [clone #1]", "", ""));
}

// A profile: regions main (0), tiny (1), MPI_Send (2); call paths main, main/tiny,
// main/MPI_Send; two locations on ranks 0 and 1.
TEST(ScoreReport, EstimatesFromVisits) {
    namespace rp = topolens::report;
    rp::Report report;
    rp::Metric time;
    time.unique_name = "time";
    const int time_id = report.add_metric(time);
    rp::Metric visits;
    visits.unique_name = "visits";
    visits.unit = "occ";
    const int visits_id = report.add_metric(visits);
    rp::Region main, tiny, send;
    main.name = "main";
    tiny.name = "tiny";
    send.name = "MPI_Send";
    send.paradigm = "mpi";
    send.source_file = "MPI";
    const int r_main = report.add_region(main);
    const int r_tiny = report.add_region(tiny);
    const int r_send = report.add_region(send);
    const int c_main = report.add_callpath(r_main, -1);
    const int c_tiny = report.add_callpath(r_tiny, c_main);
    const int c_send = report.add_callpath(r_send, c_main);
    for (int rank = 0; rank < 2; ++rank) {
        rp::Location l;
        l.rank = rank;
        report.add_location(l);
    }
    report.set_value(visits_id, c_main, 0, 1);
    report.set_value(visits_id, c_main, 1, 1);
    report.set_value(visits_id, c_tiny, 0, 1000);
    report.set_value(visits_id, c_tiny, 1, 3000);
    report.set_value(visits_id, c_send, 1, 10);
    report.set_value(time_id, c_tiny, 0, 0.001);
    report.set_value(time_id, c_tiny, 1, 0.003);
    report.set_value(time_id, c_main, 0, 1.0);

    const sc::Score score = sc::score_report(report);
    EXPECT_TRUE(score.estimated_from_visits);
    const sc::RegionScore& t = region(score, "tiny");
    EXPECT_EQ(t.type, sc::RegionType::Usr);
    EXPECT_EQ(t.visits, (std::vector<uint64_t>{1000, 3000}));
    // Enter and Leave of region 1: 3 bytes each plus a timestamp.
    EXPECT_EQ(t.bytes, (std::vector<uint64_t>{24'000, 72'000}));
    EXPECT_DOUBLE_EQ(t.time, 0.004);
    EXPECT_DOUBLE_EQ(t.time_per_visit(), 1e-6);
    const sc::RegionScore& m = region(score, "main");
    EXPECT_EQ(m.type, sc::RegionType::Com);
    EXPECT_EQ(m.bytes, (std::vector<uint64_t>{22, 22})); // region 0: 2 bytes
    EXPECT_DOUBLE_EQ(m.time, 1.0);                       // its own part (exclusive)
    // MPI_Send: Enter and Leave 24, an MpiSend of typical size 11 with its timestamp.
    const sc::RegionScore& s = region(score, "MPI_Send");
    EXPECT_EQ(s.bytes, (std::vector<uint64_t>{0, 10 * (24 + 20)}));
    EXPECT_EQ(s.enter_leave, (std::vector<uint64_t>{0, 240}));
    EXPECT_EQ(score.process_bytes,
              (std::vector<uint64_t>{24'000 + 22 + 20, 72'000 + 22 + 440 + 20}));

    const auto chosen = sc::suggest_filter(score, {});
    ASSERT_EQ(chosen.size(), 1u);
    EXPECT_EQ(score.regions[chosen[0]].name, "tiny");

    rp::Report no_visits;
    no_visits.add_metric(time);
    EXPECT_THROW(sc::score_report(no_visits), rp::ReportError);
}

// A profile with message counts (Scalasca's comms_* and syncs_* metrics): the point-to-point
// records come from them, so receives posted from MPI_PROC_NULL (no records) do not count.
TEST(ScoreReport, MessageRecordsFromMessageCounts) {
    namespace rp = topolens::report;
    rp::Report report;
    auto metric = [&](const char* name) {
        rp::Metric m;
        m.unique_name = name;
        m.unit = "occ";
        return report.add_metric(m);
    };
    const int visits = metric("visits");
    const int comms_send = metric("comms_send");
    const int comms_recv = metric("comms_recv");
    metric("syncs_send");
    metric("syncs_recv");
    const int bytes_sent = metric("bytes_sent");
    auto add_region = [&](const char* name, bool mpi) {
        rp::Region r;
        r.name = name;
        if (mpi) r.paradigm = "mpi";
        return report.add_region(r);
    };
    const int main = report.add_callpath(add_region("main", false), -1);
    const int irecv = report.add_callpath(add_region("MPI_Irecv", true), main);
    const int waitall = report.add_callpath(add_region("MPI_Waitall", true), main);
    const int isend = report.add_callpath(add_region("MPI_Isend", true), main);
    report.add_location(rp::Location{});
    report.set_value(visits, main, 0, 1);
    report.set_value(visits, irecv, 0, 10);
    report.set_value(visits, waitall, 0, 5);
    report.set_value(visits, isend, 0, 10);
    report.set_value(comms_recv, waitall, 0, 6); // 4 of the 10 receives were from PROC_NULL
    report.set_value(comms_send, isend, 0, 10);
    report.set_value(bytes_sent, isend, 0, 1000); // 100 bytes a message: length in 2 bytes

    const sc::Score score = sc::score_report(report);
    // Enter and Leave: 3 + 9 each (main, region 0: 2 + 9). Records: MpiIsend and MpiIrecv
    // 2 + 2 + 2 + 2 + 2 + 3 + 9 = 22, IsendComplete and IrecvRequest 1 + 3 + 9 = 13.
    EXPECT_EQ(region(score, "MPI_Irecv").bytes, (std::vector<uint64_t>{10 * 24}));
    EXPECT_EQ(region(score, "MPI_Waitall").bytes, (std::vector<uint64_t>{5 * 24 + 6 * 35}));
    EXPECT_EQ(region(score, "MPI_Isend").bytes, (std::vector<uint64_t>{10 * 24 + 10 * 35}));
    EXPECT_EQ(region(score, "main").bytes, (std::vector<uint64_t>{22}));
    EXPECT_EQ(score.process_bytes, (std::vector<uint64_t>{240 + 330 + 590 + 22 + 20}));
}

// The prediction against a real file: the trace written without the filtered function.
TEST(ScoreFilter, PredictedSavingMatchesTheTraceWithoutTheFunction) {
    ScratchDir dir;
    auto build = [](bool with_tiny) {
        tt::TraceBuilder b(4);
        const tt::Ref main = b.region("main");
        const tt::Ref tiny = b.region("tiny_helper");
        const tt::Ref work = b.region("work");
        for (uint32_t r = 0; r < 4; ++r) {
            b.mpi_init(r, 0, 1000);
            b.enter(r, 2000, main);
            tt::Time t = 3000;
            for (int i = 0; i < 50; ++i) {
                b.enter(r, t, work);
                for (int k = 0; k < 40; ++k, t += 100) {
                    if (!with_tiny) continue;
                    b.enter(r, t + 10, tiny);
                    b.leave(r, t + 50, tiny);
                }
                b.leave(r, t + 100, work);
                b.mpi_send(r, t + 200, t + 250, (r + 1) % 4, b.world(), 1, 4096);
                b.mpi_recv(r, t + 300, t + 700, (r + 3) % 4, b.world(), 1, 4096);
                t += 800;
                b.mpi_collective(r, t, t + 300, tt::CollectiveOp::Allreduce, b.world(), tt::kNone,
                                 8, 8);
                t += 400;
            }
            b.leave(r, t + 100, main);
            b.mpi_finalize(r, t + 200, t + 300);
        }
        return b;
    };
    const std::string full = build(true).write((dir / "full").string());
    const std::string without = build(false).write((dir / "without").string());
    const tt::Trace full_trace = tt::read_trace(full);
    const tt::Trace without_trace = tt::read_trace(without);

    const sc::Score score = sc::score_trace(full_trace);
    const double real_full = static_cast<double>(sc::event_file_bytes(full_trace));
    EXPECT_NEAR(static_cast<double>(score.total_bytes()), real_full, 0.05 * real_full);

    const auto filter =
        tt::RegionFilter::parse("SCOREP_REGION_NAMES_BEGIN EXCLUDE tiny_* SCOREP_REGION_NAMES_END");
    const sc::FilterEffect effect = sc::apply_filter(score, filter);
    const double real_without = static_cast<double>(sc::event_file_bytes(without_trace));
    EXPECT_NEAR(static_cast<double>(effect.total_bytes()), real_without, 0.05 * real_without);
    const double real_saving = real_full - real_without;
    EXPECT_GT(real_saving, 0.5 * real_full); // the helper is most of the trace
    EXPECT_NEAR(static_cast<double>(effect.saved_bytes), real_saving, 0.05 * real_saving);
}

// ---- the command

const std::filesystem::path kOracle = topolens::test::oracle_dir();

// "N bytes in all" of the first line, and the real event files' bytes of the second.
struct Figures {
    double estimate = -1, actual = -1;
};

Figures figures(const std::string& out) {
    Figures f;
    std::smatch m;
    auto number = [](std::string s) {
        std::erase(s, ',');
        return std::stod(s);
    };
    if (std::regex_search(out, m, std::regex("event files of ([0-9,]+) bytes in all")))
        f.estimate = number(m[1]);
    if (std::regex_search(out, m, std::regex("event files \\(\\*\\.evt\\): ([0-9,]+) bytes")))
        f.actual = number(m[1]);
    return f;
}

double evt_bytes(const std::filesystem::path& archive) {
    double total = 0;
    for (const auto& e : std::filesystem::directory_iterator(archive / "traces"))
        if (e.path().extension() == ".evt") total += static_cast<double>(e.file_size());
    return total;
}

class ScoreOracle : public ::testing::TestWithParam<const char*> {};

TEST_P(ScoreOracle, TraceFiguresEqualTheEventFilesWithin5Percent) {
    const auto archive = kOracle / GetParam();
    ASSERT_TRUE(std::filesystem::exists(archive / "traces.otf2")) << archive;
    const auto r = run_command({topolens::test::topolens_bin(), "score", archive.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const Figures f = figures(r.out);
    const double real = evt_bytes(archive);
    EXPECT_EQ(f.actual, real) << r.out;
    EXPECT_NEAR(f.estimate, real, 0.05 * real) << r.out;
}

// From the profile of a measured run (Scalasca's report of the same trace), estimated from
// the visits. synth-mixed is left out: its synthetic events share timestamps, which a
// profile cannot know (docs/score.md).
class ScoreOracleProfile : public ::testing::TestWithParam<const char*> {};

TEST_P(ScoreOracleProfile, EstimateEqualsTheEventFilesWithin5Percent) {
    const auto report = kOracle / GetParam() / "scalasca.cubex";
    ASSERT_TRUE(std::filesystem::exists(report)) << report;
    const auto r = run_command({topolens::test::topolens_bin(), "score", report.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const double real = evt_bytes(kOracle / GetParam());
    EXPECT_NEAR(figures(r.out).estimate, real, 0.05 * real) << r.out;
}

INSTANTIATE_TEST_SUITE_P(Traces, ScoreOracle,
                         ::testing::Values("autotune_halo", "cg3d", "collectives", "synth-mixed",
                                           "wavefront2d"));
INSTANTIATE_TEST_SUITE_P(Measured, ScoreOracleProfile,
                         ::testing::Values("autotune_halo", "cg3d", "collectives", "wavefront2d"));

TEST(ScoreCommand, FilterAndSuggestionOnATrace) {
    ScratchDir dir;
    SmallTrace t;
    const std::string anchor = t.b.write((dir / "trace").string());
    topolens::test::write_file(dir / "f.filt", "SCOREP_REGION_NAMES_BEGIN\n"
                                               "  EXCLUDE tiny MPI_Send\n"
                                               "SCOREP_REGION_NAMES_END\n");
    const auto r =
        run_command({topolens::test::topolens_bin(), "score", anchor, "--filter",
                     (dir / "f.filt").string(), "--suggest-filter", (dir / "out.filt").string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(topolens::test::contains_words(r.out, "1 of 4 regions removed, saving 48 bytes"))
        << r.out;
    // The table marks tiny '+', MPI_Send '-' (MPI is never filtered).
    EXPECT_TRUE(std::regex_search(r.out, std::regex("\\n\\+ +USR .* tiny\\n"))) << r.out;
    EXPECT_TRUE(std::regex_search(r.out, std::regex("\\n- +MPI .* MPI_Send\\n"))) << r.out;
    const tt::RegionFilter suggested = tt::RegionFilter::load(dir / "out.filt");
    EXPECT_TRUE(suggested.excludes("tiny", "_Z4tinyv", ""));
    EXPECT_FALSE(suggested.excludes("main", "", ""));
}

// A directory of profile mode (profile.cubex, no trace) is scored from its profile.
TEST(ScoreCommand, ProfileModeDirectory) {
    ScratchDir dir;
    std::filesystem::copy_file(kOracle / "cg3d" / "scalasca.cubex", dir / "profile.cubex");
    const auto from_dir =
        run_command({topolens::test::topolens_bin(), "score", dir.path().string()});
    ASSERT_EQ(from_dir.exit_code, 0) << from_dir.err;
    const auto from_file = run_command(
        {topolens::test::topolens_bin(), "score", (kOracle / "cg3d" / "scalasca.cubex").string()});
    EXPECT_NE(from_dir.out.find("Estimated from the profile's visits"), std::string::npos);
    EXPECT_EQ(from_dir.out, from_file.out);
}

TEST(ScoreCommand, TopAndSuggestionThresholds) {
    ScratchDir dir;
    const auto archive = kOracle / "synth-mixed";
    // compute: 10.288 us per visit, 24.0% of the trace.
    const auto r = run_command({topolens::test::topolens_bin(), "score", archive.string(), "--top",
                                "2", "--max-time-per-visit", "20", "--min-share", "5",
                                "--suggest-filter", (dir / "s.filt").string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(topolens::test::contains_words(
        r.out, "with less than 20 us per visit that cost at least 5% of the trace): 1 function, "
               "saving 31,200 bytes (24.0%)"))
        << r.out;
    EXPECT_NE(r.out.find("\n     MPI       2,880       33,840"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("24.0  compute\n"), std::string::npos) << r.out; // third row: not shown
    EXPECT_NE(r.out.find("(12 more regions below; --top 0 shows all)"), std::string::npos);
    const tt::RegionFilter suggested = tt::RegionFilter::load(dir / "s.filt");
    EXPECT_TRUE(suggested.excludes("compute", "", ""));
    EXPECT_FALSE(suggested.excludes("main", "", ""));
    // The defaults (10 us, 1%) leave compute alone: just above 10 us per visit.
    const auto defaults = run_command({topolens::test::topolens_bin(), "score", archive.string()});
    EXPECT_TRUE(topolens::test::contains_words(defaults.out, "of the trace): none"))
        << defaults.out;

    for (const char* bad : {"-1", "2.5", "x"})
        EXPECT_EQ(
            run_command({topolens::test::topolens_bin(), "score", archive.string(), "--top", bad})
                .exit_code,
            2)
            << bad;
    EXPECT_EQ(run_command(
                  {topolens::test::topolens_bin(), "score", archive.string(), "--min-share", "-3"})
                  .exit_code,
              2);
}

TEST(ScoreCommand, BadInputGetsOneLineAndFails) {
    ScratchDir dir;
    auto one_line = [](const topolens::test::CommandResult& r) {
        return std::count(r.err.begin(), r.err.end(), '\n') == 1;
    };
    auto missing =
        run_command({topolens::test::topolens_bin(), "score", (dir / "nothing").string()});
    EXPECT_EQ(missing.exit_code, 1);
    EXPECT_TRUE(one_line(missing)) << missing.err;
    EXPECT_NE(missing.err.find("nothing"), std::string::npos) << missing.err;

    auto missing_report =
        run_command({topolens::test::topolens_bin(), "score", (dir / "none.cubex").string()});
    EXPECT_EQ(missing_report.exit_code, 1);
    EXPECT_TRUE(one_line(missing_report)) << missing_report.err;

    topolens::test::write_file(dir / "bad.filt", "SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE\n");
    const auto archive = kOracle / "collectives";
    auto bad = run_command({topolens::test::topolens_bin(), "score", archive.string(), "--filter",
                            (dir / "bad.filt").string()});
    EXPECT_EQ(bad.exit_code, 1);
    EXPECT_EQ(bad.err, "topolens: error: " + (dir / "bad.filt").string() +
                           ":1:1: SCOREP_REGION_NAMES_BEGIN without SCOREP_REGION_NAMES_END\n");
    auto no_filter = run_command({topolens::test::topolens_bin(), "score", archive.string(),
                                  "--filter", (dir / "absent.filt").string()});
    EXPECT_EQ(no_filter.exit_code, 1);
    EXPECT_TRUE(one_line(no_filter)) << no_filter.err;
    EXPECT_TRUE(bad.out.empty() && no_filter.out.empty());

    auto usage = run_command({topolens::test::topolens_bin(), "score"});
    EXPECT_EQ(usage.exit_code, 2);
}

} // namespace
