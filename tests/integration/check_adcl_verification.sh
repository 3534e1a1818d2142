#!/usr/bin/env bash
# Verification runs of an unchanged ADCL program (issue 14): ADCL's two-dimensional example
# searched by brute force, then run with one fixed codelet each (ADCL_EMETHOD_SELECTION,
# ADCL's verification mode), all traced through the ADCL adapter; `topolens audit TUNED
# VERIFY...` must verify every operation with the selected codelets, known by their names
# (ADCL numbers a fixed run's codelet 0), and refuse the tuned run as a verification run.
#   check_adcl_verification.sh NAME NP NUMTESTS CODELET... -- OBJECT...
# Environment (CMake): TL_ADCL_DIR, TL_ADCL_FLAGS, TL_TOPOLENS.
source "$(dirname "$0")/common.sh"
name="$1" np="$2" numtests="$3"
shift 3
work="$(tl_workdir "adcl_verification.$name")"
codelets=()
while [ "$1" != -- ]; do codelets+=("$1"); shift; done
shift
objects=()
for o in "$@"; do objects+=("$TL_ADCL_DIR/test/$o"); done
# shellcheck disable=SC2086 # the flags are words
mpicc "${objects[@]}" $("$TL_ADCL_FLAGS" "$TL_ADCL_DIR") -o "$work/program" ||
    tl_fail "linking with the adapter failed"
cd "$work"

run() { # run DIR CONFIG: one traced run with CONFIG as config.adcl; prints its trace
    printf "$2" > config.adcl
    tl_mpirun "$np" TOPOLENS_TRACE_DIR="$work/$1" TOPOLENS_REPORT_PATH_FILE="$work/$1.path" -- \
        ./program > "$1.log" 2>&1 || tl_fail "run $1 failed: $(tail -5 "$1.log")"
    tl_reported_trace "$work/$1.path"
}
tuned="$(run tuned "ADCL_EMETHOD_NUMTESTS: $numtests\nADCL_EMETHOD_SEARCH_ALGO: 0\n")"
runs=()
for c in "${codelets[@]}"; do runs+=("$(run "fixed-$c" "ADCL_EMETHOD_SELECTION: $c\n")"); done

"$TL_TOPOLENS" info "$tuned" > info.txt || tl_fail "topolens info failed"
"$TL_TOPOLENS" audit "$tuned" "${runs[@]}" > audit.txt 2> audit.err ||
    tl_fail "topolens audit with verification runs failed: $(cat audit.err)"
operations="$(grep -c "^  Neighborhood communication" info.txt)"
[ "$operations" -ge 1 ] || tl_fail "no tuned operation in the tuned run"
[ "$(grep -c "^  verification runs: ${#codelets[@]} run(s) of one fixed codelet each$" audit.txt)" \
    = "$operations" ] || tl_fail "not every operation verified by ${#codelets[@]} runs"
# Each selected codelet is verified once per operation, under the tuned run's index of its name.
index_of() { # the tuned run's index of codelet $1 (ADCL's brute force runs them in its order)
    sed -n '/^  Neighborhood communication$/,/^  [^ ]/s/^    codelets  *//p' info.txt |
        tr ',' '\n' | sed -n "s/^ *\([0-9]*\): $1\$/\1/p"
}
for c in "${codelets[@]}"; do
    i="$(index_of "$c")"
    [ -n "$i" ] || tl_fail "the tuned run has no codelet $c"
    found="$(grep -cE "^ +$i  $c +1  " audit.txt)"
    [ "$found" = "$operations" ] ||
        tl_fail "codelet $i $c verified in $found of $operations operations: $(grep -E " $c " audit.txt | head -3)"
done
grep -q "^  best verified codelet: " audit.txt || tl_fail "no best verified codelet"
grep -q "^  technique barrier, ranking error " audit.txt || tl_fail "no ranking error of the technique"

# The tuned run is no verification run: one line naming it, exit 1.
if "$TL_TOPOLENS" audit "$tuned" "$tuned" > bad.out 2> bad.err; then
    tl_fail "the tuned run was accepted as a verification run"
fi
[ "$(wc -l < bad.err)" -eq 1 ] && grep -q "verification run $tuned: .* is a tuned search" bad.err ||
    tl_fail "unclear refusal: $(cat bad.err)"
echo "PASS: $operations operation(s) verified by ${#codelets[@]} fixed-codelet runs of ADCL"
