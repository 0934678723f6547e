#!/usr/bin/env bash
# Configures and builds one tree. Usage: scripts/build.sh BUILD_DIR BUILD_TYPE [cmake args...]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ccache.sh
dir=$1; type=$2; shift 2
mkdir -p "$dir"
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE="$type" ${hitcost_launcher[@]+"${hitcost_launcher[@]}"} "$@" >"$dir.configure.log" 2>&1 || {
  cat "$dir.configure.log" >&2; exit 1; }
cmake --build "$dir" -j"$(nproc)"
