#!/usr/bin/env bash
# Plugin overhead: RocksDB fillrandom + readrandom on ZoneStack over an
# instant emulated device versus RocksDB's default file system in /dev/shm,
# alternated in one run; prints each run and the median ratio.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
runs=${RUNS:-3}
num=${NUM:-200000}
zsbench="$build/src/tools/zsbench"
shm=$(mktemp -d /dev/shm/zsbench.XXXXXX)
trap 'rm -rf "$shm"' EXIT
declare -a pf pr zf zr
for i in $(seq "$runs"); do
  out=$("$zsbench" --volume "posix:$shm" --num "$num")
  pf+=($(awk '/^fillrandom/ {print $4}' <<<"$out")); pr+=($(awk '/^readrandom/ {print $4}' <<<"$out"))
  out=$("$zsbench" --volume "zonestack://emu:zn540?zones=64&scale=1/16&timing=none" --num "$num")
  zf+=($(awk '/^fillrandom/ {print $4}' <<<"$out")); zr+=($(awk '/^readrandom/ {print $4}' <<<"$out"))
  echo "run $i: posix fill ${pf[-1]} read ${pr[-1]} | zonestack fill ${zf[-1]} read ${zr[-1]} ops/s"
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# Each zonestack run is compared with the posix run just before it, so the
# machine's slow phases hit both sides of a ratio.
python3 - "${pf[*]}" "${pr[*]}" "${zf[*]}" "${zr[*]}" <<'PY'
import statistics, sys
pf, pr, zf, zr = ([float(x) for x in a.split()] for a in sys.argv[1:])
for name, p, z in (("fillrandom", pf, zf), ("readrandom", pr, zr)):
    ratios = [b / a for a, b in zip(p, z)]
    print(f"{name}: posix median {statistics.median(p):.0f}, zonestack median "
          f"{statistics.median(z):.0f} ops/s; paired ratios "
          f"{' '.join(f'{r:.2f}' for r in ratios)}; median ratio {statistics.median(ratios):.3f}")
PY
