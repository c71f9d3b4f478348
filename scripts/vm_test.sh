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

# --- packages from Debian ---------------------------------------------------
scripts/deps.sh
missing=()
for p in qemu-system-x86 busybox-static cpio; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
if [ ${#missing[@]} -gt 0 ]; then
  log "installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# --- the binaries the VM runs -------------------------------------------------
[ -f build/CMakeCache.txt ] || cmake -S . -B build -G Ninja > /dev/null
ninja -C build device_tests glue_tests

# --- Debian's kernel, unpacked (not installed: the host's /boot is untouched) --
kernel_pkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
             awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
if [ -z "$kernel_pkg" ]; then
  $sudo apt-get update -qq
  kernel_pkg=$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
fi
[ -n "$kernel_pkg" ] || die "cannot resolve linux-image-amd64 to a kernel package"
kdir=$vm_dir/$kernel_pkg
if [ ! -f "$kdir/.unpacked" ]; then
  log "unpacking $kernel_pkg"
  rm -rf "$kdir" && mkdir -p "$kdir"
  (cd "$kdir" && apt-get download "$kernel_pkg" > /dev/null 2>&1 && dpkg-deb -x ./*.deb . && rm ./*.deb)
  touch "$kdir/.unpacked"
fi
kver=${kernel_pkg#linux-image-}
vmlinuz=$kdir/boot/vmlinuz-$kver
moddir=$kdir/lib/modules/$kver
[ -f "$vmlinuz" ] || die "no kernel image at $vmlinuz"

# --- initramfs: busybox, the modules the VM needs, and scripts/vm/init ------
initdir=$vm_dir/initramfs
rm -rf "$initdir" && mkdir -p "$initdir"/{bin,modules,proc,sys,dev,host}
cp /bin/busybox "$initdir/bin/busybox"
cp scripts/vm/init "$initdir/init"
chmod +x "$initdir/init"
declare -A seen=()
: > "$initdir/modules.list"
# Adds module $1 after the modules its .modinfo says it depends on.
add_module() {
  local name=${1//-/_}
  [ -n "${seen[$name]:-}" ] && return 0
  seen[$name]=1
  local file
  file=$(find "$moddir/kernel" -name "$1.ko" -o -name "${1//_/-}.ko" -o -name "${1//-/_}.ko" | head -1)
  if [ -z "$file" ]; then
    grep -qE "/(${1//_/-}|${1//-/_})\.ko$" "$moddir/modules.builtin" && return 0
    die "kernel module $1 is neither in $moddir nor built in"
  fi
  local dep
  for dep in $(tr '\0' '\n' < "$file" | sed -n 's/^depends=//p' | tr ',' ' '); do
    add_module "$dep"
  done
  cp "$file" "$initdir/modules/"
  echo "$(basename "$file" .ko)" >> "$initdir/modules.list"
}
for m in virtio_pci 9pnet_virtio 9p nvme null_blk; do add_module "$m"; done
cat > "$initdir/zs.env" <<EOF
ZS_ROOT=$root
ZS_OUT=$out
EOF
(cd "$initdir" && find . | cpio -o -H newc --quiet | gzip -1) > "$vm_dir/initramfs.cpio.gz"

# --- zoned namespaces: fresh zeroed images, so no stale data reads back ------
rm -rf "$out" && mkdir -p "$out"
rm -f "$vm_dir"/ns*.img
truncate -s 4M "$vm_dir/ns1.img"    # 64 zones of 64 KiB, for the conformance suite
truncate -s 512M "$vm_dir/ns2.img"  # 64 zones of 8 MiB, for RocksDB

# KVM only if a guest really boots with it: nested KVM may exist but hang
# the guest (seen on this project's CI machines) or refuse -cpu host.
kvm_boots() {
  [ -r /dev/kvm ] && [ -w /dev/kvm ] || return 1
  timeout 20 qemu-system-x86_64 -enable-kvm -cpu host -m 256 -nographic -no-reboot -nic none \
    -kernel "$vmlinuz" -append "console=ttyS0 panic=-1 rdinit=/nonexistent" < /dev/null 2>&1 |
    grep -aq "Linux version"
}
accel=${VM_ACCEL:-}
if [ -z "$accel" ]; then
  if kvm_boots; then accel=kvm; else accel=tcg; fi
fi
if [ "$accel" = kvm ]; then accel_args=(-enable-kvm -cpu host); else accel_args=(-accel tcg -cpu max); fi
log "booting $kernel_pkg with $accel (console: $vm_dir/console.log)"

# Namespace 1 is configured like the conformance suite's ZNS model
# (tests/device/zone_conformance_fixture.h): 4 KiB blocks, 64 KiB zones of
# 48 KiB capacity, 3 open and 4 active zones; ZASL 2^2 x 4 KiB = 16 KiB.
# Namespace 2 is shaped like the scaled ZN540 the RocksDB tests use.
ns_common="logical_block_size=4096,physical_block_size=4096,zoned=true"
set +e
timeout "${VM_TIMEOUT:-3600}" qemu-system-x86_64 "${accel_args[@]}" \
  -m "${VM_MEM:-2048}" -smp 2 -nographic -no-reboot -nic none \
  -kernel "$vmlinuz" -initrd "$vm_dir/initramfs.cpio.gz" \
  -append "console=ttyS0 panic=-1 quiet" \
  -virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
  -virtfs local,path="$out",mount_tag=results,security_model=none,multidevs=remap \
  -device nvme,id=nvme0,serial=zonestack0,zoned.zasl=2 \
  -drive file="$vm_dir/ns1.img",id=ns1,format=raw,if=none \
  -device nvme-ns,drive=ns1,bus=nvme0,nsid=1,$ns_common,zoned.zone_size=64K,zoned.zone_capacity=48K,zoned.max_open=3,zoned.max_active=4 \
  -drive file="$vm_dir/ns2.img",id=ns2,format=raw,if=none \
  -device nvme-ns,drive=ns2,bus=nvme0,nsid=2,$ns_common,zoned.zone_size=8M,zoned.zone_capacity=6M,zoned.max_open=14,zoned.max_active=14 \
  < /dev/null 2>&1 | tee "$vm_dir/console.log"
qemu_rc=${PIPESTATUS[0]}
set -e

[ -f "$out/summary.txt" ] || die "the VM wrote no summary (qemu exit $qemu_rc); see $vm_dir/console.log"
echo
cat "$out/summary.txt"
rc=$(cat "$out/exit_code" 2>/dev/null || echo 1)
log "logs in $out; guest exit $rc"
exit "$rc"
