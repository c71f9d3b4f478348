#!/usr/bin/env bash
# The block tier as a Linux block device (docs/zonetier.md, "Block device
# export"): nbdkit serves the zstier plugin (an HA-256-CFC tier over an
# emulated ST8000AS0022 and SSD) on a unix socket; the VM attaches it with
# qemu's NBD client as a virtio disk of 4 KiB blocks, and
#   boot 1 (scripts/vm/tier_guest.sh write): mkfs.ext4, a file workload
#          with checksums, sync, umount, fsck, mount again, verify;
#   the client leaves: the tier flushes and closes, and the plugin cuts
#          both devices' power (power_cut_on_close), dropping whatever
#          was not durable;
#   boot 2 (verify): a new connection reopens the tier, which recovers its
#          mapping from the SSD; fsck, mount, verify every checksum;
#          overwrite more, remount, verify.
# Then nbdkit is stopped. The devices live in nbdkit's memory: the
# emulator keeps the drive's media cache in memory only and refuses a
# file-backed drive, so the store cannot outlive the nbdkit process; the
# power cut between the boots stands in for a restart.
#
# Usage: scripts/vm_tier_test.sh   (long under TCG; not part of ctest)
# Env:   VM_DIR (default build/vm-tier), VM_TIMEOUT seconds per boot
#        (default 3600), VM_MEM MiB (default 2048), VM_ACCEL=kvm|tcg,
#        TIER_SCHEME (default HA-256-CFC).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
vm_dir=$(realpath -m "${VM_DIR:-build/vm-tier}")
out=$vm_dir/out

log() { echo "vm_tier_test: $*"; }
die() { echo "vm_tier_test: $*" >&2; exit 1; }

. scripts/vm/lib.sh
vm_packages
command -v nbdkit > /dev/null || die "nbdkit is not installed (scripts/deps.sh installs it)"

[ -f build/CMakeCache.txt ] || cmake -S . -B build -G Ninja > /dev/null
ninja -C build zstier
plugin=$root/build/src/tools/zstier.so
[ -f "$plugin" ] || die "no $plugin (is nbdkit-plugin.h installed?)"

vm_kernel
guest=scripts/vm/tier_guest.sh
# crc32c for ext4's metadata checksums: the initramfs has no modprobe to
# load it on demand.
vm_initramfs virtio_blk crc32c_generic ext4

rm -rf "$out" && mkdir -p "$out"
sock=$vm_dir/tier.sock
rm -f "$sock"
# 250 MiB of drive: 2000 zones of 128 KiB (scale 1/2048), a 12.5 MB media
# cache; a 64 MiB SSD of conventional zones; the tier takes 10% of the
# drive for slots and 1% for the CF-Cache. Instant devices: this checks
# the data, not the timing. A 4 MiB SSD tier (32 slots) and a placement
# period of 20 requests, so the few hundred (large) requests of the
# workload promote, demote and evict.
nbdkit -f -U "$sock" "$plugin" scheme="${TIER_SCHEME:-HA-256-CFC}" \
  ssd_tier_bytes=$((4 << 20)) period=20 power_cut_on_close=yes \
  "drive=emu:st8000as0022?zones=2000&scale=1/2048&timing=none" \
  "ssd=emu:zn540?zones=64&conv=64&scale=1/2048&timing=none" \
  > "$vm_dir/nbdkit.log" 2>&1 &
nbd_pid=$!
stop_nbdkit() { kill -TERM "$nbd_pid" 2>/dev/null && wait "$nbd_pid" 2>/dev/null || true; }
trap stop_nbdkit EXIT
for _ in $(seq 600); do
  [ -S "$sock" ] && break
  kill -0 "$nbd_pid" 2>/dev/null || { cat "$vm_dir/nbdkit.log"; die "nbdkit exited"; }
  sleep 0.1
done
[ -S "$sock" ] || die "nbdkit made no socket at $sock"
log "nbdkit (pid $nbd_pid) serves the tier on $sock"

vm_accel
rc=0
for phase in write verify; do
  echo "$phase" > "$out/phase"
  rm -f "$out/exit_code"
  # 4 KiB logical blocks: the guest sends whole tier blocks.
  vm_boot \
    -drive "if=none,id=tier,format=raw,cache=writeback,file.driver=nbd,file.server.type=unix,file.server.path=$sock" \
    -device virtio-blk-pci,drive=tier,logical_block_size=4096,physical_block_size=4096
  cp "$vm_dir/console.log" "$vm_dir/console-$phase.log"
  phase_rc=$(cat "$out/exit_code" 2>/dev/null || echo "none")
  log "boot '$phase': qemu exit $qemu_rc, guest exit $phase_rc"
  if [ "$phase_rc" != 0 ]; then
    rc=1
    break
  fi
done

trap - EXIT
kill -TERM "$nbd_pid"
nbd_rc=0
wait "$nbd_pid" || nbd_rc=$?
echo
cat "$out/summary.txt" 2>/dev/null || echo "(no summary)"
grep '^zstier: connection' "$vm_dir/nbdkit.log" || true
# Every failed request or flush is logged by the plugin as an error.
if grep -q 'error' "$vm_dir/nbdkit.log"; then
  log "nbdkit logged errors:"
  grep 'error' "$vm_dir/nbdkit.log" | head -20
  rc=1
fi
[ "$nbd_rc" -eq 0 ] || { log "nbdkit exited $nbd_rc"; rc=1; }
log "logs in $vm_dir (nbdkit.log, console-*.log, out/); exit $rc"
exit "$rc"
