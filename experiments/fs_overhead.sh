#!/usr/bin/env bash
# Plugin overhead: RocksDB fillrandom then readrandom on ZoneStack over an
# instant emulated device versus RocksDB's default file system in /dev/shm.
# Each run compares the two in one zsbench invocation (same workload, same
# seed, back to back), alternating which goes first so that an order effect
# cancels; the median over runs is printed.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
runs=${RUNS:-5}
records=${RECORDS:-200000}
zsbench="$build/src/tools/zsbench"
shm=$(mktemp -d /dev/shm/zsbench.XXXXXX)
trap 'rm -rf "$shm"' EXIT
fill=() read=()
for i in $(seq "$runs"); do
  posix=(--scheme posix="posix:$shm")
  zone=(--scheme zonestack="zonestack://emu:zn540?zones=64&scale=1/16&timing=none")
  if (( i % 2 )); then order=("${posix[@]}" "${zone[@]}"); other=zonestack; invert=0
  else order=("${zone[@]}" "${posix[@]}"); other=posix; invert=1; fi
  out=$("$zsbench" --quiet --records "$records" --workload fillrandom,readrandom "${order[@]}")
  ratio() {
    awk -v s="$other" -v p="$1" -v inv="$invert" \
      '$1 == s && $2 == p && $3 ~ /x$/ {sub("x", "", $3); printf "%.3f\n", inv ? 1 / $3 : $3}' <<<"$out"
  }
  f=$(ratio fillrandom); r=$(ratio readrandom)
  fill+=("$f"); read+=("$r")
  echo "run $i: zonestack/posix throughput fillrandom ${f}x readrandom ${r}x"
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "median over $runs runs: fillrandom $(median "${fill[@]}")x, readrandom $(median "${read[@]}")x"
