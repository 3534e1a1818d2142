#!/usr/bin/env bash
# A bad measurement setting must never break the program: it still runs to the end and
# exits 0. A bad setting is reported exactly once, by rank 0, naming the variable (or the
# unwritable directory).
#
# usage: check_bad_env.sh NAME NP VAR=VALUE [--message TEXT] [--trace-complete]
#   --message TEXT    the output must hold exactly one line with TEXT, on rank 0's stderr
#   --trace-complete  the trace must still be complete (a fallback to the default);
#                     checked with trace_check against the program's expect file
#   --no-trace        measurement must be off: no archive written
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

[ "$#" -ge 3 ] || tl_fail "usage: check_bad_env.sh NAME NP VAR=VALUE [options]"
name="$1" np="$2" setting="$3"
shift 3
message_var=""
trace_complete=0
no_trace=0
while [ "$#" -gt 0 ]; do
    case "$1" in
    --message) message_var="$2"; shift ;;
    --trace-complete) trace_complete=1 ;;
    --no-trace) no_trace=1 ;;
    *) tl_fail "unknown option $1" ;;
    esac
    shift
done

work="$(tl_workdir "$name")"
env=(LD_PRELOAD="$TL_MEASURE_LIB" TOPOLENS_REPORT_PATH_FILE="$work/trace-path")
# The setting under test comes last so it wins over the defaults above.
case "$setting" in
TOPOLENS_TRACE_DIR=*) ;;
*) env+=(TOPOLENS_TRACE_DIR="$work/trace") ;;
esac
env+=("$setting")

echo "== wavefront2d on $np ranks with $setting"
rc=0
# --tag-output prefixes every line with [job,rank]<stream>: to tell who printed it.
tl_mpirun "$np" "${env[@]}" -- --tag-output "$TL_BIN/wavefront2d" --expect "$work/expected.txt" \
    >"$work/stdout" 2>"$work/stderr" || rc=$?
cat "$work/stdout" "$work/stderr"
[ "$rc" = 0 ] || tl_fail "wavefront2d exited with status $rc under $setting"
grep -q "wavefront2d: .* grid" "$work/stdout" || tl_fail "wavefront2d did not run to its end"

if [ -n "$message_var" ]; then
    # stdout and stderr both: a message must be on stderr, not lost on stdout
    mentions="$(cat "$work/stdout" "$work/stderr" | grep -cF -- "$message_var" || true)"
    [ "$mentions" = 1 ] ||
        tl_fail "expected exactly one message naming $message_var, got $mentions"
    grep -F -- "$message_var" "$work/stderr" | grep -Eq '^\[[0-9]+,0\]<stderr>:' ||
        tl_fail "the message naming $message_var is not on rank 0's stderr"
fi

if [ "$trace_complete" = 1 ]; then
    trace="$(tl_reported_trace "$work/trace-path")"
    "$TL_TRACE_CHECK" counts "$work/expected.txt" "$trace" ||
        tl_fail "trace incomplete under $setting"
fi
if [ "$no_trace" = 1 ]; then
    [ ! -e "$work/trace" ] || tl_fail "measurement should be off, yet $work/trace was written"
fi
echo "PASS"
