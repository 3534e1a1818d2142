#!/bin/sh
# limited.sh KB SECONDS COMMAND...: runs COMMAND with at most KB kilobytes of address space
# and SECONDS seconds, so that a runaway allocation or loop fails instead of taking the
# machine.
kb=$1
seconds=$2
shift 2
ulimit -v "$kb" || exit 1
exec timeout "$seconds" "$@"
