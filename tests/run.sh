#!/usr/bin/env bash
# The test command: installs what is missing, builds, runs the whole ctest suite, then the
# unit tests under ASan+UBSan and the threaded replays' tests (forward and backward) under
# TSan. Every stage runs even when an earlier one failed; the end lists each stage's result,
# and the exit status is non-zero if any failed.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

# Without the packages nothing can be built: that alone stops the run.
topolens_install_missing || {
    echo "tests/run.sh: installing the packages failed" >&2
    exit 1
}
topolens_compiler_cache

results=()
failed=0
# stage NAME COMMAND...: runs one stage and records its result.
stage() {
    local name=$1
    shift
    echo
    echo "== tests/run.sh: stage '$name'"
    local start=$SECONDS
    if "$@"; then
        results+=("passed  $name ($((SECONDS - start)) s)")
    else
        results+=("FAILED  $name ($((SECONDS - start)) s)")
        failed=1
    fi
}

# Every ctest call has --no-tests=error: a stage whose filter or build selects no tests must
# fail, not pass with "No tests were found".
main_suite() {
    topolens_build &&
        ctest --test-dir "$TOPOLENS_BUILD" --no-tests=error --output-on-failure -j "$(nproc)" \
            --timeout 600
}

# The unit tests again under AddressSanitizer + UndefinedBehaviorSanitizer (the MPI
# integration tests are left out: a sanitized library cannot be preloaded into MPI programs).
asan_suite() {
    local build="${TOPOLENS_SANITIZE_BUILD:-$TOPOLENS_ROOT/build-sanitize}"
    cmake -S "$TOPOLENS_ROOT" -B "$build" -DCMAKE_BUILD_TYPE=Debug -DTOPOLENS_SANITIZE=ON &&
        cmake --build "$build" -j "$(nproc)" --target topolens unit_tests &&
        # verify_asan_link_order=0: one test gives the sanitized topolens an unrelated LD_PRELOAD.
        ASAN_OPTIONS=verify_asan_link_order=0 \
            LSAN_OPTIONS="suppressions=$TOPOLENS_ROOT/tests/lsan.supp:print_suppressions=0" \
            ctest --test-dir "$build" --no-tests=error --output-on-failure -j "$(nproc)" \
                --timeout 600 -L unit
}

# The tests of the parallel reading, matching and replay again under ThreadSanitizer (and of
# the analysis shared out to ranks, whose ranks are threads there; the recorded traces'
# comparison, 2 minutes under TSan, is left to the other stages).
tsan_suite() {
    local build="${TOPOLENS_TSAN_BUILD:-$TOPOLENS_ROOT/build-tsan}"
    cmake -S "$TOPOLENS_ROOT" -B "$build" -DCMAKE_BUILD_TYPE=Debug -DTOPOLENS_TSAN=ON &&
        cmake --build "$build" -j "$(nproc)" --target topolens topolens_analysis_tests &&
        TSAN_OPTIONS="halt_on_error=1" \
            ctest --test-dir "$build" --no-tests=error --output-on-failure -j "$(nproc)" \
                --timeout 600 -R \
                '^(Parallel|BackwardReplay|BackwardPayloads|SharedMatching|ThreadExchange|Exchange|CollectiveInstance)\.|^SharedAnalysis\.(Synthetic|Cycles|Threaded|ADamaged|AnError)'
}

stage "build and ctest" main_suite
stage "ASan+UBSan unit tests" asan_suite
stage "TSan parallel tests" tsan_suite

echo
echo "== tests/run.sh: results"
printf '   %s\n' "${results[@]}"
exit $failed
