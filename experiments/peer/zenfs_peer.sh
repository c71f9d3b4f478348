#!/usr/bin/env bash
# ZoneStack against ZenFS on the same kernel zoned device: Debian's
# unmodified db_bench (rocksdb-tools 7.8.3) with LD_PRELOAD of each plugin,
# in the VM harness's Linux (Debian's kernel under QEMU; KVM when a guest
# boots with it, else TCG, which the results say), on two ZNS namespaces:
#   nvme0n1  the harness's RocksDB namespace (64 zones of 8 MiB, 6 MiB
#            capacity, 14 open/active)
#   nvme0n2  a larger one (128 zones of 64 MiB, 48 MiB capacity, 14
#            open/active)
# and RocksDB's default file system on ext4 on a conventional namespace
# (nvme0n3) as a reference. ZoneStack runs as it is and with ZenFS's no-op
# Flush (experiments/peer/README.md). Each round formats the namespace
# afresh and rotates which system goes first; every workload runs
# with RocksDB's default I/O and with direct I/O, at each value size.
# Prints each ratio's median (min-max) over the rounds and writes every
# run's numbers as JSON.
#
# Usage: experiments/peer/zenfs_peer.sh ZENFS_CHECKOUT
#   ZENFS_CHECKOUT: ZenFS's public source (git clone
#   https://github.com/westerndigitalcorporation/zenfs; git checkout v2.1.2)
# Env: PAIRS rounds (3), NUM keys (50000), VALUE_SIZES ("1000 4096"),
#   BENCHMARKS (fillrandom,overwrite,readrandom,readwhilewriting,seekrandom),
#   SETTINGS ("default direct"), NAMESPACES ("nvme0n1 nvme0n2"),
#   BUILD_DIR (build; Release or RelWithDebInfo), OUT
#   (experiments/results/peer.json), VM_DIR (build/vm-peer), VM_TIMEOUT
#   seconds (36000), VM_MEM, VM_ACCEL as scripts/vm_test.sh; PROFILE=1
#   profiles each zoned system's runs with perf (RUN.perf.txt beside each
#   run's output; such rounds' rates are no comparison; PROFILE=2 with
#   call chains); WRITE_CACHE
#   (back: QEMU's volatile write cache, each flush an fdatasync on the
#   host; through: the guest's kernel told there is none, as a drive with
#   power-loss protection, so it sends no flushes); SETTLE (1, the
#   default: db_bench's waitforcompaction before each read workload, so a
#   read workload does not start under the compactions the writes left,
#   the same for every system; compact: db_bench's compact instead, so
#   every system's reads start on a fully compacted tree; 0: each
#   workload starts right after the one before, as db_bench runs them).
# Holds /tmp/zonestack-heavy.lock throughout: run nothing heavy beside it.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
zenfs_src=$(realpath "${1:?usage: zenfs_peer.sh ZENFS_CHECKOUT}")
build=${BUILD_DIR:-build}
vm_dir=$(realpath -m "${VM_DIR:-build/vm-peer}")
out=$vm_dir/out
result=${OUT:-experiments/results/peer.json}
export VM_TIMEOUT=${VM_TIMEOUT:-36000}

log() { echo "zenfs_peer: $*"; }
die() { echo "zenfs_peer: $*" >&2; exit 1; }

exec 9> /tmp/zonestack-heavy.lock
log "waiting for /tmp/zonestack-heavy.lock"
flock 9

. scripts/vm/lib.sh
vm_packages
for p in libzbd-dev e2fsprogs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
    apt-get install -y -qq --no-install-recommends "$p" > /dev/null
done

# --- the two plugins, built the same way against Debian's librocksdb -------
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo > /dev/null
fi
build_type=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$build/CMakeCache.txt")
case "$build_type" in
  Release | RelWithDebInfo) ;;
  *) die "$build is a '$build_type' build; use Release or RelWithDebInfo" ;;
esac
grep -q '^ZS_SANITIZE:BOOL=ON' "$build/CMakeCache.txt" && die "$build is sanitized"
ninja -C "$build" zonestack zsctl > /dev/null
experiments/peer/build_zenfs.sh "$zenfs_src" "$build/zenfs" > /dev/null

vm_kernel
guest=experiments/peer/guest.sh
vm_initramfs ext4 crc32c_generic  # ext4 asks the crypto API for crc32c at mount

rm -rf "$out" && mkdir -p "$out"
rm -f "$vm_dir"/ns*.img
truncate -s 512M "$vm_dir/ns1.img"
truncate -s 8G "$vm_dir/ns2.img"
truncate -s 8G "$vm_dir/ns3.img"
# The code measured is the code at the start: the tree may move on during
# hours of rounds, and the report is written at the end.
commit=$(git rev-parse HEAD)
dirty=$([ -n "$(git status --porcelain --untracked-files=no)" ] && echo 1 || echo 0)
cat > "$out/peer.env" <<ENV
COMMIT=$commit
DIRTY=$dirty
ZONESTACK_LIB=$(realpath "$build/src/plugin/libzonestack.so")
ZSCTL=$(realpath "$build/src/tools/zsctl")
ZENFS_LIB=$(realpath "$build/zenfs/libzenfs.so")
ZENFS_TOOL=$(realpath "$build/zenfs/zenfs")
NUM=${NUM:-50000}
PAIRS=${PAIRS:-3}
VALUE_SIZES="${VALUE_SIZES:-1000 4096}"
BENCHMARKS=${BENCHMARKS:-fillrandom,overwrite,readrandom,readwhilewriting,seekrandom}
SETTINGS="${SETTINGS:-default direct}"
NAMESPACES="${NAMESPACES:-nvme0n1 nvme0n2}"
PROFILE=${PROFILE:-0}
WRITE_CACHE=${WRITE_CACHE:-back}
SETTLE=${SETTLE:-1}
ENV

vm_accel
zns="logical_block_size=4096,physical_block_size=4096,zoned=true,zoned.max_open=14,zoned.max_active=14"
vm_boot -device nvme,id=nvme0,serial=zonestack0,zoned.zasl=5 \
  -drive file="$vm_dir/ns1.img",id=ns1,format=raw,if=none \
  -device nvme-ns,drive=ns1,bus=nvme0,nsid=1,$zns,zoned.zone_size=8M,zoned.zone_capacity=6M \
  -drive file="$vm_dir/ns2.img",id=ns2,format=raw,if=none \
  -device nvme-ns,drive=ns2,bus=nvme0,nsid=2,$zns,zoned.zone_size=64M,zoned.zone_capacity=48M \
  -drive file="$vm_dir/ns3.img",id=ns3,format=raw,if=none \
  -device nvme-ns,drive=ns3,bus=nvme0,nsid=3,logical_block_size=4096,physical_block_size=4096

[ -f "$out/summary.txt" ] || die "the VM wrote no summary (qemu exit $qemu_rc); see $vm_dir/console.log"
cat "$out/summary.txt"
rc=$(cat "$out/exit_code" 2>/dev/null || echo 1)
# PROFILE=2: the call chains are unwound here, on the host's CPU (the
# guest runs the host's files, so the same binaries), with the guest
# kernel's symbols the guest saved: RUN.perf.txt gets each symbol over 1%
# of the samples (self time) with its callers.
if [ "${PROFILE:-0}" = 2 ]; then
  for data in "$out"/runs/*.perf.data; do
    [ -f "$data" ] || continue
    run=${data%.perf.data}
    perf report -i "$data" --kallsyms "$run.kallsyms" --stdio --no-children --sort dso,sym \
      --percent-limit 1 -g caller,0.5,callee,function,percent --max-stack 24 2>/dev/null |
      grep -v '^$' > "$run.perf.txt" || true
    rm -f "$data"
  done
fi
mkdir -p "$(dirname "$result")"
python3 experiments/peer/report.py "$out" "$result" --accel "$accel" --build_type "$build_type" \
  --zenfs "$(git -C "$zenfs_src" describe --abbrev=7 --dirty 2>/dev/null || echo unknown)"
log "runs in $out/runs; guest exit $rc"
exit "$rc"
