#!/usr/bin/env bash
# The whole program's time (issue 21): traces compute_loop (ITERATIONS x MS ms of busy
# computation between barriers on every rank) and checks, per rank:
#   - otf2-print: each location's first record is PROGRAM_BEGIN and its last PROGRAM_END;
#   - Time covers the run: at least the program's own span from main to MPI_Finalize
#     (one clock: every rank runs on this host), at most that plus its Init/Exit time and
#     0.5 s for loading the program before main;
#   - Computation is the busy loops' time (the program's own measurement) plus at most
#     0.25 s (the code around them, before main); Time = Computation + MPI; no Outside
#     regions; MPI below 90% of Time;
#   - the call tree's root is the program region, named after the executable, and
#     "program/MPI_Barrier" still names its barrier call path.
#
# usage: check_program_time.sh [--preload] NAME NP PROGRAM ITERATIONS MS
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

preload=0
[ "${1:-}" = --preload ] && { preload=1; shift; }
[ "$#" = 5 ] || tl_fail "usage: check_program_time.sh [--preload] NAME NP PROGRAM ITERATIONS MS"
[ -n "${TL_TOPOLENS:-}" ] || tl_fail "TL_TOPOLENS is not set: the topolens program was not built"
name="$1" np="$2" program="$3" iterations="$4" ms="$5"

work="$(tl_workdir "$name")"
env=(TOPOLENS_TRACE_DIR="$work/trace" TOPOLENS_REPORT_PATH_FILE="$work/trace-path")
[ "$preload" = 1 ] && env+=(LD_PRELOAD="$TL_MEASURE_LIB")
echo "== $program $iterations x $ms ms on $np ranks ($([ "$preload" = 1 ] && echo LD_PRELOAD || echo linked))"
rc=0
tl_mpirun "$np" "${env[@]}" -- "$TL_BIN/$program" "$iterations" "$ms" \
    >"$work/stdout" 2>"$work/stderr" || rc=$?
cat "$work/stdout" "$work/stderr"
[ "$rc" = 0 ] || tl_fail "$program exited with status $rc"
trace="$(tl_reported_trace "$work/trace-path")"

echo "== otf2-print $trace"
"$TL_OTF2_PRINT" "$trace/traces.otf2" >"$work/otf2-print.txt" ||
    tl_fail "otf2-print cannot read the trace"
grep -m 2 -E '^PROGRAM_(BEGIN|END) ' "$work/otf2-print.txt" || true
awk -v np="$np" '
    $2 ~ /^[0-9]+$/ && $1 ~ /^[A-Z_]+$/ {
        if (!($2 in first)) first[$2] = $1
        last[$2] = $1
    }
    END {
        for (l = 0; l < np; l++)
            if (first[l] != "PROGRAM_BEGIN" || last[l] != "PROGRAM_END") {
                printf "location %d: first record %s, last %s\n", l, first[l], last[l]
                bad = 1
            }
        exit bad
    }' "$work/otf2-print.txt" ||
    tl_fail "otf2-print: a location does not begin with PROGRAM_BEGIN and end with PROGRAM_END"
for record in PROGRAM_BEGIN PROGRAM_END; do
    [ "$(tl_count_records "$work/otf2-print.txt" "$record")" = "$np" ] ||
        tl_fail "otf2-print: not $np $record records"
done

echo "== topolens analyze"
report="$work/report.cubex"
"$TL_TOPOLENS" analyze "$trace" -o "$report" --quiet || tl_fail "topolens analyze failed"
"$TL_TOPOLENS" summary "$report" >"$work/summary.txt" || tl_fail "topolens summary failed"
sed -n '/^metrics/,/^  Visits/p' "$work/summary.txt"

# Per rank: metric value, from `topolens values --format csv`.
values="$work/values.txt"
: >"$values"
for metric in time execution comp mpi mpi_init_exit outside_regions; do
    "$TL_TOPOLENS" values "$report" --metric "$metric" --format csv >"$work/$metric.csv" ||
        tl_fail "topolens values --metric $metric failed"
    awk -v metric="$metric" "$TL_AWK_CSV"'
        NR == 1 { for (i = csv_split($0, h); i > 0; i--) col[h[i]] = i; next }
        { csv_split($0, f); print metric, f[col["rank"]], f[col["value"]] }
    ' "$work/$metric.csv" >>"$values"
done

exe="$(basename "$program")"
root="$("$TL_TOPOLENS" values "$report" --metric mpi --callpath "$exe/MPI_Barrier" --format csv |
    awk -F, 'NR > 1 { s += $(NF - 1) } END { printf "%.9f", s }')" ||
    tl_fail "no call path $exe/MPI_Barrier: the root is not the program region"
alias="$("$TL_TOPOLENS" values "$report" --metric mpi --callpath program/MPI_Barrier --format csv |
    awk -F, 'NR > 1 { s += $(NF - 1) } END { printf "%.9f", s }')" ||
    tl_fail "program/MPI_Barrier names no call path"
[ "$root" = "$alias" ] || tl_fail "$exe/MPI_Barrier ($root) and program/MPI_Barrier ($alias) differ"

echo "== per rank (seconds)"
awk '
    FILENAME == ARGV[1] {
        if ($1 == "rank") { span[$2] = ($6 - $4) / 1e9; busy[$2] = $8 }
        next
    }
    { v[$1, $2] = $3; ranks[$2] = 1 }
    END {
        printf "%4s %10s %10s %10s %10s %10s %10s\n", "rank", "span", "Time", "busy",
            "Comp", "MPI", "Init/Exit"
        for (r in ranks) {
            t = v["time", r]; c = v["comp", r]; m = v["mpi", r]; ie = v["mpi_init_exit", r]
            printf "%4d %10.6f %10.6f %10.6f %10.6f %10.6f %10.6f\n", r, span[r], t, busy[r],
                c, m, ie
            if (!(r in span)) { print "rank " r ": the program printed no times"; bad = 1 }
            if (t < span[r] - 1e-6) { print "rank " r ": Time below the program span"; bad = 1 }
            if (t > span[r] + ie + 0.5) { print "rank " r ": Time above span + Init/Exit + 0.5 s"; bad = 1 }
            if (c < busy[r] - 1e-6) { print "rank " r ": Computation below the busy loops"; bad = 1 }
            if (c > busy[r] + 0.25) { print "rank " r ": Computation 0.25 s above the busy loops"; bad = 1 }
            d = t - c - m; if (d < 0) d = -d
            if (d > 1e-6) { print "rank " r ": Time is not Computation + MPI"; bad = 1 }
            d = t - v["execution", r]; if (d < 0) d = -d
            if (d > 1e-6) { print "rank " r ": Execution is not Time (no buffer flush)"; bad = 1 }
            if (v["outside_regions", r] != 0) { print "rank " r ": Outside regions not 0"; bad = 1 }
            if (m >= 0.9 * t) { print "rank " r ": MPI is 90% of Time or more"; bad = 1 }
        }
        exit bad
    }' "$work/stdout" "$values" || tl_fail "Time and Computation do not match the program"
echo "PASS"
