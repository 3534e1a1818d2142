#!/usr/bin/env bash
# The checks must be able to fail: trace_check passes on a real trace with the program's
# own expect file, and reports a difference (status 1, not a usage error) for every
# tampered copy of it.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

work="$(tl_workdir trace_check.detects_differences)"

# tampered NAME EXPECT TRACE SED-SCRIPT [TRACE_CHECK-MODE [EXTRA-ARGS]]
tampered() {
    local name="$1" expect="$2" trace="$3" script="$4" mode="${5:-counts}"
    shift 5 || shift "$#"
    sed -E "$script" "$expect" >"$work/$name.txt"
    cmp -s "$expect" "$work/$name.txt" && tl_fail "tampering '$name' changed nothing"
    local rc=0
    "$TL_TRACE_CHECK" "$mode" "$work/$name.txt" "$trace" "$@" >"$work/$name.log" 2>&1 || rc=$?
    [ "$rc" = 1 ] || { cat "$work/$name.log"; tl_fail "$name: trace_check exited $rc, expected 1"; }
    echo "detected: $name ($(grep -m1 FAIL "$work/$name.log"))"
}

echo "== wavefront2d, 4 ranks, user topology"
tl_mpirun 4 LD_PRELOAD="$TL_MEASURE_LIB" TOPOLENS_TRACE_DIR="$work/wavefront" -- \
    "$TL_BIN/wavefront2d" --no-cart --user-topology --expect "$work/wavefront.txt" ||
    tl_fail "wavefront2d failed"
expect="$work/wavefront.txt" trace="$work/wavefront"
"$TL_TRACE_CHECK" counts "$expect" "$trace" || tl_fail "the untouched expect file must pass"
tampered sends "$expect" "$trace" '/^rank 1 /s/sends ([0-9]+)/sends 1\1/'
tampered recvs "$expect" "$trace" '/^rank 2 /s/recvs ([0-9]+)/recvs 9\1/'
tampered collectives "$expect" "$trace" '/^rank 3 /s/collectives ([0-9]+)/collectives 1\1/'
tampered coords "$expect" "$trace" '/^rank 1 /s/coords ([0-9]+) ([0-9]+)/coords \2 \1/'
tampered dims "$expect" "$trace" 's/^dims 2 2$/dims 4 1/'
tampered periods "$expect" "$trace" 's/^periods 0 0$/periods 0 1/'
tampered topology_name "$expect" "$trace" 's/^topology .*/topology grid/'
tampered topology_none "$expect" "$trace" 's/^topology .*/topology none/; /^(ndims|dims|periods) /d; s/ coords.*//'
tampered fewer_ranks "$expect" "$trace" 's/^ranks 4$/ranks 3/; /^rank 3 /d'
tampered flushes "$expect" "$trace" 's/^# .*/# needs flushes/' counts --min-flushes 1000000

echo "== autotune_api, 2 ranks"
tl_mpirun 2 TOPOLENS_TRACE_DIR="$work/autotune" -- \
    "$TL_BIN/autotune_api" --expect "$work/autotune.txt" || tl_fail "autotune_api failed"
expect="$work/autotune.txt" trace="$work/autotune"
"$TL_TRACE_CHECK" tuned "$expect" "$trace" || tl_fail "the untouched expect file must pass"
tampered exec_codelet "$expect" "$trace" '0,/^rank 1 exec 0 isend_irecv search$/s//rank 1 exec 2 alltoallv search/' tuned
tampered exec_phase "$expect" "$trace" '0,/^rank 0 exec 1 sendrecv production$/s//rank 0 exec 1 sendrecv search/' tuned
tampered exec_extra "$expect" "$trace" '$a rank 0 exec 1 sendrecv production' tuned
tampered decision "$expect" "$trace" 's/^rank 1 decision 1 sendrecv$/rank 1 decision 0 isend_irecv/' tuned
tampered switch_missing "$expect" "$trace" '/^rank 0 switch 2 /d' tuned
tampered phase_missing "$expect" "$trace" '/^rank 1 phase decision$/d' tuned
tampered op_name "$expect" "$trace" 's/^op halo$/op halo3d/' tuned
echo "PASS"
