#!/usr/bin/env bash
# The architecture's dependency rules, checked on every #include "..." of the sources:
# each folder may include only the folders listed for it (its own always). Dependencies
# point one way:
#   measure -> trace (encodings, filter files), analyzer/report (profile mode writes a
#              CUBE4 report through the one writer; the report model knows nothing of
#              analysis)
#   trace -> nothing
#   analyzer/report -> nothing                analyzer/engine -> report, trace
#   patterns -> engine, report, trace, audit  patterns/audit -> report
#   analyzer/cli -> everything but gui and measure
#   gui -> report, audit, and the engine only through patterns/analyze_file.h and
#          patterns/trace_report.h
# Usage: tests/check_includes.sh [SOURCE_DIR]    (default: the repository)
# Prints one line per forbidden include (file:line: folder may not include path) and
# exits 1 if there is any.
set -euo pipefail

root="${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
cd "$root"

# folder|allowed include prefixes (space-separated); the longest folder that matches a file
# applies. "*" allows everything.
rules=(
    "measure|measure/ trace/tuned_encoding.h trace/program_encoding.h trace/region_filter.h trace/experiment_files.h analyzer/report/"
    "trace|trace/"
    "analyzer/report|analyzer/report/"
    "analyzer/engine|analyzer/engine/ analyzer/report/ trace/"
    "analyzer/score|analyzer/score/ analyzer/report/ trace/"
    "analyzer/parallel|analyzer/parallel/ trace/"
    "analyzer/cli|analyzer/ patterns/ trace/"
    "patterns|patterns/ analyzer/engine/ analyzer/report/ trace/"
    "patterns/audit|patterns/audit/ analyzer/report/"
    "gui|gui/ analyzer/report/ patterns/audit/ patterns/analyze_file.h patterns/trace_report.h"
    "samples|samples/"
    "tests|*"
    "gui/tests|*"
)

# Sets `rule` to "folder|allowed" of the longest folder that matches the file (empty: none).
# Without a subshell: the check runs once per file of the tree.
rule_of() {
    local file=$1 best="" r folder
    rule=""
    for r in "${rules[@]}"; do
        folder=${r%%|*}
        if [[ $file == "$folder"/* && ${#folder} -gt ${#best} ]]; then
            best=$folder
            rule=$r
        fi
    done
}

# Every quoted #include of the tree in one grep, in file order then line order:
# file:line:text.
status=0
current=""
while IFS= read -r hit; do
    file=${hit%%:*}
    rest=${hit#*:}
    line=${rest%%:*}
    path=${rest#*:}
    path=${path#*\"}
    path=${path%%\"*}
    if [[ $file != "$current" ]]; then
        current=$file
        rule_of "$file"
    fi
    [ -n "$rule" ] || continue
    folder=${rule%%|*}
    allowed=${rule#*|}
    [ "$allowed" = "*" ] && continue
    # Without a folder: a header beside the file; relative paths from the file's folder.
    [[ $path == */* ]] || continue
    if [[ $path == ./* || $path == ../* ]]; then
        path=$(realpath -m --relative-to=. "$(dirname "$file")/$path")
    fi
    ok=0
    for prefix in $allowed; do
        [[ $path == "$prefix"* ]] && ok=1 && break
    done
    if [ $ok = 0 ]; then
        echo "$file:$line: $folder may not include \"$path\""
        status=1
    fi
done < <(find measure trace analyzer patterns gui samples tests -type f \
    \( -name '*.h' -o -name '*.cpp' -o -name '*.c' -o -name '*.cc' \) -print0 2>/dev/null |
    sort -z | xargs -0 -r grep -n -H -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*"')

if [ $status = 0 ]; then
    echo "include rules: every #include follows the folders' dependency rules"
fi
exit $status
