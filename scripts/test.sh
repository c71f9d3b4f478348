#!/usr/bin/env bash
# The test command: builds with warnings as errors under AddressSanitizer
# and UndefinedBehaviorSanitizer, then runs every test with ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
build=${BUILD_DIR:-build-asan}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DZS_SANITIZE=ON -DZS_WERROR=ON -DZS_DB_STRESS=ON > /dev/null
ninja -C "$build"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --test-dir "$build" --output-on-failure -j2 "$@"
