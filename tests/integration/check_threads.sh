#!/usr/bin/env bash
# Threads (tests/integration/thread_levels.cpp) traced at one thread level, LD_PRELOAD:
#   1. every MPI call of every thread is recorded: the exact number of events per location
#      (otf2-print), and the counts in the global definitions agree;
#      single/funneled: one location per process, the main thread doing every thread's part;
#      serialized/multiple: a location per calling thread, all in their process's group;
#   2. `topolens info` lists the locations of every process;
#      serialized/multiple: rank 0 says at MPI_Init that threads are recorded apart, and a
#      tuned operation defined on another thread than MPI_Init's is refused with one line
#      per process (and recorded nowhere: the event counts above);
#   3. a Late Sender injected on rank 0's thread 2 (500 ms in the middle iteration) is
#      found by `topolens analyze` in that iteration (user region "middle iteration") on
#      exactly the location of rank 1 that received thread 2's messages (its tag), at least
#      80% of the sleep, and every other location has less than 30% of it there
#      (oversubscribed threads wait for each other a little in every iteration).
#
# usage: check_threads.sh LEVEL PROGRAM
#   LEVEL: single, funneled, serialized, multiple, or sequential (MPI_THREAD_MULTIPLE, the
#   threads one after another: an ended thread's location goes to the next, so 2 per process)
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

[ "$#" = 2 ] || tl_fail "usage: check_threads.sh LEVEL PROGRAM"
level="$1" program="$2"
[ -n "${TL_TOPOLENS:-}" ] || tl_fail "TL_TOPOLENS is not set: the topolens program was not built"
np=2 threads=4 iterations=20 late_thread=2 late_ms=500
work="$(tl_workdir "threads.$level")"

# Events per location, from the thread_levels program's header comment and the wrappers:
# Enter+Leave per call; MpiSend / MpiRecv one each; MPI_Allreduce adds CollectiveBegin/End.
# Even iterations: Send (3) + Recv (3) + Allreduce (4); odd ones: Irecv (3) + Isend (3) +
# Waitall (4: IsendComplete, Irecv) + Allreduce (4); the middle one adds its region (2).
per_thread=$((10 * ((iterations + 1) / 2) + 14 * (iterations / 2) + 2))
# Init(_thread), Comm_dup, Comm_free, Finalize, and ProgramBegin/ProgramEnd around them.
main_thread=$((2 + 2 * threads + 2 * threads + 2 + 2))
case "$level" in
single | funneled)
    expected_locations=1
    expect_main=$((main_thread + threads * per_thread))
    ;;
serialized | multiple)
    expected_locations=$((threads + 1))
    expect_main=$main_thread
    ;;
sequential) # one thread after the other: all on the location of the first
    expected_locations=2
    expect_main=$main_thread
    ;;
*) tl_fail "unknown level $level" ;;
esac

echo "== thread_levels $level: $np ranks x $threads threads x $iterations iterations"
rc=0
timeout 100 "$TL_MPIEXEC" --allow-run-as-root --oversubscribe -np "$np" \
    -x LD_PRELOAD="$TL_MEASURE_LIB" -x TOPOLENS_TRACE_DIR="$work/trace" -x TOPOLENS_VERBOSE=1 \
    "$program" "$level" "$threads" "$iterations" "$late_thread" "$late_ms" \
    >"$work/stdout" 2>"$work/stderr" || rc=$?
cat "$work/stdout" "$work/stderr"
[ "$rc" = 0 ] || tl_fail "thread_levels exited with status $rc"
trace="$work/trace/traces.otf2"
[ -s "$trace" ] || tl_fail "no trace written"
case "$level" in
serialized | multiple | sequential)
    grep -q "each thread that calls MPI is recorded as its own location" "$work/stderr" ||
        tl_fail "no notice of the per-thread recording at MPI_Init"
    # A tuned operation defined on thread 1: said once per process, not recorded.
    n="$(grep -c "topolens_tuned_op_define on a thread other than the one that called MPI_Init" "$work/stderr" || true)"
    [ "$n" = "$np" ] || tl_fail "the tuned operation on another thread was reported $n times, expected $np (once per process)"
    ;;
esac

echo "== events per location (otf2-print)"
"$TL_OTF2_PRINT" "$trace" >"$work/events.txt" || tl_fail "otf2-print failed"
"$TL_OTF2_PRINT" -G "$trace" >"$work/defs.txt" || tl_fail "otf2-print -G failed"
# Event lines: "KIND  LOCATION  TIME  ..."; the kinds are upper case words.
awk '$1 ~ /^[A-Z_]+$/ && $2 ~ /^[0-9]+$/ && NF >= 3 { n[$2]++ } END { for (l in n) print l, n[l] }' \
    "$work/events.txt" | sort -n >"$work/counts.txt"
cat "$work/counts.txt"
# Definitions: LOCATION id Name: "..", Type: .., # Events: N, Group: "MPI Rank R" <R>
awk '$1 == "LOCATION" {
        match($0, /# Events: [0-9]+/); events = substr($0, RSTART + 10, RLENGTH - 10)
        match($0, /<[0-9]+>$/); group = substr($0, RSTART + 1, RLENGTH - 2)
        print $2, events, group }' "$work/defs.txt" | sort -n >"$work/defined.txt"
[ "$(wc -l <"$work/defined.txt")" = $((np * expected_locations)) ] ||
    tl_fail "expected $((np * expected_locations)) locations, the definitions have $(wc -l <"$work/defined.txt")"
while read -r id events group; do
    counted="$(awk -v id="$id" '$1 == id { print $2 }' "$work/counts.txt")"
    [ "${counted:-0}" = "$events" ] ||
        tl_fail "location $id: the definitions say $events events, the file holds ${counted:-0}"
    rank=$((id & 0xffffffff)) thread=$((id >> 32))
    [ "$group" = "$rank" ] || tl_fail "location $id is in group $group, not its process $rank"
    if [ "$thread" = 0 ]; then
        want=$expect_main
    elif [ "$level" = sequential ]; then
        want=$((threads * per_thread))
    else
        want=$per_thread
    fi
    [ "$events" = "$want" ] || tl_fail "location $id (rank $rank, thread $thread): $events events, expected $want"
done <"$work/defined.txt"
for ((r = 0; r < np; r++)); do
    n="$(awk -v r="$r" '$3 == r' "$work/defined.txt" | wc -l)"
    [ "$n" = "$expected_locations" ] || tl_fail "rank $r has $n locations, expected $expected_locations"
done
echo "every call recorded: $np x $expected_locations locations with the expected counts"

echo "== topolens info"
"$TL_TOPOLENS" info "$trace" >"$work/info.txt" || tl_fail "topolens info failed"
cat "$work/info.txt"
if [ "$expected_locations" -gt 1 ]; then
    for ((t = 1; t < expected_locations; t++)); do
        grep -q "Thread $t" "$work/info.txt" || tl_fail "topolens info does not list Thread $t"
    done
fi

echo "== topolens analyze: the Late Sender of rank 0's thread $late_thread"
"$TL_TOPOLENS" analyze "$trace" -o "$work/report.cubex" >"$work/analyze.txt" 2>&1 || {
    cat "$work/analyze.txt"
    tl_fail "topolens analyze failed"
}
cat "$work/analyze.txt"
grep -q "unmatched\|incomplete collective\|reached twice" "$work/analyze.txt" &&
    tl_fail "the analysis left messages or collectives unmatched"
"$TL_TOPOLENS" values "$work/report.cubex" --metric mpi_latesender --callpath "middle iteration" \
    --format csv >"$work/latesender.csv" || tl_fail "topolens values failed"
cat "$work/latesender.csv"
# The receiving location: the one of rank 1 whose MpiRecv records carry the late thread's
# tag (otf2-print: "MPI_RECV  LOCATION  TIME  Sender: 0, Communicator: .., Tag: T, ...").
receiver="$(awk -v tag="$late_thread" '$1 == "MPI_RECV" && ($2 % 4294967296) == 1 {
        if (match($0, /Tag: [0-9]+/) && substr($0, RSTART + 5, RLENGTH - 5) == tag) print $2 }' \
    "$work/events.txt" | sort -u)"
[ "$(echo "$receiver" | wc -w)" = 1 ] || tl_fail "thread $late_thread's receives on rank 1 are on locations '$receiver'"
# topolens values' location column is the location's index in the trace (rank, then
# OTF2 id order); the thread column its number within the process.
index="$(sort -k3,3n -k1,1n "$work/defined.txt" | awk -v id="$receiver" '$1 == id { print NR - 1 }')"
echo "late receiver: OTF2 location $receiver (location index $index)"
awk -v index_="$index" -v late="$late_ms" "$TL_AWK_CSV"'
    { sub(/\r$/, "") }
    NR == 1 { n = csv_split($0, head); for (i = 1; i <= n; i++) col[head[i]] = i; next }
    $0 != "" {
        csv_split($0, f)
        l = f[col["location"]]; v = f[col["value"]] * 1000
        if (l == index_) { found = 1; if (v < 0.8 * late) { printf "FAIL: location %s waited %.1f ms, expected about %d\n", l, v, late; bad = 1 } }
        else if (v >= 0.3 * late) { printf "FAIL: location %s has a Late Sender of %.1f ms\n", l, v; bad = 1 }
    }
    END { if (!found) { printf "FAIL: location %s has no Late Sender value\n", index_; bad = 1 } exit bad }
' "$work/latesender.csv" || tl_fail "the Late Sender is not where it was injected"
echo "PASS threads.$level"
