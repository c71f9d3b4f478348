#!/usr/bin/env bash
# One paper's experiment through the runner (experiments/README.md):
#   experiments/run.sh hhzs exp1 [--repeats 3] ...
#   experiments/run.sh hhzs report
# Builds zsbench (RelWithDebInfo, build/) first, except for `report` and
# `list`, which only read the committed summaries.
set -euo pipefail
cd "$(dirname "$0")/.."
# Debian's python3-matplotlib lives in the system interpreter, which may not
# be the first python3 on PATH (pyenv); figures are skipped without it.
py=/usr/bin/python3; [ -x "$py" ] || py=python3
case "${2:-}" in
  report|list|-h|--help|"") ;;
  *)
    bash scripts/deps.sh
    cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
    ninja -C build zsbench zsctl zsreplay >/dev/null
    if ! "$py" -c "import matplotlib" 2>/dev/null; then
      sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
      echo "installing python3-matplotlib (for figures)"
      { $sudo apt-get update -qq &&
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq python3-matplotlib; } \
        > /dev/null 2>&1 || echo "python3-matplotlib not installed: figures are skipped" >&2
    fi
    ;;
esac
PYTHONPATH=experiments${PYTHONPATH:+:$PYTHONPATH} exec "$py" -m runner "$@"
