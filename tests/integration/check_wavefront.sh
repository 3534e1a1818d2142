#!/usr/bin/env bash
# Traces samples/wavefront2d on a PX x PY grid (LD_PRELOAD), analyzes it and checks the
# four "Wavefront from X" sub-patterns of Late Sender (docs/grids-and-wavefronts.md;
# Bhatia 2005 on SWEEP3D), read back per process through `topolens values --format csv`:
#   - each sub-pattern's total is non-zero;
#   - the corner the wave starts from has (almost) nothing: at most 0.1% of the largest
#     process value, or 1 us;
#   - the corner the wave reaches last has the largest value of all processes (see
#     "noise and ties" below);
#   - the four together are at least half of Late Sender (few blocks: the waits are
#     pipeline refills at direction changes).
# Axis 0 (x) runs west->east, axis 1 (y) south->north: SW = (0,0), NE = (PX-1,PY-1),
# NW = (0,PY-1), SE = (PX-1,0).
#
# The grid comes from one of three sources (VARIANT), and the checks are the same:
#   recorded  the sample's MPI_Cart_create, recorded in the trace
#   declared  sample run with --no-cart (rank = x + PX*y), `analyze --cart PXxPY:order=col`
#   inferred  sample run with --no-cart, no --cart: topolens infers the grid from who
#             talks to whom (numbered first coordinate fastest: rank = x + PX*y)
# The report's grid source (values JSON "grid_source", and `topolens summary`) must name
# the variant, the grid must be PX x PY, and every process must have its coordinates (for
# recorded those of the sample's --expect file, else rank = x + PX*y).
#
# Noise and ties: wavefront2d computes in busy loops, and 64 of them on 2 cores wait for
# the scheduler; the last corner need only come within NOISE-TOLERANCE (default 0.05) of
# the largest value. The sample sweeps SW, NE, NW, SE. A sweep that reverses both
# directions of the one before (NE after SW, SE after NW) or follows the Allreduce (SW)
# has, in the sample's model (samples/wavefront2d/README.md), a single largest wait, at the
# last corner, ahead of its neighbours by about (iterations x work) seconds. NW follows NE
# and reverses only x: the whole east column then waits 2(PX-1)w alike, and which of its
# processes waits most is noise. For NW the last corner (SE) need only come within
# TIE-TOLERANCE (default 0.25) of the largest value. Measured on 8x8 with a loaded machine
# (load average 40): SE at 0.88-1.0 of the largest NW value; SW, NE, SE always the largest
# with 4 iterations of 5 ms blocks, once 1% below a neighbour with 2 iterations of 3 ms.
#
# usage: check_wavefront.sh [--noise-tolerance F] [--tie-tolerance F]
#                           NAME PX PY VARIANT [SAMPLE-ARGS...]
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
source "$(dirname "${BASH_SOURCE[0]}")/grid_values.sh"

noise_tolerance=0.05
tie_tolerance=0.25
while [ "$#" -ge 2 ]; do
    case "$1" in
    --noise-tolerance) noise_tolerance="$2" ;;
    --tie-tolerance) tie_tolerance="$2" ;;
    *) break ;;
    esac
    shift 2
done
[ "$#" -ge 4 ] || tl_fail "usage: check_wavefront.sh [--noise-tolerance F] [--tie-tolerance F] NAME PX PY VARIANT [SAMPLE-ARGS...]"
[ -n "${TL_TOPOLENS:-}" ] || tl_fail "TL_TOPOLENS is not set: the topolens program was not built"
name="$1" px="$2" py="$3" variant="$4"
shift 4
np=$((px * py))
sample_args=(--px "$px" --py "$py" "$@")
analyze_args=()
case "$variant" in
recorded) ;;
declared)
    sample_args+=(--no-cart)
    analyze_args=(--cart "${px}x${py}:order=col")
    ;;
inferred) sample_args+=(--no-cart) ;;
*) tl_fail "VARIANT must be recorded, declared or inferred, not '$variant'" ;;
esac

work="$(tl_workdir "$name")"
report="$work/report.cubex"

echo "== wavefront2d ${sample_args[*]} on $np ranks (LD_PRELOAD)"
start=$(date +%s.%N)
rc=0
tl_mpirun "$np" LD_PRELOAD="$TL_MEASURE_LIB" TOPOLENS_TRACE_DIR="$work/trace" \
    TOPOLENS_REPORT_PATH_FILE="$work/trace-path" -- \
    "$TL_BIN/wavefront2d" "${sample_args[@]}" --expect "$work/expected.txt" \
    >"$work/stdout" 2>"$work/stderr" || rc=$?
cat "$work/stdout" "$work/stderr"
[ "$rc" = 0 ] || tl_fail "wavefront2d exited with status $rc"
echo "(run and trace: $(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }') s)"
trace="$(tl_reported_trace "$work/trace-path")"

echo "== topolens analyze $trace ${analyze_args[*]}"
"$TL_TOPOLENS" analyze "$trace" -o "$report" "${analyze_args[@]}" || tl_fail "topolens analyze failed"

echo "== topolens summary"
"$TL_TOPOLENS" summary "$report" >"$work/summary.txt" || {
    cat "$work/summary.txt"
    tl_fail "topolens summary failed"
}
sed -n '1,/^metrics/p' "$work/summary.txt"
# "  used:  <grid> (<source>)" in the summary's grid section
grep -qE "^ +used: .*\($variant\)\$" "$work/summary.txt" ||
    tl_fail "topolens summary does not say the grid used was $variant"

# values METRIC: the metric's values per process as tl_values_table prints them.
values() {
    local csv="$work/values.$1.csv"
    "$TL_TOPOLENS" values "$report" --metric "$1" --format csv >"$csv" ||
        tl_fail "topolens values --metric $1 failed"
    tl_values_table "$csv" || tl_fail "cannot read the values of $1"
}

# The grid: source, dims, every process's coordinates.
"$TL_TOPOLENS" values "$report" --metric mpi_latesender --format json >"$work/latesender.json" ||
    tl_fail "topolens values --metric mpi_latesender --format json failed"
source_name="$(tl_json_string "$work/latesender.json" grid_source)"
[ "$source_name" = "$variant" ] ||
    tl_fail "values JSON: grid_source \"$source_name\", expected \"$variant\""
tr -d ' \n' <"$work/latesender.json" | grep -q "\"dims\":\[$px,$py\]" ||
    tl_fail "values JSON: the grid is not ${px}x${py}: $(grep -o '"topology": *[^}]*}' "$work/latesender.json")"
values mpi_latesender >"$work/latesender.txt"
if [ "$variant" = recorded ]; then
    # rank R ... coords X Y in the expect file
    awk '$1 == "rank" { for (i = 2; i < NF; i++) if ($i == "coords") print $2, $(i + 1), $(i + 2) }' \
        "$work/expected.txt" >"$work/coords.expected"
else
    awk -v px="$px" -v np="$np" 'BEGIN { for (r = 0; r < np; r++) print r, r % px, int(r / px) }' \
        >"$work/coords.expected"
fi
awk '{ print $1, $4, $5 }' "$work/latesender.txt" | sort -n >"$work/coords.report"
[ "$(wc -l <"$work/coords.expected")" = "$np" ] || tl_fail "expected coordinates for $np ranks"
diff <(sort -n "$work/coords.expected") "$work/coords.report" >"$work/coords.diff" || {
    head -n 20 "$work/coords.diff"
    tl_fail "the report's coordinates (>) differ from the grid's (<)"
}
latesender="$(awk '{ s += $2 } END { printf "%.9f", s }' "$work/latesender.txt")"
echo "grid ${px}x${py} ($variant), coordinates of all $np processes as expected;" \
    "Late Sender total $latesender s"

bad=0
sum=0
#        metric            origin                   last corner              tolerance
while read -r metric ox oy lx ly tol; do
    values "$metric" >"$work/$metric.txt"
    echo "== $metric (ms; north up, west left; origin ($ox,$oy), last corner ($lx,$ly))"
    verdict="$(awk -v ox="$ox" -v oy="$oy" -v lx="$lx" -v ly="$ly" -v tol="$tol" \
        -v px="$px" -v py="$py" '
        { v[$4 " " $5] = $2; total += $2; if ($2 > max) { max = $2; at = "(" $4 "," $5 ")" } }
        END {
            for (y = py - 1; y >= 0; y--) {
                line = ""
                for (x = 0; x < px; x++) line = line sprintf("%8.1f", v[x " " y] * 1000)
                print line > "/dev/stderr"
            }
            o = v[ox " " oy]; l = v[lx " " ly]
            msg = sprintf("total %.6f s, origin %.6f s, last corner %.6f s, largest %.6f s at %s",
                          total, o, l, max, at)
            if (total <= 0) msg = msg "; FAIL: the total is zero"
            if (o > 1e-6 && o > 1e-3 * max) msg = msg "; FAIL: the origin corner waits"
            if (l < max * (1 - tol))
                msg = msg "; FAIL: the last corner is not within " tol * 100 "% of the largest value"
            print total, msg
        }' "$work/$metric.txt" 2>&1 >"$work/$metric.verdict")"
    echo "$verdict"
    read -r total message <"$work/$metric.verdict"
    echo "$metric: $message"
    case "$message" in *FAIL*) bad=$((bad + 1)) ;; esac
    sum="$(awk -v a="$sum" -v b="$total" 'BEGIN { printf "%.9f", a + b }')"
done <<EOF
mpi_wavefront_sw 0 0 $((px - 1)) $((py - 1)) $noise_tolerance
mpi_wavefront_ne $((px - 1)) $((py - 1)) 0 0 $noise_tolerance
mpi_wavefront_nw 0 $((py - 1)) $((px - 1)) 0 $tie_tolerance
mpi_wavefront_se $((px - 1)) 0 0 $((py - 1)) $noise_tolerance
EOF

share="$(awk -v s="$sum" -v l="$latesender" 'BEGIN { printf "%.3f", (l > 0 ? s / l : 0) }')"
echo "== the four sub-patterns: $sum s of Late Sender's $latesender s (share $share)"
awk -v s="$share" 'BEGIN { exit !(s >= 0.5) }' || {
    echo "FAIL: less than half of Late Sender"
    bad=$((bad + 1))
}
[ "$bad" = 0 ] || tl_fail "$bad wavefront check(s) failed ($variant ${px}x${py})"

if [ "$variant" = declared ]; then
    # bad_declaration SPEC STATUS WORD...: `analyze --cart SPEC` on this trace must exit with
    # STATUS, write no report and name every WORD in its message.
    bad_declaration() {
        local spec="$1" want="$2" out="$work/bad.cubex" status=0
        shift 2
        rm -f "$out"
        "$TL_TOPOLENS" analyze "$trace" -o "$out" --cart "$spec" >"$work/bad.out" 2>"$work/bad.err" ||
            status=$?
        echo "--cart $spec: exit $status: $(grep -v '^topolens: reading' "$work/bad.err" | head -n 3)"
        [ "$status" = "$want" ] || tl_fail "--cart $spec: exit status $status, expected $want"
        [ ! -e "$out" ] || tl_fail "--cart $spec: a report was written"
        for word in "$@"; do
            grep -qF -- "$word" "$work/bad.err" || tl_fail "--cart $spec: the message does not name '$word'"
        done
    }
    echo "== bad declarations are rejected"
    # Does not fit the processes: an error (1) naming both counts.
    bad_declaration "$((px - 1))x$((py - 1))" 1 "$(((px - 1) * (py - 1)))" "$np"
    bad_declaration "$((px + 1))x${py}" 1 "$(((px + 1) * py))" "$np"
    # Malformed: usage errors (2).
    bad_declaration "0x${py}" 2 "0x${py}"
    bad_declaration "${px}x${py}:order=diagonal" 2 diagonal
    bad_declaration "${px}x${py}:periodic=1" 2 periodic
fi
echo "PASS"
