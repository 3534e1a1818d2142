#!/usr/bin/env bash
# Benchmark of compiler instrumentation (a program that prints figures, not a test;
# docs/instrumentation.md, "Performance"):
#   1. ns per instrumented call, recorded (enter + leave: two events) and filtered out, net
#      of the same call uninstrumented (1 rank, best of 20 rounds of CALLS calls);
#   2. a small Jacobi solver on RANKS ranks (default 4), every function instrumented and its frequent row
#      function filtered out, against the same solver uninstrumented, unmeasured and with
#      its MPI calls traced (best of RUNS runs; the solver's own time between barriers).
# Usage: tests/bench/instrument_overhead.sh [BUILD_DIR] [CALLS] [SWEEPS] [RUNS] [RANKS]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/../setup.sh"
build="${1:-$TOPOLENS_BUILD}"
calls="${2:-100000}"
sweeps="${3:-3000}"
runs="${4:-5}"
ranks="${5:-4}"
bin="$build/bin"
lib="$build/lib/libtopolens-measure.so"
for f in "$bin/instrument_bench" "$bin/instrument_bench_plain" "$lib"; do
    [ -x "$f" ] || { echo "instrument_overhead: $f is missing; build it first" >&2; exit 1; }
done
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mpirun_() { mpirun --allow-run-as-root --oversubscribe "$@"; }
value() { awk -v key="$1" '$1 == key { print $2 }' "$2"; }

cat >"$work/calls.filter" <<'END'
SCOREP_REGION_NAMES_BEGIN
  EXCLUDE bench::filtered_leaf*
SCOREP_REGION_NAMES_END
END
cat >"$work/sample.filter" <<'END'
SCOREP_REGION_NAMES_BEGIN
  EXCLUDE bench::relax_row*
SCOREP_REGION_NAMES_END
END

mpirun_ -np 1 -x TOPOLENS_FILTER="$work/calls.filter" -x TOPOLENS_TRACE_DIR="$work/calls" \
    "$bin/instrument_bench" calls "$calls" >"$work/calls.txt"
echo "Instrumented calls (1 rank, best of 20 rounds of $calls calls; net of an uninstrumented call of $(value bare_call_ns "$work/calls.txt") ns)"
printf '  %-40s %8s ns\n' "recorded: enter + leave" "$(value recorded_enter_leave_ns "$work/calls.txt")"
printf '  %-40s %8s ns\n' "recorded: per event" "$(value recorded_per_event_ns "$work/calls.txt")"
printf '  %-40s %8s ns\n' "filtered out: enter + leave" "$(value filtered_enter_leave_ns "$work/calls.txt")"

best() { sort -g | head -n 1; }
for run in $(seq "$runs"); do
    mpirun_ -np "$ranks" "$bin/instrument_bench_plain" sample "$sweeps" | awk '{ print $2 }' >>"$work/plain.txt"
    mpirun_ -np "$ranks" -x LD_PRELOAD="$lib" -x TOPOLENS_TRACE_DIR="$work/mpi$run" \
        "$bin/instrument_bench_plain" sample "$sweeps" | awk '{ print $2 }' >>"$work/mpi.txt"
    mpirun_ -np "$ranks" -x TOPOLENS_FILTER="$work/sample.filter" -x TOPOLENS_TRACE_DIR="$work/sample$run" \
        "$bin/instrument_bench" sample "$sweeps" | awk '{ print $2 }' >>"$work/filtered.txt"
    mpirun_ -np "$ranks" -x TOPOLENS_TRACE_DIR="$work/unfiltered$run" \
        "$bin/instrument_bench" sample "$sweeps" | awk '{ print $2 }' >>"$work/unfiltered.txt"
done
plain="$(best <"$work/plain.txt")"
mpi="$(best <"$work/mpi.txt")"
filtered="$(best <"$work/filtered.txt")"
unfiltered="$(best <"$work/unfiltered.txt")"
echo "Jacobi sample, $ranks ranks, $sweeps sweeps of 256 rows (best of $runs runs)"
printf '  %-40s %8.4f s\n' "uninstrumented" "$plain"
awk -v p="$plain" -v m="$mpi" -v f="$filtered" -v u="$unfiltered" 'BEGIN {
    printf "  %-40s %8.4f s  %+6.1f %%\n", "uninstrumented, MPI traced (preloaded)", m, 100 * (m / p - 1)
    printf "  %-40s %8.4f s  %+6.1f %%\n", "instrumented, relax_row filtered out", f, 100 * (f / p - 1)
    printf "  %-40s %8.4f s  %+6.1f %%\n", "instrumented, nothing filtered", u, 100 * (u / p - 1)
}'
