#!/usr/bin/env bash
# `topolens analyze --mpi` under mpirun gives the report of the analysis in one process,
# byte for byte, for 1 to 4 ranks, the root-cause analysis included: on the recorded traces of the samples (the Scalasca
# oracle's: a pipelined wavefront, CG on a 3D grid, collectives, an autotuned halo
# exchange), on traces whose time goes backwards, and on synthetic traces of every pattern
# (wavefront, sweeps with several octants in flight, nonblocking and periodic halos, SSOR,
# pairwise exchanges, collectives, the delay chain). Then what must fail does, with one
# clear line and no hang (every run under a timeout): a damaged event file in one rank's
# share, more ranks than processes, --mpi without mpirun; and `--ranks N` starts the ranks,
# where a failed analysis says its one error line without Open MPI's messages after it.
#
# usage: check_analyze_mpi.sh ORACLE_DIR ROBUSTNESS_DIR
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

[ "$#" = 2 ] || tl_fail "usage: check_analyze_mpi.sh ORACLE_DIR ROBUSTNESS_DIR"
[ -n "${TL_TOPOLENS:-}" ] || tl_fail "TL_TOPOLENS is not set: the topolens program was not built"
oracle="$1" robustness="$2"
work="$(tl_workdir analyze_mpi)"

# Each analysis gets its own copy of the trace: nothing is written next to the original.
traces=()
for name in wavefront2d cg3d collectives autotune_halo synth-mixed; do
    mkdir -p "$work/$name"
    cp -r "$oracle/$name/traces" "$oracle/$name/traces.def" "$oracle/$name/traces.otf2" "$work/$name/"
    traces+=("$work/$name")
done
for name in time_backwards_leave_before_enter time_backwards_recv_leave; do
    cp -r "$robustness/$name" "$work/$name"
    traces+=("$work/$name")
done
synth() { # NAME OPTIONS...
    local name="$1"
    shift
    "$TL_TOPOLENS" synth -o "$work/$name" "$@" >/dev/null || tl_fail "topolens synth $* failed"
    traces+=("$work/$name")
}
synth wavefront --pattern wavefront --grid 3x3 --iterations 3
synth sweep --pattern sweep --grid 3x2 --receive waitall --between allreduce --iterations 2
synth halo --pattern halo --grid 2x3 --variant nonblocking --periodic xy --iterations 3
synth ssor --pattern ssor --grid 2x2x2 --iterations 2
synth pairwise --pattern pairwise --ranks 6 --iterations 3
synth synth-collectives --pattern collectives --ranks 5 --iterations 3
synth delay --pattern delay --grid 4x3 --iterations 2

analyze_mpi() { # NP TRACE OUTPUT [more options]: at most 120 s
    local np="$1" trace="$2" out="$3"
    shift 3
    timeout 120 "$TL_MPIEXEC" --allow-run-as-root --oversubscribe -np "$np" \
        "$TL_TOPOLENS" analyze "$trace" --mpi --quiet -o "$out" "$@"
}

compared=0
for trace in "${traces[@]}"; do
    name="$(basename "$trace")"
    "$TL_TOPOLENS" analyze "$trace" --quiet -o "$work/$name.serial.cubex" \
        >/dev/null || tl_fail "topolens analyze $name failed"
    processes="$("$TL_TOPOLENS" info "$trace" 2>/dev/null | awk '/^ranks:/ { print $2; exit }')"
    for np in 1 2 3 4; do
        [ -z "$processes" ] || [ "$np" -le "$processes" ] || continue
        rc=0
        analyze_mpi "$np" "$trace" "$work/$name.np$np.cubex" >"$work/$name.np$np.out" 2>&1 || rc=$?
        [ "$rc" = 0 ] || { cat "$work/$name.np$np.out"; tl_fail "$name on $np ranks: status $rc"; }
        cmp -s "$work/$name.serial.cubex" "$work/$name.np$np.cubex" ||
            tl_fail "$name: the report of $np ranks differs from the one-process analysis"
        compared=$((compared + 1))
    done
    echo "ok: $name, 1 to 4 ranks (at most its processes): the one-process report byte for byte"
done
[ "$compared" -ge 40 ] || tl_fail "only $compared comparisons were made"

# Without the root-cause analysis too.
"$TL_TOPOLENS" analyze "$work/cg3d" --no-root-causes --quiet -o "$work/cg3d.plain.cubex" >/dev/null ||
    tl_fail "topolens analyze --no-root-causes failed"
analyze_mpi 3 "$work/cg3d" "$work/cg3d.plain.np3.cubex" --no-root-causes >/dev/null ||
    tl_fail "--mpi --no-root-causes failed"
cmp -s "$work/cg3d.plain.cubex" "$work/cg3d.plain.np3.cubex" ||
    tl_fail "--no-root-causes: the report of 3 ranks differs from the one-process analysis"

# A damaged event file in the last rank's share: every rank stops, rank 0 says why once.
damaged="$work/damaged"
cp -r "$work/cg3d" "$damaged"
printf 'not an OTF2 event file' >"$damaged/traces/26.evt"
rc=0
analyze_mpi 3 "$damaged" "$work/damaged.cubex" >"$work/damaged.out" 2>&1 || rc=$?
cat "$work/damaged.out"
[ "$rc" != 0 ] && [ "$rc" != 124 ] || tl_fail "a damaged trace gave status $rc (124: it hung)"
errors="$(grep -c '^topolens: error: .*26\.evt' "$work/damaged.out" || true)"
[ "$errors" = 1 ] || tl_fail "a damaged trace: $errors error lines naming 26.evt, not 1"
[ ! -e "$work/damaged.cubex" ] || tl_fail "a damaged trace left a report"

# Damaged anchors (tests/data/robustness): the one-process analysis's error, once, on every
# rank count; a foreign event file: the same warning and report as in one process.
for name in anchor_creator_unterminated anchor_flip46_10GB anchor_fuzz_oom; do
    cp -r "$robustness/$name" "$work/$name"
    rc=0
    "$TL_TOPOLENS" analyze "$work/$name" --quiet -o "$work/$name.cubex" >"$work/$name.serial.out" 2>&1 ||
        rc=$?
    [ "$rc" = 1 ] || tl_fail "$name: the one-process analysis gave status $rc"
    for np in 1 2; do
        rc=0
        analyze_mpi "$np" "$work/$name" "$work/$name.cubex" >"$work/$name.np$np.out" 2>&1 || rc=$?
        [ "$rc" != 0 ] && [ "$rc" != 124 ] || tl_fail "$name on $np ranks: status $rc (124: it hung)"
        grep '^topolens: error' "$work/$name.np$np.out" >"$work/$name.np$np.errors" || true
        cmp -s "$work/$name.serial.out" "$work/$name.np$np.errors" || {
            cat "$work/$name.serial.out" "$work/$name.np$np.out"
            tl_fail "$name on $np ranks: not the one-process analysis's error, once"
        }
    done
done
name=foreign_evt_same_program
cp -r "$robustness/$name" "$work/$name"
"$TL_TOPOLENS" analyze "$work/$name" -o "$work/$name.serial.cubex" >"$work/$name.serial.out" 2>&1 ||
    tl_fail "$name: the one-process analysis failed"
analyze_mpi 2 "$work/$name" "$work/$name.np2.cubex" >"$work/$name.np2.out" 2>&1 ||
    tl_fail "$name on 2 ranks failed"
cmp -s "$work/$name.serial.cubex" "$work/$name.np2.cubex" || tl_fail "$name: another report on 2 ranks"
diff <(grep 'warning' "$work/$name.serial.out") <(grep 'warning' "$work/$name.np2.out") ||
    tl_fail "$name: other warnings on 2 ranks"

# More ranks than processes.
rc=0
analyze_mpi 4 "$work/time_backwards_recv_leave" "$work/toomany.cubex" >"$work/toomany.out" 2>&1 ||
    rc=$?
[ "$rc" != 0 ] && [ "$rc" != 124 ] || tl_fail "4 ranks for 2 processes gave status $rc"
grep -q "the analysis has 4 ranks and the trace 2 processes" "$work/toomany.out" || {
    cat "$work/toomany.out"
    tl_fail "4 ranks for 2 processes: no error naming both"
}

# A report rank 0 cannot write: rank 0 fails after the others are done; every rank stops
# (no hang), with the one-process analysis's error, once.
rc=0
"$TL_TOPOLENS" analyze "$work/delay" --quiet -o "$work/no/such/dir/r.cubex" \
    >"$work/unwritable.serial.out" 2>&1 || rc=$?
[ "$rc" = 1 ] || tl_fail "an unwritable report in one process gave status $rc"
rc=0
analyze_mpi 3 "$work/delay" "$work/no/such/dir/r.cubex" >"$work/unwritable.out" 2>&1 || rc=$?
[ "$rc" != 0 ] && [ "$rc" != 124 ] || tl_fail "an unwritable report on 3 ranks gave status $rc"
grep '^topolens: error' "$work/unwritable.out" >"$work/unwritable.errors" || true
cmp -s "$work/unwritable.serial.out" "$work/unwritable.errors" || {
    cat "$work/unwritable.serial.out" "$work/unwritable.out"
    tl_fail "an unwritable report on 3 ranks: not the one-process analysis's error, once"
}

# --mpi without mpirun.
rc=0
timeout 60 env -u OMPI_COMM_WORLD_SIZE -u PMIX_RANK -u PMI_RANK "$TL_TOPOLENS" analyze \
    "$work/cg3d" --mpi >"$work/nompirun.out" 2>&1 || rc=$?
[ "$rc" = 2 ] || tl_fail "--mpi without mpirun gave status $rc, not 2"
grep -q "not started by mpirun" "$work/nompirun.out" || tl_fail "--mpi without mpirun: no clear error"

# --ranks N starts the ranks itself.
rc=0
timeout 120 "$TL_TOPOLENS" analyze "$work/delay" --ranks 3 --quiet \
    -o "$work/delay.ranks.cubex" >"$work/ranks.out" 2>&1 || rc=$?
[ "$rc" = 0 ] || { cat "$work/ranks.out"; tl_fail "--ranks 3 gave status $rc"; }
cmp -s "$work/delay.serial.cubex" "$work/delay.ranks.cubex" ||
    tl_fail "--ranks 3 gave another report than the one-process analysis"
grep -q "reading" "$work/ranks.out" && tl_fail "--ranks 3 --quiet: the ranks were not told --quiet"
# Every other option reaches the ranks too: the report is the one-process report with them,
# not the default one.
"$TL_TOPOLENS" analyze "$work/delay" --no-root-causes --cart 3x4 --quiet \
    -o "$work/delay.options.serial.cubex" >/dev/null || tl_fail "analyze --cart 3x4 failed"
cmp -s "$work/delay.serial.cubex" "$work/delay.options.serial.cubex" &&
    tl_fail "--no-root-causes --cart 3x4 changed nothing: the check below would prove nothing"
rc=0
timeout 120 "$TL_TOPOLENS" analyze "$work/delay" --ranks 2 --no-root-causes --cart 3x4 \
    --quiet -o "$work/delay.options.ranks.cubex" >"$work/ranks.options.out" 2>&1 || rc=$?
[ "$rc" = 0 ] || { cat "$work/ranks.options.out"; tl_fail "--ranks 2 with options gave status $rc"; }
cmp -s "$work/delay.options.serial.cubex" "$work/delay.options.ranks.cubex" ||
    tl_fail "--ranks 2 --no-root-causes --cart 3x4: the ranks did not get every option"

# --ranks N on a damaged trace (a damaged share, a damaged anchor): the one-process
# analysis's error line alone on stderr, none of Open MPI's messages after it, and status 1.
for trace in "$damaged" "$work/anchor_creator_unterminated"; do
    name="$(basename "$trace")"
    rc=0
    "$TL_TOPOLENS" analyze "$trace" --quiet -o "$work/$name.alone.cubex" \
        >/dev/null 2>"$work/$name.alone.err" || rc=$?
    [ "$rc" = 1 ] && [ "$(wc -l <"$work/$name.alone.err")" = 1 ] ||
        tl_fail "$name: the one-process analysis gave status $rc, not 1 with one line"
    rc=0
    timeout 120 "$TL_TOPOLENS" analyze "$trace" --ranks 2 --quiet -o "$work/$name.alone.cubex" \
        >"$work/$name.ranks.out" 2>"$work/$name.ranks.err" || rc=$?
    cmp -s "$work/$name.alone.err" "$work/$name.ranks.err" && [ ! -s "$work/$name.ranks.out" ] || {
        cat "$work/$name.alone.err" "$work/$name.ranks.out" "$work/$name.ranks.err"
        tl_fail "$name, --ranks 2: stderr is not the one-process analysis's error line alone"
    }
    [ "$rc" = 1 ] || tl_fail "$name, --ranks 2: status $rc, not 1"
done
# Without --quiet: the progress line, then the same error, nothing else.
rc=0
timeout 120 "$TL_TOPOLENS" analyze "$damaged" --ranks 2 -o "$work/damaged.alone.cubex" \
    >/dev/null 2>"$work/damaged.progress.err" || rc=$?
diff <(printf 'topolens: reading %s in 2 ranks\n' "$damaged" && cat "$work/damaged.alone.err") \
    "$work/damaged.progress.err" || tl_fail "--ranks 2 without --quiet on a damaged trace: other lines"
[ "$rc" = 1 ] || tl_fail "--ranks 2 without --quiet on a damaged trace: status $rc, not 1"

# mpirun failing itself (here: a default hostfile that does not exist) still says why: Open
# MPI's message, then topolens's own line, and status 1.
rc=0
OMPI_MCA_orte_default_hostfile="$work/no-such-hostfile" timeout 120 "$TL_TOPOLENS" analyze \
    "$work/delay" --ranks 2 --quiet -o "$work/nohosts.cubex" >"$work/nohosts.out" 2>&1 || rc=$?
grep -q "no-such-hostfile" "$work/nohosts.out" && [ "$(tail -n 1 "$work/nohosts.out")" = \
    "topolens: error: mpirun ended with exit status 1 and no error from the analysis on 2 ranks; Open MPI's message above says why" ] || {
    cat "$work/nohosts.out"
    tl_fail "mpirun failing: not Open MPI's message (naming the hostfile) and topolens's line"
}
[ "$rc" = 1 ] || tl_fail "mpirun failing: status $rc, not 1"
echo "ok: damaged share, too many ranks, unwritable report, --mpi without mpirun, --ranks"
