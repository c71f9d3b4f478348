#!/usr/bin/env bash
# The main job, a few minutes on emulated devices with real-time timing:
#  1. device calibration: devbench over the ZN540 ZNS SSD and the
#     ST14000NM0007 HM-SMR HDD the HHZS paper used, each figure beside the
#     published one;
#  2. what ZoneStack is for: unmodified RocksDB on one hybrid volume (a
#     ZN540 + an ST14000NM0007), HHZS side by side with B3 (SSTs of levels
#     0-2 on the SSD) and RocksDB's own tiered storage, on a short YCSB A
#     load and run (the HHZS experiment `demo` at the `--quick` preset),
#     the ratios printed with the paper's beside them.
# A look, not a measurement: one run at 1/2048 scale. The measured results
# are in experiments/hhzs/RESULTS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
build=build   # experiments/run.sh builds and uses build/ too
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo > /dev/null
echo "building zsctl and zsbench (RelWithDebInfo, $build/)"
ninja -C "$build" --quiet zsctl zsbench
zsctl="$build/src/tools/zsctl"

echo
echo "== 1. The devices, calibrated against their published figures"
for uri in "emu:zn540?zones=64&scale=1/64" "emu:st14000nm0007?scale=1/64"; do
  echo
  "$zsctl" devbench "$uri" --seconds "${DEMO_SECONDS:-1}"
done

echo
echo "== 2. HHZS, B3 and RocksDB's tiered storage on a hybrid ZN540 + ST14000NM0007 volume"
echo "   YCSB A: load, then 20 s of 50% reads / 50% updates; each scheme on a fresh volume."
results="$build/demo-results"
set +e
echo "   running (about 4 minutes; the runner's log: $build/demo.out)"
experiments/run.sh hhzs demo --quick --fresh --ignore-busy --results "$results" > "$build/demo.out" 2>&1
rc=$?
set -e
report=$(sed -n 's/^wrote //p' "$build/demo.out" | tail -1)
if [ "$rc" -ne 0 ] || [ ! -f "$report" ]; then
  cat "$build/demo.out"
  echo "demo: the comparison failed (runner exit $rc); logs under $results" >&2
  exit 1
fi
# The demo's section of the generated report (its tables, the paper's
# numbers beside ours), without the stamps block.
awk '/^## Demo/ {on=1; print; next} on && /^## / {exit}
     on && /^Stamps:/ {skip=1; next} skip && /^\*\*/ {skip=0} on && !skip' "$report"
echo "(one run at 1/2048 scale, so single ratios swing; full report: $report)"

cat <<'NEXT'

== Where to go next
  experiments/hhzs/RESULTS.md          the HHZS paper's experiments as measured here, 3 repeats each
  experiments/run.sh hhzs list         every experiment; experiments/run.sh hhzs exp1 reruns one
  docs/hhzs.md, docs/architecture.md   the schemes and how ZoneStack is built
  README.md "Use it from any RocksDB program"   db_bench, ldb, your own program on a volume
NEXT
