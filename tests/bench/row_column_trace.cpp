// row_column_trace: a trace of collectives on row and column communicators of a process
// grid and on MPI_COMM_WORLD, for measuring what the matching across ranks exchanges of
// collectives (docs/parallel-analysis.md).
//
//   row_column_trace DIR [P Q [ITERATIONS]]    (defaults: 8 8 500)
//
// P x Q processes, rank = x + P * y; each iteration: some compute, an MPI_Allreduce on the
// process's row, an MPI_Bcast on its column (root: the column's first), an MPI_Allreduce
// on MPI_COMM_WORLD. Prints the anchor file.
#include "row_column_communicators.h"
#include "trace/builder.h"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

namespace tt = topolens::trace;

int main(int argc, char** argv) {
    if (argc != 2 && argc != 4 && argc != 5) {
        std::fprintf(stderr, "usage: row_column_trace DIR [P Q [ITERATIONS]]\n");
        return 2;
    }
    const uint32_t P = argc >= 4 ? static_cast<uint32_t>(std::atoi(argv[2])) : 8;
    const uint32_t Q = argc >= 4 ? static_cast<uint32_t>(std::atoi(argv[3])) : 8;
    const uint32_t iterations = argc == 5 ? static_cast<uint32_t>(std::atoi(argv[4])) : 500;
    try {
        tt::TraceBuilder b(P * Q);
        const auto [rows, columns] = topolens::bench::row_column_communicators(b, P, Q);
        const tt::Ref main_region = b.region("main"), compute = b.region("compute");
        for (uint32_t r = 0; r < P * Q; ++r) {
            b.enter(r, 0, main_region);
            b.mpi_init(r, 1, 100);
            tt::Time t = 100;
            for (uint32_t i = 0; i < iterations; ++i) {
                b.enter(r, t, compute);
                t += 1000 + 10 * (r % 7);
                b.leave(r, t, compute);
                b.mpi_collective(r, t, t + 200, tt::CollectiveOp::Allreduce, rows[r / P]);
                b.mpi_collective(r, t + 300, t + 400, tt::CollectiveOp::Bcast, columns[r % P], 0);
                b.mpi_collective(r, t + 500, t + 700, tt::CollectiveOp::Allreduce, b.world());
                t += 800;
            }
            b.mpi_finalize(r, t, t + 100);
            b.leave(r, t + 200, main_region);
        }
        std::printf("%s\n", b.write(argv[1]).c_str());
    } catch (const std::exception& e) {
        std::fprintf(stderr, "row_column_trace: %s\n", e.what());
        return 1;
    }
    return 0;
}
