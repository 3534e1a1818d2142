// Reading, matching and replaying in several threads give exactly what one thread gives:
// the same events, the same matching, the same report values (bit for bit), warnings in
// the same order, the same codelet audit; and a bad TOPOLENS_THREADS is refused by name.
#include "analyzer/engine/engine.h"
#include "patterns/registry.h"
#include "same_report.h"
#include "test_paths.h"
#include "test_util.h"
#include "trace/builder.h"
#include "trace/matching.h"
#include "trace/reader.h"
#include "trace/synthetic.h"
#include "trace/threads.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using namespace topolens;
using test::expect_same_report;
using test::ScratchDir;
using trace::TraceBuilder;

namespace {

namespace fs = std::filesystem;

const unsigned kThreadCounts[] = {2, 3, 7, 16}; // 16: more threads than locations

trace::Synthetic mixed_trace() {
    trace::SynthOptions o;
    o.grid = {4, 3};
    o.iterations = 6;
    return trace::synthesize(o);
}

std::string written_mixed_trace(const ScratchDir& dir) {
    return mixed_trace().builder.write((dir / "trace").string());
}

void expect_same_events(const trace::Trace& a, const trace::Trace& b) {
    ASSERT_EQ(a.locations.size(), b.locations.size());
    for (size_t loc = 0; loc < a.locations.size(); ++loc) {
        const auto& x = a.locations[loc];
        const auto& y = b.locations[loc];
        ASSERT_EQ(x.events.size(), y.events.size()) << "location " << loc;
        for (size_t i = 0; i < x.events.size(); ++i) {
            const trace::Event& e = x.events[i];
            const trace::Event& f = y.events[i];
            // region(), comm() and tag() read the three slots the kinds share.
            ASSERT_TRUE(e.time == f.time && e.kind == f.kind && e.region() == f.region() &&
                        e.comm() == f.comm() && e.tag() == f.tag() && e.bytes == f.bytes)
                << "location " << loc << " event " << i;
        }
        ASSERT_EQ(x.requests.size(), y.requests.size()) << "location " << loc;
        for (size_t k = 0; k < x.requests.size(); ++k) {
            EXPECT_EQ(x.requests[k].event, y.requests[k].event);
            EXPECT_EQ(x.requests[k].request, y.requests[k].request);
        }
        EXPECT_EQ(a.defs.locations[loc].clock_offsets.size(),
                  b.defs.locations[loc].clock_offsets.size());
    }
}

bool same(const trace::EventRef& a, const trace::EventRef& b) {
    return a.location == b.location && a.event == b.event;
}

void expect_same_matching(const trace::Matching& a, const trace::Matching& b) {
    EXPECT_EQ(a.location_of_rank, b.location_of_rank);
    ASSERT_EQ(a.calltree.size(), b.calltree.size());
    for (size_t k = 0; k < a.calltree.size(); ++k) {
        EXPECT_EQ(a.calltree[k].region, b.calltree[k].region) << "node " << k;
        EXPECT_EQ(a.calltree[k].parent, b.calltree[k].parent) << "node " << k;
    }
    ASSERT_EQ(a.frames.size(), b.frames.size());
    for (size_t loc = 0; loc < a.frames.size(); ++loc) {
        ASSERT_EQ(a.frames[loc].size(), b.frames[loc].size());
        for (size_t i = 0; i < a.frames[loc].size(); ++i)
            ASSERT_TRUE(a.frames[loc][i].frame == b.frames[loc][i].frame &&
                        a.frames[loc][i].callpath == b.frames[loc][i].callpath)
                << "location " << loc << " event " << i;
    }
    ASSERT_EQ(a.messages.size(), b.messages.size());
    for (size_t k = 0; k < a.messages.size(); ++k) {
        EXPECT_TRUE(same(a.messages[k].send, b.messages[k].send)) << "message " << k;
        EXPECT_TRUE(same(a.messages[k].recv, b.messages[k].recv)) << "message " << k;
        EXPECT_EQ(a.messages[k].recv_posted, b.messages[k].recv_posted) << "message " << k;
    }
    EXPECT_EQ(a.receives_of, b.receives_of);
    EXPECT_EQ(a.sends_of, b.sends_of);
    EXPECT_EQ(a.collectives_of, b.collectives_of);
    EXPECT_EQ(a.message_records, b.message_records);
    ASSERT_EQ(a.collectives.size(), b.collectives.size());
    for (size_t k = 0; k < a.collectives.size(); ++k) {
        const trace::CollectiveMatch& x = a.collectives[k];
        const trace::CollectiveMatch& y = b.collectives[k];
        EXPECT_TRUE(x.op == y.op && x.comm == y.comm && x.root == y.root) << "collective " << k;
        ASSERT_EQ(x.members.size(), y.members.size());
        for (size_t m = 0; m < x.members.size(); ++m)
            EXPECT_TRUE(same(x.members[m], y.members[m])) << "collective " << k << " member " << m;
    }
    EXPECT_EQ(a.callpath_nodes, b.callpath_nodes);
    ASSERT_EQ(a.message_calls.size(), b.message_calls.size());
    const auto same_call = [](const trace::CallSummary& x, const trace::CallSummary& y) {
        return x.enter == y.enter && x.leave == y.leave && x.region == y.region &&
               x.callpath == y.callpath;
    };
    for (size_t k = 0; k < a.message_calls.size(); ++k) {
        const trace::MessageCalls& x = a.message_calls[k];
        const trace::MessageCalls& y = b.message_calls[k];
        EXPECT_TRUE(same_call(x.send_call, y.send_call) && same_call(x.recv_call, y.recv_call) &&
                    x.send_time == y.send_time && x.recv_time == y.recv_time &&
                    x.recv_post == y.recv_post)
            << "message " << k;
    }
    EXPECT_EQ(a.unmatched_sends, b.unmatched_sends);
    EXPECT_EQ(a.unmatched_receives, b.unmatched_receives);
    EXPECT_EQ(a.incomplete_collectives, b.incomplete_collectives);
    EXPECT_EQ(a.warnings, b.warnings);
}

// The backward replay in as many threads too (one by default), so that its results are
// compared across thread counts as well.
analysis::AnalysisResult analyze_with(const trace::Trace& t, unsigned threads) {
    analysis::AnalysisOptions options;
    options.threads = threads;
    options.backward_threads = threads;
    return analysis::analyze(t, patterns::all_patterns(), options);
}

// Six processes in a ring, autotuned over three codelets (so the codelet pattern's results
// from several threads must be merged), with wait states of every kind and three defects
// that give warnings: a send never received, time going backwards, and a barrier that one
// process never reaches.
trace::Trace tuned_ring_with_defects() {
    constexpr uint32_t kRanks = 6;
    TraceBuilder b(kRanks);
    for (uint32_t loc = 0; loc < kRanks; ++loc) b.mpi_init(loc, 0, 10);
    const auto op = b.tuned_op("halo");
    const char* names[] = {"isend", "sendrecv", "alltoall"};
    trace::Time t = 100;
    for (uint32_t loc = 0; loc < kRanks; ++loc)
        b.tuning_phase(loc, t, op, trace::TuningPhase::Search);
    for (int c = 0; c < 3; ++c) {
        for (uint32_t loc = 0; loc < kRanks; ++loc) b.codelet_switch(loc, t + 1, op, c, names[c]);
        for (int m = 0; m < 4; ++m) {
            t += 10;
            const trace::Time start = t;
            for (uint32_t loc = 0; loc < kRanks; ++loc) {
                b.tuned_begin(loc, start, op);
                // Each sends to its right neighbour, later the higher the rank and codelet.
                const trace::Time send = start + 2 + loc * (c + 1) + (m == 2 && loc == 4 ? 50 : 0);
                b.mpi_send(loc, send, send + 1, (loc + 1) % kRanks, b.world(), 7, 64);
            }
            for (uint32_t loc = 0; loc < kRanks; ++loc) {
                const uint32_t left = (loc + kRanks - 1) % kRanks;
                b.mpi_recv(loc, start + 70, start + 130 + left, left, b.world(), 7, 64);
                b.mpi_collective(loc, start + 140 + loc * 3, start + 160,
                                 trace::CollectiveOp::Allreduce, b.world());
                b.tuned_end(loc, start + 170 + (m == 1 && loc == 2 ? 400 : 0), op);
            }
            t = start + 600;
        }
    }
    for (uint32_t loc = 0; loc < kRanks; ++loc) {
        b.tuning_phase(loc, t, op, trace::TuningPhase::Decision);
        b.tuning_decision(loc, t + 1, op, 1, names[1]);
        b.tuning_phase(loc, t + 2, op, trace::TuningPhase::Production);
        b.codelet_switch(loc, t + 3, op, 1, names[1]);
        b.tuned_begin(loc, t + 10, op);
        b.tuned_end(loc, t + 30 + loc, op);
    }
    t += 100;
    // Rank 0 posts two receives from rank 1 and completes them in the other order.
    b.mpi_irecv(0, t, t + 1, 501);
    b.mpi_irecv(0, t + 2, t + 3, 502);
    b.mpi_isend(1, t + 20, t + 21, 0, b.world(), 1, 8, 601);
    b.mpi_isend(1, t + 22, t + 23, 0, b.world(), 2, 8, 602);
    b.mpi_wait_send(1, t + 24, t + 25, 601);
    b.mpi_wait_send(1, t + 26, t + 27, 602);
    b.mpi_wait_recv(0, t + 4, t + 30, 1, b.world(), 2, 8, 502);
    b.mpi_wait_recv(0, t + 31, t + 32, 1, b.world(), 1, 8, 501);
    t += 100;
    b.mpi_send(3, t, t + 1, 5, b.world(), 99, 8); // never received
    for (uint32_t loc = 0; loc < kRanks; ++loc)
        b.mpi_collective(loc, t + 10 + loc, t + 20, trace::CollectiveOp::Bcast, b.world(), 2);
    for (uint32_t loc = 0; loc + 1 < kRanks; ++loc) // rank 5 never reaches this barrier
        b.mpi_collective(loc, t + 30, t + 40, trace::CollectiveOp::Barrier, b.world());
    for (uint32_t loc = 0; loc < kRanks; ++loc) b.mpi_finalize(loc, t + 50, t + 60);
    trace::Trace trace = b.trace();
    auto& events = trace.locations[4].events;
    const size_t k = events.size() / 2;
    events[k].time = events[k - 1].time - 1; // time goes backwards once
    return trace;
}

} // namespace

TEST(Parallel, ReadingInThreadsGivesTheSameEvents) {
    ScratchDir dir;
    const std::string anchor = written_mixed_trace(dir);
    const trace::Trace one = trace::read_trace(anchor, 1);
    ASSERT_EQ(one.locations.size(), 12u);
    for (unsigned threads : kThreadCounts) {
        SCOPED_TRACE(threads);
        expect_same_events(one, trace::read_trace(anchor, threads));
    }
}

// One share of the locations (as each process of an analysis across processes reads): the
// whole definitions, the share's events exactly as a full read has them, no other events.
TEST(Parallel, ReadingAShareReadsItsLocationsOnly) {
    ScratchDir dir;
    const std::string anchor = written_mixed_trace(dir);
    const trace::Trace all = trace::read_trace(anchor, 1);
    const trace::LocationShare shares[] = {{0, 4}, {4, 12}, {11, 12}, {3, 7}, {5, 1000}};
    for (const trace::LocationShare share : shares)
        for (unsigned threads : {1u, 3u}) {
            SCOPED_TRACE(std::to_string(share.first) + ".." + std::to_string(share.last) + ", " +
                         std::to_string(threads) + " threads");
            trace::Trace part;
            std::vector<uint32_t> handed; // by the reading threads
            std::mutex lock;
            trace::ReadHooks hooks;
            hooks.location_read = [&](const trace::Trace&, uint32_t loc) {
                const std::lock_guard<std::mutex> hold(lock);
                handed.push_back(loc);
            };
            trace::read_trace_into(anchor, part, threads, hooks, share);
            ASSERT_EQ(part.locations.size(), all.locations.size());
            EXPECT_EQ(part.defs.locations.size(), all.defs.locations.size());
            EXPECT_EQ(part.defs.regions.size(), all.defs.regions.size());
            const uint32_t last = std::min<uint32_t>(share.last, 12);
            std::sort(handed.begin(), handed.end());
            std::vector<uint32_t> expected;
            for (uint32_t loc = share.first; loc < last; ++loc) expected.push_back(loc);
            EXPECT_EQ(handed, expected);
            for (uint32_t loc = 0; loc < all.locations.size(); ++loc) {
                const auto& mine = part.locations[loc].events;
                if (loc < share.first || loc >= last) {
                    EXPECT_TRUE(mine.empty()) << "location " << loc;
                    continue;
                }
                const auto& full = all.locations[loc].events;
                ASSERT_EQ(mine.size(), full.size()) << "location " << loc;
                for (size_t i = 0; i < full.size(); ++i)
                    ASSERT_TRUE(mine[i].time == full[i].time && mine[i].kind == full[i].kind &&
                                mine[i].region() == full[i].region())
                        << "location " << loc << " event " << i;
            }
        }
}

TEST(Parallel, AShareBeyondTheTracesLocationsIsRefusedByName) {
    ScratchDir dir;
    const std::string anchor = written_mixed_trace(dir);
    for (const trace::LocationShare share : {trace::LocationShare{12, 20}, {5, 5}}) {
        trace::Trace part;
        try {
            trace::read_trace_into(anchor, part, 1, {}, share);
            ADD_FAILURE() << "no error for " << share.first << ".." << share.last;
        } catch (const trace::TraceError& e) {
            EXPECT_NE(
                std::string(e.what()).find("locations " + std::to_string(share.first) + " to " +
                                           std::to_string(std::min<uint32_t>(share.last, 12)) +
                                           " asked for, the trace has 12 (0 to 12)"),
                std::string::npos)
                << e.what();
        }
    }
}

namespace {

// The error of reading `anchor` with `threads` threads ("" if none).
std::string read_error(const std::string& anchor, unsigned threads) {
    try {
        trace::read_trace(anchor, threads);
    } catch (const trace::TraceError& e) {
        return e.what();
    }
    return "";
}

} // namespace

TEST(Parallel, ReadingInThreadsReportsTheFirstDamageInLocationOrder) {
    ScratchDir dir;
    const std::string anchor = written_mixed_trace(dir);
    const fs::path events = fs::path(anchor).parent_path() / "traces";
    const auto truncate = [&](const char* file) {
        test::write_file(events / file, test::read_file(events / file).substr(0, 100));
    };
    // Two damaged files: the one of the lower location is named, by any number of threads.
    truncate("3.evt");
    truncate("10.evt");
    // The cause in parentheses is OTF2's, and its wording for a cut file varies from run to
    // run (it parses buffer bytes the file never filled): the file and how far it was read
    // are ours to keep the same.
    const auto without_otf2_cause = [](const std::string& error) {
        return error.substr(0, error.find(" ("));
    };
    const std::string serial = without_otf2_cause(read_error(anchor, 1));
    ASSERT_EQ(serial.rfind((events / "3.evt").string() + ":", 0), 0u) << serial;
    for (unsigned threads : kThreadCounts)
        EXPECT_EQ(without_otf2_cause(read_error(anchor, threads)), serial);
    // A missing file is found before any events are read, so it comes first.
    fs::remove(events / "10.evt");
    EXPECT_EQ(read_error(anchor, 1), (events / "10.evt").string() + ": event file is missing");
    for (unsigned threads : kThreadCounts)
        EXPECT_EQ(read_error(anchor, threads), read_error(anchor, 1)) << threads << " threads";
    // One that is there but cannot be opened (a directory in its place) is met as its
    // location is read: the lower location's damage still comes first...
    fs::create_directory(events / "10.evt");
    EXPECT_EQ(without_otf2_cause(read_error(anchor, 1)), serial);
    for (unsigned threads : kThreadCounts)
        EXPECT_EQ(without_otf2_cause(read_error(anchor, threads)), serial) << threads << " threads";
    // ... and it is the one named when its location is the lowest damaged.
    fs::remove(events / "3.evt");
    fs::create_directory(events / "3.evt");
    const std::string unopenable = read_error(anchor, 1);
    EXPECT_EQ(unopenable.rfind((events / "3.evt").string() + ": cannot open", 0), 0u) << unopenable;
    for (unsigned threads : kThreadCounts)
        EXPECT_EQ(read_error(anchor, threads), unopenable) << threads << " threads";
}

// Damages that OTF2 describes differently: the error names the first damaged file with a
// cause OTF2 gave for that file, never the one another thread met at the same time. (OTF2's
// own wording for one damaged file may vary between runs: it can parse buffer bytes that
// were never filled, so only the other file's cause is excluded.)
TEST(Parallel, ReadingInThreadsKeepsEachErrorsOwnCause) {
    ScratchDir dir;
    const std::string anchor = written_mixed_trace(dir);
    const fs::path events = fs::path(anchor).parent_path() / "traces";
    const auto garble = [&](const char* file, size_t at, char byte) {
        std::string data = test::read_file(events / file);
        data.replace(at, 40, std::string(40, byte));
        test::write_file(events / file, data);
    };
    const auto cause = [](const std::string& error) { return error.substr(error.find('(')); };
    garble("10.evt", 100, '\xff');
    const std::string ten = read_error(anchor, 1);
    ASSERT_EQ(ten.rfind((events / "10.evt").string() + ":", 0), 0u) << ten;
    garble("3.evt", 200, '\0');
    const std::string serial = read_error(anchor, 1);
    const std::string where = serial.substr(0, serial.find('('));
    ASSERT_EQ(where.rfind((events / "3.evt").string() + ":", 0), 0u) << serial;
    ASSERT_NE(cause(serial), cause(ten));
    for (int repeat = 0; repeat < 5; ++repeat)
        for (unsigned threads : kThreadCounts) {
            const std::string error = read_error(anchor, threads);
            EXPECT_EQ(error.substr(0, error.find('(')), where) << threads << " threads";
            EXPECT_NE(cause(error), cause(ten)) << threads << " threads: " << error;
        }
}

TEST(Parallel, MatchingInThreadsGivesTheSameMatching) {
    const trace::Synthetic s = mixed_trace();
    const trace::Trace& t = s.builder.trace();
    const trace::Matching one = trace::match(t, 1);
    ASSERT_FALSE(one.messages.empty());
    ASSERT_FALSE(one.collectives.empty());
    for (unsigned threads : kThreadCounts) {
        SCOPED_TRACE(threads);
        expect_same_matching(one, trace::match(t, threads));
    }
    const trace::Trace defects = tuned_ring_with_defects();
    const trace::Matching broken = trace::match(defects, 1);
    ASSERT_EQ(broken.unmatched_sends, 1u);
    ASSERT_EQ(broken.incomplete_collectives, 1u);
    for (unsigned threads : kThreadCounts) {
        SCOPED_TRACE(threads);
        expect_same_matching(broken, trace::match(defects, threads));
    }
}

TEST(Parallel, MatchingWhileReadingGivesTheSameMatching) {
    ScratchDir dir;
    const std::string anchor = written_mixed_trace(dir);
    const trace::Trace t = trace::read_trace(anchor, 1);
    const trace::Matching one = trace::match(t, 1);
    for (unsigned threads : {1u, 2u, 3u, 7u}) {
        SCOPED_TRACE(threads);
        const auto [read, matching] = trace::read_and_match(anchor, threads);
        expect_same_events(t, read);
        expect_same_matching(one, matching);
        expect_same_report(analysis::analyze(t, one, patterns::all_patterns()),
                           analysis::analyze(read, matching, patterns::all_patterns()));
    }
}

TEST(Parallel, ReplayInThreadsGivesTheSameReport) {
    const trace::Synthetic s = mixed_trace();
    const analysis::AnalysisResult one = analyze_with(s.builder.trace(), 1);
    for (unsigned threads : kThreadCounts) {
        SCOPED_TRACE(threads);
        expect_same_report(one, analyze_with(s.builder.trace(), threads));
    }
}

TEST(Parallel, WaitStatesFoundAheadAndInRoundsDoNotDependOnTheThreads) {
    // SSOR sweeps (wavefront evidence exchanged in preparation rounds) and halo exchanges
    // with MPI_Waitall (Late Sender instances, Wrong Order and Late Receiver found ahead).
    for (const trace::SynthPattern pattern :
         {trace::SynthPattern::Ssor, trace::SynthPattern::Halo}) {
        trace::SynthOptions o;
        o.grid = {4, 3};
        o.pattern = pattern;
        o.variant = trace::SynthVariant::Nonblocking;
        o.iterations = 4;
        const trace::Synthetic s = trace::synthesize(o);
        const analysis::AnalysisResult one = analyze_with(s.builder.trace(), 1);
        for (unsigned threads : kThreadCounts) {
            SCOPED_TRACE(threads);
            expect_same_report(one, analyze_with(s.builder.trace(), threads));
        }
    }
}

TEST(Parallel, ReplayInThreadsMergesCodeletResultsAndWarnings) {
    const trace::Trace t = tuned_ring_with_defects();
    const analysis::AnalysisResult one = analyze_with(t, 1);
    ASSERT_TRUE(one.report.attributes.count("topolens.audit"));
    ASSERT_GE(one.warnings.size(), 3u);
    const auto has = [&](const std::string& text) {
        for (const std::string& w : one.warnings)
            if (w.find(text) != std::string::npos) return true;
        return false;
    };
    EXPECT_TRUE(has("time goes backwards"));
    EXPECT_TRUE(has("send without a matching receive"));
    EXPECT_TRUE(has("members missing"));
    for (unsigned threads : kThreadCounts) {
        SCOPED_TRACE(threads);
        expect_same_report(one, analyze_with(t, threads));
    }
}

TEST(Parallel, PatternsKeepNoStateFromOneAnalysisToTheNext) {
    // One set of patterns analyzes several traces in turn, in one thread and in several
    // (the GUI opens trace after trace): each report is the one fresh patterns give.
    const trace::Trace tuned = tuned_ring_with_defects();
    const trace::Synthetic mixed = mixed_trace();
    const auto reused = patterns::all_patterns();
    for (unsigned threads : {1u, 3u}) {
        SCOPED_TRACE(threads);
        analysis::AnalysisOptions options;
        options.threads = threads;
        options.backward_threads = threads;
        for (const trace::Trace* t : {&tuned, &mixed.builder.trace(), &tuned}) {
            const auto fresh = patterns::all_patterns();
            expect_same_report(analysis::analyze(*t, fresh, options),
                               analysis::analyze(*t, reused, options));
        }
    }
}

namespace {

// Keeps state across locations and cannot be cloned: the replay must stay in one thread
// and reach it location after location.
struct LocationOrder : analysis::Pattern {
    std::vector<uint32_t> seen;
    std::atomic<int> threads_inside{0};
    bool overlapped = false;
    std::string name() const override { return "location order"; }
    std::unique_ptr<analysis::Pattern> clone() const override { return nullptr; }
    void merge(analysis::Pattern&) override {}
    void define_metrics(report::Report&) override {}
    void subscribe(analysis::Dispatcher& d) override {
        d.on_location_begin([this](analysis::Context&, uint32_t loc) {
            overlapped = overlapped || ++threads_inside > 1;
            seen.push_back(loc);
        });
        d.on_location_done([this](analysis::Context&, uint32_t, analysis::Time, analysis::Time) {
            --threads_inside;
        });
    }
};

} // namespace

TEST(Parallel, APatternThatCannotBeClonedKeepsTheReplayInOneThread) {
    const trace::Synthetic s = mixed_trace();
    auto list = patterns::all_patterns();
    auto order = std::make_unique<LocationOrder>();
    LocationOrder* probe = order.get();
    list.push_back(std::move(order));
    analysis::AnalysisOptions options;
    options.threads = 4;
    const analysis::AnalysisResult r = analysis::analyze(s.builder.trace(), list, options);
    std::vector<uint32_t> expected(12);
    for (uint32_t loc = 0; loc < expected.size(); ++loc) expected[loc] = loc;
    EXPECT_EQ(probe->seen, expected);
    EXPECT_FALSE(probe->overlapped);
    expect_same_report(analyze_with(s.builder.trace(), 1), r);
}

namespace {

// Clonable, and warns once per location (twice with the same text, which counts once).
struct WarnsPerLocation : analysis::Pattern {
    std::string name() const override { return "warns per location"; }
    std::unique_ptr<analysis::Pattern> clone() const override {
        return std::make_unique<WarnsPerLocation>(*this);
    }
    void merge(analysis::Pattern&) override {}
    void define_metrics(report::Report&) override {}
    void subscribe(analysis::Dispatcher& d) override {
        d.on_location_begin([](analysis::Context& c, uint32_t loc) {
            c.warn("location " + std::to_string(loc));
            c.warn("every location");
        });
    }
};

} // namespace

namespace {

// Location 0 keeps 1 for itself but finishes late; locations 1 and 2 add ±1e16 to it.
// Floating-point addition is not associative: in location order the sum is
// (1 + 1e16) - 1e16 = 0, in the order the threads finish 1e16 - 1e16 + 1 = 1.
struct AddsForOthers : analysis::Pattern {
    int metric = -1;
    std::string name() const override { return "adds for others"; }
    std::unique_ptr<analysis::Pattern> clone() const override {
        return std::make_unique<AddsForOthers>(*this);
    }
    void merge(analysis::Pattern&) override {}
    void define_metrics(report::Report& r) override {
        report::Metric m;
        m.unique_name = "found_by_others";
        metric = r.add_metric(m);
    }
    void subscribe(analysis::Dispatcher& d) override {
        d.on_location_begin([this](analysis::Context& c, uint32_t loc) {
            if (loc == 0) c.add(metric, 0, 0, 1.0);
            if (loc == 1) c.add(metric, 0, 0, 1e16);
            if (loc == 2) c.add(metric, 0, 0, -1e16);
        });
        d.on_location_done([](analysis::Context&, uint32_t loc, analysis::Time, analysis::Time) {
            if (loc == 0) std::this_thread::sleep_for(std::chrono::milliseconds(200));
        });
    }
};

} // namespace

TEST(Parallel, ValuesForOtherLocationsAreAddedInLocationOrder) {
    const volatile double big = 1e16;
    ASSERT_NE((1.0 + big) - big, (big - big) + 1.0); // the orders differ
    const trace::Synthetic s = mixed_trace();
    for (unsigned threads : {1u, 2u, 3u}) {
        SCOPED_TRACE(threads);
        std::vector<std::unique_ptr<analysis::Pattern>> list;
        list.push_back(std::make_unique<AddsForOthers>());
        analysis::AnalysisOptions options;
        options.threads = threads;
        const analysis::AnalysisResult r = analysis::analyze(s.builder.trace(), list, options);
        const auto m = r.report.find_metric("found_by_others");
        ASSERT_TRUE(m);
        EXPECT_EQ(r.report.value(*m, 0, 0), (1.0 + big) - big);
    }
}

TEST(Parallel, WarningsOfAParallelReplayComeInLocationOrder) {
    const trace::Synthetic s = mixed_trace();
    std::vector<std::string> expected = {"every location"};
    expected.insert(expected.begin(), "location 0");
    for (int loc = 1; loc < 12; ++loc) expected.push_back("location " + std::to_string(loc));
    for (unsigned threads : {1u, 2u, 3u, 7u}) {
        std::vector<std::unique_ptr<analysis::Pattern>> list;
        list.push_back(std::make_unique<WarnsPerLocation>());
        analysis::AnalysisOptions options;
        options.threads = threads;
        EXPECT_EQ(analysis::analyze(s.builder.trace(), list, options).warnings, expected)
            << threads << " threads";
    }
}

namespace {

// Clonable, and fails on the replay of two locations.
struct FailsAtFiveAndNine : analysis::Pattern {
    std::string name() const override { return "fails"; }
    std::unique_ptr<analysis::Pattern> clone() const override {
        return std::make_unique<FailsAtFiveAndNine>(*this);
    }
    void merge(analysis::Pattern&) override {}
    void define_metrics(report::Report&) override {}
    void subscribe(analysis::Dispatcher& d) override {
        d.on_location_begin([](analysis::Context&, uint32_t loc) {
            if (loc == 5 || loc == 9)
                throw std::runtime_error("pattern failed at location " + std::to_string(loc));
        });
    }
};

} // namespace

TEST(Parallel, AnErrorInAReplayThreadReachesTheCallerLowestLocationFirst) {
    const trace::Synthetic s = mixed_trace();
    for (unsigned threads : {1u, 2u, 3u, 7u, 16u}) {
        std::vector<std::unique_ptr<analysis::Pattern>> list;
        list.push_back(std::make_unique<FailsAtFiveAndNine>());
        analysis::AnalysisOptions options;
        options.threads = threads;
        try {
            analysis::analyze(s.builder.trace(), list, options);
            ADD_FAILURE() << threads << " threads: no error";
        } catch (const std::runtime_error& e) {
            EXPECT_EQ(std::string(e.what()), "pattern failed at location 5") << threads;
        }
    }
}

// Two threads of one process both in the same collective (the second location of rank 1
// repeats the first's events): the matching says so and keeps the first.
// Threads: a process's k-th collective on a communicator is its part of the k-th instance,
// whichever thread made it; a second thread's copy is the process's second collective, which
// the other process never reached.
TEST(Parallel, ASecondThreadsCollectiveIsTheProcesssNextOneReportedNotFatal) {
    TraceBuilder b(2);
    for (uint32_t loc = 0; loc < 2; ++loc) {
        b.mpi_init(loc, 0, 5);
        b.mpi_collective(loc, 10 + loc * 5, 30, trace::CollectiveOp::Allreduce, b.world());
        b.mpi_finalize(loc, 40, 45);
    }
    trace::Trace t = b.trace();
    trace::Location second = t.defs.locations[1];
    second.name += " thread 1";
    t.defs.locations.push_back(second);
    t.locations.push_back(t.locations[1]);
    for (unsigned threads : {1u, 3u}) {
        const trace::Matching m = trace::match(t, threads);
        ASSERT_EQ(m.collectives.size(), 2u);
        EXPECT_EQ(m.collectives[0].members[0].location, 0u);
        EXPECT_EQ(m.collectives[0].members[1].location, 1u);
        EXPECT_EQ(m.collectives[1].members[0].location, trace::kNone);
        EXPECT_EQ(m.collectives[1].members[1].location, 2u);
        ASSERT_EQ(m.collectives_of[2].size(), 1u);
        EXPECT_EQ(m.collectives_of[2][0].second, 1u);
        EXPECT_EQ(m.incomplete_collectives, 1u);
        ASSERT_FALSE(m.warnings.empty());
        EXPECT_NE(m.warnings[0].find("1 member(s) never reached it"), std::string::npos)
            << m.warnings[0];
        const analysis::AnalysisResult r = analyze_with(t, threads);
        EXPECT_EQ(r.warnings.front(), m.warnings.front());
    }
}

TEST(Parallel, TheStepwiseMatcherRefusesMisuse) {
    const trace::Synthetic s = mixed_trace();
    trace::Matcher unscanned(s.builder.trace(), 2);
    unscanned.scan(0);
    EXPECT_THROW(unscanned.scan(0), std::logic_error);
    EXPECT_THROW(unscanned.finish(), std::logic_error);
    trace::Matcher twice(s.builder.trace(), 2);
    for (uint32_t loc = 0; loc < s.builder.trace().locations.size(); ++loc) twice.scan(loc);
    EXPECT_EQ(twice.finish().messages.size(), trace::match(s.builder.trace(), 1).messages.size());
    EXPECT_THROW(twice.finish(), std::logic_error);
}

TEST(Parallel, ThreadCountFromTheEnvironment) {
    const char* saved = std::getenv("TOPOLENS_THREADS");
    const std::string keep = saved ? saved : "";
    setenv("TOPOLENS_THREADS", "3", 1);
    EXPECT_EQ(trace::worker_threads(), 3u);
    for (const char* bad : {"0", "-2", "two", "3x", "257"}) {
        setenv("TOPOLENS_THREADS", bad, 1);
        try {
            trace::worker_threads();
            ADD_FAILURE() << "accepted TOPOLENS_THREADS=" << bad;
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find(std::string("TOPOLENS_THREADS='") + bad + "'"),
                      std::string::npos)
                << e.what();
        }
    }
    unsetenv("TOPOLENS_THREADS");
    EXPECT_GE(trace::worker_threads(), 1u);
    if (saved) setenv("TOPOLENS_THREADS", keep.c_str(), 1);
}

TEST(Parallel, AnalyzeRefusesABadThreadCount) {
    ScratchDir dir;
    const std::string anchor = written_mixed_trace(dir);
    const test::CommandResult r = test::run_command(
        {topolens::test::topolens_bin(), "analyze", anchor, "-o", (dir / "r.cubex").string()},
        {{"TOPOLENS_THREADS", "lots"}});
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.err.find("TOPOLENS_THREADS='lots'"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir / "r.cubex"));
}

TEST(Parallel, AnalyzeReportsReadingProgressByLocation) {
    ScratchDir dir;
    trace::SynthOptions o;
    o.grid = {5, 4};
    o.iterations = 2;
    const std::string anchor = trace::synthesize(o).builder.write((dir / "trace").string());
    const test::CommandResult r = test::run_command(
        {topolens::test::topolens_bin(), "analyze", anchor, "-o", (dir / "r.cubex").string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("topolens: read 2 of 20 locations (10%)\n"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("topolens: read 20 of 20 locations (100%)\n"), std::string::npos) << r.err;
    const test::CommandResult quiet =
        test::run_command({topolens::test::topolens_bin(), "analyze", anchor, "-o",
                           (dir / "q.cubex").string(), "--quiet"});
    EXPECT_EQ(quiet.err.find("locations ("), std::string::npos) << quiet.err;
}

TEST(Parallel, ParallelForRunsEveryIndexOnceAndRethrows) {
    std::vector<std::atomic<int>> hits(100);
    trace::parallel_for(hits.size(), 3, [&](size_t i, unsigned thread) {
        EXPECT_LT(thread, 3u);
        ++hits[i];
    });
    for (size_t i = 0; i < hits.size(); ++i) EXPECT_EQ(hits[i], 1) << i;
    EXPECT_THROW(trace::parallel_for(10, 2,
                                     [](size_t i, unsigned) {
                                         if (i == 7) throw std::runtime_error("seven");
                                     }),
                 std::runtime_error);
}

// analyze()'s phases (what analysis_bench prints) cover its time: each measured, in order,
// adding up to the whole call.
TEST(Parallel, TheAnalysisPhasesAddUpToTheAnalysis) {
    trace::SynthOptions o;
    o.grid = {4, 3};
    o.iterations = 200; // long enough that the time outside the phases is small beside them
    const trace::Synthetic s = trace::synthesize(o);
    const trace::Matching matching = trace::match(s.builder.trace());
    const auto patterns = patterns::all_patterns();
    for (unsigned threads : {1u, 3u}) {
        SCOPED_TRACE(threads);
        analysis::AnalysisOptions options;
        options.threads = threads;
        const auto start = std::chrono::steady_clock::now();
        const analysis::AnalysisResult r =
            analysis::analyze(s.builder.trace(), matching, patterns, options);
        const double whole =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const analysis::AnalysisPhases& p = r.phases;
        for (double seconds : {p.setup, p.preparation, p.replay, p.backward, p.finish})
            EXPECT_GE(seconds, 0.0);
        EXPECT_GT(p.replay, 0.0);
        EXPECT_GT(p.backward, 0.0); // the root-cause analysis replays backward
        const double sum = p.setup + p.preparation + p.replay + p.backward + p.finish;
        EXPECT_LE(sum, whole);
        EXPECT_GE(sum, 0.5 * whole) << "of " << whole << " s";
    }
}

// A long analysis says where it is: the forward replay's share in tenths, then the backward
// replay (as long again, with no count of its own) by the patterns that replay backward;
// short ones and those without root causes say neither.
TEST(Parallel, ProgressLinesNameTheBackwardReplay) {
    trace::SynthOptions o;
    o.ranks = 16;
    o.iterations = 500; // just over a million events: long enough for progress lines
    o.blocks = 2;
    const trace::Synthetic s = trace::synthesize(o);
    const trace::Matching matching = trace::match(s.builder.trace());
    for (unsigned threads : {1u, 2u}) {
        SCOPED_TRACE(threads);
        auto lines_of = [&](bool root_causes) {
            std::ostringstream progress;
            analysis::AnalysisOptions options;
            options.threads = threads;
            options.progress = &progress;
            analysis::analyze(s.builder.trace(), matching, patterns::all_patterns(root_causes),
                              options);
            return progress.str();
        };
        const std::string with = lines_of(true);
        const size_t backward = with.find("topolens: replaying backward: delay, critical-path\n");
        ASSERT_NE(backward, std::string::npos) << with;
        EXPECT_NE(with.find("topolens: analyzed "), std::string::npos) << with;
        EXPECT_LT(with.rfind("topolens: analyzed "), backward) << with;
        const std::string without = lines_of(false);
        EXPECT_NE(without.find("topolens: analyzed "), std::string::npos) << without;
        EXPECT_EQ(without.find("replaying backward"), std::string::npos) << without;
    }
    // Under a million events: no progress at all.
    const trace::Synthetic small = mixed_trace();
    std::ostringstream quiet;
    analysis::AnalysisOptions options;
    options.progress = &quiet;
    analysis::analyze(small.builder.trace(), patterns::all_patterns(), options);
    EXPECT_EQ(quiet.str(), "");
}
