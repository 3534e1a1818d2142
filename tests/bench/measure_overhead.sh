#!/usr/bin/env bash
# Benchmark of the measurement library (a program that prints figures, not a test):
#   1. ns per recorded event: a user region enter+leave pair, and what recording adds to an
#      MPI_Send/MPI_Recv pair and to an MPI_Allreduce, on 2 ranks;
#   2. slowdown of samples/wavefront2d on 16 ranks with the library preloaded.
# Usage: tests/bench/measure_overhead.sh [BUILD_DIR] [REPETITIONS] [WAVEFRONT_RUNS]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/../setup.sh"
build="${1:-$TOPOLENS_BUILD}"
repetitions="${2:-200000}"
runs="${3:-5}"
bin="$build/bin"
lib="$build/lib/libtopolens-measure.so"
for f in "$bin/measure_bench_plain" "$bin/measure_bench_measured" "$bin/wavefront2d" "$lib"; do
    [ -e "$f" ] || { echo "measure_overhead: $f is missing; build first (tests/run.sh)" >&2; exit 1; }
done
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

value() { awk -v key="$1" '$1 == key { print $2 }' "$2"; }

mpirun -np 2 "$bin/measure_bench_plain" "$repetitions" > "$work/plain.txt"
mpirun -np 2 -x TOPOLENS_ENABLE=0 "$bin/measure_bench_measured" "$repetitions" > "$work/off.txt"
mpirun -np 2 -x TOPOLENS_TRACE_DIR="$work/bench-trace" "$bin/measure_bench_measured" \
    "$repetitions" > "$work/on.txt"

echo "Recording cost per event (2 ranks, best of 5 rounds of $repetitions operations)"
printf '%-34s %12s %12s %12s %14s\n' "operation" "without ns" "with ns" "added ns" "added/event ns"
row() { # name, without, with, events on the critical path
    awk -v n="$1" -v a="$2" -v b="$3" -v e="$4" \
        'BEGIN { printf "%-34s %12.1f %12.1f %12.1f %14.1f\n", n, a, b, b - a, (b - a) / e }'
}
row "user region enter+leave" "$(value region_pair "$work/off.txt")" \
    "$(value region_pair "$work/on.txt")" 2
row "MPI_Send + MPI_Recv pair" "$(value send_recv_pair "$work/plain.txt")" \
    "$(value send_recv_pair "$work/on.txt")" 6
row "MPI_Allreduce" "$(value allreduce "$work/plain.txt")" "$(value allreduce "$work/on.txt")" 4
echo "(events: region pair = Enter+Leave; send/recv pair = Enter, MpiSend, Leave on the"
echo " sender and Enter, MpiRecv, Leave on the receiver; Allreduce = Enter, CollectiveBegin,"
echo " CollectiveEnd, Leave. 'without' for the region is the library with TOPOLENS_ENABLE=0.)"
echo

# wavefront2d: the program's own elapsed time (MPI_Init to MPI_Finalize, no trace writing).
wavefront_args=(--iterations 4 --blocks 20 --work-us 500)
elapsed() { sed -n 's/.*, \([0-9.]*\) s$/\1/p'; }
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for i in $(seq "$runs"); do
    mpirun -np 16 "$bin/wavefront2d" "${wavefront_args[@]}" | elapsed >> "$work/wf_plain.txt"
    mpirun -np 16 -x LD_PRELOAD="$lib" -x TOPOLENS_TRACE_DIR="$work/wf-$i" \
        "$bin/wavefront2d" "${wavefront_args[@]}" | elapsed >> "$work/wf_traced.txt"
done
plain="$(median < "$work/wf_plain.txt")"
traced="$(median < "$work/wf_traced.txt")"
echo "wavefront2d on 16 ranks (4x4, ${wavefront_args[*]}), median of $runs runs"
awk -v a="$plain" -v b="$traced" 'BEGIN {
    printf "%-34s %10.3f s\n%-34s %10.3f s\n%-34s %+9.1f %%\n",
           "without measurement", a, "with measurement (LD_PRELOAD)", b, "slowdown", (b / a - 1) * 100 }'
