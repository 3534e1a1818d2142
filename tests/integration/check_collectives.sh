#!/usr/bin/env bash
# Traces samples/collectives (LD_PRELOAD), analyzes the trace with `topolens analyze` and
# checks the four collective wait metrics per rank against the sample's --expect file,
# read back through `topolens values --format csv`:
#   (mpi_wait_nxn, MPI_Allreduce) (mpi_barrier_wait, MPI_Barrier)
#   (mpi_latebroadcast, MPI_Bcast) (mpi_earlyreduce, MPI_Reduce)
# A rank that should wait must have the injected total (iterations x delay) within ±10%,
# every other rank less than 10% of it, plus what the sleepers overslept: a sleeping rank
# waits for the sleeper that woke last (the expect file's 0 leaves that out), which the
# sample measured: the waiting ranks' expected value minus iterations x delay. Two busy
# processes and other MPI jobs beside 8 ranks (load average 20-30) woke sleepers up to
# 270 ms late; idle, it is well under 1 ms. A sleeper given the waiters' whole wait still
# fails, as that is always 90% of the injected total above the bound.
# `topolens summary` must run and name Wait at NxN.
#
# usage: check_collectives.sh [--self-test] NAME NP [SAMPLE-ARGS...]
#   --self-test  after the real check passes, tampered expectations and a value missing
#                from the analyzer's output must each make the comparison fail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

self_test=0
if [ "${1:-}" = --self-test ]; then
    self_test=1
    shift
fi
[ "$#" -ge 2 ] || tl_fail "usage: check_collectives.sh [--self-test] NAME NP [SAMPLE-ARGS...]"
[ -n "${TL_TOPOLENS:-}" ] || tl_fail "TL_TOPOLENS is not set: the topolens program was not built"
name="$1" np="$2"
shift 2
tolerance=0.10

work="$(tl_workdir "$name")"
expect="$work/expected.txt" report="$work/report.cubex" measured="$work/measured.txt"

echo "== collectives $* on $np ranks (LD_PRELOAD)"
rc=0
tl_mpirun "$np" LD_PRELOAD="$TL_MEASURE_LIB" TOPOLENS_TRACE_DIR="$work/trace" \
    TOPOLENS_REPORT_PATH_FILE="$work/trace-path" -- \
    "$TL_BIN/collectives" "$@" --expect "$expect" >"$work/stdout" 2>"$work/stderr" || rc=$?
cat "$work/stdout" "$work/stderr"
[ "$rc" = 0 ] || tl_fail "collectives exited with status $rc"
[ -s "$expect" ] || tl_fail "collectives wrote no expect file"
trace="$(tl_reported_trace "$work/trace-path")"

echo "== topolens analyze $trace"
"$TL_TOPOLENS" analyze "$trace" -o "$report" || tl_fail "topolens analyze failed"
[ -s "$report" ] || tl_fail "topolens analyze wrote no report"

echo "== topolens summary"
"$TL_TOPOLENS" summary "$report" >"$work/summary.txt" || {
    cat "$work/summary.txt"
    tl_fail "topolens summary failed"
}
cat "$work/summary.txt"
# The display name is "Wait at NxN" (docs/metrics.md); accept the spelling N×N too.
grep -qE 'Wait at N(x|×)N' "$work/summary.txt" || tl_fail "topolens summary does not list Wait at NxN"

# The (metric, call path) pairs of the expect file, each read through `topolens values`
# into "metric callpath rank value" lines. The CSV header names the columns; fields may
# be quoted (a host or coordinates with commas).
: >"$measured"
while read -r metric callpath; do
    csv="$work/values.$metric.$callpath.csv"
    "$TL_TOPOLENS" values "$report" --metric "$metric" --callpath "$callpath" --format csv \
        >"$csv" || tl_fail "topolens values --metric $metric --callpath $callpath failed"
    awk -v metric="$metric" -v callpath="$callpath" -v file="$csv" "$TL_AWK_CSV"'
        { sub(/\r$/, "") }
        NR == 1 {
            n = csv_split($0, head)
            for (i = 1; i <= n; i++) col[head[i]] = i
            if (!("rank" in col) || !("value" in col)) {
                printf "FAIL: %s: header \"%s\" has no rank or value column\n", file, $0 > "/dev/stderr"
                bad = 1; exit 1
            }
            next
        }
        $0 != "" {
            csv_split($0, f)
            r = f[col["rank"]]; v = f[col["value"]]
            if (r !~ /^[0-9]+$/ || v !~ /^-?[0-9.]+([eE][-+]?[0-9]+)?$/) {
                printf "FAIL: %s line %d: rank \"%s\", value \"%s\"\n", file, NR, r, v > "/dev/stderr"
                bad = 1; exit 1
            }
            print metric, callpath, r + 0, v
        }
        END { if (NR < 1 && !bad) { print "FAIL: " file " is empty" > "/dev/stderr"; exit 1 } }
    ' "$csv" >>"$measured" || tl_fail "cannot read the values of $metric at $callpath"
done < <(awk '$1 == "wait" && !seen[$3 " " $4]++ { print $3, $4 }' "$expect")

# compare EXPECT MEASURED: prints the per-rank table; fails (status 1) on any rank out of
# tolerance, any expected rank without a value, any value for a rank not expected.
compare() {
    awk -v tol="$tolerance" '
        FNR == NR {
            if ($1 == "injected") injected = $2 + 0
            if ($1 == "wait") {
                key = $3 " " $4 " " $2; want[key] = $5 + 0; order[++n] = key
                # the expected wait of the waiting ranks: injected + what the sleepers overslept
                if ($5 + 0 > longest[$3 " " $4]) longest[$3 " " $4] = $5 + 0
            }
            if ($1 == "inside") inside[$3 " " $2] = $4
            next
        }
        { key = $1 " " $2 " " $3; got[key] += $4; count[key]++
          if (!(key in want)) { printf "FAIL: %s: a value for rank %s, which is not expected\n", $1 " at " $2, $3; bad++ } }
        END {
            if (injected <= 0) { print "FAIL: no injected wait in the expect file"; exit 1 }
            printf "%-18s %-14s %4s %9s %9s %9s  %s\n", "metric", "callpath", "rank",
                   "expected", "measured", "inside", "verdict"
            for (i = 1; i <= n; i++) {
                key = order[i]; split(key, k, " ")
                e = want[key]
                if (!(key in got)) { verdict = "FAIL (no value)"; v = "-" }
                else {
                    v = sprintf("%.6f", got[key])
                    if (e > 0) ok = got[key] >= e * (1 - tol) && got[key] <= e * (1 + tol)
                    else {
                        over = longest[k[1] " " k[2]] - injected
                        bound = tol * injected + (over > 0 ? over : 0)
                        ok = got[key] < bound && got[key] >= 0
                    }
                    verdict = ok ? "ok" : (e > 0 ? "FAIL (not within " tol * 100 "%)" \
                                               : sprintf("FAIL (not below %g%% of %g + %.6f overslept)",
                                                         tol * 100, injected, bound - tol * injected))
                }
                if (verdict != "ok") bad++
                printf "%-18s %-14s %4s %9.6f %9s %9s  %s\n", k[1], k[2], k[3], e, v,
                       ((k[2] " " k[3]) in inside) ? inside[k[2] " " k[3]] : "-", verdict
            }
            if (bad) { printf "%d difference(s)\n", bad; exit 1 }
        }' "$1" "$2"
}

echo "== per-rank severities against the injected waits (±$(awk -v t="$tolerance" 'BEGIN { print t * 100 }')%)"
compare "$expect" "$measured" || tl_fail "the analyzer's wait states differ from the injected ones"

if [ "$self_test" = 1 ]; then
    # tampered NAME FILE-TO-TAMPER SED-SCRIPT: the comparison must fail on the copy.
    tampered() {
        local copy="$work/tampered.$1"
        sed -E "$3" "$2" >"$copy"
        cmp -s "$2" "$copy" && tl_fail "tampering '$1' changed nothing"
        local a="$expect" b="$measured"
        if [ "$2" = "$expect" ]; then a="$copy"; else b="$copy"; fi
        if compare "$a" "$b" >"$copy.log"; then
            cat "$copy.log"
            tl_fail "$1: the comparison passed on a wrong expectation"
        fi
        echo "detected: $1 ($(grep -m1 FAIL "$copy.log"))"
    }
    echo "== self-test: every tampered copy must fail"
    waiter="$(awk '$1 == "wait" && $3 == "mpi_wait_nxn" && $5 > 0 { print $2; exit }' "$expect")"
    idle="$(awk '$1 == "wait" && $3 == "mpi_wait_nxn" && $5 == 0 { print $2; exit }' "$expect")"
    root="$(awk '$1 == "root" { print $2 }' "$expect")"
    if [ -z "$waiter" ] || [ -z "$idle" ]; then
        tl_fail "--self-test needs waiting and late ranks"
    fi
    tampered larger_wait "$expect" \
        "s/^(wait $waiter mpi_wait_nxn MPI_Allreduce) .*/\1 $(awk '$1 == "injected" { print $2 * 1.3 }' "$expect")/"
    tampered no_wait_expected "$expect" "s/^(wait $waiter mpi_barrier_wait MPI_Barrier) .*/\1 0/"
    tampered late_rank_waits "$expect" \
        "s/^(wait $idle mpi_wait_nxn MPI_Allreduce) .*/\1 $(awk '$1 == "injected" { print $2 }' "$expect")/"
    tampered root_late_broadcast "$expect" \
        "s/^(wait $root mpi_latebroadcast MPI_Bcast) .*/\1 $(awk '$1 == "injected" { print $2 }' "$expect")/"
    tampered extra_rank "$expect" "\$a wait $np mpi_earlyreduce MPI_Reduce 0"
    tampered missing_value "$measured" "/^mpi_earlyreduce MPI_Reduce $root /d"
    tampered unexpected_rank "$measured" "\$a mpi_wait_nxn MPI_Allreduce $np 0"
fi
echo "PASS"
