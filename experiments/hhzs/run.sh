#!/usr/bin/env bash
# One HHZS paper experiment (or all): builds zsbench if needed, runs it
# through run.py, writes experiments/hhzs/results/EXP/{table.md,*.json,*.png}.
#   experiments/hhzs/run.sh exp1 [--scale 2048] [--ops 8000] ...
set -euo pipefail
cd "$(dirname "$0")/../.."
bash scripts/deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
ninja -C build zsbench >/dev/null
# Debian's python3-matplotlib lives in the system interpreter, which may not
# be the first python3 on PATH (pyenv).
py=/usr/bin/python3; [ -x "$py" ] || py=python3
if ! "$py" -c "import matplotlib" 2>/dev/null; then
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq python3-matplotlib
fi
exec "$py" experiments/hhzs/run.py "$@"
