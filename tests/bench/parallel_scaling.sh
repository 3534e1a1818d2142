#!/usr/bin/env bash
# The analysis across processes against the analysis in one: for synthetic traces of about
# EVENTS events over 64, 256 and 1024 locations, the bare OTF2 read and the analysis in one
# process (analysis_bench: 1 and 2 threads), then under mpirun with 1, 2, 4 and 8 ranks
# (mpi_analysis_bench: wall time, events/s, peak resident memory per rank).
#
# usage: tests/bench/parallel_scaling.sh BUILD_DIR [EVENTS (default 10000000)] [WORK_DIR]
set -euo pipefail
build="${1:?usage: parallel_scaling.sh BUILD_DIR [EVENTS] [WORK_DIR]}"
events="${2:-10000000}"
work="${3:-$(mktemp -d)}"
bin="$build/bin"
mpirun_as=(mpirun --oversubscribe)
[ "$(id -u)" = 0 ] && mpirun_as=(mpirun --allow-run-as-root --oversubscribe)

# The mixed pattern writes about 141 events per rank and iteration.
for locations in 64 256 1024; do
    iterations=$((events / locations / 141))
    trace="$work/mixed-$locations"
    "$bin/topolens" synth -o "$trace" --ranks "$locations" --pattern mixed \
        --iterations "$iterations" --seed 1 >/dev/null
    echo "== $locations locations, $iterations iterations"
    "$bin/analysis_bench" "$trace" --repeat 1 --threads 2
    for np in 1 2 4 8; do
        "${mpirun_as[@]}" -np "$np" "$bin/mpi_analysis_bench" "$trace/traces.otf2" --root-causes |
            grep -E "^(wall|peak)" | sed "s/^/np $np: /"
    done
    rm -rf "$trace"
done
