#!/usr/bin/env bash
# Traces samples/halo2d (LD_PRELOAD) on a non-periodic grid, analyzes it and checks the
# message statistics per process, read back through `topolens values --format csv`
# (docs/bytes-and-counts.md). Counts do not depend on timing, so every check is exact:
#   - comms_send, comms_recv: iterations x the process's grid neighbours (2 to 4, from the
#     coordinates the report gives it), at MPI_Sendrecv (sendrecv exchange) or at MPI_Isend
#     and MPI_Waitall (nonblocking);
#   - bytes_sent, bytes_rcvd: that x 128 (16 doubles per face);
#   - comms_cxch and bytes_cout, bytes_cin at MPI_Allreduce: iterations, iterations x 8;
#   - no zero-byte messages (syncs_p2p 0);
#   - `topolens summary` lists the three trees.
# A tampered expectation (one neighbour more) must fail the comparison.
#
# usage: check_message_statistics.sh NAME NP DIMS(AxB) EXCHANGE ITERATIONS
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

[ "$#" = 5 ] || tl_fail "usage: check_message_statistics.sh NAME NP DIMS EXCHANGE ITERATIONS"
[ -n "${TL_TOPOLENS:-}" ] || tl_fail "TL_TOPOLENS is not set: the topolens program was not built"
name="$1" np="$2" dims="$3" exchange="$4" iterations="$5"
nx="${dims%x*}" ny="${dims#*x}"
face_bytes=128 value_bytes=8

work="$(tl_workdir "$name")"
report="$work/report.cubex"

echo "== halo2d --dims $dims --exchange $exchange on $np ranks (LD_PRELOAD)"
rc=0
tl_mpirun "$np" LD_PRELOAD="$TL_MEASURE_LIB" TOPOLENS_TRACE_DIR="$work/trace" \
    TOPOLENS_REPORT_PATH_FILE="$work/trace-path" -- \
    "$TL_BIN/halo2d" --dims "$dims" --exchange "$exchange" --iterations "$iterations" \
    --work-us 200 >"$work/stdout" 2>"$work/stderr" || rc=$?
cat "$work/stdout" "$work/stderr"
[ "$rc" = 0 ] || tl_fail "halo2d exited with status $rc"
trace="$(tl_reported_trace "$work/trace-path")"

echo "== topolens analyze $trace"
"$TL_TOPOLENS" analyze "$trace" -o "$report" --quiet || tl_fail "topolens analyze failed"
"$TL_TOPOLENS" summary "$report" >"$work/summary.txt" || tl_fail "topolens summary failed"
for tree in Synchronizations Communications "Bytes transferred"; do
    grep -q "^  $tree " "$work/summary.txt" || {
        cat "$work/summary.txt"
        tl_fail "topolens summary does not list $tree"
    }
done

# values METRIC [CALLPATH]: "rank coords value" lines (coords "x y").
values() {
    local csv="$work/values.$1.${2:-all}.csv"
    "$TL_TOPOLENS" values "$report" --metric "$1" ${2:+--callpath "$2"} --format csv >"$csv" ||
        tl_fail "topolens values --metric $1 ${2:+--callpath $2} failed"
    awk "$TL_AWK_CSV"'
        NR == 1 { n = csv_split($0, head); for (i = 1; i <= n; i++) col[head[i]] = i; next }
        $0 != "" { csv_split($0, f); print f[col["rank"]], f[col["coords"]], f[col["value"]] }
    ' "$csv"
}

# The measured lines of every check, "metric@callpath rank value", and the expected ones.
measured="$work/measured.txt" expected="$work/expected.txt"
: >"$measured"
: >"$expected"
if [ "$exchange" = sendrecv ]; then
    send_path=MPI_Sendrecv recv_path=MPI_Sendrecv
else
    send_path=MPI_Isend recv_path=MPI_Waitall
fi
for check in "comms_send $send_path" "comms_recv $recv_path" "bytes_sent $send_path" \
    "bytes_rcvd $recv_path"; do
    read -r metric path <<<"$check"
    unit=$([ "${metric%%_*}" = bytes ] && echo "$face_bytes" || echo 1)
    values "$metric" "$path" | awk -v m="$metric@$path" '{ print m, $1, $NF }' >>"$measured"
    # neighbours on the non-periodic nx x ny grid, from the report's coordinates
    values "$metric" "$path" | awk -v m="$metric@$path" -v nx="$nx" -v ny="$ny" \
        -v it="$iterations" -v unit="$unit" '
        NF != 4 { printf "FAIL: rank %s has no grid coordinates\n", $1 > "/dev/stderr"; exit 1 }
        { x = $2; y = $3; n = (x > 0) + (x < nx - 1) + (y > 0) + (y < ny - 1)
          print m, $1, it * n * unit }' >>"$expected" || tl_fail "the report has no grid"
done
for metric in comms_cxch bytes_cout bytes_cin; do
    unit=$([ "$metric" = comms_cxch ] && echo 1 || echo "$value_bytes")
    values "$metric" MPI_Allreduce | awk -v m="$metric@MPI_Allreduce" '{ print m, $1, $NF }' \
        >>"$measured"
    for ((r = 0; r < np; r++)); do echo "$metric@MPI_Allreduce $r $((iterations * unit))"; done \
        >>"$expected"
done
values syncs_p2p | awk '{ print "syncs_p2p", $1, $NF }' >>"$measured"
for ((r = 0; r < np; r++)); do echo "syncs_p2p $r 0"; done >>"$expected"

# compare EXPECTED MEASURED: exact, every expected line measured once, nothing else.
compare() {
    awk 'FNR == NR { want[$1 " " $2] = $3; order[++n] = $1 " " $2; next }
         { key = $1 " " $2; if (!(key in want)) { print "FAIL: unexpected " key; bad++ }
           got[key] = $3 }
         END {
             for (i = 1; i <= n; i++) {
                 key = order[i]
                 ok = (key in got) && got[key] + 0 == want[key] + 0
                 printf "%-28s %4s expected %8s measured %8s  %s\n", substr(key, 1, index(key, " ") - 1),
                        substr(key, index(key, " ") + 1), want[key], (key in got) ? got[key] : "-",
                        ok ? "ok" : "FAIL"
                 if (!ok) bad++
             }
             if (bad) { printf "%d difference(s)\n", bad; exit 1 }
         }' "$1" "$2"
}

echo "== message statistics per rank (exact)"
compare "$expected" "$measured" || tl_fail "the message statistics differ from the program's"

echo "== self-test: a tampered expectation must fail"
awk '$1 ~ /^comms_send/ && !done { $3 = $3 + '"$iterations"'; done = 1 } { print }' \
    "$expected" >"$work/tampered.txt"
if compare "$work/tampered.txt" "$measured" >"$work/tampered.log"; then
    tl_fail "the comparison passed with one neighbour too many"
fi
echo "detected: $(grep -m1 FAIL "$work/tampered.log")"
echo "PASS"
