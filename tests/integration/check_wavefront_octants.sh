#!/usr/bin/env bash
# Traces samples/wavefront2d as a discrete-ordinates code runs it (two octants per corner,
# several blocks in flight, no barrier between octants) on a PX x PY grid (LD_PRELOAD),
# analyzes it and checks the four "Wavefront from X" metrics, read back per process through
# `topolens values --format csv`:
#   - each corner's metric is there with a non-zero total;
#   - the corner a direction starts from has 0 (its blocks only send);
#   - the corner it reaches last waits at least the mean of the direction's other
#     processes that are not its origin (several waves are in flight, so neighbours of the
#     far corner may come close; the far corner is never below the average).
# It prints Late Sender, Wrong Order, the four metrics' total and its share of Late Sender,
# and each direction's far-corner value (the figures of issue 21's closing note).
#
# usage: check_wavefront_octants.sh NAME PX PY [SAMPLE-ARGS...]
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
source "$(dirname "${BASH_SOURCE[0]}")/grid_values.sh"

[ "$#" -ge 3 ] || tl_fail "usage: check_wavefront_octants.sh NAME PX PY [SAMPLE-ARGS...]"
[ -n "${TL_TOPOLENS:-}" ] || tl_fail "TL_TOPOLENS is not set: the topolens program was not built"
name="$1" px="$2" py="$3"
shift 3
np=$((px * py))
work="$(tl_workdir "$name")"
report="$work/report.cubex"

echo "== wavefront2d --px $px --py $py $* on $np ranks (LD_PRELOAD)"
rc=0
tl_mpirun "$np" LD_PRELOAD="$TL_MEASURE_LIB" TOPOLENS_TRACE_DIR="$work/trace" \
    TOPOLENS_REPORT_PATH_FILE="$work/trace-path" -- \
    "$TL_BIN/wavefront2d" --px "$px" --py "$py" "$@" >"$work/stdout" 2>"$work/stderr" || rc=$?
cat "$work/stdout" "$work/stderr"
[ "$rc" = 0 ] || tl_fail "wavefront2d exited with status $rc"
grep -q "x 8 octants x" "$work/stdout" || tl_fail "wavefront2d did not run 8 octants"
trace="$(tl_reported_trace "$work/trace-path")"
"$TL_TOPOLENS" analyze "$trace" -o "$report" || tl_fail "topolens analyze failed"
"$TL_TOPOLENS" summary "$report" >"$work/summary.txt" || tl_fail "topolens summary failed"
# The whole metric section (the wave metrics come last); no `| head`: with pipefail, head
# leaving early fails the script when sed is still writing.
sed -n '/^metrics/,/^$/p' "$work/summary.txt"

latesender="$(tl_metric_total "$report" mpi_latesender "$work/ls.csv")"
wrong_order="$(tl_metric_total "$report" mpi_latesender_wo "$work/wo.csv")"

bad=0
waves=0
far_values=""
#        metric            origin                   far corner
while read -r metric ox oy fx fy; do
    "$TL_TOPOLENS" values "$report" --metric "$metric" --format csv >"$work/$metric.csv" ||
        tl_fail "topolens values --metric $metric failed: no corner $metric"
    tl_values_table "$work/$metric.csv" >"$work/$metric.txt" || tl_fail "cannot read $metric"
    [ "$(wc -l <"$work/$metric.txt")" = "$np" ] || tl_fail "$metric: not $np processes"
    echo "== $metric (ms; north up, west left; origin ($ox,$oy), far corner ($fx,$fy))"
    awk -v ox="$ox" -v oy="$oy" -v fx="$fx" -v fy="$fy" -v px="$px" -v py="$py" '
        { v[$4 " " $5] = $2; total += $2 }
        END {
            for (y = py - 1; y >= 0; y--) {
                line = ""
                for (x = 0; x < px; x++) line = line sprintf("%9.2f", v[x " " y] * 1000)
                print line
            }
            o = v[ox " " oy]; f = v[fx " " fy]
            for (k in v) if (k != ox " " oy && k != fx " " fy) { rest += v[k]; n++ }
            mean = n > 0 ? rest / n : 0
            msg = sprintf("total %.6f s, origin %.9f s, far corner %.6f s, mean of the others %.6f s",
                          total, o, f, mean)
            if (total <= 0) msg = msg "; FAIL: the total is zero"
            if (o > 0) msg = msg "; FAIL: the origin corner waits"
            if (f < mean) msg = msg "; FAIL: the far corner waits less than the mean of the others"
            print "verdict", total, f, msg
        }' "$work/$metric.txt" >"$work/$metric.verdict"
    grep -v '^verdict' "$work/$metric.verdict"
    read -r _ total far message < <(grep '^verdict' "$work/$metric.verdict")
    echo "$metric: $message"
    case "$message" in *FAIL*) bad=$((bad + 1)) ;; esac
    waves="$(awk -v a="$waves" -v b="$total" 'BEGIN { printf "%.9f", a + b }')"
    far_values="$far_values ${metric#mpi_wavefront_}=$far"
done <<EOF
mpi_wavefront_sw 0 0 $((px - 1)) $((py - 1))
mpi_wavefront_ne $((px - 1)) $((py - 1)) 0 0
mpi_wavefront_nw 0 $((py - 1)) $((px - 1)) 0
mpi_wavefront_se $((px - 1)) 0 0 $((py - 1))
EOF

share="$(awk -v w="$waves" -v l="$latesender" 'BEGIN { printf "%.1f", (l > 0 ? 100 * w / l : 0) }')"
echo "== ${px}x${py} $*: Late Sender $latesender s, Wrong Order $wrong_order s," \
    "wave total $waves s ($share% of Late Sender), far corners (s):$far_values"
[ "$bad" = 0 ] || tl_fail "$bad wavefront check(s) failed (${px}x${py} $*)"
echo "PASS"
