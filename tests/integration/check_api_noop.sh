#!/usr/bin/env bash
# api_noop under mpirun: the user API must answer as documented in every state, and the
# program must exit 0 on every rank.   check_api_noop.sh NAME NP on|off
source "$(dirname "$0")/common.sh"
name="$1" np="$2" state="$3"
work="$(tl_workdir "$name")"
enable=1
[ "$state" = on ] || enable=0
tl_mpirun "$np" TOPOLENS_ENABLE="$enable" TOPOLENS_TRACE_DIR="$work/trace" -- \
    "$TL_BIN/api_noop" "$state" || tl_fail "api_noop exited with status $?"
if [ "$state" = on ]; then
    [ -f "$work/trace/traces.otf2" ] || tl_fail "no trace written"
else
    [ ! -e "$work/trace" ] || tl_fail "a trace was written with measurement off"
fi
echo "PASS"
