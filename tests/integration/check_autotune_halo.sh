#!/usr/bin/env bash
# Traces samples/autotune_halo (ADCL-like tuner of a 3D halo exchange) on NP ranks, linked
# against the measurement library, and checks with `topolens info` that the tuned operation
# halo3d is recorded with all its codelets and phases, that one decision is recorded on
# every location, and that it is the winner the sample itself printed.
#
# usage: check_autotune_halo.sh NAME NP [SAMPLE OPTIONS ...]
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

[ "$#" -ge 2 ] || tl_fail "usage: check_autotune_halo.sh NAME NP [SAMPLE OPTIONS ...]"
name="$1" np="$2"
shift 2
work="$(tl_workdir "$name")"
[ -n "${TL_TOPOLENS:-}" ] || tl_fail "TL_TOPOLENS is not set (topolens not built)"

echo "== autotune_halo on $np ranks: $*"
rc=0
tl_mpirun "$np" TOPOLENS_TRACE_DIR="$work/trace" TOPOLENS_REPORT_PATH_FILE="$work/trace-path" -- \
    "$TL_BIN/autotune_halo" "$@" >"$work/stdout" 2>"$work/stderr" || rc=$?
cat "$work/stdout" "$work/stderr"
[ "$rc" = 0 ] || tl_fail "autotune_halo exited with status $rc"
trace="$(tl_reported_trace "$work/trace-path")"

# The sample's own view: "winner: INDEX NAME" and the codelet table.
winner="$(awk '$1 == "winner:" { print $2 " (" $3 ")" }' "$work/stdout")"
[ -n "$winner" ] || tl_fail "autotune_halo printed no winner"
codelets="$(awk '/^codelet / { t = 1; next } t && $1 ~ /^[0-9]+$/ { printf "%s%s: %s", s, $1, $2; s = ", " }
                 $1 == "winner:" { t = 0 }' "$work/stdout")"
[ -n "$codelets" ] || tl_fail "autotune_halo printed no codelet table"
n="$(awk -F', ' '{ print NF }' <<<"$codelets")"
[ "$n" -ge 8 ] || tl_fail "only $n codelets, expected at least 8"

echo "== topolens info $trace"
"$TL_TOPOLENS" info "$trace" >"$work/info.txt" || tl_fail "topolens info failed"
sed -n '/^tuned ops/,/^events/p' "$work/info.txt"

# The rows of the halo3d block (indented under its name), by their first word.
row() {
    awk -v key="$1" '/^tuned ops/ { t = 1 } /^events/ { t = 0 }
        t && $1 == "halo3d" { op = 1; next }
        op && $1 == key { sub(/^ *[a-z]+ +/, ""); print; exit }' "$work/info.txt"
}
grep -q '^tuned ops: *1$' "$work/info.txt" || tl_fail "info does not list exactly one tuned op"
got_codelets="$(row codelets)"
echo "codelets:  info '$got_codelets'"
echo "           sample '$codelets'"
[ "$got_codelets" = "$codelets" ] || tl_fail "codelets differ from the sample's table"
phases="$(row phases)"
[ "$phases" = "search, decision, production" ] || tl_fail "phases are '$phases'"
decision="$(row decision)"
echo "decision:  info '$decision', sample '$winner'"
[ "$decision" = "$winner on all locations" ] ||
    tl_fail "decision '$decision' is not the sample's winner '$winner' on all locations"
echo "PASS"
