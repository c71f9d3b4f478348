#!/usr/bin/env bash
# The main job, on emulated devices with real-time timing models:
#  1. devbench over the papers' devices, each figure beside the published one;
#  2. RocksDB (unmodified) on a ZoneStack volume of a ZN540 SSD and an
#     ST14000NM0007 HM-SMR disk: fillrandom then readrandom, with per-device
#     busy time and write amplification.
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
echo "RocksDB on a ZN540 + ST14000NM0007 volume (hybrid placement: SSD first):"
"$build/src/tools/zsbench" \
  --volume "zonestack://emu:zn540?zones=16&scale=1/64;emu:st14000nm0007?zones=400&scale=1/64" \
  --num "${DEMO_KEYS:-100000}" --reads 20000
