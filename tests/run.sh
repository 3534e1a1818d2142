#!/usr/bin/env bash
# The test command: installs what is missing, builds, runs the whole ctest suite.
# Exits non-zero on any failure.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
topolens_install_missing
topolens_build
cd "$TOPOLENS_BUILD"
ctest --output-on-failure -j "$(nproc)" --timeout 600
