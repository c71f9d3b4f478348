#!/usr/bin/env bash
# The VM harness: proves ZbdDevice and the emulator's zone state machine
# against a real Linux kernel. Boots Debian's kernel (linux-image-amd64)
# under qemu-system-x86_64 with an emulated NVMe controller holding two
# zoned namespaces, and inside the VM (scripts/vm/guest.sh) creates a
# zoned null_blk device with conventional zones, then runs
#   - the zone conformance suite against null_blk (ZBC cases) and NVMe
#     namespace 1 (ZNS cases),
#   - RocksDB on ZoneStack on NVMe namespace 2: a workload checked against
#     a model across remounts, then a second process checking it again.
# The host's root file system is shared read-only into the VM over 9p, so
# the VM runs the binaries of ./build with the host's libraries.
#
# Usage: scripts/vm_test.sh     (KVM when a guest boots with it, else TCG: slower)
# Env:   VM_DIR (default build/vm), VM_TIMEOUT seconds (default 3600),
#        VM_MEM MiB (default 2048), VM_ACCEL=kvm|tcg to force one.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
vm_dir=$(realpath -m "${VM_DIR:-build/vm}")
out=$vm_dir/out

log() { echo "vm_test: $*"; }
die() { echo "vm_test: $*" >&2; exit 1; }

. scripts/vm/lib.sh
vm_packages

# --- the binaries the VM runs -------------------------------------------------
[ -f build/CMakeCache.txt ] || cmake -S . -B build -G Ninja > /dev/null
ninja -C build device_tests glue_tests

vm_kernel
guest=scripts/vm/guest.sh
vm_initramfs null_blk

# --- zoned namespaces: fresh zeroed images, so no stale data reads back ------
rm -rf "$out" && mkdir -p "$out"
rm -f "$vm_dir"/ns*.img
truncate -s 4M "$vm_dir/ns1.img"    # 64 zones of 64 KiB, for the conformance suite
truncate -s 512M "$vm_dir/ns2.img"  # 64 zones of 8 MiB, for RocksDB

vm_accel
# Namespace 1 is configured like the conformance suite's ZNS model
# (tests/device/zone_conformance_fixture.h): 4 KiB blocks, 64 KiB zones of
# 48 KiB capacity, 3 open and 4 active zones; ZASL 2^2 x 4 KiB = 16 KiB.
# Namespace 2 is shaped like the scaled ZN540 the RocksDB tests use.
ns_common="logical_block_size=4096,physical_block_size=4096,zoned=true"
vm_boot -device nvme,id=nvme0,serial=zonestack0,zoned.zasl=2 \
  -drive file="$vm_dir/ns1.img",id=ns1,format=raw,if=none \
  -device nvme-ns,drive=ns1,bus=nvme0,nsid=1,$ns_common,zoned.zone_size=64K,zoned.zone_capacity=48K,zoned.max_open=3,zoned.max_active=4 \
  -drive file="$vm_dir/ns2.img",id=ns2,format=raw,if=none \
  -device nvme-ns,drive=ns2,bus=nvme0,nsid=2,$ns_common,zoned.zone_size=8M,zoned.zone_capacity=6M,zoned.max_open=14,zoned.max_active=14

[ -f "$out/summary.txt" ] || die "the VM wrote no summary (qemu exit $qemu_rc); see $vm_dir/console.log"
echo
cat "$out/summary.txt"
rc=$(cat "$out/exit_code" 2>/dev/null || echo 1)
log "logs in $out; guest exit $rc"
exit "$rc"
