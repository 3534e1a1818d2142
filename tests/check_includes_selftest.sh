#!/usr/bin/env bash
# Shows that tests/check_includes.sh fails on forbidden includes: a copy of the sources
# with one bad include per rule kind must be refused, each named with file and line.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
copy=$(mktemp -d)
trap 'rm -rf "$copy"' EXIT
(cd "$root" && find measure trace analyzer patterns gui samples tests -type f \
    \( -name '*.h' -o -name '*.cpp' -o -name '*.c' \) -print0 |
    xargs -0 cp --parents -t "$copy")

"$here/check_includes.sh" "$copy" >/dev/null || {
    echo "FAIL: the unchanged sources already break the rules"
    exit 1
}

bad=(
    "trace/model.h|analyzer/engine/engine.h|trace may not include"
    "measure/recorder.cpp|patterns/registry.h|measure may not include"
    "measure/profile_mode.cpp|analyzer/engine/engine.h|measure may not include"
    "analyzer/report/report.cpp|analyzer/engine/engine.h|analyzer/report may not include"
    "gui/main_window.cpp|analyzer/engine/engine.h|gui may not include"
    "patterns/audit/codelet_audit.cpp|analyzer/engine/grid.h|patterns/audit may not include"
    "analyzer/engine/engine.cpp|patterns/registry.h|analyzer/engine may not include"
)
failed=0
for case in "${bad[@]}"; do
    IFS='|' read -r file include message <<<"$case"
    rm -rf "$copy.case" && cp -r "$copy" "$copy.case"
    echo "#include \"$include\"" >>"$copy.case/$file"
    line=$(wc -l <"$copy.case/$file")
    if out=$("$here/check_includes.sh" "$copy.case"); then
        echo "FAIL: $file including $include was accepted"
        failed=1
    elif ! grep -qF "$file:$line: $message \"$include\"" <<<"$out"; then
        echo "FAIL: $file including $include: unexpected report: $out"
        failed=1
    else
        echo "ok: $(grep -F "$file:$line" <<<"$out")"
    fi
    rm -rf "$copy.case"
done
exit $failed
