#!/usr/bin/env bash
# GUI test fixture: traces samples/wavefront2d on a 4x4 grid (16 ranks, LD_PRELOAD) and
# analyzes it into $TL_WORK/gui/wavefront.cubex. One block per octant (two per corner, the
# second continuing the first's full pipeline), 10 ms each, and a barrier before each
# corner's octants: every wait is a pipeline fill, so the corner a sweep reaches last
# waits longest by 10 ms per iteration, above a loaded machine's scheduling noise (and no
# message of the next sweep overtakes, which would make part of it Wrong Order).
# Environment as for the integration tests (tests/integration/common.sh).
source "$(dirname "${BASH_SOURCE[0]}")/../../tests/integration/common.sh"
[ -n "${TL_TOPOLENS:-}" ] || tl_fail "TL_TOPOLENS is not set"

work="$(tl_workdir gui)"
tl_mpirun 16 LD_PRELOAD="$TL_MEASURE_LIB" TOPOLENS_TRACE_DIR="$work/trace" \
    TOPOLENS_REPORT_PATH_FILE="$work/trace-path" -- \
    "$TL_BIN/wavefront2d" --px 4 --py 4 --blocks 1 --iterations 4 --work-us 10000 --sweep-barrier \
    >"$work/stdout" 2>"$work/stderr" || {
    cat "$work/stdout" "$work/stderr"
    tl_fail "wavefront2d failed"
}
trace="$(tl_reported_trace "$work/trace-path")"
"$TL_TOPOLENS" analyze "$trace" -o "$work/wavefront.cubex" --quiet || tl_fail "topolens analyze failed"
echo "report: $work/wavefront.cubex"
