#!/usr/bin/env bash
# GUI test fixture: profiles samples/halo2d on a 4x3 grid (12 ranks, TOPOLENS_MODE=profile,
# no trace) with rank 5 slow, into $TL_WORK/gui-profile/run/profile.cubex.
# Environment as for the integration tests (tests/integration/common.sh).
source "$(dirname "${BASH_SOURCE[0]}")/../../tests/integration/common.sh"

work="$(tl_workdir gui-profile)"
tl_mpirun 12 LD_PRELOAD="$TL_MEASURE_LIB" TOPOLENS_MODE=profile TOPOLENS_TRACE_DIR="$work/run" -- \
    "$TL_BIN/halo2d" --dims 4x3 --iterations 10 --work-us 2000 --slow-rank 5 --slow-us 5000 \
    >"$work/stdout" 2>"$work/stderr" || {
    cat "$work/stdout" "$work/stderr"
    tl_fail "halo2d failed"
}
[ -f "$work/run/profile.cubex" ] || tl_fail "no profile in $work/run"
[ ! -e "$work/run/traces.otf2" ] || tl_fail "profile mode wrote a trace"
echo "profile: $work/run/profile.cubex"
