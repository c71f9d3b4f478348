#!/usr/bin/env bash
# The long form of the db_stress crash test (the test command runs a short
# one): RocksDB's db_stress on file-backed ZoneStack volumes, killed with
# SIGKILL 100 times and restarted, verified against its expected state at
# every restart, on one ZNS device and on a hybrid ZNS + HM-SMR volume with
# the HHZS scheme side by side (each db_stress takes about half a core),
# then a fifth as many kills in transaction mode on ZNS.
# Built like the test command (ASan + UBSan, warnings as errors).
# Usage: scripts/stress_test.sh [KILLS]   (default 100; about 30 minutes)
# Exit status: 0 every run passed, 1 otherwise (each run's verdict is
# printed; its logs stay in $STRESS_WORK_DIR, default BUILD_DIR/stress-long).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
kills=${1:-100}
build=${BUILD_DIR:-build-asan}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DZS_SANITIZE=ON -DZS_WERROR=ON -DZS_DB_STRESS=ON > /dev/null
ninja -C "$build" db_stress
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
work=${STRESS_WORK_DIR:-$build/stress-long}
mkdir -p "$work"
run() {  # VOLUME MODE KILLS: output in $work/VOLUME-MODE.out
  python3 scripts/db_stress_crash.py --db_stress "$build/tests/stress/db_stress" \
    --work_dir "$work/$1-$2" --volume "$1" --mode "$2" --kills "$3" --run_seconds 12 \
    > "$work/$1-$2.out" 2>&1
}
status=0
run zns plain "$kills" & zns=$!
run hybrid-hhzs plain "$kills" & hybrid=$!
wait $zns || status=1
wait $hybrid || status=1
run zns txn $(( (kills + 4) / 5 )) || status=1
for out in zns-plain hybrid-hhzs-plain zns-txn; do
  echo "$out: $(grep -E "^(PASS|FAIL)" "$work/$out.out" || echo "no verdict (see $work/$out.out)")"
done
exit $status
