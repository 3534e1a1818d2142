#!/usr/bin/env bash
# Traces samples/transpose2d (LD_PRELOAD): an R x C grid that exists only as row and column
# communicators (MPI_Comm_split, Alltoall on each, no topology, no point-to-point), with one
# slow row K. Checks:
#   - `topolens analyze` takes the grid from the communicators: grid_source
#     "communicators", grid "communicators RxC", an explanation naming R row communicators
#     of C processes and C column communicators of R processes;
#   - `topolens values --metric mpi_wait_nxn`: every process at (rank / C, rank % C); the
#     processes outside row K wait for it in the column Alltoall, at least half the
#     injected delay (iterations x --slow-us) on average per row, and row K's mean is below
#     a quarter of every other row's;
#   - `topolens summary` names row K as the row that waits least in Wait at NxN.
#
# usage: check_transpose2d.sh NAME NP ROWS COLUMNS SLOW_ROW [SAMPLE-ARGS...]
# (SAMPLE-ARGS must give --iterations and --slow-us.)
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
source "$(dirname "${BASH_SOURCE[0]}")/grid_values.sh"

[ "$#" -ge 5 ] || tl_fail "usage: check_transpose2d.sh NAME NP ROWS COLUMNS SLOW_ROW [SAMPLE-ARGS...]"
[ -n "${TL_TOPOLENS:-}" ] || tl_fail "TL_TOPOLENS is not set: the topolens program was not built"
name="$1" np="$2" rows="$3" columns="$4" slow_row="$5"
shift 5
iterations="" slow_us=""
args=("$@")
for ((k = 0; k + 1 < ${#args[@]}; k++)); do
    [ "${args[k]}" = --iterations ] && iterations="${args[k + 1]}"
    [ "${args[k]}" = --slow-us ] && slow_us="${args[k + 1]}"
done
[ -n "$iterations" ] && [ -n "$slow_us" ] || tl_fail "give --iterations and --slow-us"

work="$(tl_workdir "$name")"
report="$work/report.cubex"

echo "== transpose2d --dims ${rows}x$columns --slow-row $slow_row $* on $np ranks (LD_PRELOAD)"
rc=0
tl_mpirun "$np" LD_PRELOAD="$TL_MEASURE_LIB" TOPOLENS_TRACE_DIR="$work/trace" \
    TOPOLENS_REPORT_PATH_FILE="$work/trace-path" -- \
    "$TL_BIN/transpose2d" --dims "${rows}x$columns" --slow-row "$slow_row" "$@" \
    >"$work/stdout" 2>"$work/stderr" || rc=$?
cat "$work/stdout" "$work/stderr"
[ "$rc" = 0 ] || tl_fail "transpose2d exited with status $rc"
trace="$(tl_reported_trace "$work/trace-path")"

echo "== topolens analyze $trace"
"$TL_TOPOLENS" analyze "$trace" -o "$report" || tl_fail "topolens analyze failed"
"$TL_TOPOLENS" summary "$report" >"$work/summary.txt" || {
    cat "$work/summary.txt"
    tl_fail "topolens summary failed"
}

echo "== the grid"
sed -n '/^grid$/,/^$/p' "$work/summary.txt"
used="$(sed -nE 's/^  used: +//p' "$work/summary.txt")"
[ "$used" = "communicators ${rows}x$columns, periodic no,no (communicators)" ] ||
    tl_fail "summary: grid '$used', expected communicators ${rows}x$columns (communicators)"
explanation="$(sed -nE 's/^  explanation: +//p' "$work/summary.txt")"
for part in "from communicators: a non-periodic ${rows}x$columns grid" \
    "rows are $rows communicators of $columns processes (MPI_Comm_split " \
    "columns are $columns communicators of $rows processes (MPI_Comm_split "; do
    case "$explanation" in
    *"$part"*) ;;
    *) tl_fail "explanation lacks '$part': $explanation" ;;
    esac
done

values=("$TL_TOPOLENS" values "$report" --metric mpi_wait_nxn)
"${values[@]}" --format csv >"$work/wait_nxn.csv" || tl_fail "topolens values (csv) failed"
"${values[@]}" --format json >"$work/wait_nxn.json" || tl_fail "topolens values (json) failed"
source_name="$(tl_json_string "$work/wait_nxn.json" grid_source)"
[ "$source_name" = communicators ] ||
    tl_fail "values JSON: grid_source \"$source_name\", expected communicators"
tl_values_table "$work/wait_nxn.csv" >"$work/wait_nxn.txt" ||
    tl_fail "cannot read the values of mpi_wait_nxn"

echo "== Wait at NxN per process and per row (row $slow_row computes $slow_us us longer)"
awk -v rows="$rows" -v columns="$columns" -v slow="$slow_row" \
    -v injected="$(awk -v n="$iterations" -v us="$slow_us" 'BEGIN { print n * us / 1e6 }')" '
    {
        rank = $1; v = $2; coords = $4 " " $5
        want = int(rank / columns) " " rank % columns
        printf "  rank %2d  (%s)  %.6f s\n", rank, coords, v
        if (coords != want) { printf "FAIL: rank %d at (%s), expected (%s)\n", rank, coords, want; bad++ }
        sum[$4] += v; count[$4]++; n++
    }
    END {
        if (n != rows * columns) { printf "FAIL: %d processes, expected %d\n", n, rows * columns; bad++ }
        for (i = 0; i < rows; i++) {
            mean[i] = count[i] ? sum[i] / count[i] : 0
            printf "  row %d mean %.6f s\n", i, mean[i]
        }
        for (i = 0; i < rows; i++) {
            if (i == slow) continue
            if (mean[i] < 0.5 * injected) {
                printf "FAIL: row %d waits %.6f s, less than half the injected %.3f s\n", i, mean[i], injected
                bad++
            }
            if (!(mean[slow] < 0.25 * mean[i])) {
                printf "FAIL: the slow row %d waits %.6f s, not below a quarter of row %d (%.6f s)\n",
                       slow, mean[slow], i, mean[i]
                bad++
            }
        }
        exit bad > 0
    }' "$work/wait_nxn.txt" || tl_fail "Wait at NxN does not show the slow row"

echo "== topolens summary: Wait at NxN by row and column"
awk '/^Wait at N(x|×)N/ { on = 1 } on && /^$/ { exit } on' "$work/summary.txt" >"$work/summary.nxn.txt"
sed -n '/by row and column/,$p' "$work/summary.nxn.txt"
least="$(sed -nE 's/^ +[0-9]+ rows +row ([0-9]+) .*/\1/p' "$work/summary.nxn.txt")"
[ -n "$least" ] || tl_fail "topolens summary shows no Wait at NxN by row"
[ "$least" = "$slow_row" ] || tl_fail "topolens summary names row $least as waiting least, not the slow row $slow_row"
echo "summary: row $slow_row waits least"
echo "PASS"
