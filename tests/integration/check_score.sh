#!/usr/bin/env bash
# `topolens score` on a sample traced under mpirun: its estimate of the trace's size must
# equal the real event files (the sum of traces/*.evt) within 5%, counted from the trace and,
# with --report, estimated from the visits of the trace's report; a filter naming MPI
# functions removes nothing (MPI is never filtered).
#
# usage: check_score.sh [--report] [--env VAR=VALUE] NAME NP PROGRAM [ARGS ...]
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

[ -n "${TL_TOPOLENS:-}" ] || tl_fail "TL_TOPOLENS is not set (topolens not built)"
report=0
envs=()
while [ "$#" -gt 0 ]; do
    case "$1" in
    --report) report=1; shift ;;
    --env) envs+=("$2"); shift 2 ;;
    *) break ;;
    esac
done
[ "$#" -ge 3 ] || tl_fail "usage: check_score.sh [--report] [--env VAR=VALUE] NAME NP PROGRAM [ARGS ...]"
name="$1" np="$2" program="$3"
shift 3
work="$(tl_workdir "score.$name")"

echo "== $program on $np ranks"
tl_mpirun "$np" LD_PRELOAD="$TL_MEASURE_LIB" TOPOLENS_TRACE_DIR="$work/trace" ${envs[@]+"${envs[@]}"} -- \
    "$TL_BIN/$program" "$@" >"$work/run.txt" 2>&1 || { cat "$work/run.txt"; tl_fail "$program failed"; }
real="$(stat -c %s "$work"/trace/traces/*.evt | awk '{ s += $1 } END { print s + 0 }')"
[ "$real" -gt 0 ] || tl_fail "no event files in $work/trace/traces"

# The number before "bytes in all" on the first line.
estimate() {
    sed -n '1s/.* event files of \([0-9,]*\) bytes in all.*/\1/p' "$1" | tr -d ,
}
# Within 5% of the real size: check NAME FILE
check() {
    local e
    e="$(estimate "$2")"
    [ -n "$e" ] || { cat "$2"; tl_fail "$1: no estimate in the output"; }
    awk -v e="$e" -v r="$real" 'BEGIN { exit !(e >= 0.95 * r && e <= 1.05 * r) }' ||
        { cat "$2"; tl_fail "$1: estimate $e bytes, the event files hold $real (not within 5%)"; }
    echo "PASS: $1: estimate $e bytes, event files $real"
}

printf 'SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE MPI_*\nSCOREP_REGION_NAMES_END\n' >"$work/mpi.filt"
"$TL_TOPOLENS" score "$work/trace" --filter "$work/mpi.filt" \
    --suggest-filter "$work/suggested.filt" >"$work/score.txt" || tl_fail "topolens score failed"
head -n 4 "$work/score.txt"
check "from the trace" "$work/score.txt"
shown="$(sed -n 's/.*event files (\*\.evt): \([0-9,]*\) bytes.*/\1/p' "$work/score.txt" | tr -d ,)"
[ "$shown" = "$real" ] || tl_fail "score shows the event files as '$shown' bytes, not $real"
grep -q "^+ .*MPI_" "$work/score.txt" && tl_fail "a filter removed an MPI function"
grep -q ": 0 of [0-9]* regions removed, saving 0 bytes" "$work/score.txt" ||
    tl_fail "a filter of MPI functions saved something"
grep -q "^SCOREP_REGION_NAMES_BEGIN" "$work/suggested.filt" || tl_fail "no suggested filter written"

if [ "$report" = 1 ]; then
    "$TL_TOPOLENS" analyze "$work/trace" -o "$work/report.cubex" --quiet >/dev/null ||
        tl_fail "topolens analyze failed"
    "$TL_TOPOLENS" score "$work/report.cubex" >"$work/score_report.txt" ||
        tl_fail "topolens score of the report failed"
    check "from the report's visits" "$work/score_report.txt"
fi
