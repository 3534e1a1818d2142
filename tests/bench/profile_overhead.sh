#!/usr/bin/env bash
# Benchmark of profile mode (docs/profile.md; a program that prints figures, not a test):
#   1. ns per user region enter+leave and per MPI_Send/MPI_Recv pair, plain (library off),
#      profile mode and trace mode, on 2 ranks (tests/bench/measure_bench.cpp);
#   2. the samples' own elapsed time (MPI_Init to MPI_Finalize, as each prints it) without
#      the library, in profile mode and in trace mode: median of RUNS runs, taken in turns
#      so that the machine's load falls on all three alike; 2 ranks each, one per core of
#      the development machine (oversubscribed ranks measure the scheduler);
#   3. the estimate that does not depend on the machine's load: the calls per second each
#      rank made (the profile's visits over the elapsed time) times the cost of a call in
#      profile mode (1.), as a share of the run.
# Usage: tests/bench/profile_overhead.sh [BUILD_DIR] [RUNS] [REPETITIONS]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/../setup.sh"
build="${1:-$TOPOLENS_BUILD}"
runs="${2:-7}"
repetitions="${3:-200000}"
bin="$build/bin"
lib="$build/lib/libtopolens-measure.so"
for f in "$bin/measure_bench_plain" "$bin/measure_bench_measured" "$bin/halo2d" "$bin/cg3d" "$bin/topolens" \
    "$bin/wavefront2d" "$lib"; do
    [ -e "$f" ] || { echo "profile_overhead: $f is missing; build first" >&2; exit 1; }
done
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
value() { awk -v key="$1" '$1 == key { print $2 }' "$2"; }

mpirun -np 2 -x TOPOLENS_ENABLE=0 "$bin/measure_bench_measured" "$repetitions" >"$work/off.txt"
mpirun -np 2 "$bin/measure_bench_plain" "$repetitions" >"$work/plain.txt"
mpirun -np 2 -x TOPOLENS_MODE=profile -x TOPOLENS_TRACE_DIR="$work/bench-profile" \
    "$bin/measure_bench_measured" "$repetitions" >"$work/profile.txt"
mpirun -np 2 -x TOPOLENS_TRACE_DIR="$work/bench-trace" "$bin/measure_bench_measured" \
    "$repetitions" >"$work/trace.txt"
echo "Cost per operation (2 ranks, best of 5 rounds of $repetitions operations)"
printf '%-28s %12s %12s %12s\n' "operation" "without ns" "profile ns" "trace ns"
printf '%-28s %12.1f %12.1f %12.1f\n' "user region enter+leave" \
    "$(value region_pair "$work/off.txt")" "$(value region_pair "$work/profile.txt")" \
    "$(value region_pair "$work/trace.txt")"
printf '%-28s %12.1f %12.1f %12.1f\n' "MPI_Send + MPI_Recv pair" \
    "$(value send_recv_pair "$work/plain.txt")" "$(value send_recv_pair "$work/profile.txt")" \
    "$(value send_recv_pair "$work/trace.txt")"
echo

# name|ranks|program and arguments
samples=(
    "halo2d|2|halo2d --dims 2x1 --exchange nonblocking --iterations 400 --work-us 500"
    "cg3d|2|cg3d --dims 2,1,1 --compute busy --iterations 200 --work-us 500 --base-us 500 --jitter-us 0"
    "wavefront2d|2|wavefront2d --px 2 --py 1 --iterations 4 --blocks 20 --work-us 500"
)
elapsed() { sed -n 's/.*, \([0-9.]*\) s$/\1/p' | tail -n 1; }
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
echo "Samples' elapsed time, median of $runs runs each (s)"
printf '%-12s %5s %9s %9s %9s %9s %9s %11s %9s\n' "sample" "ranks" "without" "profile" \
    "trace" "profile" "trace" "calls/s" "estimate"
pair_ns="$(value region_pair "$work/profile.txt")"
off_ns="$(value region_pair "$work/off.txt")"
for sample in "${samples[@]}"; do
    IFS='|' read -r name np command <<<"$sample"
    read -r -a args <<<"$command"
    args[0]="$bin/${args[0]}"
    for i in $(seq "$runs"); do
        mpirun -np "$np" "${args[@]}" | elapsed >>"$work/$name.plain"
        mpirun -np "$np" -x LD_PRELOAD="$lib" -x TOPOLENS_MODE=profile \
            -x TOPOLENS_TRACE_DIR="$work/$name-p$i" "${args[@]}" | elapsed >>"$work/$name.profile"
        mpirun -np "$np" -x LD_PRELOAD="$lib" -x TOPOLENS_TRACE_DIR="$work/$name-t$i" \
            "${args[@]}" | elapsed >>"$work/$name.trace"
    done
    visits="$("$bin/topolens" summary "$work/$name-p1/profile.cubex" |
        awk '$1 == "Visits" { gsub(",", "", $2); print $2 }')"
    # Runs taken one after the other share the machine's load: the median of their ratios.
    profile_ratio="$(paste "$work/$name.profile" "$work/$name.plain" | awk '{ print $1 / $2 }' | median)"
    trace_ratio="$(paste "$work/$name.trace" "$work/$name.plain" | awk '{ print $1 / $2 }' | median)"
    awk -v n="$name" -v np="$np" -v a="$(median <"$work/$name.plain")" \
        -v p="$(median <"$work/$name.profile")" -v t="$(median <"$work/$name.trace")" \
        -v pr="$profile_ratio" -v tr="$trace_ratio" \
        -v visits="$visits" -v ns="$pair_ns" -v off="$off_ns" \
        'BEGIN { calls = visits / np / p
                 printf "%-12s %5d %9.3f %9.3f %9.3f %+8.1f%% %+8.1f%% %11.0f %+8.2f%%\n",
                 n, np, a, p, t, (pr - 1) * 100, (tr - 1) * 100, calls,
                 calls * (ns - off) * 1e-9 * 100 }'
done
echo "(profile, trace: slowdown against the run without the library, median over the runs of"
echo " each run's time against the run without the library just before it; calls/s: call paths"
echo " entered per second and rank in profile mode; estimate: calls/s x the profile's cost of"
echo " an enter+leave, as a share of the run)"
