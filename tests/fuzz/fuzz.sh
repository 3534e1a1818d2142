#!/usr/bin/env bash
# fuzz.sh TARGET SECONDS [libFuzzer options...]: fuzzes one reader (TARGET otf2 or cube4)
# for SECONDS seconds with libFuzzer. Builds the target with clang and ASan+UBSan in
# $TOPOLENS_FUZZ_BUILD (default build-fuzz), writes its seed corpus, then runs one job at
# low priority with a 2 GB RSS limit and 10 s per input. New interesting inputs go to
# <build>/fuzz-TARGET/corpus, crash, leak, timeout and out-of-memory inputs to
# <build>/fuzz-TARGET/artifacts (keep the ones a fix is tested with in tests/fuzz/corpus/).
set -euo pipefail
if [ $# -lt 2 ] || { [ "$1" != otf2 ] && [ "$1" != cube4 ]; }; then
    echo "usage: tests/fuzz/fuzz.sh otf2|cube4 SECONDS [libFuzzer options...]" >&2
    exit 2
fi
target=$1
seconds=$2
shift 2
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${TOPOLENS_FUZZ_BUILD:-$root/build-fuzz}"
flags="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"

cmake -S "$root" -B "$build" -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTOPOLENS_FUZZ=ON \
    -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" >/dev/null
cmake --build "$build" -j "${TOPOLENS_FUZZ_JOBS:-2}" --target "${target}_fuzzer" "${target}_fuzz_replay"

work="$build/fuzz-$target"
mkdir -p "$work/corpus" "$work/artifacts"
# The targets' scratch files: libFuzzer may exit without removing them.
rm -rf "$work/tmp"
mkdir -p "$work/tmp"
export TMPDIR="$work/tmp"
"$build/bin/${target}_fuzz_replay" --write-seeds "$work/seeds"
corpora=("$work/corpus" "$work/seeds")
# Inputs as large as twice the largest seed (a report of the seed trace is 50 KB).
max_len=16384
[ "$target" = cube4 ] && max_len=131072
[ -d "$root/tests/fuzz/corpus/$target" ] && corpora+=("$root/tests/fuzz/corpus/$target")
# OTF2 3.0 leaks its archive structures when opening a damaged archive fails (tests/lsan.supp).
export LSAN_OPTIONS="suppressions=$root/tests/lsan.supp:print_suppressions=0"
exec nice "$build/bin/${target}_fuzzer" "${corpora[@]}" -max_total_time="$seconds" \
    -rss_limit_mb=2048 -malloc_limit_mb=2048 -timeout=10 -max_len=$max_len -len_control=0 \
    -artifact_prefix="$work/artifacts/" -print_final_stats=1 "$@"
