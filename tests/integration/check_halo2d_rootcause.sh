#!/usr/bin/env bash
# Root causes of a halo exchange with one slow process (docs/root-causes.md): samples/halo2d
# on a 4x3 grid with blocking MPI_Sendrecv, rank S computing slow-us longer per iteration.
# Its neighbours wait for it, and processes two steps away wait for those neighbours (which
# were waiting themselves): the delay costs must put that waiting back on S.
#   - `topolens summary` ends with "Root causes" and names S first, at its coordinates;
#   - S's delay costs (short and long term) explain at least MIN-SHARE (default 0.8) of all
#     the waiting (Late Sender, Late Receiver, Wait at NxN, Wait at Barrier);
#   - the wait edges (`values --edges`) lead from S: every edge holding at least 1% of the
#     waiting starts at S or at a process S's waits reached (along the edges).
# Measured with --compute sleep beside other jobs: the neighbours' own scheduling delays
# stay far below the injected 150 ms per iteration (check_halo2d.sh's notes).
#
# usage: check_halo2d_rootcause.sh [--min-share F] NAME NP SAMPLE-ARGS... (with --slow-rank)
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
source "$(dirname "${BASH_SOURCE[0]}")/grid_values.sh"

min_share=0.8
if [ "${1:-}" = --min-share ]; then
    min_share="$2"
    shift 2
fi
[ "$#" -ge 2 ] || tl_fail "usage: check_halo2d_rootcause.sh [--min-share F] NAME NP SAMPLE-ARGS..."
[ -n "${TL_TOPOLENS:-}" ] || tl_fail "TL_TOPOLENS is not set: the topolens program was not built"
name="$1" np="$2"
shift 2
work="$(tl_workdir "$name")"
expect="$work/expected.txt" report="$work/report.cubex"

echo "== halo2d $* on $np ranks (LD_PRELOAD)"
rc=0
tl_mpirun "$np" LD_PRELOAD="$TL_MEASURE_LIB" TOPOLENS_TRACE_DIR="$work/trace" \
    TOPOLENS_REPORT_PATH_FILE="$work/trace-path" -- \
    "$TL_BIN/halo2d" "$@" --expect "$expect" >"$work/stdout" 2>"$work/stderr" || rc=$?
cat "$work/stdout" "$work/stderr"
[ "$rc" = 0 ] || tl_fail "halo2d exited with status $rc"
trace="$(tl_reported_trace "$work/trace-path")"
slow="$(awk '$1 == "slow_rank" { print $2 }' "$expect")"
[[ "$slow" =~ ^[0-9]+$ ]] || tl_fail "the run has no slow rank (--slow-rank)"
coords="$(awk -v s="$slow" '$1 == "rank" && $2 == s { for (i = 3; i < NF; i++) if ($i == "coords") print $(i + 1), $(i + 2) }' "$expect")"

echo "== topolens analyze, summary"
"$TL_TOPOLENS" analyze "$trace" -o "$report" 2>"$work/analyze.err" ||
    { cat "$work/analyze.err"; tl_fail "topolens analyze failed"; }
"$TL_TOPOLENS" summary "$report" >"$work/summary.txt" || tl_fail "topolens summary failed"
sed -n '/^Root causes/,$p' "$work/summary.txt"
grep -q '^Root causes' "$work/summary.txt" || tl_fail "summary has no root causes"
[ "$(tail -n +"$(grep -n '^Root causes' "$work/summary.txt" | cut -d: -f1)" "$work/summary.txt" |
    grep -c '^[A-Z]')" = 1 ] || tl_fail "summary does not end with the root causes"
first="$(awk '/^Root causes/ { on = 1 } on && $1 == "location" && $2 == "rank" { getline; print $1 "|" $3 " " $4; exit }' "$work/summary.txt")"
[ "$first" = "$slow|$coords" ] ||
    tl_fail "summary names '$first' (location|coords) first, expected the slow rank '$slow|$coords'"

echo "== delay costs against the waiting"
wait=0
for metric in mpi_latesender mpi_latereceiver mpi_wait_nxn mpi_barrier_wait; do
    t="$(tl_metric_total "$report" "$metric" "$work/$metric.csv")"
    wait="$(awk -v a="$wait" -v b="$t" 'BEGIN { printf "%.9f", a + b }')"
done
"$TL_TOPOLENS" values "$report" --metric delay --format csv >"$work/delay.csv" ||
    tl_fail "topolens values --metric delay failed"
tl_values_table "$work/delay.csv" >"$work/delay.txt" || tl_fail "cannot read the delay costs"
awk -v s="$slow" -v wait="$wait" -v min="$min_share" '
    $1 == s { mine = $2 }
    { all += $2 }
    END {
        printf "waiting %.6f s; delay costs %.6f s, of which rank %d %.6f s (%.1f%% of the waiting)\n",
               wait, all, s, mine, 100 * mine / wait
        if (wait <= 0) { print "FAIL: no waiting at all"; exit 1 }
        if (mine < min * wait) { printf "FAIL: rank %d explains less than %s of the waiting\n", s, min; exit 1 }
    }' "$work/delay.txt" || tl_fail "the slow rank does not explain the waiting"

echo "== wait edges"
"$TL_TOPOLENS" values "$report" --edges >"$work/edges.csv" || tl_fail "topolens values --edges failed"
head -1 "$work/edges.csv" | grep -q '^kind,waiting,waiting_rank,waiting_coords,causing,' ||
    tl_fail "values --edges: unexpected header"
awk -F, -v s="$slow" -v wait="$wait" '
    NR == 1 { next }
    { n++; waiting[n] = $2; causing[n] = $5; seconds[n] = $8; victims[$5] = victims[$5] " " $2 }
    END {
        reached[s] = 1; queue[1] = s; q = 1
        for (k = 1; k <= q; k++) {
            m = split(victims[queue[k]], v, " ")
            for (i = 1; i <= m; i++) if (!(v[i] in reached)) { reached[v[i]] = 1; queue[++q] = v[i] }
        }
        for (i = 1; i <= n; i++) {
            if (seconds[i] < 0.01 * wait) continue
            big++
            if (!(causing[i] in reached)) {
                printf "FAIL: %.6f s of waiting at %d caused by %d, which the slow rank did not reach\n",
                       seconds[i], waiting[i], causing[i]
                bad++
            }
        }
        printf "%d edges, %d with at least 1%% of the waiting, all from rank %d or processes it reached: %s\n",
               n, big, s, bad ? "no" : "yes"
        exit bad ? 1 : 0
    }' "$work/edges.csv" || tl_fail "wait edges that do not lead from the slow rank"
echo "OK"
