#!/usr/bin/env bash
# The main job: builds ZoneStack and runs the device demo, devbench over the
# papers' devices on the real-time emulator, each figure beside the one the
# paper published.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
build=${BUILD_DIR:-build}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo > /dev/null
ninja -C "$build" zsctl
zsctl="$build/src/tools/zsctl"
"$zsctl" presets
for uri in "emu:zn540?zones=64&scale=1/64" \
           "emu:st14000nm0007?scale=1/64" \
           "emu:st13125nm007?scale=1/64"; do
  echo
  "$zsctl" devbench "$uri" --seconds "${DEMO_SECONDS:-2}"
done
