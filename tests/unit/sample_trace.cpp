#include "sample_trace.h"

#include <limits>

namespace topolens::test {

using namespace topolens::trace;

TraceBuilder sample_trace() {
    TraceBuilder b(4);
    b.set_host(0, "nodeA");
    b.set_host(1, "nodeA");
    b.set_host(2, "nodeB");
    b.set_host(3, "nodeB");
    const Ref world = b.world();
    const Ref pair = b.communicator("pair", {3, 1}, world);
    const Ref grid = b.cart_topology("grid", world, {2, 2}, {true, false});
    for (uint32_t r = 0; r < 4; ++r) b.cart_coords(grid, r, {r % 2, r / 2});
    const Ref line = b.cart_topology("line", pair, {2}, {false});
    b.cart_coords(line, 0, {0});
    const Ref main_region = b.region("main");
    const Ref iterations = b.parameter("iterations", ParameterType::Int);
    const Ref mode = b.parameter("mode", ParameterType::String);
    const Ref bytes = b.parameter("bytes", ParameterType::UnsignedInt);
    const TraceBuilder::TunedOp halo = b.tuned_op("halo3d");

    for (uint32_t r = 0; r < 4; ++r) {
        b.clock_offset(r, 0, 0, 0.5);
        b.clock_offset(r, 2000, 0, 0.5);
        b.mpi_init(r, 0, 100 + r);
        b.tuning_phase(r, 110, halo, TuningPhase::Search);
        b.codelet_switch(r, 120, halo, 0, "pack");
        b.tuned_begin(r, 130, halo);
        b.tuned_end(r, 140, halo);
        b.codelet_switch(r, 150, halo, 1, "derived");
        b.tuned_begin(r, 160, halo);
        b.tuned_end(r, 170, halo);
        b.tuning_phase(r, 180, halo, TuningPhase::Decision);
        b.tuning_decision(r, 185, halo, 1, "derived");
        b.tuning_phase(r, 190, halo, TuningPhase::Production);
        b.tuned_begin(r, 192, halo);
        b.tuned_end(r, 198, halo);
        b.enter(r, 200, main_region);
        switch (r) {
        case 0:
            b.parameter_int(0, 210, iterations, -5);
            b.parameter_string(0, 220, mode, "fast");
            b.mpi_send(0, 300, 350, 1, world, 7, 64);
            break;
        case 1: {
            b.parameter_int(1, 230, bytes,
                            static_cast<int64_t>(std::numeric_limits<uint64_t>::max()));
            b.mpi_recv(1, 250, 400, 0, world, 7, 64);
            b.mpi_irecv(1, 410, 415, 7);
            const Ref cancel = b.mpi_region("MPI_Cancel");
            b.enter(1, 420, cancel);
            b.request_cancelled(1, 420, 7);
            b.leave(1, 425, cancel);
            break;
        }
        case 2:
            b.mpi_isend(2, 300, 310, 3, world, 9, 128, 0xDEADBEEF00000001ull);
            b.mpi_wait_send(2, 320, 500, 0xDEADBEEF00000001ull);
            break;
        case 3: {
            b.mpi_irecv(3, 290, 295, 42);
            const Ref test = b.mpi_region("MPI_Test");
            b.enter(3, 330, test);
            b.request_test(3, 330, 42);
            b.leave(3, 335, test);
            b.mpi_wait_recv(3, 400, 520, 2, world, 9, 128, 42);
            break;
        }
        }
        b.mpi_collective(r, 600 + r, 700, CollectiveOp::Allreduce, world, kNone, 8, 8);
        if (r == 1 || r == 3)
            b.mpi_collective(r, 710, 800 - r, CollectiveOp::Bcast, pair, 1, r == 1 ? 16 : 0, 16);
        if (r == 2) b.buffer_flush(2, 810, 900);
        b.leave(r, 950, main_region);
        b.mpi_finalize(r, 960, 1000 + r);
    }
    return b;
}

} // namespace topolens::test
