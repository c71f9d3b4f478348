#!/usr/bin/env bash
# Debian's unmodified RocksDB tools (package rocksdb-tools 7.8.3: db_bench,
# ldb, sst_dump) on file-backed ZoneStack volumes through
# LD_PRELOAD=libzonestack.so: a DB written by db_bench is read back by ldb
# and its SSTs checked by sst_dump; on an HHZS volume, db_bench gets
# RocksDB's hints from an OPTIONS file and warns without it.
#
# Usage: rocksdb_tools_test.sh LIBZONESTACK ZSCTL
set -euo pipefail

lib=$1
zsctl=$2
fail() { echo "FAIL: $*" >&2; exit 1; }

for tool in db_bench ldb sst_dump; do
  command -v "$tool" > /dev/null ||
    fail "$tool not found: install Debian's rocksdb-tools (scripts/deps.sh does)"
done
[ -f "$lib" ] || fail "no plugin library at $lib"

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# A sanitized libzonestack.so (the test command's build) needs the ASan
# runtime loaded before anything else, and the tools are not instrumented,
# so nothing puts it first but LD_PRELOAD: take the very runtimes the
# library was linked against (ldd) and preload them ahead of it. Leak
# checking stays off for these processes: the tools leak by design at exit
# (db_bench never frees its block cache), and ZoneStack's own leaks are
# checked by its instrumented test programs.
preload=
for runtime in libasan libubsan; do  # in this order: ASan's runtime first
  path=$(ldd "$lib" | awk -v r="$runtime" '$1 ~ "^" r "\\." {print $3}')
  [ -n "$path" ] && preload="$preload$path:"
done
preload=$preload$lib
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# run NAME CMD...: runs CMD with the plugin preloaded, output to
# $dir/NAME.out and .err; fails the test on a non-zero exit status.
run() {
  local name=$1
  shift
  local rc=0
  LD_PRELOAD=$preload "$@" > "$dir/$name.out" 2> "$dir/$name.err" || rc=$?
  if [ $rc -ne 0 ]; then
    tail -n 20 "$dir/$name.err" >&2
    # An unregistered zonestack:// URI gives RocksDB's tools a null file
    # system, and they die of SIGSEGV (139) without a word.
    [ $rc -eq 139 ] && echo "(exit 139: did $lib load and register zonestack://?)" >&2
    fail "$name: '$*' exited with status $rc"
  fi
}
# expect NAME PATTERN: NAME's stdout and stderr hold PATTERN (grep -E).
expect() {
  grep -Eq -- "$2" "$dir/$1.out" "$dir/$1.err" || fail "$1: no line matching '$2'"
}

# ---- a ZNS volume with the default scheme -----------------------------
cat > "$dir/zns.json" <<JSON
{"devices": ["emu:zn540?zones=24&scale=1/256&timing=none&file=$dir/zns.zsemu"]}
JSON
# The config-file URI: no '=' or ';', so tools that parse a URI as an
# option string (every --env_uri) take it whole.
uri=zonestack://$dir/zns.json
# Small memtables and SSTs, so 10,000 puts make flushes and compactions.
small="--write_buffer_size=262144 --target_file_size_base=262144 --max_bytes_for_level_base=1048576"

run fill db_bench --fs_uri="$uri" --db=/db --benchmarks=fillrandom,readrandom \
  --num=10000 --value_size=100 $small
expect fill '^fillrandom +:'
found=$(sed -nE 's/.*\(([0-9]+) of 10000 found\).*/\1/p' "$dir/fill.out")
[ -n "$found" ] && [ "$found" -gt 0 ] || fail "readrandom found no key: $(cat "$dir/fill.out")"

# The DB is on the volume, SSTs included.
"$zsctl" ls --volume "$dir/zns.json" /db > "$dir/ls.out" || fail "zsctl ls: $(cat "$dir/ls.out")"
mapfile -t ssts < <(awk '$2 ~ /\.sst$/ {print $2}' "$dir/ls.out")
[ ${#ssts[@]} -ge 2 ] || fail "expected SSTs in /db on the volume, got: $(cat "$dir/ls.out")"

# ldb: scan, dump and get agree, through --fs_uri and through --env_uri.
run scan ldb --fs_uri="$uri" --db=/db --hex scan
keys=$(wc -l < "$dir/scan.out")
# fillrandom draws 10,000 keys uniformly from 10,000: about 6,321 distinct
# (1 - 1/e), give or take 30.
[ "$keys" -gt 6000 ] && [ "$keys" -le 10000 ] || fail "ldb scan: $keys keys, not ~6,321"
run count ldb --env_uri="$uri" --db=/db dump --count_only
expect count "^Keys in range: $keys\$"
run dump ldb --fs_uri="$uri" --db=/db --hex dump
[ "$(grep -c ' ==> ' "$dir/dump.out")" -eq "$keys" ] || fail "ldb dump: not $keys pairs"
first_key=$(head -n 1 "$dir/scan.out" | awk '{print $1}')
first_value=$(head -n 1 "$dir/scan.out" | awk '{print $3}')
run get ldb --fs_uri="$uri" --db=/db --hex get "$first_key"
[ "$(cat "$dir/get.out")" = "$first_value" ] || fail "ldb get $first_key: $(cat "$dir/get.out")"
rc=0
LD_PRELOAD=$preload ldb --fs_uri="$uri" --db=/db --hex get 0x00 > "$dir/miss.out" 2>&1 || rc=$?
[ $rc -ne 0 ] && grep -q NotFound "$dir/miss.out" || fail "ldb get of a missing key: rc $rc"

# sst_dump: every SST verifies, and together they hold at least every key.
entries=0
for sst in "${ssts[@]}"; do
  name=sst_$(basename "$sst" .sst)
  run "$name" sst_dump --env_uri="$uri" --file="$sst" --command=verify
  expect "$name" '^The file is ok$'
  run "$name.props" sst_dump --fs_uri="$uri" --file="$sst" --show_properties
  n=$(sed -nE 's/^ *# entries: ([0-9]+)$/\1/p' "$dir/$name.props.out")
  [ -n "$n" ] || fail "sst_dump --show_properties $sst: no entry count"
  entries=$((entries + n))
done
[ "$entries" -ge "$keys" ] || fail "the SSTs hold $entries entries, fewer than $keys keys"
echo "zns volume: db_bench found $found of 10000; ldb saw $keys keys; ${#ssts[@]} SSTs verified"

# ---- a hybrid HHZS volume: RocksDB's hints, or a warning ----------------
cat > "$dir/hhzs.json" <<JSON
{"devices": ["emu:zn540?zones=32&scale=1/256&timing=none&file=$dir/ssd.zsemu",
             "emu:st14000nm0007?zones=128&scale=1/256&timing=none&file=$dir/hdd.zsemu"],
 "scheme": "hhzs"}
JSON
huri=zonestack://$dir/hhzs.json
# An OPTIONS file replaces db_bench's option flags, so it carries the small
# memtables too.
cat > "$dir/hints.ini" <<INI
[Version]
  rocksdb_version=7.8.3
  options_file_version=1.1
[DBOptions]
  listeners={ZoneStackHintListener}
[CFOptions "default"]
  write_buffer_size=262144
  target_file_size_base=262144
  max_bytes_for_level_base=1048576
INI
warning='runs without the RocksDB hints it needs'
# sst_levels: the LSM level zfs recorded for each SST (-1: no hint came).
sst_levels() {
  "$zsctl" dump --volume "$dir/hhzs.json" | sed -nE 's/.* kind=sst level=(-?[0-9]+) .*/\1/p'
}

# Without hints: one warning, and no SST has a level.
run bare db_bench --fs_uri="$huri" --db=/db --benchmarks=fillrandom --num=10000 \
  --value_size=100 $small
[ "$(grep -c "$warning" "$dir/bare.err")" -eq 1 ] || fail "db_bench without hints: not one warning"
expect bare "scheme 'hhzs'"
levels=$(sst_levels)
[ -n "$levels" ] && ! grep -qv '^-1$' <<< "$levels" ||
  fail "SSTs written without hints have levels: $levels"

# With the OPTIONS file (read through the volume's file system, so it is put
# there) and the SSD cache: no warning, and every SST has its level.
rm -f "$dir"/ssd.zsemu "$dir"/hdd.zsemu
"$zsctl" mkfs --volume "$dir/hhzs.json" > /dev/null
"$zsctl" put --volume "$dir/hhzs.json" "$dir/hints.ini" /hints.ini > /dev/null
run hinted db_bench --fs_uri="$huri" --db=/db --benchmarks=fillrandom,readrandom --num=10000 \
  --value_size=100 --options_file=/hints.ini --secondary_cache_uri=ZoneStackSsdCache
! grep -q "$warning" "$dir/hinted.err" || fail "db_bench with hints warned: $(cat "$dir/hinted.err")"
levels=$(sst_levels)
[ -n "$levels" ] && ! grep -q '^-1$' <<< "$levels" || fail "SSTs without a level: $levels"
grep -qv '^0$' <<< "$levels" || fail "no compaction output reached level 1 or lower: $levels"
echo "hhzs volume: warned without hints; with them, SST levels $(sort -u <<< "$levels" | tr '\n' ' ')"

# The listener refuses a volume without a hinted scheme: loading the
# OPTIONS file fails, db_bench stops.
"$zsctl" put --volume "$dir/zns.json" "$dir/hints.ini" /hints.ini > /dev/null
rc=0
LD_PRELOAD=$preload db_bench --fs_uri="$uri" --db=/db2 --benchmarks=fillrandom --num=10 \
  --options_file=/hints.ini > "$dir/refused.out" 2>&1 || rc=$?
[ $rc -ne 0 ] && grep -q "no mounted ZoneStack volume has a hinted scheme" "$dir/refused.out" ||
  fail "hint listener on a lifetime volume: rc $rc, $(tail -n 3 "$dir/refused.out")"
echo PASS
