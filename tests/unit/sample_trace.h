// The small trace most tests use, built with TraceBuilder. Four ranks on two hosts
// (nodeA: 0-1, nodeB: 2-3), times in nanoseconds:
//   every rank  MPI_Init [0, 100+r]; tuned operation "halo3d" (codelets 0 pack, 1 derived):
//               phase search 110, switch 0 at 120, execution [130,140], switch 1 at 150,
//               execution [160,170], phase decision 180, decision 1 at 185, phase
//               production 190, execution [192,198]; user region "main" [200, 950];
//               MPI_Allreduce [600+r, 700] on MPI_COMM_WORLD; MPI_Finalize [960, 1000+r];
//               clock offsets (0, 0) and (2000, 0), stddev 0.5 (zero: times unchanged)
//   rank 0      MPI_Send [300,350] to 1, tag 7, 64 bytes; parameters iterations=-5 (210),
//               mode="fast" (220)
//   rank 1      MPI_Recv [250,400] from 0, tag 7, 64 bytes; MPI_Irecv [410,415] request 7
//               cancelled in MPI_Cancel [420,425]; parameter bytes=UINT64_MAX (230, uint64)
//   rank 2      MPI_Isend [300,310] to 3, tag 9, 128 bytes, request 0xDEADBEEF00000001,
//               MPI_Wait [320,500]; BufferFlush at 810 until 900
//   rank 3      MPI_Irecv [290,295] request 42, MPI_Test [330,335] (unsuccessful),
//               MPI_Wait [400,520] receiving it from 2
//   ranks 3,1   communicator "pair" (members 3 then 1): MPI_Bcast [710, 800-r] root 1
//               (world rank 1), 16 bytes
//   topologies  "grid" 2x2 over MPI_COMM_WORLD, periodic (yes, no), rank r at (r%2, r/2);
//               "line" 1-D size 2 over "pair", only communicator rank 0 at (0)
#pragma once

#include "trace/builder.h"

namespace topolens::test {

trace::TraceBuilder sample_trace();

} // namespace topolens::test
