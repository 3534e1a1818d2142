#!/usr/bin/env bash
# GUI test fixture: traces samples/autotune_halo on 8 ranks (a 2x2x2 grid) with the
# synthetic codelet costs of tests/integration/check_audit.sh (codelet 3 truly best) and
# rank 5 perturbing codelet 3 twice, then analyzes it into $TL_WORK/gui-autotune/autotune.cubex
# (the report holds the codelet audit, attribute topolens.audit). About 3 s.
# Environment as for the integration tests (tests/integration/common.sh).
source "$(dirname "${BASH_SOURCE[0]}")/../../tests/integration/common.sh"
[ -n "${TL_TOPOLENS:-}" ] || tl_fail "TL_TOPOLENS is not set"

work="$(tl_workdir gui-autotune)"
# --barrier keeps rank 5's two outliers on rank 5: without it the other ranks wait for it in
# the next measurement, 4 of the 10 per-measurement maxima come out high and the box plot's
# fences (1.5 IQR) no longer single any out.
tl_mpirun 8 TOPOLENS_TRACE_DIR="$work/trace" TOPOLENS_REPORT_PATH_FILE="$work/trace-path" -- \
    "$TL_BIN/autotune_halo" --codelet-costs 16000,16000,16000,8000,12000,16000,16000,16000,16000,16000,16000 \
    --measurements 10 --barrier --outliers 2 --outlier-rank 5 --outlier-codelet 3 \
    >"$work/stdout" 2>"$work/stderr" || {
    cat "$work/stdout" "$work/stderr"
    tl_fail "autotune_halo failed"
}
trace="$(tl_reported_trace "$work/trace-path")"
"$TL_TOPOLENS" analyze "$trace" -o "$work/autotune.cubex" --quiet || tl_fail "topolens analyze failed"
echo "report: $work/autotune.cubex"
