#!/usr/bin/env bash
# One scenario of the codelet audit: traces samples/autotune_halo on NP ranks with the given
# options (synthetic codelet costs, varying by 10%, make codelet 3 truly best, 4 second),
# analyzes the trace, prints `topolens audit` in text, and checks the audit with audit_check against the
# scenario's expectations. Also checks that auditing the trace directly and auditing the
# report give the same JSON, and that the sample's own winner is the tuner's choice.
#
# usage: check_audit.sh NAME NP [audit_check expectations ...] -- [SAMPLE OPTIONS ...]
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

tl_expectations_then_options check_audit.sh "$@"
set -- "${options[@]}"
work="$(tl_workdir "$name")"
[ -n "${TL_TOPOLENS:-}" ] || tl_fail "TL_TOPOLENS is not set (topolens not built)"
[ -n "${TL_AUDIT_CHECK:-}" ] || tl_fail "TL_AUDIT_CHECK is not set"
costs="$TL_AUDIT_COSTS" block="$TL_AUDIT_BLOCK" jitter="$TL_AUDIT_JITTER" # common.sh

echo "== autotune_halo on $np ranks: --block $block --codelet-costs $costs --cost-jitter $jitter $*"
rc=0
tl_mpirun "$np" TOPOLENS_TRACE_DIR="$work/trace" TOPOLENS_REPORT_PATH_FILE="$work/trace-path" -- \
    "$TL_BIN/autotune_halo" --block "$block" --codelet-costs "$costs" --cost-jitter "$jitter" "$@" >"$work/stdout" 2>"$work/stderr" || rc=$?
cat "$work/stdout" "$work/stderr"
[ "$rc" = 0 ] || tl_fail "autotune_halo exited with status $rc"
trace="$(tl_reported_trace "$work/trace-path")"
sample_winner="$(awk '$1 == "winner:" { print $2 }' "$work/stdout")"
[ -n "$sample_winner" ] || tl_fail "autotune_halo printed no winner"

"$TL_TOPOLENS" analyze "$trace" -o "$work/report.cubex" --quiet || tl_fail "analyze failed"
echo "== topolens audit report.cubex"
"$TL_TOPOLENS" audit "$work/report.cubex" | tee "$work/audit.txt" ||
    tl_fail "audit of the report failed"
grep -q "^halo3d: " "$work/audit.txt" || tl_fail "the audit names no operation halo3d"

"$TL_TOPOLENS" audit "$work/report.cubex" --format json >"$work/report.json" ||
    tl_fail "audit --format json of the report failed"
"$TL_TOPOLENS" audit "$trace" --format json >"$work/trace.json" ||
    tl_fail "audit --format json of the trace failed"
cmp -s "$work/report.json" "$work/trace.json" ||
    tl_fail "auditing the trace and auditing its report give different results"

echo "== audit_check (sample's winner: $sample_winner)"
"$TL_AUDIT_CHECK" "$work/report.cubex" --tuner "$sample_winner" "${expectations[@]}" ||
    tl_fail "the audit does not meet the scenario's expectations"
echo "PASS"
