#!/usr/bin/env bash
# Prints the directory holding Debian's source of the installed librocksdb
# (the same version as the library, with Debian's patches), fetching and
# unpacking it on first use. db_stress is built from it (tests/stress/).
#
# The source is fetched through apt with a private configuration (a
# deb-src line for this Debian release, its own package lists), so the
# machine's apt sources need no deb-src entry and are left as they are.
# Cached in ${ZS_CACHE_DIR:-${XDG_CACHE_HOME:-~/.cache}/zonestack}; needs
# apt-get and dpkg-source (dpkg-dev, scripts/deps.sh installs it).
set -euo pipefail

version=$(dpkg-query -W -f='${Version}' librocksdb-dev 2>/dev/null) || {
  echo "rocksdb_source.sh: librocksdb-dev is not installed (scripts/deps.sh)" >&2
  exit 1
}
cache=${ZS_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/zonestack}
dest="$cache/rocksdb-$version"
if [ -f "$dest/.complete" ]; then
  echo "$dest"
  exit 0
fi

mkdir -p "$cache"
work=$(mktemp -d "$cache/.fetch.XXXXXX")
trap 'rm -rf "$work"' EXIT
. /etc/os-release
codename=${VERSION_CODENAME:?no VERSION_CODENAME in /etc/os-release}
mirror=${ZS_DEBIAN_MIRROR:-http://deb.debian.org/debian}
mkdir -p "$work/lists/partial" "$work/cache/archives/partial"
echo "deb-src $mirror $codename main" > "$work/sources.list"
apt_opts=(-o "Dir::Etc::sourcelist=$work/sources.list" -o "Dir::Etc::sourceparts=-"
          -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache"
          -o "APT::Sandbox::User=$(id -un)" -qq)
echo "fetching Debian's source of rocksdb $version into $dest" >&2
# apt checks the files against the signed Sources index, so dpkg-source
# need not check the .dsc signature (which needs debian-keyring).
log="$work/fetch.log"
if ! { apt-get "${apt_opts[@]}" update &&
       (cd "$work" && apt-get "${apt_opts[@]}" source --download-only "rocksdb=$version") &&
       dpkg-source --no-check -x "$work"/rocksdb_*.dsc "$work/src"; } > "$log" 2>&1; then
  cat "$log" >&2
  echo "rocksdb_source.sh: fetching rocksdb $version's source failed" >&2
  exit 1
fi
rm -rf "$dest"
mv "$work/src" "$dest"
touch "$dest/.complete"
echo "$dest"
