#!/usr/bin/env bash
# The test command: installs what is missing, builds, runs the whole ctest suite.
# Exits non-zero on any failure.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
topolens_install_missing
topolens_build
ctest --test-dir "$TOPOLENS_BUILD" --output-on-failure -j "$(nproc)" --timeout 600

# The unit tests again under AddressSanitizer + UndefinedBehaviorSanitizer (the MPI
# integration tests are left out: a sanitized library cannot be preloaded into MPI programs).
sanitize_build="${TOPOLENS_SANITIZE_BUILD:-$TOPOLENS_ROOT/build-sanitize}"
cmake -S "$TOPOLENS_ROOT" -B "$sanitize_build" -DCMAKE_BUILD_TYPE=Debug -DTOPOLENS_SANITIZE=ON
cmake --build "$sanitize_build" -j "$(nproc)" --target topolens unit_tests
# verify_asan_link_order=0: one test gives the sanitized topolens an unrelated LD_PRELOAD.
ASAN_OPTIONS=verify_asan_link_order=0 \
LSAN_OPTIONS="suppressions=$TOPOLENS_ROOT/tests/lsan.supp:print_suppressions=0" \
    ctest --test-dir "$sanitize_build" --output-on-failure -j "$(nproc)" --timeout 600 -L unit

# The tests of the parallel reading, matching and replay again under ThreadSanitizer.
tsan_build="${TOPOLENS_TSAN_BUILD:-$TOPOLENS_ROOT/build-tsan}"
cmake -S "$TOPOLENS_ROOT" -B "$tsan_build" -DCMAKE_BUILD_TYPE=Debug -DTOPOLENS_TSAN=ON
cmake --build "$tsan_build" -j "$(nproc)" --target topolens topolens_analysis_tests
TSAN_OPTIONS="halt_on_error=1" \
    ctest --test-dir "$tsan_build" --output-on-failure -j "$(nproc)" --timeout 600 -R '^Parallel\.'
