#!/usr/bin/env bash
# `cmake --install` of this build into a fresh prefix, then a user's
# program (consumer/) built against it twice: with find_package(ZoneStack)
# and with pkg-config. Each must build and open DBs on a volume.
#
# Usage: install_test.sh BUILD_DIR SANITIZE(ON|OFF)
set -euo pipefail

build=$1
sanitize=$2
here=$(cd "$(dirname "$0")" && pwd)
fail() { echo "FAIL: $*" >&2; exit 1; }

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
prefix=$dir/prefix
cmake --install "$build" --prefix "$prefix" > "$dir/install.log" || fail "cmake --install: $(cat "$dir/install.log")"

# A sanitized library needs the program to carry the sanitizer runtimes.
flags=""
[ "$sanitize" = ON ] && flags="-fsanitize=address,undefined"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
uri="zonestack://emu:zn540?zones=16&scale=1/256&timing=none"

cmake -S "$here/consumer" -B "$dir/cmake" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_CXX_FLAGS="$flags" > "$dir/configure.log" 2>&1 ||
  fail "find_package(ZoneStack): $(tail -n 20 "$dir/configure.log")"
cmake --build "$dir/cmake" > "$dir/build.log" 2>&1 || fail "build: $(tail -n 20 "$dir/build.log")"
libdir=$(dirname "$(find "$prefix" -name 'libzonestack.so' | head -n 1)")
[ "$libdir" != . ] || fail "no libzonestack.so installed"
# The prefix is not one the loader searches.
out=$(LD_LIBRARY_PATH="$libdir" "$dir/cmake/consumer" "$uri") || fail "cmake consumer: $out"
[ "$out" = ok ] || fail "cmake consumer printed: $out"

pc_dir=$(dirname "$(find "$prefix" -name zonestack.pc | head -n 1)")
[ "$pc_dir" != . ] || fail "no zonestack.pc installed"
pc_flags=$(PKG_CONFIG_PATH="$pc_dir" pkg-config --cflags --libs zonestack) ||
  fail "pkg-config zonestack"
# shellcheck disable=SC2086  # pkg-config's flags are words
c++ -std=c++17 $flags "$here/consumer/main.cc" $pc_flags -o "$dir/pc-consumer" ||
  fail "building with pkg-config's flags: $pc_flags"
out=$(LD_LIBRARY_PATH="$libdir" "$dir/pc-consumer" "$uri") || fail "pkg-config consumer: $out"
[ "$out" = ok ] || fail "pkg-config consumer printed: $out"
echo "PASS: find_package(ZoneStack) and pkg-config zonestack ($pc_flags)"
