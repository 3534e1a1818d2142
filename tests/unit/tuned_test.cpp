// Reconstruction of autotuner activity (TRACE_FORMAT.md "Tuned operations and codelets").
#include "sample_trace.h"
#include "test_util.h"

#include "trace/reader.h"
#include "trace/tuned.h"

#include <gtest/gtest.h>

namespace topolens::test {
namespace {

using namespace topolens::trace;

std::string describe(const CodeletExecution& x) {
    return "loc " + std::to_string(x.location) + " codelet " + std::to_string(x.codelet) + " " +
           std::string(tuning_phase_name(x.phase)) + " [" + std::to_string(x.start) + "," +
           std::to_string(x.end) + "]";
}

std::vector<std::string> describe(const std::vector<CodeletExecution>& xs) {
    std::vector<std::string> out;
    for (const auto& x : xs) out.push_back(describe(x));
    return out;
}

// Rank 0 runs once before any switch, searches over codelets 0 and 1, decides for 1 and
// runs it in production; rank 1 never decides.
TraceBuilder tuner_trace() {
    TraceBuilder b(2);
    const auto op = b.tuned_op("halo3d");
    const Ref send = b.mpi_region("MPI_Send");
    b.tuned_begin(0, 10, op); // before any switch and any phase: no codelet, search
    b.tuned_end(0, 20, op);
    b.tuning_phase(0, 30, op, TuningPhase::Search);
    b.codelet_switch(0, 40, op, 0, "pack");
    b.tuned_begin(0, 50, op);
    b.enter(0, 55, send); // MPI inside the execution does not change its codelet
    b.send(0, 55, 1, b.world(), 0, 8);
    b.leave(0, 58, send);
    b.tuned_end(0, 60, op);
    b.codelet_switch(0, 70, op, 1, "derived");
    b.tuned_begin(0, 80, op);
    b.tuned_end(0, 95, op);
    b.tuning_phase(0, 100, op, TuningPhase::Decision);
    b.tuning_decision(0, 110, op, 1, "derived");
    b.tuning_phase(0, 120, op, TuningPhase::Production);
    b.tuned_begin(0, 130, op);
    b.tuned_end(0, 135, op);

    b.tuning_phase(1, 30, op, TuningPhase::Search);
    b.codelet_switch(1, 41, op, 1, "derived");
    b.tuned_begin(1, 51, op);
    b.tuned_end(1, 61, op);
    return b;
}

void expect_tuner_trace(const std::vector<TunedOperation>& ops) {
    ASSERT_EQ(ops.size(), 1u);
    const TunedOperation& op = ops[0];
    EXPECT_EQ(op.name, "halo3d");
    EXPECT_NE(op.region, kNone);
    EXPECT_EQ(op.codelets, (std::map<int64_t, std::string>{{0, "pack"}, {1, "derived"}}));
    ASSERT_EQ(op.locations.size(), 2u);

    const TunedLocation& r0 = op.locations[0];
    ASSERT_EQ(r0.switches.size(), 2u);
    EXPECT_EQ(r0.switches[0].time, 40u);
    EXPECT_EQ(r0.switches[0].index, 0);
    EXPECT_EQ(r0.switches[1].time, 70u);
    EXPECT_EQ(r0.switches[1].index, 1);
    ASSERT_EQ(r0.phases.size(), 3u);
    EXPECT_EQ(r0.phases[0].phase, TuningPhase::Search);
    EXPECT_EQ(r0.phases[1].phase, TuningPhase::Decision);
    EXPECT_EQ(r0.phases[1].time, 100u);
    EXPECT_EQ(r0.phases[2].phase, TuningPhase::Production);
    EXPECT_EQ(r0.phases[2].name, "production");
    ASSERT_TRUE(r0.decision.has_value());
    EXPECT_EQ(r0.decision->time, 110u);
    EXPECT_EQ(r0.decision->index, 1);

    const TunedLocation& r1 = op.locations[1];
    EXPECT_FALSE(r1.decision.has_value());
    ASSERT_EQ(r1.switches.size(), 1u);
    EXPECT_EQ(r1.switches[0].index, 1);

    EXPECT_EQ(describe(op.executions), (std::vector<std::string>{
                                           "loc 0 codelet -1 search [10,20]",
                                           "loc 0 codelet 0 search [50,60]",
                                           "loc 0 codelet 1 search [80,95]",
                                           "loc 0 codelet 1 production [130,135]",
                                           "loc 1 codelet 1 search [51,61]",
                                       }));
    EXPECT_EQ(op.unfinished_executions, 0u);
    EXPECT_EQ(op.decided_indices(), std::vector<int64_t>{1});
    EXPECT_EQ(op.decided_locations(), 1u);
}

TEST(Tuned, ReconstructsSwitchesPhasesDecisionAndExecutions) {
    const TraceBuilder b = tuner_trace();
    expect_tuner_trace(reconstruct_tuned_operations(b.trace()));
}

// The same from the OTF2 archive: the encoding survives writing and reading.
TEST(Tuned, ReconstructsFromTheArchive) {
    ScratchDir dir;
    TraceBuilder b = tuner_trace();
    b.write(dir.path().string());
    expect_tuner_trace(reconstruct_tuned_operations(read_trace(dir.path().string())));
}

TEST(Tuned, SampleTraceDecidesEverywhere) {
    const TraceBuilder b = sample_trace();
    const auto ops = reconstruct_tuned_operations(b.trace());
    ASSERT_EQ(ops.size(), 1u);
    EXPECT_EQ(ops[0].executions.size(), 12u);
    EXPECT_EQ(ops[0].decided_locations(), 4u);
    EXPECT_EQ(ops[0].decided_indices(), std::vector<int64_t>{1});
}

TEST(Tuned, NoTunedOperations) {
    TraceBuilder b(2);
    b.mpi_init(0, 0, 1);
    EXPECT_TRUE(reconstruct_tuned_operations(b.trace()).empty());
}

TEST(Tuned, NamesWithColonsAndUnknownPhases) {
    TraceBuilder b(1);
    const auto op = b.tuned_op("solver:halo");
    b.codelet_switch(0, 1, op, 12, "pack:v2");
    b.parameter_string(
        0, 2, b.parameter(phase_parameter_name("solver:halo"), ParameterType::String), "warmup");
    b.tuned_begin(0, 3, op);
    b.tuned_end(0, 4, op);
    const auto ops = reconstruct_tuned_operations(b.trace());
    ASSERT_EQ(ops.size(), 1u);
    EXPECT_EQ(ops[0].name, "solver:halo");
    EXPECT_EQ(ops[0].codelets, (std::map<int64_t, std::string>{{12, "pack:v2"}}));
    ASSERT_EQ(ops[0].locations[0].phases.size(), 1u);
    EXPECT_EQ(ops[0].locations[0].phases[0].phase, TuningPhase::Unknown);
    EXPECT_EQ(ops[0].locations[0].phases[0].name, "warmup");
    EXPECT_EQ(describe(ops[0].executions),
              std::vector<std::string>{"loc 0 codelet 12 unknown [3,4]"});
    EXPECT_TRUE(ops[0].decided_indices().empty());
}

// Only the codelet nested directly in the operation counts, and only one of this operation.
TEST(Tuned, CodeletMustBeDirectlyNestedAndOfThisOperation) {
    TraceBuilder b(1);
    const auto a = b.tuned_op("a");
    const auto other = b.tuned_op("b");
    const Ref a0 = b.codelet(a, 0, "a0");
    const Ref b0 = b.codelet(other, 0, "b0");
    const Ref wrapper = b.region("wrapper");
    const Ref a_region = b.operation_region(a);
    // a: wrapper then a0 two levels down -> no codelet
    b.enter(0, 1, a_region);
    b.enter(0, 2, wrapper);
    b.enter(0, 3, a0);
    b.leave(0, 4, a0);
    b.leave(0, 5, wrapper);
    b.leave(0, 6, a_region);
    // a: b's codelet nested directly -> no codelet
    b.enter(0, 7, a_region);
    b.enter(0, 8, b0);
    b.leave(0, 9, b0);
    b.leave(0, 10, a_region);
    const auto ops = reconstruct_tuned_operations(b.trace());
    ASSERT_EQ(ops.size(), 2u);
    EXPECT_EQ(ops[0].name, "a");
    EXPECT_EQ(describe(ops[0].executions), (std::vector<std::string>{
                                               "loc 0 codelet -1 search [1,6]",
                                               "loc 0 codelet -1 search [7,10]",
                                           }));
    EXPECT_TRUE(ops[1].executions.empty());
}

TEST(Tuned, UnfinishedExecutionsAreCountedNotInvented) {
    TraceBuilder b(1);
    const auto op = b.tuned_op("x");
    b.codelet_switch(0, 1, op, 0, "c");
    b.tuned_begin(0, 2, op); // the trace ends inside the execution
    const auto ops = reconstruct_tuned_operations(b.trace());
    ASSERT_EQ(ops.size(), 1u);
    EXPECT_TRUE(ops[0].executions.empty());
    EXPECT_EQ(ops[0].unfinished_executions, 1u);
}

// How ADCL's adapter records (measure/TRACE_FORMAT.md): ADCL picks the codelet inside the
// call, so the execution opens before it is known; in the search ADCL's own barrier comes
// first, directly in the operation, then the codelet; the decision happens inside the first
// call after the search, whose phase is recorded inside the execution.
TEST(Tuned, TunerBarrierAndPhasesRecordedInsideAnExecution) {
    TraceBuilder b(1);
    const auto op = b.tuned_op("nc");
    const Ref op_region = b.operation_region(op);
    const Ref pack = b.codelet(op, 0, "pack"), derived = b.codelet(op, 1, "derived");
    b.tuning_phase(0, 1, op, TuningPhase::Search);
    // Search: Enter(op) 10, the tuner's barrier 10..30, codelet 0 from 31 ending in the
    // tuner's closing barrier 35..40, Leave 50.
    b.enter(0, 10, op_region);
    b.mpi_collective(0, 10, 30, CollectiveOp::Barrier, b.world());
    b.codelet_switch(0, 31, op, 0, "pack");
    b.enter(0, 31, pack);
    b.mpi_collective(0, 35, 40, CollectiveOp::Barrier, b.world());
    b.leave(0, 50, pack);
    b.leave(0, 50, op_region);
    // The decision inside the next call: its MPI_Allreduce, then the winner runs.
    b.enter(0, 100, op_region);
    b.mpi_collective(0, 100, 120, CollectiveOp::Allreduce, b.world());
    b.tuning_phase(0, 121, op, TuningPhase::Decision);
    b.tuning_decision(0, 121, op, 1, "derived");
    b.codelet_switch(0, 121, op, 1, "derived");
    b.enter(0, 122, derived);
    b.leave(0, 130, derived);
    b.leave(0, 130, op_region);
    b.tuning_phase(0, 131, op, TuningPhase::Production);
    // Production: a barrier inside the codelet is the codelet's, not the tuner's.
    b.enter(0, 140, op_region);
    b.enter(0, 140, derived);
    b.mpi_collective(0, 141, 145, CollectiveOp::Barrier, b.world());
    b.leave(0, 150, derived);
    b.leave(0, 150, op_region);
    // A barrier right before an execution (nothing entered in between) times it too.
    b.mpi_collective(0, 160, 170, CollectiveOp::Barrier, b.world());
    b.tuned_begin(0, 172, op);
    b.tuned_end(0, 180, op);
    // ... but not with a region entered between the barrier and the execution.
    b.mpi_collective(0, 190, 195, CollectiveOp::Barrier, b.world());
    const Ref work = b.region("work");
    b.enter(0, 196, work);
    b.leave(0, 197, work);
    b.tuned_begin(0, 200, op);
    b.tuned_end(0, 210, op);
    // ADCL's attribute-based search agrees on the next codelet (MPI_Allreduce) before its
    // barrier: the timing starts at the end of the barrier all the same.
    b.enter(0, 300, op_region);
    b.mpi_collective(0, 300, 310, CollectiveOp::Allreduce, b.world());
    b.mpi_collective(0, 311, 320, CollectiveOp::Barrier, b.world());
    b.enter(0, 321, derived);
    b.leave(0, 330, derived);
    b.leave(0, 330, op_region);

    const auto ops = reconstruct_tuned_operations(b.trace());
    ASSERT_EQ(ops.size(), 1u);
    const std::vector<CodeletExecution>& xs = ops[0].executions;
    EXPECT_EQ(describe(xs), (std::vector<std::string>{
                                "loc 0 codelet 0 search [10,50]",
                                "loc 0 codelet 1 decision [100,130]",
                                "loc 0 codelet 1 production [140,150]",
                                "loc 0 codelet 1 production [172,180]",
                                "loc 0 codelet 1 production [200,210]",
                                "loc 0 codelet 1 production [300,330]",
                            }));
    ASSERT_EQ(xs.size(), 6u);
    const std::vector<Time> measured_start = {30, 100, 140, 172, 200, 320};
    const std::vector<bool> barrier_before = {true, false, false, true, false, true};
    // Timed from the tuner's barrier and ending in a barrier (the first): to that barrier's
    // end; a barrier inside a codelet not timed by the tuner's barrier ends nothing.
    const std::vector<Time> measured_end = {40, 130, 150, 180, 210, 330};
    for (std::size_t k = 0; k < xs.size(); ++k) {
        SCOPED_TRACE("execution " + std::to_string(k));
        EXPECT_EQ(xs[k].measured_start, measured_start[k]);
        EXPECT_EQ(xs[k].measured_end, measured_end[k]);
        EXPECT_EQ(xs[k].barrier_before, barrier_before[k]);
    }
    EXPECT_FALSE(ops[0].timer_object);
}

TEST(Tuned, TimerObjectOperationsAreMarkedByTheirDescription) {
    TraceBuilder b(1);
    const auto timer = b.tuned_op("timer: nc"), plain = b.tuned_op("nc");
    Trace t = b.trace();
    t.defs.regions[b.operation_region(timer)].description =
        std::string(kTimerObjectDescription) + " over 2 requests";
    const auto ops = reconstruct_tuned_operations(t);
    ASSERT_EQ(ops.size(), 2u);
    EXPECT_FALSE(ops[0].timer_object); // "nc"
    EXPECT_TRUE(ops[1].timer_object);  // "timer: nc"
    (void)plain;
}

TEST(Tuned, PhaseNames) {
    EXPECT_EQ(parse_tuning_phase("search"), TuningPhase::Search);
    EXPECT_EQ(parse_tuning_phase("decision"), TuningPhase::Decision);
    EXPECT_EQ(parse_tuning_phase("production"), TuningPhase::Production);
    EXPECT_EQ(parse_tuning_phase("Search"), TuningPhase::Unknown);
    EXPECT_EQ(codelet_canonical_name("op", 3, "c"), "topolens.codelet:op:3:c");
    EXPECT_EQ(tuned_op_canonical_name("op"), "topolens.tuned:op");
    EXPECT_EQ(decision_parameter_name("op"), "topolens.decision:op");
}

} // namespace
} // namespace topolens::test
