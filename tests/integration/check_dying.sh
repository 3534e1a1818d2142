#!/usr/bin/env bash
# A run that dies keeps what it recorded. dying_ring on 4 ranks, rank 1 dies at iteration 50
# of 100:   check_dying.sh NAME abort|sigsegv|sigterm|sigkill|sigkill_flushed|exit|exit_flushed|
#                          sigterm_handled|fortran_abort|fortran_abort_f08|leftover
#   abort .. exit  `topolens run`: exit status as untraced; the trace is completed and read
#                  by `topolens info` and `analyze`, which name the dead rank and the fault;
#                  rank 1 has exactly its 50 iterations (Init + 50 Sendrecv entered, + the
#                  MPI_Abort region), the others at least as many (otf2-print counts them);
#                  the next run into the same --trace-dir records normally.
#   sigkill        rank 1 leaves no word and, its buffer never flushed, no events.
#   exit_flushed   exit after many buffer flushes: every event written is read.
#   sigkill_flushed  SIGKILL after more than 4 MiB of events: what reached the file is read.
#   sigterm_handled  the program's own SIGTERM handler lets it live on: complete trace.
#   fortran_abort[_f08]  MPI_ABORT from Fortran (dying_fortran, use mpi / use mpi_f08).
#   leftover       an uncompleted trace left by plain mpirun is moved aside by the next run
#                  (one line says so), and `topolens info` completes the moved one.
source "$(dirname "$0")/common.sh"
name="$1" how="$2"
work="$(tl_workdir "$name")"
[ -n "${TL_TOPOLENS:-}" ] || tl_fail "TL_TOPOLENS is not set"
export TOPOLENS_MEASURE_LIB="$TL_MEASURE_LIB"
ring="$TL_BIN/dying_ring"
limit=90 # a dying MPI job can hang: everything runs under timeout

enters_of() { # enters_of TRACE RANK: Enter records of a rank, by otf2-print
    # (otf2-print fails on a location without an event file: it then has none)
    { timeout "$limit" "$TL_OTF2_PRINT" -L "$2" "$1/traces.otf2" 2>/dev/null || true; } |
        awk -v r="$2" '$1 == "ENTER" && $2 == r { n++ } END { print n + 0 }'
}

info_and_analyze() { # info_and_analyze TRACE EXPECTED-PHRASE
    timeout "$limit" "$TL_TOPOLENS" info "$1" >"$work/info.out" 2>"$work/info.err" ||
        tl_fail "topolens info failed: $(cat "$work/info.err")"
    tl_words "$work/info.out" "cut short: $2"
    timeout "$limit" "$TL_TOPOLENS" analyze "$1" -o "$work/report.cubex" >"$work/analyze.out" \
        2>"$work/analyze.err" || tl_fail "topolens analyze failed: $(cat "$work/analyze.err")"
    tl_words "$work/analyze.err" "topolens: the run was cut short: $2"
    [ "$(grep -c 'the run was cut short' "$work/analyze.err")" = 1 ] ||
        tl_fail "analyze did not say once that the run was cut short"
}

tl_words() { # tl_words FILE PHRASE: PHRASE occurs, line breaks and indentation aside
    tr -s ' \n' '  ' <"$1" | grep -qF -- "$2" || tl_fail "'$2' not in $1: $(cat "$1")"
}

case "$how" in
abort | sigsegv | sigterm | exit)
    set +e
    timeout "$limit" "$TL_MPIEXEC" --allow-run-as-root --oversubscribe -np 4 "$ring" \
        --die-at 50 --how "$how" >"$work/untraced.out" 2>&1
    untraced=$?
    timeout "$limit" "$TL_TOPOLENS" run -np 4 --trace-dir "$work/trace" -- "$ring" \
        --die-at 50 --how "$how" >"$work/run.out" 2>"$work/run.err"
    traced=$?
    set -e
    [ "$untraced" -ne 0 ] && [ "$untraced" -ne 124 ] || tl_fail "untraced run: status $untraced"
    [ "$traced" = "$untraced" ] || tl_fail "exit status $traced traced, $untraced untraced"
    tl_words "$work/run.err" "its trace, cut short, is in $work/trace"
    case "$how" in
    abort) cause="MPI_Abort(errorcode 3)" ;;
    sigsegv) cause="signal SIGSEGV" ;;
    sigterm) cause="signal SIGTERM" ;;
    exit) cause="exit(4) without MPI_Finalize" ;;
    esac
    info_and_analyze "$work/trace" "rank 1 died ($cause) at"
    expected=51
    [ "$how" = abort ] && expected=52
    [ "$(enters_of "$work/trace" 1)" = "$expected" ] ||
        tl_fail "rank 1 entered $(enters_of "$work/trace" 1) regions, not $expected"
    for r in 0 2 3; do
        [ "$(enters_of "$work/trace" "$r")" -ge 51 ] ||
            tl_fail "rank $r entered only $(enters_of "$work/trace" "$r") regions"
    done
    # The next run into the same directory records normally.
    timeout "$limit" "$TL_TOPOLENS" run -np 4 --trace-dir "$work/trace" -- "$ring" \
        --iterations 10 >"$work/next.out" 2>"$work/next.err" ||
        tl_fail "the next run failed: $(cat "$work/next.err")"
    tl_words "$work/next.err" "trace written to $work/trace"
    [ ! -e "$work/trace/cut.txt" ] || tl_fail "the next run's trace is marked cut short"
    [ -f "$work/trace.1/cut.txt" ] || tl_fail "the cut-short trace was not kept as trace.1"
    [ "$(enters_of "$work/trace" 1)" = 13 ] || tl_fail "next run: rank 1 misses events"
    ;;
sigkill)
    # Nothing of rank 1's events reached the disk (its buffer never filled): the trace is
    # read without them, never refused, and says so.
    set +e
    timeout "$limit" "$TL_MPIEXEC" --allow-run-as-root --oversubscribe -np 4 "$ring" \
        --die-at 50 --how sigkill >"$work/untraced.out" 2>&1
    untraced=$?
    timeout "$limit" "$TL_TOPOLENS" run -np 4 --trace-dir "$work/trace" -- "$ring" \
        --die-at 50 --how sigkill >"$work/run.out" 2>"$work/run.err"
    traced=$?
    set -e
    [ "$untraced" = 137 ] || tl_fail "untraced run: status $untraced, not 137 (SIGKILL)"
    [ "$traced" = "$untraced" ] || tl_fail "exit status $traced traced, $untraced untraced"
    info_and_analyze "$work/trace" "rank 1 was killed without a word (e.g. SIGKILL): events up to its last buffer flush (no events)"
    [ "$(enters_of "$work/trace" 1)" = 0 ] || tl_fail "rank 1 has events it never wrote"
    for r in 0 2 3; do
        [ "$(enters_of "$work/trace" "$r")" -ge 51 ] ||
            tl_fail "rank $r entered only $(enters_of "$work/trace" "$r") regions"
    done
    ;;
sigkill_flushed)
    # 256K buffers and 2,500 iterations of 160 MPI_Packs and a Sendrecv (324 events) before
    # SIGKILL: more than OTF2's 4 MiB file buffer of rank 1's events reached its file; they
    # are read up to where the file breaks off. (The packs make the events without
    # communication: 100,000 ring iterations took over 90 s with two busy processes beside.)
    set +e
    packs=160 die_at=2500
    timeout "$limit" "$TL_TOPOLENS" run -np 4 --trace-dir "$work/trace" \
        -x TOPOLENS_BUFFER_SIZE=256K -- "$ring" --iterations 4000 --die-at "$die_at" \
        --packs "$packs" --how sigkill --work-us 0 >"$work/run.out" 2>"$work/run.err"
    traced=$?
    set -e
    [ "$traced" = 137 ] || tl_fail "exit status $traced, not 137 (SIGKILL)"
    info_and_analyze "$work/trace" "rank 1 was killed without a word (e.g. SIGKILL): events up to its last buffer flush (events up to"
    # (otf2-print does not come back from a file cut at a chunk boundary: our reader's count)
    kept="$(tr -s ' \n' '  ' <"$work/info.out" |
        sed -n 's/.*rank 1: its event file breaks off after \([0-9]*\) events.*/\1/p')"
    # At most the events rank 1 made before it died: MPI_Init's two, then per iteration
    # Enter, Send, Recv and Leave of the Sendrecv and Enter and Leave of each pack.
    [ -n "$kept" ] && [ "$kept" -gt 40000 ] && [ "$kept" -le $((die_at * (4 + 2 * packs) + 2)) ] ||
        tl_fail "rank 1 kept '$kept' events, not those of its written chunks"
    ;;
exit_flushed)
    # 256K buffers: every rank flushed several times before rank 1 exits at iteration
    # 2000 (10 MPI_Packs and a Sendrecv each: 22,001 regions entered with MPI_Init's); all
    # its events are read (the anchor names the ranks' chunk size).
    set +e
    timeout "$limit" "$TL_TOPOLENS" run -np 4 --trace-dir "$work/trace" \
        -x TOPOLENS_BUFFER_SIZE=256K -- "$ring" --iterations 3000 --die-at 2000 --packs 10 \
        --how exit --work-us 0 >"$work/run.out" 2>"$work/run.err"
    traced=$?
    set -e
    [ "$traced" = 4 ] || tl_fail "exit status $traced, not 4"
    info_and_analyze "$work/trace" "rank 1 died (exit(4) without MPI_Finalize) at"
    [ "$(enters_of "$work/trace" 1)" = 22001 ] ||
        tl_fail "rank 1 entered $(enters_of "$work/trace" 1) regions, not 22001"
    flushes="$("$TL_OTF2_PRINT" -L 1 "$work/trace/traces.otf2" | awk '$1 == "BUFFER_FLUSH" { n++ } END { print n + 0 }')"
    [ "$flushes" -ge 2 ] || tl_fail "rank 1 flushed $flushes times: the case tests nothing"
    for r in 0 2 3; do
        [ "$(enters_of "$work/trace" "$r")" -ge 22001 ] ||
            tl_fail "rank $r entered only $(enters_of "$work/trace" "$r") regions"
    done
    ;;
sigterm_handled)
    # The program handles SIGTERM and lives on: so does the measurement, to a complete trace.
    timeout "$limit" "$TL_TOPOLENS" run -np 4 --trace-dir "$work/trace" -- "$ring" \
        --die-at 50 --how sigterm --handle-sigterm 1 >"$work/run.out" 2>"$work/run.err" ||
        tl_fail "the run failed: $(cat "$work/run.err")"
    tl_words "$work/run.err" "trace written to $work/trace"
    [ ! -e "$work/trace/cut.txt" ] || tl_fail "a run that lived on is marked cut short"
    ! ls "$work/trace"/rank-*.defs >/dev/null 2>&1 || tl_fail "per-rank records left behind"
    [ "$(enters_of "$work/trace" 1)" = 103 ] ||
        tl_fail "rank 1 entered $(enters_of "$work/trace" 1) regions, not 103"
    ;;
fortran_abort | fortran_abort_f08)
    program="$TL_BIN/dying_fortran"
    [ "$how" = fortran_abort_f08 ] && program="$TL_BIN/dying_fortran_f08"
    set +e
    timeout "$limit" "$TL_MPIEXEC" --allow-run-as-root --oversubscribe -np 4 "$program" \
        >"$work/untraced.out" 2>&1
    untraced=$?
    timeout "$limit" "$TL_TOPOLENS" run -np 4 --trace-dir "$work/trace" -- "$program" \
        >"$work/run.out" 2>"$work/run.err"
    traced=$?
    set -e
    [ "$untraced" = 3 ] || tl_fail "untraced run: status $untraced, not 3"
    [ "$traced" = "$untraced" ] || tl_fail "exit status $traced traced, $untraced untraced"
    info_and_analyze "$work/trace" "rank 1 died (MPI_Abort(errorcode 3)) at"
    # MPI_Init, 5 MPI_Sendrecv, MPI_Abort
    [ "$(enters_of "$work/trace" 1)" = 7 ] ||
        tl_fail "rank 1 entered $(enters_of "$work/trace" 1) regions, not 7"
    ;;
leftover)
    # Plain mpirun: nobody completes the trace; the directory stays as the run left it.
    set +e
    timeout "$limit" "$TL_MPIEXEC" --allow-run-as-root --oversubscribe -np 4 \
        -x LD_PRELOAD="$TL_MEASURE_LIB" -x TOPOLENS_TRACE_DIR="$work/trace" "$ring" \
        --die-at 50 --how sigsegv >"$work/dead.out" 2>&1
    set -e
    ls "$work/trace"/rank-*.defs >/dev/null || tl_fail "the dead run left no per-rank records"
    [ ! -e "$work/trace/traces.otf2" ] || tl_fail "the dead run left an anchor"
    tl_mpirun 4 LD_PRELOAD="$TL_MEASURE_LIB" TOPOLENS_TRACE_DIR="$work/trace" -- "$ring" \
        --iterations 10 >"$work/next.out" 2>"$work/next.err" ||
        tl_fail "the next run failed: $(cat "$work/next.err")"
    kept="$(sed -n "s|^topolens: kept the unfinished trace of an earlier run in '$work/trace' as '\(.*\)'\$|\1|p" "$work/next.err")"
    [ -n "$kept" ] || tl_fail "no line about the kept trace: $(cat "$work/next.err")"
    [ "$(grep -c 'kept the unfinished trace' "$work/next.err")" = 1 ] || tl_fail "said more than once"
    [[ "$kept" =~ ^$work/trace-[0-9]{8}_[0-9]{6}$ ]] || tl_fail "kept as '$kept'"
    [ -f "$work/trace/traces.otf2" ] || tl_fail "the next run wrote no trace"
    [ "$(enters_of "$work/trace" 1)" = 13 ] || tl_fail "next run: rank 1 misses events"
    info_and_analyze "$kept" "rank 1 died (signal SIGSEGV) at"
    tl_words "$work/info.err" "completed the trace of a run cut short in $kept"
    ;;
*) tl_fail "unknown case '$how'" ;;
esac
echo "PASS"
