// The report most report tests use, with values chosen so every sum is exact in binary.
//
// Metrics (ids): time(0) > mpi(1) > { mpi_latesender(2) > mpi_latesender_wo(3),
//                                     mpi_collective(4) > mpi_wait_nxn(5) };
//                visits(6, occ); clock_violations(7, occ)
// Regions (ids): program(0) main(1) solver(2) MPI_Allreduce(3) MPI_Recv(4) MPI_Send(5)
// Call paths (ids, created out of depth-first order on purpose):
//   0 program   1 program/main   2 program/main/solver   3 program/main/MPI_Allreduce
//   4 program/main/solver/MPI_Recv   5 program/main/solver/MPI_Send
//   depth-first positions (CUBE's cnode ids and row order): 0→0 1→1 2→2 4→3 5→4 3→5
// Locations: 4 ranks, one thread each; nodeA: ranks 0,1; nodeB: ranks 2,3.
// Topologies: "grid" 2x2, dims x,y, periodic (yes,no), rank r at (r%2, r/2);
//             "line" size 4, no dim names, not periodic, coords for ranks 0 and 3 only.
// Exclusive values per location (0..3):
//   time     @0 [1,1,1,1]   @2 [2,2,2,2]
//   mpi      @3 [.5,.5,.5,.5]   @4 [.25,.5,0,0]   @5 [.125,0,0,.125]
//   mpi_latesender @4 [.5,1,0,0];  mpi_latesender_wo @4 [0,.25,0,0]
//   mpi_wait_nxn   @3 [0,.125,.25,.375]
//   visits   @0 [1,1,1,1]   @3 [5,5,5,5]   @4 [10,10,0,0]
//   clock_violations @4 [0,2,0,0]
// Totals: time 17.5, mpi 5.5, mpi_latesender 1.75, mpi_latesender_wo 0.25,
//         mpi_collective 0.75, mpi_wait_nxn 0.75, visits 44, clock_violations 2.
#pragma once

#include "analyzer/report/report.h"

namespace topolens::test {

report::Report sample_report();

} // namespace topolens::test
