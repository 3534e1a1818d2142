#!/usr/bin/env bash
# Traces a sample program and checks the trace against the program's --expect file:
# trace_check (our reader: ranks, per-rank counts, topology, optionally buffer flushes)
# and otf2-print (OTF2's own reader: topology definitions and MPI records present,
# message totals equal).
#
# usage: check_sample.sh [--preload] [--min-flushes N] [--env VAR=VALUE]...
#                        NAME NP PROGRAM [PROGRAM-ARGS...]
#   --preload      trace by LD_PRELOAD of libtopolens-measure.so (else the program must
#                  be linked against it)
#   --min-flushes  require at least N BufferFlush events
#   --env          extra environment for every rank
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

preload=0
min_flushes=0
extra_env=()
while [ "$#" -gt 0 ]; do
    case "$1" in
    --preload) preload=1 ;;
    --min-flushes) min_flushes="$2"; shift ;;
    --env) extra_env+=("$2"); shift ;;
    *) break ;;
    esac
    shift
done
[ "$#" -ge 3 ] || tl_fail "usage: check_sample.sh [options] NAME NP PROGRAM [ARGS...]"
name="$1" np="$2" program="$3"
shift 3

work="$(tl_workdir "$name")"
env=(TOPOLENS_TRACE_DIR="$work/trace" TOPOLENS_REPORT_PATH_FILE="$work/trace-path"
     "${extra_env[@]}")
[ "$preload" = 1 ] && env+=(LD_PRELOAD="$TL_MEASURE_LIB")

echo "== $program $* on $np ranks ($([ "$preload" = 1 ] && echo LD_PRELOAD || echo linked))"
rc=0
tl_mpirun "$np" "${env[@]}" -- "$TL_BIN/$program" "$@" --expect "$work/expected.txt" \
    >"$work/stdout" 2>"$work/stderr" || rc=$?
cat "$work/stdout" "$work/stderr"
[ "$rc" = 0 ] || tl_fail "$program exited with status $rc"
[ -s "$work/expected.txt" ] || tl_fail "$program wrote no expect file"
trace="$(tl_reported_trace "$work/trace-path")"

echo "== trace_check counts ($trace)"
check_args=(counts "$work/expected.txt" "$trace")
[ "$min_flushes" -gt 0 ] && check_args+=(--min-flushes "$min_flushes")
"$TL_TRACE_CHECK" "${check_args[@]}" || tl_fail "trace_check found differences"

echo "== otf2-print -A"
"$TL_OTF2_PRINT" -A "$trace/traces.otf2" >"$work/otf2-print.txt" ||
    tl_fail "otf2-print cannot read the trace"
topology="$(awk '$1 == "topology" { $1 = ""; sub(/^ /, ""); print }' "$work/expected.txt")"
ranks="$(awk '$1 == "ranks" { print $2 }' "$work/expected.txt")"
if [ "$topology" != none ]; then
    [ "$(tl_count_records "$work/otf2-print.txt" CART_TOPOLOGY)" -ge 1 ] ||
        tl_fail "otf2-print shows no CART_TOPOLOGY definition"
    coords="$(tl_count_records "$work/otf2-print.txt" CART_COORDINATE)"
    [ "$coords" = "$ranks" ] ||
        tl_fail "otf2-print shows $coords CART_COORDINATE definitions, expected $ranks"
fi
sends=$(($(tl_count_records "$work/otf2-print.txt" MPI_SEND) +
    $(tl_count_records "$work/otf2-print.txt" MPI_ISEND)))
recvs=$(($(tl_count_records "$work/otf2-print.txt" MPI_RECV) +
    $(tl_count_records "$work/otf2-print.txt" MPI_IRECV)))
colls="$(tl_count_records "$work/otf2-print.txt" MPI_COLLECTIVE_END)"
want_sends="$(tl_expect_sum "$work/expected.txt" sends)"
want_recvs="$(tl_expect_sum "$work/expected.txt" recvs)"
echo "otf2-print: $sends sends (expected $want_sends), $recvs receives (expected $want_recvs)," \
    "$colls collective ends"
[ "$sends" = "$want_sends" ] || tl_fail "otf2-print: $sends send records, expected $want_sends"
[ "$recvs" = "$want_recvs" ] || tl_fail "otf2-print: $recvs receive records, expected $want_recvs"
[ "$colls" -ge "$(tl_expect_sum "$work/expected.txt" collectives)" ] ||
    tl_fail "otf2-print: too few MPI_COLLECTIVE_END records ($colls)"
echo "PASS"
