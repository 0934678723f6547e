#!/usr/bin/env bash
# ./test.sh — installs what is missing, builds, runs every test; non-zero on any failure.
#   build/test : RelWithDebInfo, the whole suite (unit + integration against real
#                memcached, PHP and hitcost-server processes)
# Extra ctest arguments pass through, e.g. ./test.sh -R Routes
set -euo pipefail
cd "$(dirname "$0")"

./scripts/install-deps.sh
echo "== building build/test" >&2
./scripts/build.sh build/test RelWithDebInfo -DHITCOST_BUILD_BENCH=ON
echo "== running the suite" >&2
ctest --test-dir build/test --output-on-failure --timeout 600 -j2 "$@"
