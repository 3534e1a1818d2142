#!/usr/bin/env bash
# Traces autotune_api (a known tuning run through the topolens autotuner API) and checks
# that the trace gives back exactly what the tuner did, per rank: phases, codelet switches,
# the decision, every execution with its codelet and phase (trace_check tuned); and that
# OTF2's own reader sees the parameter records.
#
# usage: check_tuned.sh NAME NP
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

[ "$#" = 2 ] || tl_fail "usage: check_tuned.sh NAME NP"
name="$1" np="$2"
work="$(tl_workdir "$name")"

echo "== autotune_api on $np ranks"
rc=0
tl_mpirun "$np" TOPOLENS_TRACE_DIR="$work/trace" TOPOLENS_REPORT_PATH_FILE="$work/trace-path" -- \
    "$TL_BIN/autotune_api" --expect "$work/expected.txt" >"$work/stdout" 2>"$work/stderr" || rc=$?
cat "$work/stdout" "$work/stderr"
[ "$rc" = 0 ] || tl_fail "autotune_api exited with status $rc"
[ -s "$work/expected.txt" ] || tl_fail "autotune_api wrote no expect file"
trace="$(tl_reported_trace "$work/trace-path")"

echo "== trace_check tuned ($trace)"
"$TL_TRACE_CHECK" tuned "$work/expected.txt" "$trace" || tl_fail "trace_check found differences"

echo "== otf2-print"
"$TL_OTF2_PRINT" "$trace/traces.otf2" >"$work/otf2-print.txt" ||
    tl_fail "otf2-print cannot read the trace"
# One int parameter per switch and per decision, one string parameter per phase change.
ints="$(tl_count_records "$work/otf2-print.txt" PARAMETER_INT64)"
strings="$(tl_count_records "$work/otf2-print.txt" PARAMETER_STRING)"
want_ints="$(awk '$1 == "rank" && ($3 == "switch" || $3 == "decision") { n++ } END { print n + 0 }' \
    "$work/expected.txt")"
want_strings="$(awk '$1 == "rank" && $3 == "phase" { n++ } END { print n + 0 }' "$work/expected.txt")"
echo "otf2-print: $ints PARAMETER_INT64 (expected $want_ints), $strings PARAMETER_STRING" \
    "(expected $want_strings)"
[ "$ints" = "$want_ints" ] || tl_fail "otf2-print: $ints PARAMETER_INT64 records, expected $want_ints"
[ "$strings" = "$want_strings" ] ||
    tl_fail "otf2-print: $strings PARAMETER_STRING records, expected $want_strings"
echo "PASS"
