#!/usr/bin/env bash
# Profile mode against the trace analysis (docs/profile.md): runs a sample with
# TOPOLENS_MODE=trace,profile, analyzes the trace, and compares the profile with the report
# per call path and location with profile_check (visits, message counts and bytes exactly,
# times within the clock's resolution). `topolens summary` and `topolens values` must read
# the profile, and its topology must be the trace's.
#
# usage: check_profile.sh [--require METRIC]... [--self-test] NAME NP PROGRAM [ARGS...]
#   --require   the metric must be non-zero in the profile (the run moved such data)
#   --self-test the profile compared with the report of another run (one more iteration)
#               must differ: profile_check can fail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

required=()
self_test=0
while [ "$#" -gt 0 ]; do
    case "$1" in
    --require) required+=(--require "$2"); shift 2 ;;
    --self-test) self_test=1; shift ;;
    *) break ;;
    esac
done
[ "$#" -ge 3 ] || tl_fail "usage: check_profile.sh [--require METRIC]... [--self-test] NAME NP PROGRAM [ARGS...]"
[ -n "${TL_TOPOLENS:-}" ] || tl_fail "TL_TOPOLENS is not set: the topolens program was not built"
[ -n "${TL_PROFILE_CHECK:-}" ] || tl_fail "TL_PROFILE_CHECK is not set"
name="$1" np="$2" program="$3"
shift 3
work="$(tl_workdir "$name")"

run() { # run DIR ARGS...: the program traced and profiled into DIR
    local dir="$1"
    shift
    tl_mpirun "$np" LD_PRELOAD="$TL_MEASURE_LIB" TOPOLENS_MODE=trace,profile \
        TOPOLENS_TRACE_DIR="$dir" -- "$TL_BIN/$program" "$@" >"$dir.out" 2>&1 ||
        { cat "$dir.out"; tl_fail "$program exited with an error"; }
    [ -f "$dir/profile.cubex" ] || { cat "$dir.out"; tl_fail "no profile in $dir"; }
    [ -f "$dir/traces.otf2" ] || tl_fail "no trace beside the profile in $dir"
}

echo "== $program $* on $np ranks, trace and profile"
run "$work/run" "$@"
"$TL_TOPOLENS" analyze "$work/run" -o "$work/report.cubex" >/dev/null 2>&1 ||
    tl_fail "topolens analyze failed"
"$TL_PROFILE_CHECK" "$work/run/profile.cubex" "$work/report.cubex" "${required[@]}" ||
    tl_fail "the profile differs from the trace analysis"

echo "== topolens summary and values on the profile"
"$TL_TOPOLENS" summary "$work/run/profile.cubex" >"$work/summary.txt" ||
    tl_fail "topolens summary cannot read the profile"
for words in "Visits" "Bytes transferred" "Point-to-point"; do
    grep -q "$words" "$work/summary.txt" || tl_fail "the summary of the profile lacks $words"
done
"$TL_TOPOLENS" values "$work/run/profile.cubex" --metric visits --format csv >"$work/visits.csv" ||
    tl_fail "topolens values cannot read the profile"
rows=$(($(wc -l <"$work/visits.csv") - 1))
[ "$rows" -ge "$np" ] || tl_fail "topolens values: $rows locations, expected $np or more"
# The trace's locations and topology, with the same coordinates, in the profile.
"$TL_TOPOLENS" values "$work/report.cubex" --metric visits --format csv |
    cut -d, -f2,3,5 >"$work/coords.trace"
cut -d, -f2,3,5 "$work/visits.csv" >"$work/coords.profile"
diff "$work/coords.trace" "$work/coords.profile" ||
    tl_fail "the profile's locations or coordinates differ from the trace's"

if [ "$self_test" = 1 ]; then
    echo "== self-test: the report of another run must differ"
    run "$work/other" "$@" --iterations 21
    "$TL_TOPOLENS" analyze "$work/other" -o "$work/other.cubex" >/dev/null 2>&1 ||
        tl_fail "topolens analyze failed"
    if "$TL_PROFILE_CHECK" "$work/run/profile.cubex" "$work/other.cubex" >"$work/self.txt"; then
        cat "$work/self.txt"
        tl_fail "profile_check found no difference to another run"
    fi
    grep -q "DIFFERENT: " "$work/self.txt" || tl_fail "profile_check named no difference"
fi
echo "PASS: $name"
