#!/usr/bin/env bash
# Runs inside the VM of scripts/vm_tier_test.sh, chrooted into the host's
# read-only root, with the block tier as /dev/vda (qemu's NBD client to
# nbdkit's zstier plugin on the host). The phase is in $1/phase:
#   write   mkfs.ext4, mount, a file workload (random files, in-place
#           overwrites, appends, deletions) with its checksums, sync,
#           umount, fsck, mount again and verify every checksum; then
#           more overwrites and a new file, new checksums, umount
#   verify  (a later boot, the tier reopened) fsck, mount, verify every
#           checksum the write phase recorded; overwrite more in place,
#           umount, fsck, mount and verify again
# Appends to $1/summary.txt; exits 0 only if every step passed.
set -uo pipefail
out=$1
phase=$(cat "$out/phase")
export HOME=/tmp PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
summary=$out/summary.txt
log=$out/$phase.log
dev=/dev/vda
mnt=/tmp/tier
failed=0

note() { echo "$phase: $*" | tee -a "$summary"; }
# Runs a step, its output to the phase's log; a failure fails the phase.
step() {
  local what=$1
  shift
  echo "== $what: $*" >> "$log"
  if "$@" >> "$log" 2>&1; then
    note "ok: $what"
  else
    note "FAILED: $what (exit $?; see $phase.log)"
    failed=1
  fi
}

for _ in $(seq 100); do [ -b $dev ] && break; sleep 0.1; done
[ -b $dev ] || { note "FAILED: no $dev"; exit 1; }
note "$dev: $(( $(cat /sys/block/vda/size) / 2048 )) MiB," \
     "logical block $(cat /sys/block/vda/queue/logical_block_size)," \
     "write cache $(cat /sys/block/vda/queue/write_cache)"
mkdir -p $mnt

# The workload: files of random content (sizes in KiB), then some
# overwritten in place, some appended to, some deleted.
workload() {
  local i=0 kib
  mkdir -p $mnt/d1 $mnt/d2
  for kib in 4 12 64 100 256 512 1000 2048 3000 4096 6000 8192 1 7 333 10000; do
    i=$((i + 1))
    head -c $((kib * 1024)) /dev/urandom > $mnt/d$((i % 2 + 1))/f$i || return 1
  done
  sync
  # In place: blocks in the middle of files already on the device.
  dd if=/dev/urandom of=$mnt/d1/f12 bs=4k seek=100 count=300 conv=notrunc status=none &&
    dd if=/dev/urandom of=$mnt/d2/f9 bs=4k seek=7 count=50 conv=notrunc status=none &&
    dd if=/dev/urandom of=$mnt/d1/f16 bs=1k seek=1001 count=3333 conv=notrunc status=none &&
    dd if=/dev/urandom of=$mnt/d2/f1 bs=100 seek=3 count=5 conv=notrunc status=none || return 1
  sync
  head -c 777777 /dev/urandom >> $mnt/d2/f11 &&
    rm $mnt/d1/f10 $mnt/d2/f3 &&
    head -c 5000000 /dev/urandom > $mnt/d2/late || return 1
  # A second round of in-place overwrites after the appends.
  dd if=/dev/urandom of=$mnt/d2/f11 bs=4k seek=1400 count=200 conv=notrunc status=none &&
    dd if=/dev/urandom of=$mnt/d1/f12 bs=4k seek=0 count=10 conv=notrunc status=none || return 1
  (cd $mnt && find . -type f | sort | xargs sha256sum) \
    > "$out/sums.txt"
}
verify() { (cd $mnt && sha256sum --strict -c "$out/sums.txt"); }
# The files listed are all the files there are (none lost, none extra).
# (Files, not <(...): the chroot's /dev has no /dev/fd.)
same_files() {
  (cd $mnt && find . -type f | sort) > /tmp/files.have
  awk '{print $2}' "$out/sums.txt" | sort > /tmp/files.want
  diff /tmp/files.want /tmp/files.have
}
# More in-place overwrites and a new file, new checksums: in the write
# phase the last writes before the client leaves, checked only after the
# power cut.
rewrite() {
  dd if=/dev/urandom of=$mnt/d1/f12 bs=4k seek=500 count=400 conv=notrunc status=none &&
    dd if=/dev/urandom of=$mnt/d2/late bs=4k seek=3 count=100 conv=notrunc status=none &&
    head -c 3000000 /dev/urandom > $mnt/d1/new-$phase || return 1
  (cd $mnt && find . -type f | sort | xargs sha256sum) > "$out/sums.txt"
}

case $phase in
  write)
    step mkfs mkfs.ext4 -F -q -b 4096 $dev
    step mount mount -t ext4 $dev $mnt
    step workload workload
    note "$(wc -l < "$out/sums.txt") files, $(du -sk $mnt | cut -f1) KiB"
    step sync sync
    step umount umount $mnt
    step fsck e2fsck -fn $dev
    step remount mount -t ext4 $dev $mnt
    step verify-after-remount verify
    step same-files same_files
    step last-writes rewrite
    step umount-again umount $mnt
    ;;
  verify)
    step fsck e2fsck -fn $dev
    step mount mount -t ext4 $dev $mnt
    step verify-after-reopen verify
    step same-files same_files
    step rewrite rewrite
    step umount umount $mnt
    step fsck-again e2fsck -fn $dev
    step remount mount -t ext4 $dev $mnt
    step verify-rewrite verify
    step same-files-again same_files
    step umount-again umount $mnt
    ;;
  *)
    note "FAILED: unknown phase '$phase'"
    failed=1
    ;;
esac
exit $failed
