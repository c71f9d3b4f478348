#!/usr/bin/env bash
# Runs inside the VM (experiments/peer/zenfs_peer.sh boots it), chrooted
# into the host's read-only root: Debian's unmodified db_bench on the same
# kernel zoned namespaces through ZoneStack's and ZenFS's plugins
# (LD_PRELOAD; ZoneStack also with ZenFS's no-op Flush, "zsnoflush"), each
# on a freshly formatted namespace, in rounds that rotate which goes first,
# and through RocksDB's default file system on
# ext4 on a conventional namespace as a reference. Settings come from
# $1/peer.env; each run's db_bench output goes to
# $1/runs/SETTING.NS.ROUND.SYSTEM.txt, and a summary to $1/summary.txt.
set -uo pipefail
out=$1
export HOME=/tmp PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
. "$out/peer.env"  # ZONESTACK_LIB ZSCTL ZENFS_LIB ZENFS_TOOL NUM PAIRS BENCHMARKS VALUE_SIZES SETTINGS NAMESPACES PROFILE WRITE_CACHE SETTLE
mkdir -p "$out/runs"
summary=$out/summary.txt
: > "$summary"
failed=0

for _ in $(seq 100); do [ -b /dev/nvme0n3 ] && break; sleep 0.1; done
# ZenFS refuses a zoned device without mq-deadline.
for ns in nvme0n1 nvme0n2; do echo mq-deadline > /sys/block/$ns/queue/scheduler; done
# QEMU's namespaces have a volatile write cache, and each cache flush
# becomes an fdatasync of the host's image file. WRITE_CACHE=through
# tells the kernel they have none, as a drive with power-loss protection
# reports: the kernel then sends no flushes (ZenFS sends none anyway).
if [ "${WRITE_CACHE:-back}" = through ]; then
  for ns in nvme0n1 nvme0n2 nvme0n3; do echo "write through" > /sys/block/$ns/queue/write_cache; done
fi
{
  echo "kernel $(uname -r), $(nproc) CPUs"
  for d in nvme0n1 nvme0n2 nvme0n3; do
    q=/sys/block/$d/queue
    echo "$d: zoned=$(cat $q/zoned) zones=$(cat $q/nr_zones 2>/dev/null)" \
         "zone=$(( $(cat $q/chunk_sectors) / 2 ))KiB max_active=$(cat $q/max_active_zones 2>/dev/null)" \
         "scheduler=$(cat $q/scheduler) write_cache=$(cat $q/write_cache)"
  done
} | tee -a "$summary"

# With SETTLE=1 each read workload waits for the compactions the workloads
# before it left (db_bench's waitforcompaction prints no rate); with
# SETTLE=compact it starts on a fully compacted tree (db_bench's compact:
# the memtable flushed and every SST compacted into the last level), so
# every system's reads meet the same tree.
benchmarks=$BENCHMARKS
case "${SETTLE:-0}" in
  1) before=waitforcompaction ;;
  compact) before=compact ;;
  *) before= ;;
esac
if [ -n "$before" ]; then
  benchmarks=$(echo "$BENCHMARKS" | sed -E "s/(^|,)(read[a-z]*|seek[a-z]*)/\\1$before,\\2/g")
fi
# db_bench's flags shared by every system (the issue's settings).
common=(--num="$NUM" --key_size=16 --compression_type=none --write_buffer_size=2097152
        --target_file_size_base=2097152 --max_bytes_for_level_base=8388608 --seed=42
        --histogram=0 --threads=1 --benchmarks="$benchmarks")
declare -A setting_flags=(
  [default]=""
  [direct]="--use_direct_reads --use_direct_io_for_flush_and_compaction"
)

# With PROFILE=1 each zoned system's db_bench runs under `perf record`
# (CPU clock; the guest has no PMU under TCG), and LOG.perf.txt gets the
# samples' share by shared object and by symbol (self time: Debian's
# librocksdb has no frame pointers for call chains). perf's own cost
# makes such rounds' rates no comparison. PROFILE=2 records call chains
# (DWARF unwinding: the plugins have debug information, Debian's
# librocksdb has none, so chains stop there) and leaves LOG.perf.data
# and the kernel's symbols (LOG.kallsyms) for zenfs_peer.sh to report on
# the host: unwinding under TCG takes longer than the run.
# profiled LOG PRELOAD CMD...: runs CMD with LD_PRELOAD=PRELOAD.
profiled() {
  local log=$1 preload=$2
  shift 2
  if [ "${PROFILE:-0}" = 0 ]; then
    LD_PRELOAD=$preload "$@"
    return
  fi
  local rc=0
  if [ "$PROFILE" = 2 ]; then
    perf record -q -N -e cpu-clock -F 499 --call-graph dwarf,8192 -o "$log.perf.data" -- \
      env LD_PRELOAD="$preload" "$@" || rc=$?
    cp /proc/kallsyms "$log.kallsyms"
    return $rc
  fi
  perf record -q -N -e cpu-clock -F 499 -o "$log.perf.data" -- env LD_PRELOAD="$preload" "$@" || rc=$?
  {
    perf report -i "$log.perf.data" --stdio --sort dso --percent-limit 0.5 2>/dev/null
    perf report -i "$log.perf.data" --stdio --sort dso,sym --percent-limit 0.3 2>/dev/null
  } | grep -v '^$' > "$log.perf.txt"
  rm -f "$log.perf.data"
  return $rc
}

# run SYSTEM NS LOG VALUE_SIZE FLAGS...: formats, then runs db_bench.
# LOG.stat gets the namespace's block-layer counters (/sys/block/NS/stat:
# requests, sectors, cache flushes and their time) before and after, the
# format included.
run() {
  local system=$1 ns=$2 log=$3 vsize=$4
  shift 4
  local rc=0
  cat "/sys/block/$ns/stat" > "$log.stat"
  case $system in
    zonestack)
      "$ZSCTL" mkfs -d "zbd:/dev/$ns" > "$log.mkfs" 2>&1 || rc=$?
      [ $rc -eq 0 ] && profiled "$log" "$ZONESTACK_LIB" db_bench --fs_uri="zonestack://zbd:/dev/$ns" \
        --db=/db --value_size="$vsize" "${common[@]}" "$@" > "$log" 2>&1 || rc=$?
      ;;
    zsnoflush)
      # ZoneStack with ZenFS's contract: Flush leaves data in the process
      # (volume option "flush": "none"), so a killed process loses what
      # RocksDB flushed but did not sync, as on ZenFS.
      echo "{\"devices\": [\"zbd:/dev/$ns\"], \"flush\": \"none\"}" > /tmp/noflush.json
      "$ZSCTL" mkfs --volume /tmp/noflush.json > "$log.mkfs" 2>&1 || rc=$?
      [ $rc -eq 0 ] && profiled "$log" "$ZONESTACK_LIB" db_bench --fs_uri="zonestack:///tmp/noflush.json" \
        --db=/db --value_size="$vsize" "${common[@]}" "$@" > "$log" 2>&1 || rc=$?
      ;;
    zenfs)
      rm -rf /tmp/zenfs-aux && mkdir -p /tmp/zenfs-aux
      "$ZENFS_TOOL" mkfs --zbd="$ns" --aux_path=/tmp/zenfs-aux --force > "$log.mkfs" 2>&1 || rc=$?
      [ $rc -eq 0 ] && profiled "$log" "$ZENFS_LIB" db_bench --fs_uri="zenfs://dev:$ns" \
        --db=/db --value_size="$vsize" "${common[@]}" "$@" > "$log" 2>&1 || rc=$?
      ;;
    ext4)
      umount /mnt 2> /dev/null
      mkfs.ext4 -q -F "/dev/$ns" > "$log.mkfs" 2>&1 && mount "/dev/$ns" /mnt || rc=$?
      [ $rc -eq 0 ] && db_bench --db=/mnt/db --value_size="$vsize" "${common[@]}" "$@" \
        > "$log" 2>&1 || rc=$?
      umount /mnt 2> /dev/null
      ;;
  esac
  cat "/sys/block/$ns/stat" >> "$log.stat"
  if [ $rc -ne 0 ]; then
    echo "FAIL $(basename "$log"): exit $rc: $(tail -n 2 "$log" "$log.mkfs" 2>/dev/null | tr '\n' ' ')" |
      tee -a "$summary"
    failed=1
  fi
}

for vsize in $VALUE_SIZES; do
  for setting in $SETTINGS; do
    read -ra flags <<< "${setting_flags[$setting]}"
    for ns in $NAMESPACES; do
      for round in $(seq "$PAIRS"); do
        # Rotate which zoned system goes first; the reference runs last.
        systems=(zonestack zenfs zsnoflush)
        order=()
        for i in 0 1 2; do order+=("${systems[$(( (round - 1 + i) % 3 ))]}"); done
        for system in "${order[@]}"; do
          run "$system" "$ns" "$out/runs/v$vsize.$setting.$ns.$round.$system.txt" "$vsize" "${flags[@]}"
        done
        run ext4 nvme0n3 "$out/runs/v$vsize.$setting.$ns.$round.ext4.txt" "$vsize" "${flags[@]}"
        echo "v$vsize $setting $ns round $round done" | tee -a "$summary"
      done
    done
  done
done
exit $failed
