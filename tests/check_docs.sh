#!/usr/bin/env bash
# The documentation's shape: README.md stays a short door (at most 300 lines), and every
# relative link in README.md, docs/*.md and the repository's other Markdown files (samples,
# trace and audit formats, test data) points at a file that exists and, for a link
# with #anchor into a Markdown file, at a heading or <a id> there (anchors as GitHub makes
# them from headings). Links to the pages listed in tests/docs_expected_later.txt may
# dangle: other branches write them; once such a page exists the list must lose it.
# Usage: tests/check_docs.sh [SOURCE_DIR]    (default: the repository)
# Prints one line per problem (file: link: what is wrong) and exits 1 if there is any.
set -euo pipefail

root="${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
cd "$root"
export LC_ALL=C

max_readme_lines=300
status=0
problem() {
    echo "$1"
    status=1
}

expected_later=()
if [ -f tests/docs_expected_later.txt ]; then
    while IFS= read -r line; do
        line=${line%%#*}
        line=${line//[[:space:]]/}
        [ -n "$line" ] && expected_later+=("$line")
    done <tests/docs_expected_later.txt
fi
is_expected_later() {
    local p
    for p in "${expected_later[@]}"; do [ "$p" = "$1" ] && return 0; done
    return 1
}
for p in "${expected_later[@]}"; do
    [ -e "$p" ] && problem "tests/docs_expected_later.txt: $p exists now: remove it from the list"
done

lines=$(wc -l <README.md)
[ "$lines" -le "$max_readme_lines" ] ||
    problem "README.md: $lines lines, more than $max_readme_lines: move the detail into docs/"

# The anchors of a Markdown file, one a line: GitHub's heading ids (lower case, everything
# but letters, digits, '-', '_' and spaces dropped, spaces as '-', repeats numbered -1,
# -2, ...) and explicit <a id="..."> / <a name="...">. Fenced code is no heading.
anchors() {
    awk '
        /^[[:space:]]*(```|~~~)/ { fence = !fence; next }
        fence { next }
        /^#+[[:space:]]/ && match($0, /^#+/) && RLENGTH <= 6 {
            h = $0
            sub(/^#+[[:space:]]+/, "", h)
            sub(/[[:space:]]+#*[[:space:]]*$/, "", h)
            h = tolower(h)
            gsub(/[^a-z0-9 _-]/, "", h)
            gsub(/ /, "-", h)
            if (h in seen) { seen[h]++; h = h "-" seen[h] } else seen[h] = 0
            print h
        }
        {
            line = $0
            while (match(line, /<a (id|name)="[^"]+"/)) {
                a = substr(line, RSTART, RLENGTH)
                sub(/^<a (id|name)="/, "", a)
                sub(/"$/, "", a)
                print a
                line = substr(line, RSTART + RLENGTH)
            }
        }
    ' "$1"
}

# The link targets of a Markdown file, one a line: [text](target) and ![alt](target)
# outside fenced code and inline code spans.
links() {
    awk '
        /^[[:space:]]*(```|~~~)/ { fence = !fence; next }
        fence { next }
        {
            line = $0
            gsub(/`[^`]*`/, "", line)
            while (match(line, /\]\([^) ]+( "[^"]*")?\)/)) {
                t = substr(line, RSTART + 2, RLENGTH - 3)
                sub(/ ".*$/, "", t)
                print t
                line = substr(line, RSTART + RLENGTH)
            }
        }
    ' "$1"
}

# Every Markdown file of the repository (builds left out).
mapfile -t files < <(find . \( -path './build*' -o -path ./.git \) -prune -o -name '*.md' -print |
    sed 's|^\./||' | sort)

declare -A anchor_cache # Markdown file -> its anchors, one a line, between newlines
for file in "${files[@]}"; do
    dir=$(dirname "$file")
    while IFS= read -r target; do
        case $target in
        http://* | https://* | mailto:* | ftp://*) continue ;;
        esac
        path=${target%%#*}
        anchor=""
        [[ $target == *"#"* ]] && anchor=${target#*#}
        if [ -z "$path" ]; then
            resolved=$file
        else
            resolved=$(realpath -m --relative-to=. "$dir/$path")
        fi
        if [ ! -e "$resolved" ]; then
            is_expected_later "$resolved" ||
                problem "$file: $target: no such file ($resolved)"
            continue
        fi
        if [ -n "$anchor" ] && [[ $resolved == *.md ]] && [ -f "$resolved" ]; then
            [ -n "${anchor_cache[$resolved]+set}" ] ||
                anchor_cache[$resolved]=$'\n'"$(anchors "$resolved")"$'\n'
            [[ ${anchor_cache[$resolved]} == *$'\n'"$anchor"$'\n'* ]] ||
                problem "$file: $target: $resolved has no anchor #$anchor"
        fi
    done < <(links "$file")
done

exit $status
