#!/usr/bin/env bash
# Long tests, kept out of the normal test command: 1000 RocksDB power cuts
# (the normal suite does 100). Uses the sanitizer build of scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
build=${BUILD_DIR:-build-asan}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DZS_SANITIZE=ON -DZS_WERROR=ON > /dev/null
ninja -C "$build" glue_tests
ZS_CRASH_ITERATIONS=${ZS_CRASH_ITERATIONS:-1000} \
  "$build/tests/glue/glue_tests" --gtest_filter='DbCrashTest.*'
