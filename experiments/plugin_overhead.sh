#!/usr/bin/env bash
# The plugin's cost as a RocksDB user meets it: Debian's unmodified db_bench
# (package rocksdb-tools) running fillrandom, readrandom and overwrite
# through LD_PRELOAD=libzonestack.so on an instant emulated ZN540
# (timing=none, memory backing), against the same db_bench on RocksDB's
# default file system in /dev/shm. PAIRS pairs of runs, alternating which
# side goes first so an order effect cancels; each pair gives one
# ZoneStack/default throughput ratio per benchmark. Prints each ratio's
# median (min-max) and writes every run's numbers as JSON.
#
# Holds /tmp/zonestack-heavy.lock throughout (build and runs): do not wrap
# it in another flock of that file, which would wait for itself.
#
# Environment: BUILD_DIR (default build; must be Release or RelWithDebInfo,
# not sanitized), PAIRS (5), NUM (db_bench --num, 1000000: at 200000 a run
# lasts 1-2 s and the default file system's rate alone swings by up to
# 70% between pairs), VALUE_SIZE (100),
# OUT (experiments/results/plugin_overhead.json).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
pairs=${PAIRS:-5}
num=${NUM:-1000000}
value_size=${VALUE_SIZE:-100}
out=${OUT:-experiments/results/plugin_overhead.json}
benchmarks=fillrandom,readrandom,overwrite
fs_uri="zonestack://emu:zn540?zones=64&scale=1/16&timing=none"

command -v db_bench > /dev/null || { echo "db_bench not found: scripts/deps.sh installs rocksdb-tools" >&2; exit 1; }
exec 9> /tmp/zonestack-heavy.lock
echo "waiting for /tmp/zonestack-heavy.lock" >&2
flock 9

# An ASan build measures the sanitizer, not the plugin.
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo > /dev/null
fi
cache() { sed -n "s/^$1:[A-Z]*=//p" "$build/CMakeCache.txt"; }
build_type=$(cache CMAKE_BUILD_TYPE)
case "$build_type" in
  Release | RelWithDebInfo) ;;
  *) echo "$build is a '$build_type' build; use Release or RelWithDebInfo" >&2; exit 1 ;;
esac
[ "$(cache ZS_SANITIZE)" != ON ] || { echo "$build is sanitized (ZS_SANITIZE=ON)" >&2; exit 1; }
ninja -C "$build" zonestack > /dev/null
lib=$(cd "$build/src/plugin" && pwd)/libzonestack.so

shm=$(mktemp -d /dev/shm/zs-plugin-overhead.XXXXXX)
runs=$(mktemp -d)
trap 'rm -rf "$shm" "$runs"' EXIT
common=(--benchmarks="$benchmarks" --num="$num" --value_size="$value_size" --threads=1
        --seed=42 --histogram=0)

# run SIDE PAIR: one db_bench process on a fresh DB; its output in $runs.
run() {
  local log="$runs/$1-$2.log"
  if [ "$1" = zonestack ]; then
    # A fresh process mounts a fresh memory-backed device.
    LD_PRELOAD=$lib db_bench --fs_uri="$fs_uri" --db=/db "${common[@]}" > "$log" 2>&1
  else
    rm -rf "$shm/db"
    db_bench --db="$shm/db" "${common[@]}" > "$log" 2>&1
  fi || { tail -n 20 "$log" >&2; echo "db_bench on $1 failed (pair $2)" >&2; exit 1; }
}

for i in $(seq "$pairs"); do
  if (( i % 2 )); then run default "$i"; run zonestack "$i"
  else run zonestack "$i"; run default "$i"; fi
  echo "pair $i of $pairs done" >&2
done

mkdir -p "$(dirname "$out")"
python3 - "$runs" "$pairs" "$out" <<PY
import json, re, statistics, subprocess, sys
runs, pairs, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
names = "$benchmarks".split(",")

def ops(side, pair):
    text = open(f"{runs}/{side}-{pair}.log").read()
    found = {m[0]: float(m[1]) for m in
             re.findall(r"^(\w+)\s+:\s+[\d.]+ micros/op (\d+) ops/sec", text, re.M)}
    missing = [n for n in names if n not in found]
    if missing:
        sys.exit(f"{side} pair {pair}: no throughput for {missing}")
    return {n: found[n] for n in names}

result = {
    "what": "db_bench ops/sec through LD_PRELOAD=libzonestack.so (instant emulated zn540) "
            "vs RocksDB's default file system in /dev/shm",
    "commit": subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True,
                             text=True).stdout.strip(),
    "build_type": "$build_type",
    "db_bench": subprocess.run(["dpkg-query", "-W", "-f", "\${Version}", "rocksdb-tools"],
                               capture_output=True, text=True).stdout,
    "fs_uri": "$fs_uri",
    "flags": "${common[*]}",
    "pairs": [],
    "ratio": {},
}
for i in range(1, pairs + 1):
    z, d = ops("zonestack", i), ops("default", i)
    result["pairs"].append({"first": "default" if i % 2 else "zonestack",
                            "zonestack_ops": z, "default_ops": d,
                            "ratio": {n: z[n] / d[n] for n in names}})
print(f"ZoneStack/default throughput over {pairs} pairs, median (min-max):")
for n in names:
    r = [p["ratio"][n] for p in result["pairs"]]
    result["ratio"][n] = {"median": statistics.median(r), "min": min(r), "max": max(r)}
    print(f"  {n:<11} {statistics.median(r):.3f}x ({min(r):.3f}-{max(r):.3f})")
if pairs < 5:
    print(f"  ({pairs} pairs: a smoke run, not a measurement)")
json.dump(result, open(out, "w"), indent=2)
print(f"wrote {out}")
PY
