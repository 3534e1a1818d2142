#!/usr/bin/env bash
# A full disk while tracing (issue 15): `topolens run` with the trace directory on a small
# tmpfs. The program must run to its normal end with its own output and exit status, each
# rank whose writing failed prints exactly one line naming the error, OTF2 prints nothing
# of its own, nobody says "trace written", `topolens run` reports the trace as incomplete
# (exit 3) and `topolens info` on what is left gives one clear error or reads it, never
# crashes.
#
# usage: check_full_disk.sh NAME NP [options] -- PROGRAM [ARGS...]   (PROGRAM in TL_BIN)
#   --size SIZE          tmpfs size (default 200k); "events": as large as the event files of
#                        the same run on the ordinary disk, so that the events fit and
#                        nothing else does (the program's events must not vary)
#   --env VAR=VALUE      exported to every rank (repeatable)
#   --stdout REGEX       a line the program's stdout must hold
#   --run-failures N     ranks whose writing must fail while the program runs
#   --finalize-failures N  ranks whose writing must fail in MPI_Finalize
#   --fill BYTES         a file of BYTES on the tmpfs before the run; "@FILLER@" in the
#                        program's arguments stands for its path
#   --missing TEXT       the incomplete trace's summary must name TEXT (repeatable)
#   --not-missing TEXT   ... and must not name TEXT (repeatable)
#   --expected-note TEXT a topolens line holding TEXT the program causes on purpose, left
#                        out of the count of other messages (repeatable)
# Needs root and mount(2): otherwise it skips (exit 77, ctest's SKIP_RETURN_CODE).
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

[ -n "${TL_TOPOLENS:-}" ] || tl_fail "TL_TOPOLENS is not set (topolens not built)"
name="$1" np="$2"
shift 2
size=200k fill="" stdout_regex="" run_failures="" finalize_failures=""
env=() missing=() not_missing=() notes=()
while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do
    case "$1" in
    --size) size="$2" && shift 2 ;;
    --env) env+=(-x "$2") && shift 2 ;;
    --fill) fill="$2" && shift 2 ;;
    --stdout) stdout_regex="$2" && shift 2 ;;
    --run-failures) run_failures="$2" && shift 2 ;;
    --finalize-failures) finalize_failures="$2" && shift 2 ;;
    --missing) missing+=("$2") && shift 2 ;;
    --not-missing) not_missing+=("$2") && shift 2 ;;
    --expected-note) notes+=("$2") && shift 2 ;;
    *) tl_fail "unknown option $1" ;;
    esac
done
[ "$#" -gt 1 ] || tl_fail "usage: check_full_disk.sh NAME NP [options] -- PROGRAM [ARGS...]"
shift
program="$1"
shift
work="$(tl_workdir "$name")"

if [ "$size" = events ]; then
    echo "== calibration: the same run on the ordinary disk"
    # TOPOLENS_VERBOSE=1: each rank says how large its record for a run that dies is
    # (rank-<r>.defs, the definitions made at MPI_Init, about 4 KB); it stays on the disk
    # from MPI_Init to the end of MPI_Finalize.
    timeout 120 "$TL_TOPOLENS" run -np "$np" --trace-dir "$work/calibration" "${env[@]}" \
        -x TOPOLENS_VERBOSE=1 -- "$TL_BIN/$program" "$@" >"$work/calibration.log" 2>&1 ||
        { cat "$work/calibration.log"; tl_fail "the calibration run failed"; }
    record_bytes="$(sed -n 's/^topolens: rank [0-9]*: rank-[0-9]*\.defs holds \([0-9]*\) bytes$/\1/p' \
        "$work/calibration.log" | sort -n | tail -n 1)"
    [ -n "$record_bytes" ] || { cat "$work/calibration.log"; tl_fail "no rank said its record's size"; }
    page="$(getconf PAGESIZE)" pages=0
    for f in "$work"/calibration/traces/*.evt; do
        pages=$((pages + ($(stat -c %s "$f") + page - 1) / page))
    done
    record_pages=$(((record_bytes + page - 1) / page))
    echo "event files: $pages pages; a rank's record: $record_bytes bytes ($record_pages pages)"
    size=$(((pages + np * record_pages) * page))
fi
disk="$(mktemp -d "$work/disk.XXXXXX")"
mounted=0
cleanup() {
    if [ "$mounted" = 1 ]; then umount "$disk" || umount -l "$disk" || true; fi
    rmdir "$disk" 2>/dev/null || true
}
trap cleanup EXIT
if ! mount -t tmpfs -o "size=$size" tmpfs "$disk" 2>"$work/mount.err"; then
    echo "SKIP: cannot mount a $size tmpfs for the full disk ($(head -n 1 "$work/mount.err"));" \
        "this test needs root and mount permission"
    exit 77
fi
mounted=1
args=()
for a in "$@"; do args+=("${a//@FILLER@/$disk/filler}"); done
set -- ${args[@]+"${args[@]}"}
if [ -n "$fill" ]; then head -c "$fill" /dev/zero >"$disk/filler"; fi

echo "== topolens run -np $np ${env[*]} -- $program $* on a $size tmpfs"
status=0
timeout 120 "$TL_TOPOLENS" run -np "$np" --trace-dir "$disk/trace" "${env[@]}" -- \
    "$TL_BIN/$program" "$@" >"$work/out.txt" 2>"$work/err.txt" || status=$?
cat "$work/out.txt" "$work/err.txt"
[ "$status" != 124 ] || tl_fail "the run hung (killed after 120 s)"
[ "$status" = 3 ] ||
    tl_fail "topolens run returned $status, expected 3 (program ok, trace incomplete)"
if [ -n "$stdout_regex" ]; then
    grep -q -- "$stdout_regex" "$work/out.txt" || tl_fail "the program's output lacks '$stdout_regex'"
fi

! grep -q '\[OTF2\]' "$work/err.txt" || tl_fail "OTF2 printed its own error lines"
! grep -qi 'trace written' "$work/err.txt" || tl_fail "'trace written' for an incomplete trace"
failure='^topolens: rank [0-9]\+: writing the trace failed (No space left on device) '
grep "$failure" "$work/err.txt" >"$work/failures.txt" || true
[ -s "$work/failures.txt" ] || tl_fail "no rank said that writing failed"
duplicates="$(awk '{ print $3 }' "$work/failures.txt" | sort | uniq -d)"
[ -z "$duplicates" ] || tl_fail "more than one failure line from rank(s) $duplicates"
run_lines="$(grep -c 'after MPI_Init, after [0-9]\+ events; tracing stops on this rank, the program runs on$' \
    "$work/failures.txt" || true)"
finalize_lines="$(grep -c 'in MPI_Finalize, [0-9.]\+ s after MPI_Init; the trace of this rank is incomplete$' \
    "$work/failures.txt" || true)"
[ "$((run_lines + finalize_lines))" = "$(wc -l <"$work/failures.txt")" ] ||
    tl_fail "a failure line has an unexpected form"
[ -z "$run_failures" ] || [ "$run_lines" = "$run_failures" ] ||
    tl_fail "$run_lines ranks failed while running, expected $run_failures"
[ -z "$finalize_failures" ] || [ "$finalize_lines" = "$finalize_failures" ] ||
    tl_fail "$finalize_lines ranks failed in MPI_Finalize, expected $finalize_failures"
incomplete="^topolens: the trace in $disk/trace is incomplete: .*(No space left on device)"
[ "$(grep -c "$incomplete" "$work/err.txt")" = 1 ] ||
    tl_fail "topolens run did not say once that the trace is incomplete"
summary="$(grep "$incomplete" "$work/err.txt")"
for text in ${missing[@]+"${missing[@]}"}; do
    grep -qF -- "$text" <<<"$summary" || tl_fail "the summary does not name '$text'"
done
for text in ${not_missing[@]+"${not_missing[@]}"}; do
    ! grep -qF -- "$text" <<<"$summary" || tl_fail "the summary names '$text'"
done
noted=0
for text in ${notes[@]+"${notes[@]}"}; do
    noted=$((noted + $(grep '^topolens: ' "$work/err.txt" | grep -cF -- "$text")))
done
[ "$(grep -c '^topolens: ' "$work/err.txt")" = "$(($(wc -l <"$work/failures.txt") + 1 + noted))" ] ||
    tl_fail "other topolens messages than the failures and the summary"

echo "== topolens info $disk/trace"
info=0
(ulimit -v 4000000 && timeout 60 "$TL_TOPOLENS" info "$disk/trace") >"$work/info.txt" \
    2>"$work/info.err" || info=$?
cat "$work/info.txt" "$work/info.err"
[ "$info" -lt 124 ] || tl_fail "topolens info crashed or hung (status $info)"
if [ "$info" != 0 ]; then
    [ "$(wc -l <"$work/info.err")" = 1 ] || tl_fail "topolens info: not one clear error line"
fi
echo "OK"
