# Shared by the VM's commands (scripts/vm_test.sh, experiments/peer/):
# Debian's kernel under qemu-system-x86_64, the host's root shared
# read-only over 9p, a results directory shared writable, and a guest
# script run inside (scripts/vm/init). Source it after setting
#   root    the checkout,  vm_dir  the VM's work directory,
#   out     the results directory the guest writes,
# and log/die functions. Env: VM_TIMEOUT seconds (default 3600), VM_MEM
# MiB (2048), VM_ACCEL=kvm|tcg to force one.

# The packages the VM needs from Debian.
vm_packages() {
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
}

# Debian's kernel, unpacked (not installed: the host's /boot is untouched):
# sets kernel_pkg, vmlinuz and moddir.
vm_kernel() {
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
}

# Adds kernel module $1 to the initramfs after the modules its .modinfo
# says it depends on.
declare -A seen=()
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

# The initramfs: busybox, the modules the VM needs (virtio, 9p, nvme and
# the arguments), and scripts/vm/init, which runs $guest (a script's path
# in the checkout) with the results directory as its argument.
vm_initramfs() {
  initdir=$vm_dir/initramfs
  rm -rf "$initdir" && mkdir -p "$initdir"/{bin,modules,proc,sys,dev,host}
  cp /bin/busybox "$initdir/bin/busybox"
  cp scripts/vm/init "$initdir/init"
  chmod +x "$initdir/init"
  for m in virtio_pci 9pnet_virtio 9p nvme "$@"; do add_module "$m"; done
  cat > "$initdir/zs.env" <<EOF
ZS_ROOT=$root
ZS_OUT=$out
ZS_GUEST=$guest
EOF
  (cd "$initdir" && find . | cpio -o -H newc --quiet | gzip -1) > "$vm_dir/initramfs.cpio.gz"
}

# Sets accel and accel_args: KVM only if a guest really boots with it.
vm_accel() {
  # Nested KVM may exist but hang the guest (seen on this project's CI
  # machines) or refuse -cpu host.
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
}

# Boots the VM with the devices in the arguments (qemu options); the
# console goes to $vm_dir/console.log too. Sets qemu_rc.
vm_boot() {
  log "booting $kernel_pkg with $accel (console: $vm_dir/console.log)"
  set +e
  timeout "${VM_TIMEOUT:-3600}" qemu-system-x86_64 "${accel_args[@]}" \
    -m "${VM_MEM:-2048}" -smp 2 -nographic -no-reboot -nic none \
    -kernel "$vmlinuz" -initrd "$vm_dir/initramfs.cpio.gz" \
    -append "console=ttyS0 panic=-1 quiet" \
    -virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
    -virtfs local,path="$out",mount_tag=results,security_model=none,multidevs=remap \
    "$@" < /dev/null 2>&1 | tee "$vm_dir/console.log"
  qemu_rc=${PIPESTATUS[0]}
  set -e
}
