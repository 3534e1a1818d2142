#!/usr/bin/env bash
# Verification runs of the codelet audit (topolens audit TUNED VERIFY...): traces
# samples/autotune_halo on NP ranks once as a tuned run (search over all codelets) and then
# as runs of one fixed codelet each (--codelet C), with synthetic costs that make codelet 3
# (40 ms) best, 4 (100 ms) second and the others (130 ms) slowest. Checks the verification
# with verification_check: each run's time equals the slowest rank's mean the sample printed
# for it, best 3, means ordered 3 < 4 < 0, 0 in the worst set, the tuner's choice (the one the
# sample printed) and its penalty (0 when it is 3, else positive), the searched codelets left
# unverified, and the scenario's expectations. Runs are given as reports and as traces. Then bad verification runs through the
# binary, each one line on stderr and exit status 1: another program's operation (an
# autotune_api trace), a tuned run given as verification run (several codelets searched), a
# file that does not exist.
#
# usage: check_verification.sh NAME NP [EXPECTATIONS ...] -- [TUNED RUN OPTIONS ...]
# (EXPECTATIONS: more verification_check options, e.g. --no-false-orderings, --tuner 4)
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

tl_expectations_then_options check_verification.sh "$@"
set -- "${options[@]}"
work="$(tl_workdir "$name")"
[ -n "${TL_TOPOLENS:-}" ] || tl_fail "TL_TOPOLENS is not set (topolens not built)"
[ -n "${TL_VERIFICATION_CHECK:-}" ] || tl_fail "TL_VERIFICATION_CHECK is not set"
# The audit scenario of common.sh: codelet 3 best, 4 second, the others slowest.
common=(--block "$TL_AUDIT_BLOCK" --codelet-costs "$TL_AUDIT_COSTS" --cost-jitter "$TL_AUDIT_JITTER")

# run_sample DIR [OPTIONS ...]: traces one run into DIR/trace, its output in DIR/stdout.
run_sample() {
    local dir="$1"
    shift
    mkdir -p "$dir"
    echo "== autotune_halo on $np ranks: ${common[*]} $*"
    local rc=0
    tl_mpirun "$np" TOPOLENS_TRACE_DIR="$dir/trace" TOPOLENS_REPORT_PATH_FILE="$dir/trace-path" -- \
        "$TL_BIN/autotune_halo" "${common[@]}" "$@" >"$dir/stdout" 2>"$dir/stderr" || rc=$?
    cat "$dir/stdout" "$dir/stderr"
    [ "$rc" = 0 ] || tl_fail "autotune_halo exited with status $rc"
}

run_sample "$work/tuned" --production 5 "$@"
tuned_trace="$(tl_reported_trace "$work/tuned/trace-path")"
winner="$(awk '$1 == "winner:" { print $2 }' "$work/tuned/stdout")"
[ -n "$winner" ] || tl_fail "autotune_halo printed no winner"
"$TL_TOPOLENS" analyze "$tuned_trace" -o "$work/tuned.cubex" --quiet || tl_fail "analyze failed"

# Verification runs: codelets 3, 4, 0 given as reports, 3 and 4 again as traces.
verify=() checks=()
run=0
for codelet in 3 4 0 3 4; do
    dir="$work/verify$run"
    run_sample "$dir" --codelet "$codelet" --production 10
    grep -q '^winner:' "$dir/stdout" && tl_fail "a fixed-codelet run printed a search winner"
    # "fixed codelet: C NAME, N executions, mean X us (slowest rank)"
    mean_us="$(awk -v c="$codelet" '$1 == "fixed" && $3 == c {
        for (i = 1; i <= NF; i++) if ($i == "mean") print $(i + 1) }' "$dir/stdout")"
    [ -n "$mean_us" ] || tl_fail "run $run printed no mean"
    trace="$(tl_reported_trace "$dir/trace-path")"
    if [ "$run" -lt 3 ]; then
        "$TL_TOPOLENS" analyze "$trace" -o "$dir/report.cubex" --quiet || tl_fail "analyze failed"
        verify+=("$dir/report.cubex")
    else
        verify+=("$trace")
    fi
    # The trace's execution lies inside the sample's MPI_Wtime interval, by microseconds.
    checks+=(--time "$run" "$codelet" "$(awk -v us="$mean_us" 'BEGIN { printf "%.7f", us * 1e-6 }')" 0.001)
    run=$((run + 1))
done

echo "== topolens audit tuned.cubex ${verify[*]}"
"$TL_TOPOLENS" audit "$work/tuned.cubex" "${verify[@]}" | tee "$work/audit.txt" ||
    tl_fail "audit with verification runs failed"
grep -q "best verified codelet: 3 pair_isend_irecv_ddt" "$work/audit.txt" ||
    tl_fail "the text names another best verified codelet"
"$TL_TOPOLENS" audit "$work/tuned.cubex" "${verify[@]}" --format json >"$work/audit.json" ||
    tl_fail "audit --format json with verification runs failed"
# The view of ADCL's rule prints the verification too; --sweep refuses verification runs.
"$TL_TOPOLENS" audit "$work/tuned.cubex" "${verify[@]}" --rule adcl >"$work/adcl.txt" ||
    tl_fail "audit --rule adcl with verification runs failed"
grep -q "best verified codelet: 3 pair_isend_irecv_ddt" "$work/adcl.txt" ||
    tl_fail "--rule adcl prints no verification"
rc=0
"$TL_TOPOLENS" audit "$work/tuned.cubex" "${verify[0]}" --sweep >/dev/null 2>"$work/sweep.err" || rc=$?
[ "$rc" = 2 ] && grep -q "verification runs go with the audit, not with --sweep" "$work/sweep.err" ||
    tl_fail "--sweep with a verification run: exit $rc, $(cat "$work/sweep.err")"
echo "== verification_check (sample's winner: $winner)"
"$TL_VERIFICATION_CHECK" "$work/audit.json" halo3d --runs 5 --best 3 --tuner "$winner" \
    --unverified 1,2,5,6,7,8,9,10 --ordered 3,4,0 --worst-has 0 "${expectations[@]}" \
    "${checks[@]}" || tl_fail "the verification does not meet the expectations"

# bad_input NAME EXPECTED-TEXT VERIFY...: exit status 1 and one line naming the problem.
bad_input() {
    local what="$1" expected="$2"
    shift 2
    local rc=0
    "$TL_TOPOLENS" audit "$work/tuned.cubex" "$@" >"$work/bad.out" 2>"$work/bad.err" || rc=$?
    echo "$what: exit $rc: $(cat "$work/bad.err")"
    [ "$rc" = 1 ] || tl_fail "$what: exit status $rc, expected 1"
    [ "$(wc -l <"$work/bad.err")" = 1 ] || tl_fail "$what: not one line on stderr"
    grep -qF -- "$expected" "$work/bad.err" || tl_fail "$what: the message does not say '$expected'"
    [ ! -s "$work/bad.out" ] || tl_fail "$what: printed an audit anyway"
}

echo "== bad verification runs"
rc=0
tl_mpirun 2 TOPOLENS_TRACE_DIR="$work/api/trace" TOPOLENS_REPORT_PATH_FILE="$work/api-path" -- \
    "$TL_BIN/autotune_api" >"$work/api.out" 2>&1 || rc=$?
[ "$rc" = 0 ] || { cat "$work/api.out"; tl_fail "autotune_api exited with status $rc"; }
bad_input "another program" "operation 'halo' is not tuned in the tuned run" \
    "${verify[0]}" "$(tl_reported_trace "$work/api-path")"
bad_input "a tuned run" "'halo3d' is a tuned search (codelets 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 searched)" \
    "$work/tuned.cubex"
bad_input "a missing file" "verification run $work/missing.cubex: " "$work/missing.cubex"
echo "PASS"
