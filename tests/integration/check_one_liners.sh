#!/usr/bin/env bash
# The one-liners: `topolens summary|values|audit DIR` take a trace directory for its
# report.cubex, analyzing first (said on stderr) when there is none or it is older than the
# trace, and read it as it is otherwise; a directory with neither is one error line; `topolens
# run --analyze` traces, analyzes and prints the summary. Each command's output on DIR must
# equal its output on a report made with `topolens analyze -o`.
#
# usage: check_one_liners.sh synth   a synthetic Late Sender trace (topolens synth)
#        check_one_liners.sh run     samples/autotune_halo on 8 ranks by `topolens run --analyze`
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
[ -n "${TL_TOPOLENS:-}" ] || tl_fail "TL_TOPOLENS is not set (topolens not built)"
mode="${1:-}"
work="$(tl_workdir "one_liners.$mode")"
t="$TL_TOPOLENS"

# Stdout of a command on the reference report and on DIR, less the line naming the input.
same_output() { # NAME COMMAND-ARGS-BEFORE-INPUT... (input last, after the reference)
    local name="$1"
    shift
    grep -v "^report: \|$work" "$work/$name.dir.out" >"$work/$name.dir.cmp" || true
    grep -v "^report: \|$work" "$work/$name.ref.out" >"$work/$name.ref.cmp" || true
    [ -s "$work/$name.ref.cmp" ] || tl_fail "$name printed nothing on the reference report"
    diff "$work/$name.ref.cmp" "$work/$name.dir.cmp" || tl_fail "$name on DIR differs from $name on the report"
}
mtime() { stat -c %Y.%y "$1"; }

case "$mode" in
synth)
    trace="$work/trace"
    "$t" synth -o "$trace" --ranks 4 --pattern late-sender >"$work/synth.out" || tl_fail "synth failed"
    metric="Late Sender"
    expected="$(awk '$1 == "Late" && $2 == "Sender" { print $5 }' "$work/synth.out")"
    ;;
run)
    trace="$work/trace"
    echo "== topolens run -np 8 --analyze -- autotune_halo"
    "$t" run -np 8 --trace-dir "$trace" --analyze -- "$TL_BIN/autotune_halo" \
        --codelet-costs 4000,4000,4000,2000,3000,4000,4000,4000,4000,4000,4000 --non-periodic \
        --barrier --measurements 5 >"$work/run.out" 2>"$work/run.err" ||
        { cat "$work/run.out" "$work/run.err"; tl_fail "topolens run --analyze failed"; }
    cat "$work/run.err"
    grep -q "^topolens: trace written to $trace$" "$work/run.err" || tl_fail "run did not say where the trace went"
    grep -q "^topolens: report written to $trace/report.cubex$" "$work/run.out" ||
        tl_fail "run --analyze wrote no report into the trace directory"
    [ -f "$trace/report.cubex" ] || tl_fail "no $trace/report.cubex"
    # The summary follows: the same as `topolens summary` of the report.
    sed -n '/^report: /,$p' "$work/run.out" >"$work/run-summary.dir.out"
    "$t" summary "$trace/report.cubex" >"$work/run-summary.ref.out" || tl_fail "summary of the report failed"
    same_output run-summary
    grep -q "^autotuning" "$work/run.out" || tl_fail "the summary shows no autotuning section"
    metric="Time"
    expected=""
    ;;
*) tl_fail "usage: check_one_liners.sh synth|run" ;;
esac

# The reference: the report made explicitly, elsewhere.
"$t" analyze "$trace" -o "$work/reference.cubex" --quiet >/dev/null || tl_fail "analyze failed"

if [ "$mode" = synth ]; then
    # No report yet: the first command analyzes and says so.
    "$t" summary "$trace" >"$work/summary.dir.out" 2>"$work/summary.err" || tl_fail "summary DIR failed"
    cat "$work/summary.err"
    grep -q "^topolens: analyzing $trace first: it has no report yet ($trace/report.cubex)$" \
        "$work/summary.err" || tl_fail "summary DIR did not say it analyzes first"
    grep -q "^topolens: report written to $trace/report.cubex$" "$work/summary.err" ||
        tl_fail "summary DIR did not say where the report went"
    [ -f "$trace/report.cubex" ] || tl_fail "summary DIR wrote no report"
else
    "$t" summary "$trace" >"$work/summary.dir.out" 2>"$work/summary.err" || tl_fail "summary DIR failed"
fi
"$t" summary "$work/reference.cubex" >"$work/summary.ref.out" || tl_fail "summary of the reference failed"
same_output summary

# With a report up to date, nothing is analyzed and the report stays as it is.
before="$(mtime "$trace/report.cubex")"
"$t" values "$trace" --metric "$metric" >"$work/values.dir.out" 2>"$work/values.err" || tl_fail "values DIR failed"
[ ! -s "$work/values.err" ] || { cat "$work/values.err"; tl_fail "values DIR said something on stderr"; }
[ "$(mtime "$trace/report.cubex")" = "$before" ] || tl_fail "values DIR rewrote an up-to-date report"
"$t" values "$work/reference.cubex" --metric "$metric" >"$work/values.ref.out" || tl_fail "values failed"
same_output values
if [ -n "$expected" ]; then
    total="$(awk -F, 'NR > 1 { s += $6 } END { printf "%.9f", s }' "$work/values.dir.out")"
    [ "$total" = "$expected" ] || tl_fail "values DIR: Late Sender $total s, synth says $expected s"
fi

# A report older than the trace is made again, and said so.
touch -d "@$(($(date +%s) + 5))" "$trace/traces.otf2"
"$t" values "$trace" --metric "$metric" >"$work/values2.dir.out" 2>"$work/values2.err" || tl_fail "values DIR failed"
cat "$work/values2.err"
grep -q "^topolens: analyzing $trace first: $trace/report.cubex is older than the trace$" \
    "$work/values2.err" || tl_fail "values DIR did not analyze a trace newer than its report"
cp "$work/values.ref.out" "$work/values2.ref.out"
same_output values2

# audit DIR: the codelet audit of the tuned run; on the synthetic trace, the error of a
# report without tuned operations, as for the report itself.
if [ "$mode" = run ]; then
    "$t" audit "$trace" >"$work/audit.dir.out" 2>"$work/audit.err" || { cat "$work/audit.err"; tl_fail "audit DIR failed"; }
    "$t" audit "$work/reference.cubex" >"$work/audit.ref.out" || tl_fail "audit of the reference failed"
    grep -q "^halo3d" "$work/audit.dir.out" || tl_fail "audit DIR shows no halo3d"
    same_output audit
else
    rc=0
    "$t" audit "$trace" >/dev/null 2>"$work/audit.err" || rc=$?
    [ "$rc" = 1 ] && grep -q "holds no tuned operations" "$work/audit.err" ||
        { cat "$work/audit.err"; tl_fail "audit DIR of a trace without tuned operations: status $rc"; }
fi

# A directory holding only a report: that report. One with neither: one line naming it.
mkdir -p "$work/only-report" "$work/empty"
cp "$work/reference.cubex" "$work/only-report/report.cubex"
"$t" values "$work/only-report" --metric "$metric" >"$work/values3.dir.out" 2>"$work/values3.err" ||
    tl_fail "values on a directory with a report only failed"
[ ! -s "$work/values3.err" ] || tl_fail "values on a directory with a report only said something"
cp "$work/values.ref.out" "$work/values3.ref.out"
same_output values3
for command in summary "values --metric Time" audit; do
    rc=0
    # shellcheck disable=SC2086
    "$t" $command "$work/empty" >/dev/null 2>"$work/empty.err" || rc=$?
    [ "$rc" = 1 ] || tl_fail "$command on an empty directory: status $rc"
    [ "$(wc -l <"$work/empty.err")" = 1 ] || { cat "$work/empty.err"; tl_fail "$command: not one line"; }
    grep -q "$work/empty: neither a trace (no .otf2 anchor) nor a report (no report.cubex, no profile.cubex)" \
        "$work/empty.err" || { cat "$work/empty.err"; tl_fail "$command: the line does not name the problem"; }
done
echo "one-liners ($mode): OK"
