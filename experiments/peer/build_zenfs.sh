#!/usr/bin/env bash
# Builds ZenFS, the peer ZoneStack is compared with, from a checkout of its
# public source (github.com/westerndigitalcorporation/zenfs; the peer
# benchmark uses tag v2.1.2) against the installed librocksdb (Debian's
# 7.8.3), the way ZoneStack's plugin is built:
#   OUT/libzenfs.so  registers zenfs:// when loaded (LD_PRELOAD into
#                    Debian's unmodified db_bench, or linked)
#   OUT/zenfs        ZenFS's own tool (mkfs, list, ...)
# ZenFS includes internal RocksDB headers (util/coding.h, util/crc32c.h):
# they come from Debian's source of the installed library
# (scripts/rocksdb_source.sh), compiled with the definitions of Debian's
# build, as tests/stress does for db_stress.
#
# Usage: experiments/peer/build_zenfs.sh ZENFS_CHECKOUT [OUT]   (OUT: build/zenfs)
# Needs: libzbd-dev, libgflags-dev, librocksdb-dev, git (for ZenFS's version).
set -euo pipefail
cd "$(dirname "$0")/../.."
src=$(realpath "${1:?usage: build_zenfs.sh ZENFS_CHECKOUT [OUT]}")
out=$(realpath -m "${2:-build/zenfs}")
[ -f "$src/fs/fs_zenfs.cc" ] || { echo "build_zenfs.sh: no ZenFS source at $src" >&2; exit 1; }
for pkg in libzbd-dev libgflags-dev librocksdb-dev; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed" || {
    echo "build_zenfs.sh: $pkg is not installed (apt-get install $pkg)" >&2
    exit 1
  }
done
rocksdb=$(scripts/rocksdb_source.sh)
# ZenFS's tool includes its headers as <rocksdb/plugin/zenfs/fs/...>, as if
# built inside RocksDB's tree, and fs/version.h, which ZenFS's build makes
# from `git describe`: both are made in OUT, the checkout stays as it is.
inc=$out/include/rocksdb/plugin/zenfs/fs
rm -rf "$out/include" && mkdir -p "$inc"
ln -s "$src"/fs/*.h "$inc/"
version=$(git -C "$src" describe --abbrev=7 --dirty 2>/dev/null || echo unknown)
printf '#pragma once\n#define ZENFS_VERSION "%s"\n' "$version" > "$inc/version.h"

# Debian's definitions for Linux (struct layouts of internal headers); no
# NDEBUG, since the library is built without it.
defs=(-DOS_LINUX -DROCKSDB_PLATFORM_POSIX -DROCKSDB_LIB_IO_POSIX -DROCKSDB_FALLOCATE_PRESENT
      -DROCKSDB_RANGESYNC_PRESENT -DROCKSDB_PTHREAD_ADAPTIVE_MUTEX -DROCKSDB_MALLOC_USABLE_SIZE
      -DROCKSDB_SCHED_GETCPU_PRESENT -DROCKSDB_AUXV_GETAUXVAL_PRESENT)
flags=(-std=c++17 -O2 -g1 -fPIC -w "${defs[@]}" -I"$inc" -I"$out/include/rocksdb/plugin/zenfs"
       -I"$out/include" -I"$rocksdb" -I"$rocksdb/include")
cxx=${CXX:-g++}
echo "building ZenFS $version into $out" >&2
"$cxx" "${flags[@]}" -shared -o "$out/libzenfs.so" \
  "$src/fs/fs_zenfs.cc" "$src/fs/zbd_zenfs.cc" "$src/fs/io_zenfs.cc" \
  -Wl,-u,zenfs_filesystem_reg -lrocksdb -lzbd
"$cxx" "${flags[@]}" -o "$out/zenfs" "$src/util/zenfs.cc" \
  -L"$out" -Wl,-rpath,"$out" -lzenfs -lrocksdb -lgflags -lzbd
echo "$out/libzenfs.so"
echo "$out/zenfs"
