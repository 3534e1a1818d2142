#!/usr/bin/env bash
# `topolens info` must show the Cartesian topology a sample recorded: its name, its
# dimensions (e.g. 4x4), periodicity, and coordinates for every rank.
#
# usage: check_info.sh wavefront2d   wavefront2d on 16 ranks (4x4, MPI_Cart_create)
#        check_info.sh fortran_grid  fortran_grid on 4 ranks (2x2 user topology)
#        check_info.sh demo          samples/demo.sh (uses topolens run), already built
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

[ -n "${TL_TOPOLENS:-}" ] || tl_fail "TL_TOPOLENS is not set (topolens not built)"
case "${1:-}" in
wavefront2d) np=16 program=wavefront2d ;;
fortran_grid) np=4 program=fortran_grid ;;
demo) ;;
*) tl_fail "usage: check_info.sh wavefront2d|fortran_grid|demo" ;;
esac
work="$(tl_workdir "topolens_info.$1")"

if [ "$1" = demo ]; then
    # The demo runs from the build tree; TOPOLENS_BUILD is that tree (bin/ is TL_BIN).
    TOPOLENS_BUILD="$(dirname "$TL_BIN")" TOPOLENS_DEMO_DIR="$work" TOPOLENS_DEMO_NO_BUILD=1 \
        TOPOLENS_DEMO_ARGS="--blocks 4 --iterations 1 --work-us 500" \
        bash "$(dirname "${BASH_SOURCE[0]}")/../../samples/demo.sh" >"$work/info.txt" 2>&1 ||
        { cat "$work/info.txt"; tl_fail "samples/demo.sh failed"; }
    cat "$work/info.txt"
    # The autotuned part ends with the audit of the halo exchange.
    grep -q "^halo3d: \(CONFIRMED\|QUESTIONABLE\|WRONG\|UNDECIDED\)$" "$work/info.txt" ||
        tl_fail "the demo printed no codelet audit of halo3d"
    name="MPI_Cart_create 1" dims="4x4" periodic="no,no" ranks=16
else
    echo "== $program on $np ranks"
    tl_mpirun "$np" LD_PRELOAD="$TL_MEASURE_LIB" TOPOLENS_TRACE_DIR="$work/trace" -- \
        "$TL_BIN/$program" --expect "$work/expected.txt" || tl_fail "$program failed"
    echo "== topolens info $work/trace"
    "$TL_TOPOLENS" info "$work/trace" >"$work/info.txt" || tl_fail "topolens info failed"
    cat "$work/info.txt"
    e="$work/expected.txt"
    name="$(awk '$1 == "topology" { $1 = ""; sub(/^ /, ""); print }' "$e")"
    dims="$(awk '$1 == "dims" { $1 = ""; sub(/^ /, ""); gsub(/ /, "x"); print }' "$e")"
    periodic="$(awk '$1 == "periods" { s = ""; for (i = 2; i <= NF; i++)
                     s = s (i > 2 ? "," : "") ($i == 1 ? "yes" : "no"); print s }' "$e")"
    ranks="$(awk '$1 == "ranks" { print $2 }' "$e")"
fi

# The topology's row: its name, then dims, periodicity and full coordinates.
row="$(grep -F -- "$name" "$work/info.txt" | grep -E "(^|[[:space:]])$dims([[:space:]]|$)" || true)"
[ -n "$row" ] || tl_fail "topolens info shows no topology '$name' with dims $dims"
grep -qE "(^|[[:space:]])$periodic([[:space:]]|$)" <<<"$row" ||
    tl_fail "topolens info: topology '$name' not shown with periodicity $periodic: $row"
grep -qF "all $ranks ranks" <<<"$row" ||
    tl_fail "topolens info: topology '$name' does not show coordinates for all $ranks ranks: $row"
echo "PASS: $row"
