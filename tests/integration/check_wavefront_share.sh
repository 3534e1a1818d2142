#!/usr/bin/env bash
# Traces a sample that has no pipelined wavefront (LD_PRELOAD) and checks that topolens
# finds none: the "Wavefront from X" sub-metrics of Late Sender together hold at most
# MAX-SHARE (default 0.01) of Late Sender. Issue 11: halo exchanges and solvers are not
# waves, whatever the grid.
#   - the report must define wavefront metrics (the analysis had a grid: its source is
#     printed), read from the metric tree of `topolens summary`;
#   - each metric's total and Late Sender's come from `topolens values --format csv`;
#   - with --min-late-sender S, Late Sender must reach S seconds, so that a share of a
#     vanishing total cannot pass for one of a real wait.
#
# usage: check_wavefront_share.sh [--max-share F] [--min-late-sender S]
#                                 NAME NP PROGRAM [PROGRAM-ARGS...]
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
source "$(dirname "${BASH_SOURCE[0]}")/grid_values.sh"

max_share=0.01
min_late_sender=0
while [ "$#" -ge 2 ]; do
    case "$1" in
    --max-share) max_share="$2" ;;
    --min-late-sender) min_late_sender="$2" ;;
    *) break ;;
    esac
    shift 2
done
[ "$#" -ge 3 ] || tl_fail "usage: check_wavefront_share.sh [--max-share F] [--min-late-sender S] NAME NP PROGRAM [ARGS...]"
[ -n "${TL_TOPOLENS:-}" ] || tl_fail "TL_TOPOLENS is not set: the topolens program was not built"
name="$1" np="$2" program="$3"
shift 3

work="$(tl_workdir "$name")"
report="$work/report.cubex"

echo "== $program $* on $np ranks (LD_PRELOAD)"
start=$(date +%s.%N)
rc=0
tl_mpirun "$np" LD_PRELOAD="$TL_MEASURE_LIB" TOPOLENS_TRACE_DIR="$work/trace" \
    TOPOLENS_REPORT_PATH_FILE="$work/trace-path" -- \
    "$TL_BIN/$program" "$@" >"$work/stdout" 2>"$work/stderr" || rc=$?
cat "$work/stdout" "$work/stderr"
[ "$rc" = 0 ] || tl_fail "$program exited with status $rc"
echo "(run and trace: $(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }') s)"
trace="$(tl_reported_trace "$work/trace-path")"

echo "== topolens analyze $trace"
"$TL_TOPOLENS" analyze "$trace" -o "$report" || tl_fail "topolens analyze failed"
"$TL_TOPOLENS" summary "$report" >"$work/summary.txt" || {
    cat "$work/summary.txt"
    tl_fail "topolens summary failed"
}
grep -E '^ +used: ' "$work/summary.txt" || true

tl_wavefront_metrics "$work/summary.txt" >"$work/wavefront.names"
[ -s "$work/wavefront.names" ] ||
    tl_fail "the report defines no \"Wavefront from\" metric (no grid?)"
latesender="$(tl_metric_total "$report" mpi_latesender "$work/latesender.csv")"
sum=0
i=0
while IFS= read -r metric; do
    i=$((i + 1))
    total="$(tl_metric_total "$report" "$metric" "$work/wavefront.$i.csv")"
    echo "  $metric: $total s"
    sum="$(awk -v a="$sum" -v b="$total" 'BEGIN { printf "%.9f", a + b }')"
done <"$work/wavefront.names"
share="$(awk -v s="$sum" -v l="$latesender" 'BEGIN { printf "%.4f", (l > 0 ? s / l : (s > 0)) }')"
echo "== $i wavefront metrics: $sum s of Late Sender's $latesender s (share $share, at most $max_share)"
awk -v l="$latesender" -v m="$min_late_sender" 'BEGIN { exit !(l >= m) }' ||
    tl_fail "Late Sender is $latesender s, less than the $min_late_sender s the run must show"
awk -v s="$sum" -v l="$latesender" -v f="$max_share" 'BEGIN { exit !(s <= f * l) }' ||
    tl_fail "the wavefront metrics hold $share of Late Sender, more than $max_share"
echo "PASS"
