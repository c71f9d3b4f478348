#!/usr/bin/env bash
# Runs inside the test VM (scripts/vm_test.sh), chrooted into the host's
# read-only root: creates a zoned null_blk device configured like the
# conformance suite's ZBC model, records the kernel's view of every zoned
# device, runs the conformance suite and ZbdDevice's tests against null_blk
# and NVMe namespace 1, and RocksDB on ZoneStack on NVMe namespace 2.
# Writes logs and summary.txt to the results directory $1.
set -uo pipefail
out=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$root/build
export HOME=/tmp PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
summary=$out/summary.txt
: > "$summary"
failed=0

# null_blk like ZbcInfo(): 4 KiB blocks, 2 conventional zones, 3 open and
# 4 active zones; 1 MiB zones (its smallest), 64 of them, kept in memory.
# Linux >= 5.19 names the disk after its configfs directory.
nullb_cfg=/sys/kernel/config/nullb/nullb0
mkdir "$nullb_cfg"
for kv in blocksize=4096 size=64 memory_backed=1 zoned=1 zone_size=1 zone_nr_conv=2 \
          zone_max_open=3 zone_max_active=4 power=1; do
  echo "${kv#*=}" > "$nullb_cfg/${kv%%=*}" || echo "guest: setting null_blk $kv failed"
done

for _ in $(seq 100); do [ -b /dev/nvme0n2 ] && [ -b /dev/nullb0 ] && break; sleep 0.1; done

{
  echo "kernel $(uname -r)"
  for d in nullb0 nvme0n1 nvme0n2; do
    q=/sys/block/$d/queue
    [ -d "$q" ] || { echo "$d: missing"; continue; }
    echo "$d: zoned=$(cat $q/zoned) zone=$(( $(cat $q/chunk_sectors) / 2 ))KiB" \
         "zones=$(cat $q/nr_zones) max_open=$(cat $q/max_open_zones)" \
         "max_active=$(cat $q/max_active_zones) append_max=$(cat $q/zone_append_max_bytes)" \
         "block=$(cat $q/logical_block_size)/$(cat $q/physical_block_size)" \
         "scheduler=$(cat $q/scheduler)"
  done
} | tee -a "$summary"
blkzone report /dev/nullb0 2>&1 | head -4 > "$out/nullb0.zones"
blkzone report /dev/nvme0n1 2>&1 | head -4 > "$out/nvme0n1.zones"

# Runs a gtest binary, logging to $out/NAME.log and summing up its outcome.
run_gtest() {
  local name=$1
  shift
  echo "guest: running $name"
  env "$@" --gtest_output="xml:$out/$name.xml" > "$out/$name.log" 2>&1
  local rc=$?
  local line
  line=$(grep -E '^\[==========\] [0-9]+ tests? from' "$out/$name.log" | tail -1)
  {
    echo "$name: exit $rc; ${line#\[==========\] }"
    grep -E '^\[ +(PASSED|SKIPPED|FAILED) +\] [0-9]+' "$out/$name.log" | sed 's/^/  /'
    grep -E '^\[  FAILED  \] [A-Za-z]' "$out/$name.log" | grep -v ' ms)$' | sed 's/^/  /'
  } | tee -a "$summary"
  [ "$rc" -eq 0 ] || failed=1
}

suite='Protocols/ZoneConformanceTest.*:ZnsZoneTest.*:ZbcZoneTest.*:HznsZoneTest.*:ZbdDeviceTest.*'
run_gtest conformance-nullb0 ZONESTACK_ZBD_DEVICE=/dev/nullb0 \
  ZONESTACK_ZBD_NULLB_CONFIGFS="$nullb_cfg" "$build/tests/device/device_tests" --gtest_filter="$suite"
run_gtest conformance-nvme0n1 ZONESTACK_ZBD_DEVICE=/dev/nvme0n1 \
  "$build/tests/device/device_tests" --gtest_filter="$suite"
run_gtest rocksdb-nvme0n2 ZONESTACK_ZBD_DB_DEVICE=/dev/nvme0n2 \
  "$build/tests/glue/glue_tests" --gtest_filter='ZbdDbTest.WorkloadSurvivesRemountsOfTheDevice'
run_gtest rocksdb-nvme0n2-reopen ZONESTACK_ZBD_DB_DEVICE=/dev/nvme0n2 ZONESTACK_ZBD_DB_VERIFY=1 \
  "$build/tests/glue/glue_tests" --gtest_filter='ZbdDbTest.DataOfAnEarlierProcessReadsBack'
blkzone report /dev/nvme0n2 2>&1 | grep -o 'zcond: *[0-9]*([a-z]*)' | sort | uniq -c \
  > "$out/nvme0n2.conditions"
echo "nvme0n2 zone conditions after RocksDB: $(tr -s ' \n' ' ' < "$out/nvme0n2.conditions")" |
  tee -a "$summary"
exit $failed
