#!/usr/bin/env bash
# Installs the Debian packages ZoneStack builds with, when any is missing.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  libabsl-dev libfmt-dev libcli11-dev nlohmann-json3-dev
  libgtest-dev libgmock-dev libxxhash-dev zlib1g-dev librocksdb-dev libzbd-dev
  libisal-dev  # zfs's data CRCs
  rocksdb-tools
  python3
  dpkg-dev libgflags-dev  # db_stress from Debian's source (tests/stress/)
  nbdkit nbdkit-plugin-dev  # the block tier's NBD export (src/tools/zstier_nbd/)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

# One line for the user; apt's own output goes to a log, shown if it fails.
echo "installing ${#missing[@]} Debian packages: ${missing[*]}"
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp -t zonestack-apt.XXXXXX)
if ! { $sudo apt-get update -qq &&
       $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"; } > "$log" 2>&1; then
  tail -n 30 "$log" >&2
  echo "deps.sh: installing packages failed (apt's log: $log)" >&2
  exit 1
fi
rm -f "$log"
