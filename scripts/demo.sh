#!/usr/bin/env bash
# The main job, on emulated devices with real-time timing models:
#  1. devbench over the papers' devices, each figure beside the published one;
#  2. zsbench: YCSB A on unmodified RocksDB over three ZoneStack volumes
#     (ZN540 alone, ZN540 + HM-SMR, HM-SMR alone), side by side, with
#     latency percentiles, per-device busy time and write amplification.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
build=${BUILD_DIR:-build}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo > /dev/null
ninja -C "$build" zsctl zsbench
zsctl="$build/src/tools/zsctl"
"$zsctl" presets
for uri in "emu:zn540?zones=64&scale=1/64" \
           "emu:st14000nm0007?scale=1/64" \
           "emu:st13125nm007?scale=1/64"; do
  echo
  "$zsctl" devbench "$uri" --seconds "${DEMO_SECONDS:-1}"
done
echo
echo "YCSB A on RocksDB over three volumes (real-time emulation), each fresh:"
echo "  zns: a ZN540 alone; hybrid: a small ZN540 + an ST14000NM0007 (SSD first, then HDD);"
echo "  hdd: the ST14000NM0007 alone. Ratios are against zns, measured in this run."
echo "  The HDD has its 256 MB write cache on, as the drive ships: every put's WAL flush"
echo "  reaches the device (docs/architecture.md), which write-through would make a seek."
# The drive's write cache (256 MB), as in the HHZS experiments.
hdd="emu:st14000nm0007?zones=200&scale=1/64&write_cache=268435456"
"$build/src/tools/zsbench" \
  --scheme zns="zonestack://emu:zn540?zones=24&scale=1/64" \
  --scheme hybrid="zonestack://emu:zn540?zones=8&scale=1/64;$hdd" \
  --scheme hdd="zonestack://$hdd" \
  --workload ycsb-a-load,ycsb-a --records "${DEMO_RECORDS:-50000}" --ops "${DEMO_OPS:-5000}" \
  --json "${DEMO_JSON:-$build/demo-results.json}"
