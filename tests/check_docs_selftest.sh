#!/usr/bin/env bash
# Shows that tests/check_docs.sh refuses what it is for: on a copy of the documentation, a
# link to a missing file, a link to a missing anchor, a listed page that exists now, and a
# README over 300 lines must each fail, named in the output; the unchanged copy, and a link
# to a listed page not written yet, must pass.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
copy=$(mktemp -d)
trap 'rm -rf "$copy" "$copy.case"' EXIT
# The documentation and every file it links to: the tree without builds and, of the test
# data (traces, reports: megabytes no page links to), only its Markdown files.
(cd "$root" && find . \( -path ./.git -o -path './build*' \) -prune -o \
    -path './tests/data/*' ! -name '*.md' -prune -o -type f -print0 |
    xargs -0 cp --parents -t "$copy")

"$here/check_docs.sh" "$copy" >/dev/null || {
    echo "FAIL: the unchanged documentation already fails the check"
    "$here/check_docs.sh" "$copy" || true
    exit 1
}

# case: NAME|COMMAND run in the copy|text the check must print
cases=(
    "missing file|echo '[x](no-such-page.md)' >>docs/README.md|docs/README.md: no-such-page.md: no such file"
    "missing anchor|echo '[x](metrics.md#metric-no_such_metric)' >>docs/README.md|has no anchor #metric-no_such_metric"
    "missing heading anchor|echo '[x](../README.md#no-such-heading)' >>docs/metrics.md|README.md has no anchor #no-such-heading"
    "listed page exists|echo docs/later.md >>tests/docs_expected_later.txt; echo x >docs/later.md|docs/later.md exists now: remove it from the list"
    "long README|for i in \$(seq 300); do echo >>README.md; done|README.md: "
)
failed=0
for case in "${cases[@]}"; do
    IFS='|' read -r name command expected <<<"$case"
    rm -rf "$copy.case" && cp -r "$copy" "$copy.case"
    (cd "$copy.case" && eval "$command")
    if out=$("$here/check_docs.sh" "$copy.case" 2>&1); then
        echo "FAIL: $name: the check passed"
        failed=1
    elif ! grep -qF -- "$expected" <<<"$out"; then
        echo "FAIL: $name: expected '$expected' in:"
        echo "$out"
        failed=1
    else
        echo "ok: $name: $(grep -F -- "$expected" <<<"$out" | head -1)"
    fi
done
# A page on the list may be linked before it exists.
rm -rf "$copy.case" && cp -r "$copy" "$copy.case"
echo docs/later.md >>"$copy.case/tests/docs_expected_later.txt"
echo '[later](later.md)' >>"$copy.case/docs/README.md"
if out=$("$here/check_docs.sh" "$copy.case" 2>&1); then
    echo "ok: a link to a listed page that does not exist yet passes"
else
    echo "FAIL: a link to a listed page that does not exist yet was refused:"
    echo "$out"
    failed=1
fi
exit $failed
