#!/usr/bin/env bash
# Profile mode's memory does not grow with the length of the run (docs/profile.md): the
# same sample with N and 100 x N iterations, profile only, each rank under /usr/bin/time.
# The profiles must have the same call paths, and the largest peak RSS of a rank may grow
# by at most LIMIT KB (default 1024: noise of the MPI library, far below what recording
# the long run's events would take, 100 x N x (enter, leave, messages) per rank). The
# trace mode's growth is printed beside it for comparison.
#
# usage: check_profile_memory.sh NAME NP ITERATIONS [LIMIT-KB] -- PROGRAM [ARGS...]
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

[ "$#" -ge 5 ] || tl_fail "usage: check_profile_memory.sh NAME NP ITERATIONS [LIMIT-KB] -- PROGRAM [ARGS...]"
name="$1" np="$2" iterations="$3"
shift 3
limit=1024
if [ "$1" != "--" ]; then
    limit="$1"
    shift
fi
shift # --
program="$1"
shift
work="$(tl_workdir "$name")"
[ -x /usr/bin/time ] || tl_fail "/usr/bin/time is needed (Debian package time)"

peak_kb() { # peak_kb MODE ITERATIONS: the largest peak RSS of the ranks, in KB
    local mode="$1" n="$2" dir="$work/$1.$2"
    shift 2
    # Each rank's figure is appended to a file of its own line (O_APPEND: one write each),
    # not to the ranks' shared stderr, where lines of different ranks can interleave.
    rm -f "$dir.peaks"
    tl_mpirun "$np" LD_PRELOAD="$TL_MEASURE_LIB" TOPOLENS_MODE="$mode" \
        TOPOLENS_TRACE_DIR="$dir" -- /usr/bin/time -a -o "$dir.peaks" -f "peak_kb %M" \
        "$TL_BIN/$program" "${args[@]}" --iterations "$n" >"$dir.out" 2>&1 ||
        { cat "$dir.out"; tl_fail "$program exited with an error"; }
    [ "$(grep -c '^peak_kb [0-9]*$' "$dir.peaks")" = "$np" ] ||
        { cat "$dir.out" "$dir.peaks"; tl_fail "no peak RSS of every rank"; }
    awk '$1 == "peak_kb" && $2 > m { m = $2 } END { print m + 0 }' "$dir.peaks"
}
args=("$@")
long=$((iterations * 100))

echo "== $program on $np ranks: $iterations and $long iterations, profile only"
short_kb=$(peak_kb profile "$iterations")
long_kb=$(peak_kb profile "$long")
paths_short=$("$TL_TOPOLENS" summary "$work/profile.$iterations/profile.cubex" | awk '$1 == "call" { print $3 }')
paths_long=$("$TL_TOPOLENS" summary "$work/profile.$long/profile.cubex" | awk '$1 == "call" { print $3 }')
echo "call paths: $paths_short and $paths_long; peak RSS: $short_kb KB and $long_kb KB"
[ -n "$paths_short" ] && [ "$paths_short" = "$paths_long" ] ||
    tl_fail "the longer run's profile has other call paths"
growth=$((long_kb - short_kb))
echo "== for comparison, trace mode"
trace_short=$(peak_kb trace "$iterations")
trace_long=$(peak_kb trace "$long")
echo "profile mode grows by $growth KB, trace mode by $((trace_long - trace_short)) KB (limit $limit KB)"
[ "$growth" -le "$limit" ] || tl_fail "profile mode's peak RSS grew by $growth KB with 100x the iterations"
echo "PASS: $name"
