#!/usr/bin/env bash
# The long form of the db_stress crash test (the test command runs a short
# one): RocksDB's db_stress on file-backed ZoneStack volumes, killed with
# SIGKILL 100 times and restarted, verified against its expected state at
# every restart, on one ZNS device and on a hybrid ZNS + HM-SMR volume with
# the HHZS scheme, then 20 kills in transaction mode on ZNS.
# Built like the test command (ASan + UBSan, warnings as errors).
# Usage: scripts/stress_test.sh [KILLS]   (default 100; about 50 minutes)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
kills=${1:-100}
build=${BUILD_DIR:-build-asan}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DZS_SANITIZE=ON > /dev/null
ninja -C "$build" db_stress
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
work=${STRESS_WORK_DIR:-$build/stress-long}
run() {
  python3 scripts/db_stress_crash.py --db_stress "$build/tests/stress/db_stress" \
    --work_dir "$work/$1-$2" --volume "$1" --mode "$2" --kills "$3" --run_seconds 12
}
run zns plain "$kills"
run hybrid-hhzs plain "$kills"
run zns txn $(( kills / 5 ))
