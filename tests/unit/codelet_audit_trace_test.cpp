// The codelet audit's input as `topolens analyze` gathers it from a trace: a synthetic
// two-process autotuner run with exact times (1 tick = 1 ns) in which one search-phase
// execution of process 1 waits for a late sender on process 0.
#include "analyzer/engine/engine.h"
#include "analyzer/report/cube4.h"
#include "json_check.h"
#include "patterns/audit/codelet_audit.h"
#include "patterns/audit/codelet_audit_json.h"
#include "patterns/audit/codelet_measurements.h"
#include "patterns/registry.h"
#include "trace/builder.h"

#include <gtest/gtest.h>

#include <array>
#include <filesystem>
#include <unistd.h>
#include <vector>

using namespace topolens;
using patterns::CodeletMeasurements;
using trace::TraceBuilder;
using trace::TuningPhase;

namespace {

double seconds(trace::Time ticks) {
    return static_cast<double>(ticks) / 1e9;
}

constexpr int kCodelets = 2, kSearch = 5;
constexpr trace::Time kLateSend = 40, kRecvEnter = 2, kSlow = 50;

// Both processes: search phase over codelets 0 ("isend", 10 ticks) and 1 ("sendrecv", 20
// ticks), five executions each; in execution m = 1 of codelet 0, which takes 50 ticks on
// both, process 0 sends to process 1 only 40 ticks in while process 1 has waited in
// MPI_Recv since tick 2: a Late Sender of 38 ticks inside process 1's execution. Then both
// decide for codelet 0 and run it twice in production (10 and 14 ticks).
struct TunedRun {
    TraceBuilder b{2};
    std::array<std::array<trace::Time, kSearch>, kCodelets> start{};
    std::array<std::array<trace::Time, kSearch>, kCodelets> duration{};
    trace::Time end = 0;

    TunedRun() {
        for (uint32_t loc = 0; loc < 2; ++loc) b.mpi_init(loc, 0, 5);
        const auto op = b.tuned_op("halo");
        const char* names[kCodelets] = {"isend", "sendrecv"};
        trace::Time t = 10;
        for (uint32_t loc = 0; loc < 2; ++loc) b.tuning_phase(loc, t, op, TuningPhase::Search);
        ++t;
        for (int c = 0; c < kCodelets; ++c) {
            for (uint32_t loc = 0; loc < 2; ++loc) b.codelet_switch(loc, t, op, c, names[c]);
            ++t;
            for (int m = 0; m < kSearch; ++m) {
                const bool late = c == 0 && m == 1;
                const trace::Time d = late ? kSlow : c == 0 ? 10 : 20;
                for (uint32_t loc = 0; loc < 2; ++loc) b.tuned_begin(loc, t, op);
                if (late) {
                    b.mpi_send(0, t + kLateSend, t + kLateSend + 5, 1, b.world(), 1, 8);
                    b.mpi_recv(1, t + kRecvEnter, t + kSlow - 2, 0, b.world(), 1, 8);
                }
                for (uint32_t loc = 0; loc < 2; ++loc) b.tuned_end(loc, t + d, op);
                start[c][m] = t;
                duration[c][m] = d;
                t += d + 5;
            }
        }
        for (uint32_t loc = 0; loc < 2; ++loc) b.tuning_phase(loc, t, op, TuningPhase::Decision);
        ++t;
        for (uint32_t loc = 0; loc < 2; ++loc) b.tuning_decision(loc, t, op, 0, "isend");
        ++t;
        for (uint32_t loc = 0; loc < 2; ++loc) b.tuning_phase(loc, t, op, TuningPhase::Production);
        ++t;
        for (uint32_t loc = 0; loc < 2; ++loc) b.codelet_switch(loc, t, op, 0, "isend");
        ++t;
        for (const trace::Time d : {10, 14}) {
            for (uint32_t loc = 0; loc < 2; ++loc) {
                b.tuned_begin(loc, t, op);
                b.tuned_end(loc, t + d, op);
            }
            t += d + 5;
        }
        for (uint32_t loc = 0; loc < 2; ++loc) b.mpi_finalize(loc, t, t + 5);
        end = t + 5;
    }
};

} // namespace

TEST(CodeletAuditTrace, MeasurementsHoldTimesAndTheLateSenderWait) {
    const TunedRun run;
    const auto result = analysis::analyze(run.b.trace(), patterns::all_patterns());
    const report::Report& rep = result.report;
    ASSERT_TRUE(rep.attributes.count(patterns::kMeasurementsAttribute));
    const CodeletMeasurements m =
        patterns::parse_codelet_measurements(rep.attributes.at(patterns::kMeasurementsAttribute));
    // Each location runs from its first event (0) to its last.
    EXPECT_DOUBLE_EQ(m.run_seconds, seconds(run.end));
    ASSERT_EQ(m.operations.size(), 1u);
    const patterns::OperationMeasurements& op = m.operations[0];
    EXPECT_EQ(op.name, "halo");
    EXPECT_EQ(op.codelets, (std::map<int64_t, std::string>{{0, "isend"}, {1, "sendrecv"}}));
    EXPECT_EQ(op.decisions, (std::map<uint32_t, int64_t>{{0, 0}, {1, 0}}));
    EXPECT_EQ(op.unfinished, 0u);

    // By location, codelet, number.
    ASSERT_EQ(op.search.size(), std::size_t(2 * kCodelets * kSearch));
    std::size_t k = 0;
    for (uint32_t loc = 0; loc < 2; ++loc)
        for (int c = 0; c < kCodelets; ++c)
            for (int n = 0; n < kSearch; ++n, ++k) {
                const patterns::SearchMeasurement& s = op.search[k];
                SCOPED_TRACE("location " + std::to_string(loc) + " codelet " + std::to_string(c) +
                             " m " + std::to_string(n));
                EXPECT_EQ(s.location, loc);
                EXPECT_EQ(s.codelet, c);
                EXPECT_EQ(s.number, uint32_t(n));
                EXPECT_DOUBLE_EQ(s.start, seconds(run.start[c][n]));
                EXPECT_DOUBLE_EQ(s.duration, seconds(run.duration[c][n]));
                // Only the receiver waited, and only in the execution with the late send.
                const bool waited = loc == 1 && c == 0 && n == 1;
                EXPECT_DOUBLE_EQ(s.wait, waited ? seconds(kLateSend - kRecvEnter) : 0.0);
            }

    ASSERT_EQ(op.production.size(), 2u);
    for (uint32_t loc = 0; loc < 2; ++loc) {
        const patterns::ProductionTotal& p = op.production[loc];
        EXPECT_EQ(p.location, loc);
        EXPECT_EQ(p.codelet, 0);
        EXPECT_EQ(p.executions, 2u);
        EXPECT_DOUBLE_EQ(p.duration, seconds(10) + seconds(14));
        EXPECT_EQ(p.wait, 0.0);
    }
}

TEST(CodeletAuditTrace, AuditAttributeHoldsTheVerdict) {
    const TunedRun run;
    const auto result = analysis::analyze(run.b.trace(), patterns::all_patterns());
    const report::Report& rep = result.report;
    ASSERT_TRUE(rep.attributes.count(patterns::kAuditAttribute));
    const std::string& json = rep.attributes.at(patterns::kAuditAttribute);
    const test::JsonValue d = test::parse_json(json);
    ASSERT_EQ(d["operations"].size(), 1u);
    const test::JsonValue& op = d["operations"][0];
    EXPECT_EQ(op["name"].str(), "halo");
    // Codelet 0 costs 10 ticks once its slow execution is left out, codelet 1 20: the
    // tuner's choice is the audit's; production (mean 12) is within 1.25 x of 10.
    EXPECT_EQ(op["verdict"].str(), "confirmed");
    EXPECT_EQ(op["tuner_winner"]["index"].num(), 0);
    EXPECT_EQ(op["best"].num(), 0);
    EXPECT_NEAR(op["production"]["ratio"].num(), 1.2, 1e-12);
    // The slow execution is an outlier on both processes; process 1 only waited for it.
    const test::JsonValue& at = op["codelets"][0]["outliers"]["heuristic"]["at"];
    ASSERT_EQ(at.size(), 2u);
    EXPECT_EQ(at[0]["location"].num(), 0);
    EXPECT_EQ(at[0]["measurement"].num(), 1);
    EXPECT_FALSE(at[0]["propagated"].boolean_value());
    EXPECT_FALSE(at[0]["global"].boolean_value()); // the one that waited does not count
    EXPECT_EQ(at[1]["location"].num(), 1);
    EXPECT_EQ(at[1]["measurement"].num(), 1);
    EXPECT_DOUBLE_EQ(at[1]["wait"].num(), seconds(kLateSend - kRecvEnter));
    EXPECT_TRUE(at[1]["propagated"].boolean_value());

    // The attribute is the audit of the stored measurements with default parameters.
    std::vector<uint32_t> ranks;
    for (const report::Location& l : rep.locations) ranks.push_back(static_cast<uint32_t>(l.rank));
    const CodeletMeasurements m =
        patterns::parse_codelet_measurements(rep.attributes.at(patterns::kMeasurementsAttribute));
    EXPECT_EQ(json,
              patterns::to_json(patterns::audit(m, patterns::AuditParameters{}, ranks), ranks));
}

TEST(CodeletAuditTrace, NoTunedOperationsNoAuditAttributes) {
    TraceBuilder b(1);
    b.mpi_init(0, 0, 5);
    b.mpi_finalize(0, 10, 15);
    const auto result = analysis::analyze(b.trace(), patterns::all_patterns());
    EXPECT_FALSE(result.report.attributes.count(patterns::kMeasurementsAttribute));
    EXPECT_FALSE(result.report.attributes.count(patterns::kAuditAttribute));
}

TEST(CodeletAuditTrace, LateReceiverAndBarrierWaitsCountWhereTheyHappen) {
    // One codelet, three search executions on two processes:
    //   m = 0: nothing to wait for (10 ticks);
    //   m = 1: process 0's blocking MPI_Send enters at +2, process 1 posts the receive at
    //          +30: Late Receiver of 28 ticks on process 0 (40 ticks);
    //   m = 2: process 0 enters MPI_Barrier at +1, process 1 at +15: Wait at Barrier of 14
    //          ticks on process 0 (25 ticks).
    // No decision: the measurements are stored all the same.
    TraceBuilder b(2);
    for (uint32_t loc = 0; loc < 2; ++loc) b.mpi_init(loc, 0, 5);
    const auto op = b.tuned_op("exchange");
    trace::Time t = 10;
    for (uint32_t loc = 0; loc < 2; ++loc) b.codelet_switch(loc, t, op, 0, "only");
    ++t;
    std::array<trace::Time, 3> start{}, duration = {10, 40, 25};
    for (int m = 0; m < 3; ++m) {
        for (uint32_t loc = 0; loc < 2; ++loc) b.tuned_begin(loc, t, op);
        if (m == 1) {
            b.mpi_send(0, t + 2, t + 35, 1, b.world(), 5, 8);
            b.mpi_recv(1, t + 30, t + 36, 0, b.world(), 5, 8);
        } else if (m == 2) {
            b.mpi_collective(0, t + 1, t + 20, trace::CollectiveOp::Barrier, b.world());
            b.mpi_collective(1, t + 15, t + 20, trace::CollectiveOp::Barrier, b.world());
        }
        for (uint32_t loc = 0; loc < 2; ++loc) b.tuned_end(loc, t + duration[m], op);
        start[m] = t;
        t += duration[m] + 5;
    }
    for (uint32_t loc = 0; loc < 2; ++loc) b.mpi_finalize(loc, t, t + 5);

    const auto result = analysis::analyze(b.trace(), patterns::all_patterns());
    const CodeletMeasurements m = patterns::parse_codelet_measurements(
        result.report.attributes.at(patterns::kMeasurementsAttribute));
    ASSERT_EQ(m.operations.size(), 1u);
    const auto& search = m.operations[0].search;
    ASSERT_EQ(search.size(), 6u);
    const std::array<std::array<trace::Time, 3>, 2> wait = {{{0, 28, 14}, {0, 0, 0}}};
    for (std::size_t k = 0; k < search.size(); ++k) {
        const uint32_t loc = static_cast<uint32_t>(k / 3);
        const std::size_t n = k % 3;
        SCOPED_TRACE("location " + std::to_string(loc) + " m " + std::to_string(n));
        EXPECT_EQ(search[k].location, loc);
        EXPECT_EQ(search[k].number, n);
        EXPECT_DOUBLE_EQ(search[k].start, seconds(start[n]));
        EXPECT_DOUBLE_EQ(search[k].duration, seconds(duration[n]));
        EXPECT_DOUBLE_EQ(search[k].wait, seconds(wait[loc][n]));
    }
    EXPECT_TRUE(m.operations[0].decisions.empty());
    EXPECT_TRUE(m.operations[0].production.empty());
    const test::JsonValue d =
        test::parse_json(result.report.attributes.at(patterns::kAuditAttribute));
    EXPECT_EQ(d["operations"][0]["verdict"].str(), "undecided");
}

TEST(CodeletAuditTrace, AttributesSurviveTheReportFile) {
    // `topolens audit REPORT` reads the measurements back from anchor.xml: their tabs and
    // newlines must come back as they were written (XML normalizes raw ones in attribute
    // values to spaces).
    const TunedRun run;
    const auto result = analysis::analyze(run.b.trace(), patterns::all_patterns());
    const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                      ("topolens_audit_test_" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    const std::string path = (dir / "r.cubex").string();
    report::write_cube4(result.report, path);
    const report::Report back = report::read_cube4(path);
    std::filesystem::remove_all(dir);
    for (const char* key : {patterns::kMeasurementsAttribute, patterns::kAuditAttribute}) {
        ASSERT_TRUE(back.attributes.count(key)) << key;
        EXPECT_EQ(back.attributes.at(key), result.report.attributes.at(key)) << key;
    }
    EXPECT_NO_THROW(
        patterns::parse_codelet_measurements(back.attributes.at(patterns::kMeasurementsAttribute)));
}

// Executions of two tuned operations nest: "outer" on process 1 contains a late-sender wait
// (30 ticks) before an execution of "inner", which contains another (20 ticks). The inner
// execution's wait is its own; the outer one's is both.
TEST(CodeletAuditTrace, NestedExecutionsKeepTheirWaits) {
    TraceBuilder b(2);
    for (uint32_t loc = 0; loc < 2; ++loc) b.mpi_init(loc, 0, 5);
    const auto outer = b.tuned_op("outer");
    const auto inner = b.tuned_op("inner");
    for (uint32_t loc = 0; loc < 2; ++loc) {
        b.codelet_switch(loc, 10, outer, 0, "o");
        b.codelet_switch(loc, 11, inner, 0, "i");
        b.tuned_begin(loc, 100, outer);
    }
    b.mpi_send(0, 140, 145, 1, b.world(), 1, 8);
    b.mpi_recv(1, 110, 150, 0, b.world(), 1, 8); // waits 140 - 110 = 30
    for (uint32_t loc = 0; loc < 2; ++loc) b.tuned_begin(loc, 160, inner);
    b.mpi_send(0, 190, 195, 1, b.world(), 2, 8);
    b.mpi_recv(1, 170, 200, 0, b.world(), 2, 8); // waits 190 - 170 = 20
    for (uint32_t loc = 0; loc < 2; ++loc) {
        b.tuned_end(loc, 210, inner);
        b.tuned_end(loc, 220, outer);
        b.mpi_finalize(loc, 300, 305);
    }
    const auto result = analysis::analyze(b.trace(), patterns::all_patterns());
    const CodeletMeasurements m = patterns::parse_codelet_measurements(
        result.report.attributes.at(patterns::kMeasurementsAttribute));
    ASSERT_EQ(m.operations.size(), 2u);
    for (const patterns::OperationMeasurements& op : m.operations) {
        ASSERT_EQ(op.search.size(), 2u) << op.name;
        const patterns::SearchMeasurement& on1 = op.search[1];
        ASSERT_EQ(on1.location, 1u);
        EXPECT_DOUBLE_EQ(on1.wait, seconds(op.name == "inner" ? 20 : 50)) << op.name;
        EXPECT_EQ(op.search[0].wait, 0.0) << op.name; // process 0 never waited
    }
}

TEST(CodeletAuditTrace, TunersOwnBarrierIsLeftOutOfTheMeasurementAndNamesTheTechnique) {
    // Operation "timed" as ADCL's adapter records it: each search execution begins with the
    // tuner's MPI_Barrier directly in the operation (process 0 enters it at +1, process 1 at
    // +15, both leave at +20: 14 ticks of Wait at Barrier on process 0), then the codelet
    // runs to +30. The tuner timed 10 ticks, no wait; in the second execution the codelet ends
    // in the tuner's closing barrier at +26: 6 ticks. Operation "free" is timed without a
    // barrier: 10 ticks.
    TraceBuilder b(2);
    for (uint32_t loc = 0; loc < 2; ++loc) b.mpi_init(loc, 0, 5);
    const auto timed = b.tuned_op("timed"), free = b.tuned_op("free");
    const trace::Ref codelet = b.codelet(timed, 0, "only");
    trace::Time t = 10;
    for (uint32_t loc = 0; loc < 2; ++loc) {
        b.codelet_switch(loc, t, timed, 0, "only");
        b.codelet_switch(loc, t, free, 0, "only");
    }
    for (int m = 0; m < 2; ++m) {
        t += 10;
        for (uint32_t loc = 0; loc < 2; ++loc) {
            b.enter(loc, t, b.operation_region(timed));
            b.mpi_collective(loc, t + (loc == 0 ? 1 : 15), t + 20, trace::CollectiveOp::Barrier,
                             b.world());
            b.enter(loc, t + 21, codelet);
            if (m == 1) // ADCL's closing barrier: the timing ends with it, not at the Leave
                b.mpi_collective(loc, t + 25, t + 30 - 4, trace::CollectiveOp::Barrier, b.world());
            b.leave(loc, t + 30, codelet);
            b.leave(loc, t + 30, b.operation_region(timed));
        }
        t += 40;
        for (uint32_t loc = 0; loc < 2; ++loc) {
            b.tuned_begin(loc, t, free);
            b.tuned_end(loc, t + 10, free);
        }
        t += 10;
    }
    for (uint32_t loc = 0; loc < 2; ++loc) b.mpi_finalize(loc, t + 10, t + 15);

    const auto result = analysis::analyze(b.trace(), patterns::all_patterns());
    const std::string text = result.report.attributes.at(patterns::kMeasurementsAttribute);
    const CodeletMeasurements m = patterns::parse_codelet_measurements(text);
    ASSERT_EQ(m.operations.size(), 2u);
    EXPECT_EQ(m.operations[0].name, "free");
    EXPECT_EQ(m.operations[0].technique, patterns::TimingTechnique::NoBarrier);
    EXPECT_EQ(m.operations[1].name, "timed");
    EXPECT_EQ(m.operations[1].technique, patterns::TimingTechnique::BarrierBefore);
    for (const auto& op : m.operations) {
        ASSERT_EQ(op.search.size(), 4u) << op.name;
        for (const patterns::SearchMeasurement& s : op.search) {
            const bool closed = op.name == "timed" && s.number == 1;
            EXPECT_DOUBLE_EQ(s.duration, seconds(closed ? 6 : 10)) << op.name;
            EXPECT_DOUBLE_EQ(s.wait, 0.0) << op.name;
        }
    }
    EXPECT_NE(text.find("\ntiming\tbarrier\n"), std::string::npos);
    EXPECT_NE(text.find("\ntiming\tno-barrier\n"), std::string::npos);
}
