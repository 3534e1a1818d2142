#!/usr/bin/env bash
# Traces samples/cg3d (LD_PRELOAD) and checks the grid-role finding it is built for
# (samples/cg3d/README.md; Bhatia 2005 on TRACE): processes with fewer halo neighbours
# reach the Allreduce first and wait longest there.
#   - trace_check counts: messages (Isend/Irecv), collectives and the recorded 3D topology;
#   - `topolens values --metric mpi_wait_nxn --callpath MPI_Allreduce --format csv`: every
#     process's role is the one the sample computed; the mean per role falls from corner
#     to edge to face to interior (roles present), so corners wait more than the role with
#     the fewest boundaries; no process waits longer than it spent in the Allreduce
#     (the sample's own MPI_Wtime measurement, +2 ms);
#   - the same means in the JSON "roles" (and its grid_source is "recorded");
#   - `topolens summary` shows Wait at NxN by grid role, with the corner's ratio to the
#     interior, or without interior processes to the rest (the processes that are not
#     corners);
#   - no clock-condition violation: the measurement ends MPI_Init and MPI_Finalize with a
#     barrier and the processes share one clock, so no process leaves a synchronizing
#     collective before the last one entered (Scalasca counts every such case).
#
# usage: check_cg3d.sh NAME NP [SAMPLE-ARGS...]
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
source "$(dirname "${BASH_SOURCE[0]}")/grid_values.sh"

[ "$#" -ge 2 ] || tl_fail "usage: check_cg3d.sh NAME NP [SAMPLE-ARGS...]"
[ -n "${TL_TOPOLENS:-}" ] || tl_fail "TL_TOPOLENS is not set: the topolens program was not built"
name="$1" np="$2"
shift 2

work="$(tl_workdir "$name")"
expect="$work/expected.txt" report="$work/report.cubex"

echo "== cg3d $* on $np ranks (LD_PRELOAD)"
start=$(date +%s.%N)
rc=0
tl_mpirun "$np" LD_PRELOAD="$TL_MEASURE_LIB" TOPOLENS_TRACE_DIR="$work/trace" \
    TOPOLENS_REPORT_PATH_FILE="$work/trace-path" -- \
    "$TL_BIN/cg3d" "$@" --expect "$expect" >"$work/stdout" 2>"$work/stderr" || rc=$?
cat "$work/stdout" "$work/stderr"
[ "$rc" = 0 ] || tl_fail "cg3d exited with status $rc"
[ -s "$expect" ] || tl_fail "cg3d wrote no expect file"
echo "(run and trace: $(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }') s)"
trace="$(tl_reported_trace "$work/trace-path")"

echo "== trace_check counts ($trace)"
# trace_check reads these lines; the role, inside and parameter lines are cg3d's own.
grep -E '^(#|sample|ranks|topology|ndims|dims|periods|rank) ' "$expect" >"$work/counts.txt"
"$TL_TRACE_CHECK" counts "$work/counts.txt" "$trace" || tl_fail "trace_check found differences"

echo "== topolens analyze $trace"
"$TL_TOPOLENS" analyze "$trace" -o "$report" || tl_fail "topolens analyze failed"
"$TL_TOPOLENS" summary "$report" >"$work/summary.txt" || {
    cat "$work/summary.txt"
    tl_fail "topolens summary failed"
}

values=("$TL_TOPOLENS" values "$report" --metric mpi_wait_nxn --callpath MPI_Allreduce)
"${values[@]}" --format csv >"$work/wait_nxn.csv" || tl_fail "topolens values (csv) failed"
"${values[@]}" --format json >"$work/wait_nxn.json" || tl_fail "topolens values (json) failed"
tl_values_table "$work/wait_nxn.csv" >"$work/wait_nxn.txt" ||
    tl_fail "cannot read the values of mpi_wait_nxn"
source_name="$(tl_json_string "$work/wait_nxn.json" grid_source)"
[ "$source_name" = recorded ] || tl_fail "values JSON: grid_source \"$source_name\", expected recorded"

rc=0
echo "== Wait at NxN in MPI_Allreduce per process and per role"
# role lines of the expect file, the inside lines, then the table: rank value role coords.
# Prints the per-role means as "mean ROLE PROCESSES MEAN" lines after the verdicts.
awk '
    FILENAME == ARGV[1] {
        if ($1 == "role") { want[$2] = $3; neighbours[$2] = $5 }
        if ($1 == "inside") inside[$2] = $4
        next
    }
    {
        rank = $1; v = $2; role = $3; coords = $4 " " $5 " " $6
        n++; seen[rank] = 1
        printf "  rank %2d  (%s)  %-8s %d neighbours  %.6f s  (inside the Allreduce %.6f s)\n",
               rank, coords, role, neighbours[rank], v, inside[rank]
        if (!(rank in want)) { print "FAIL: rank " rank " is not in the expect file"; bad++; next }
        if (role != want[rank]) {
            printf "FAIL: rank %d is a %s in the report, the sample says %s\n", rank, role, want[rank]
            bad++
        }
        if (v > inside[rank] + 0.002) {
            printf "FAIL: rank %d waits %.6f s, longer than it spent in the Allreduce (%.6f s)\n",
                   rank, v, inside[rank]
            bad++
        }
        sum[want[rank]] += v; count[want[rank]]++
    }
    END {
        for (r in want) if (!(r in seen)) { print "FAIL: no value for rank " r; bad++ }
        split("corner edge face interior", order, " ")
        last = ""
        for (i = 1; i <= 4; i++) {
            role = order[i]
            if (!(role in count)) continue
            mean[role] = sum[role] / count[role]
            printf "mean %s %d %.9f\n", role, count[role], mean[role]
            if (last != "" && !(mean[last] > mean[role])) {
                printf "FAIL: the %s mean (%.6f s) is not above the %s mean (%.6f s)\n",
                       last, mean[last], role, mean[role]
                bad++
            }
            last = role
        }
        if (!("corner" in mean)) { print "FAIL: the grid has no corner"; bad++ }
        else if (last == "corner") { print "FAIL: the grid has only corners: nothing to compare"; bad++ }
        exit bad > 0
    }' "$expect" "$work/wait_nxn.txt" >"$work/roles.txt" || rc=$?
grep -v '^mean ' "$work/roles.txt"
awk '$1 == "mean" { printf "  %-8s %2d processes  mean %.6f s\n", $2, $3, $4 }' "$work/roles.txt"
[ "$rc" = 0 ] || tl_fail "Wait at NxN does not follow the grid roles"

# The JSON's roles: [{"role": R, "processes": N, "mean": M, "vs_interior": X, "vs_rest": Y}, ...]
tr -d '\n' <"$work/wait_nxn.json" | grep -o '"roles": *\[[^]]*\]' |
    grep -o '{[^}]*}' >"$work/roles.json" || tl_fail "values JSON has no roles"
while read -r _ role processes mean; do
    entry="$(grep "\"role\": *\"$role\"" "$work/roles.json")" ||
        tl_fail "values JSON: no $role in roles"
    jn="$(echo "$entry" | sed -E 's/.*"processes": *([0-9]+).*/\1/')"
    jm="$(echo "$entry" | sed -E 's/.*"mean": *([-0-9.eE+]+).*/\1/')"
    [ "$jn" = "$processes" ] || tl_fail "values JSON: $jn ${role}s, the sample has $processes"
    awk -v a="$jm" -v b="$mean" 'BEGIN { d = a - b; exit !(d * d <= 1e-18 + 1e-12 * b * b) }' ||
        tl_fail "values JSON: $role mean $jm, the CSV gives $mean"
done < <(grep '^mean ' "$work/roles.txt")
echo "values JSON: grid_source recorded, role counts and means as in the CSV"

echo "== topolens summary: Wait at NxN by grid role"
# The metric's section, from its heading to the next blank line.
awk '/^Wait at N(x|×)N/ { on = 1 } on && /^$/ { exit } on' "$work/summary.txt" >"$work/summary.nxn.txt"
[ -s "$work/summary.nxn.txt" ] || { cat "$work/summary.txt"; tl_fail "topolens summary has no Wait at NxN section"; }
sed -n '/by grid role/,$p' "$work/summary.nxn.txt"
grep -q 'by grid role' "$work/summary.nxn.txt" || tl_fail "topolens summary shows no Wait at NxN by grid role"
corner_line="$(grep -E '^ +corner +[0-9]+ ' "$work/summary.nxn.txt")" ||
    tl_fail "topolens summary: no corner line for Wait at NxN"
# The reported ratio: the corner mean over the interior mean or, on a grid without interior
# processes (3x3x2), over the mean of all processes that are not corners.
if grep -q '^mean interior ' "$work/roles.txt"; then
    reference=interior
    want="$(awk '$1 == "mean" { m[$2] = $4 } END { printf "%.6f", m["corner"] / m["interior"] }' "$work/roles.txt")"
else
    reference="rest (the processes that are not corners)"
    want="$(awk '$1 == "mean" { if ($2 == "corner") c = $4; else { n += $3; s += $3 * $4 } }
                 END { printf "%.6f", c / (s / n) }' "$work/roles.txt")"
fi
ratio="$(echo "$corner_line" | grep -oE '[0-9.]+x' | tr -d x)" ||
    tl_fail "topolens summary: no ratio to the $reference on '$corner_line'"
awk -v a="$ratio" -v b="$want" 'BEGIN { exit !(a >= b * 0.99 - 0.01 && a <= b * 1.01 + 0.01) }' ||
    tl_fail "topolens summary: corner ratio ${ratio}x, the means give ${want}x"
echo "corners wait ${ratio}x as long as the $reference"

violations="$(tl_metric_total "$report" clock_violations "$work/clock_violations.csv")"
[ "$violations" = "0.000000000" ] ||
    tl_fail "clock-condition violations: $violations, expected none (see $work/clock_violations.csv)"
echo "no clock-condition violations"
echo "PASS"
