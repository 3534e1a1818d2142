#!/usr/bin/env bash
# topolens demo: installs what is missing, builds, traces the wavefront2d sample (a
# Sweep3D-like pipelined wavefront) on 16 processes in a 4x4 grid, shows the trace,
# analyzes it into a CUBE4 report (<demo dir>/wavefront2d.cubex) and prints its summary.
# Then an autotuned run: samples/autotune_halo on 8 processes, its tuner deciding by the
# raw mean while one process suffers outliers in the truly best codelet; the report
# (<demo dir>/autotune_halo.cubex) and `topolens audit` show whether the tuner's decision
# holds. It ends by drawing the "Wavefront from SW" waits on the process grid into
# <demo dir>/wavefront2d-topology.png (`topolens render`; under xvfb-run when there is no
# display) and, with a display (and not in CI), opening the wavefront report in topolens-gui.
#
# Usage: samples/demo.sh              (no arguments needed)
#
# Environment (all optional):
#   TOPOLENS_DEMO_DIR     output directory (default: <build>/demo); the trace goes to
#                         $TOPOLENS_DEMO_DIR/wavefront2d, replaced on every run
#   TOPOLENS_DEMO_ARGS    wavefront2d options (default: --blocks 10 --iterations 2
#                         --work-us 2000); see samples/wavefront2d/README.md
#   TOPOLENS_DEMO_NO_BUILD=1   skip package installation and build (already built)
#   TOPOLENS_DEMO_NO_AUTOTUNE=1  skip the autotuned run
#   TOPOLENS_DEMO_NO_GUI=1     do not open the GUI at the end (also when CI is set)
#   TOPOLENS_BUILD        build directory (default: <repo>/build; from tests/setup.sh)
set -euo pipefail

source "$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/tests/setup.sh"

if [ "${TOPOLENS_DEMO_NO_BUILD:-0}" != 1 ]; then
    topolens_install_missing
    topolens_compiler_cache
    topolens_build
fi

bin="$TOPOLENS_BUILD/bin"
demo_dir="${TOPOLENS_DEMO_DIR:-$TOPOLENS_BUILD/demo}"
trace_dir="$demo_dir/wavefront2d"
# Large enough a block time that the wave pattern stands out of the scheduling noise of
# 16 processes on a few cores.
read -r -a wavefront_args <<<"${TOPOLENS_DEMO_ARGS:---blocks 10 --iterations 2 --work-us 2000}"

mkdir -p "$demo_dir"
rm -rf "$trace_dir" # an OTF2 archive cannot be written over an old one

echo "== tracing wavefront2d on a 4x4 process grid -> $trace_dir"
"$bin/topolens" run -np 16 --trace-dir "$trace_dir" -- \
    "$bin/wavefront2d" --px 4 --py 4 "${wavefront_args[@]}"

echo
echo "== topolens info $trace_dir"
"$bin/topolens" info "$trace_dir"

report="$demo_dir/wavefront2d.cubex"
echo
echo "== topolens analyze $trace_dir -o $report"
"$bin/topolens" analyze "$trace_dir" -o "$report"

echo
echo "== topolens summary $report"
"$bin/topolens" summary "$report"

if [ "${TOPOLENS_DEMO_NO_AUTOTUNE:-0}" != 1 ]; then
    tuned_trace="$demo_dir/autotune_halo"
    tuned_report="$demo_dir/autotune_halo.cubex"
    rm -rf "$tuned_trace"
    # Codelet 3 truly best (8 ms), 4 second (12 ms); two 10x outliers of codelet 3 on rank 5
    # mislead a tuner that trusts the raw mean.
    echo
    echo "== an autotuned run: autotune_halo on 8 processes, raw-mean tuner, outliers on rank 5"
    "$bin/topolens" run -np 8 --trace-dir "$tuned_trace" -- "$bin/autotune_halo" \
        --codelet-costs 16000,16000,16000,8000,12000,16000,16000,16000,16000,16000,16000 \
        --measurements 20 --decide mean --outliers 2 --outlier-rank 5 --outlier-codelet 3
    echo
    echo "== topolens analyze $tuned_trace -o $tuned_report"
    "$bin/topolens" analyze "$tuned_trace" -o "$tuned_report" --quiet
    echo
    echo "== topolens audit $tuned_report"
    "$bin/topolens" audit "$tuned_report"
fi

png="$demo_dir/wavefront2d-topology.png"
echo
echo "== topolens render $report --metric 'Wavefront from SW' --png $png"
render=("$bin/topolens" render "$report" --metric "Wavefront from SW" --png "$png")
# VTK draws through X only: without a display, a private virtual one.
if [ -n "${DISPLAY:-}" ]; then
    "${render[@]}"
else
    xvfb-run -a "${render[@]}"
fi
echo "The picture: the process grid seen from above (north up, east right), the origin"
echo "corner (0,0) = south-west marked; the SW corner does not wait (empty cell), the NE"
echo "corner, reached last by the wave from the south-west, waits most (red)."
if [ "${TOPOLENS_DEMO_NO_AUTOTUNE:-0}" != 1 ]; then
    echo "The codelets of the autotuned run, side by side: open $tuned_report"
    echo "in topolens-gui (File > Open, then the Codelets tab), or draw them with"
    echo "  topolens render $tuned_report --view codelets --png codelets.png"
fi

if [ -n "${DISPLAY:-}" ] && [ -z "${CI:-}" ] && [ "${TOPOLENS_DEMO_NO_GUI:-0}" != 1 ]; then
    echo
    echo "== topolens-gui $report"
    "$bin/topolens-gui" "$report"
fi
