#!/usr/bin/env bash
# topolens demo: installs what is missing, builds, traces the wavefront2d sample (a
# Sweep3D-like pipelined wavefront) on 16 processes in a 4x4 grid, shows the trace,
# analyzes it into a CUBE4 report (<demo dir>/wavefront2d.cubex) and prints its summary.
#
# Usage: samples/demo.sh              (no arguments needed)
#
# Environment (all optional):
#   TOPOLENS_DEMO_DIR     output directory (default: <build>/demo); the trace goes to
#                         $TOPOLENS_DEMO_DIR/wavefront2d, replaced on every run
#   TOPOLENS_DEMO_ARGS    wavefront2d options (default: --blocks 10 --iterations 2
#                         --work-us 2000); see samples/wavefront2d/README.md
#   TOPOLENS_DEMO_NO_BUILD=1   skip package installation and build (already built)
#   TOPOLENS_BUILD        build directory (default: <repo>/build; from tests/setup.sh)
set -euo pipefail

source "$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/tests/setup.sh"

if [ "${TOPOLENS_DEMO_NO_BUILD:-0}" != 1 ]; then
    topolens_install_missing
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
