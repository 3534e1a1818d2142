#!/usr/bin/env bash
# fetch_adcl.cmake never fails and never hangs: an unreachable host ends within the timeout
# with one "ADCL not fetched" line and no archive; something that is not ADCL's archive is
# refused; an archive holding ADCL's configure is kept.
# Usage: check_fetch.sh FETCH_SCRIPT WORK_DIR   (environment: CMAKE, the cmake to run)
set -euo pipefail
script="$1" work="$2"
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work"
fetch() { # URL DESTINATION -> output
    "${CMAKE:-cmake}" -DURL="$1" -DDESTINATION="$2" -DTIMEOUT=20 -P "$script" 2>&1
}

start=$(date +%s)
out="$(fetch https://adcl.invalid/adcl.tar.gz "$work/offline.tar.gz")" || fail "cmake failed: $out"
elapsed=$(( $(date +%s) - start ))
[[ "$out" == "ADCL not fetched: https://adcl.invalid/adcl.tar.gz: "* ]] || fail "output: $out"
[ ! -e "$work/offline.tar.gz" ] && [ ! -e "$work/offline.tar.gz.part" ] || fail "a file was left"
[ "$elapsed" -le 25 ] || fail "took $elapsed s"

echo "<html>proxy error</html>" > "$work/page.html"
out="$(fetch "file://$work/page.html" "$work/page.tar.gz")" || fail "cmake failed: $out"
[[ "$out" == *"did not give an archive of ADCL's sources"* ]] || fail "output: $out"
[ ! -e "$work/page.tar.gz" ] || fail "a page was kept as ADCL's archive"

mkdir -p "$work/src/ADCL-0123abc" && echo "#!/bin/sh" > "$work/src/ADCL-0123abc/configure"
tar czf "$work/adcl.tar.gz" -C "$work/src" ADCL-0123abc
out="$(fetch "file://$work/adcl.tar.gz" "$work/fetched.tar.gz")" || fail "cmake failed: $out"
[[ "$out" == "ADCL fetched: $work/fetched.tar.gz" ]] || fail "output: $out"
cmp -s "$work/adcl.tar.gz" "$work/fetched.tar.gz" || fail "the fetched archive differs"
echo "fetch_adcl.cmake: offline in ${elapsed} s, a page refused, an archive kept"
