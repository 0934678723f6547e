#!/usr/bin/env bash
# ./test.sh — installs what is missing, builds, runs every test; non-zero on any failure.
#   build/test : RelWithDebInfo, the whole suite (unit + integration against real
#                memcached, PHP and hitcost-server processes; faults; a soak of
#                HITCOST_SOAK_SECONDS, default 120)
#   then scripts/test-sanitizers.sh (ASan+UBSan suite, TSan concurrency tests) and
#   scripts/test-fuzz.sh (each fuzz target for HITCOST_FUZZ_SECONDS, default 50), and
#   scripts/test-containers.sh (the image built on a Docker engine, started here when none
#   answers; the compose stack's sweep on the bridge and host networks and scaled).
# Every stage runs even when an earlier one failed; the last lines sum them up and name the
# tests that failed in each build tree with their first assertion lines (a CI log is often
# read from its end, and only its end may be kept).
# HITCOST_NO_SKIP=1 (as .ci/run sets it): a skipped test fails (tests/support/no_skip.h).
# Extra ctest arguments pass through to the main suite, e.g. ./test.sh -R Routes
# HITCOST_TEST_STAGES="main sanitizers fuzz containers" picks stages (default: all four).
# Exit codes: 0 every stage passed, 1 a stage failed, 2 usage error (an unknown stage).
# ./test.sh --help prints this and does nothing else.
set -uo pipefail
cd "$(dirname "$0")"
if [ "${1:-}" = -h ] || [ "${1:-}" = --help ]; then
  sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'
  exit 0
fi
start=$(date +%s)

HITCOST_DEPS=${HITCOST_DEPS:-"build test fuzz containers"} ./scripts/install-deps.sh || exit 1

results=()
failed=0
stage() {  # stage NAME COMMAND...
  local name=$1 t0=$SECONDS
  shift
  if "$@"; then results+=("$name ok ($((SECONDS - t0))s)")
  else results+=("$name FAILED ($((SECONDS - t0))s)"); failed=1; fi
}
main_suite() {
  echo "== building build/test" >&2
  ./scripts/build.sh build/test RelWithDebInfo -DHITCOST_BUILD_BENCH=ON || return 1
  echo "== running the suite" >&2
  # --no-tests=error: a filter passed through ("$@") that selects nothing fails the stage.
  ctest --test-dir build/test --output-on-failure --no-tests=error --timeout 600 -j2 "$@"
}

for s in ${HITCOST_TEST_STAGES:-main sanitizers fuzz containers}; do
  case $s in
    main) stage main main_suite "$@" ;;
    sanitizers) stage sanitizers ./scripts/test-sanitizers.sh ;;
    fuzz) stage fuzz ./scripts/test-fuzz.sh ;;
    containers) stage containers ./scripts/test-containers.sh ;;
    *) echo "test.sh: unknown stage '$s'" >&2; exit 2 ;;
  esac
done
# ctest's list of the tests that failed in its last run of each tree, if that run was this one's.
for tree in build/test build/asan build/tsan; do
  list=$tree/Testing/Temporary/LastTestsFailed.log
  if [ -s "$list" ] && [ "$(stat -c %Y "$list")" -ge "$start" ]; then
    echo "test.sh: failed in $tree: $(cut -d: -f2- "$list" | tr '\n' ' ')"
    # gtest's "file:line: Failure" and the lines that say what differed, at most 40.
    grep -A4 -E ': Failure$' "$tree/Testing/Temporary/LastTest.log" 2>/dev/null | head -40 | sed 's/^/  | /'
  fi
done
echo "test.sh: $([ $failed -eq 0 ] && echo PASS || echo FAIL) in $(($(date +%s) - start))s: ${results[*]}"
n_ok=0; n_bad=0
for r in "${results[@]}"; do case $r in *FAILED*) n_bad=$((n_bad + 1)) ;; *) n_ok=$((n_ok + 1)) ;; esac; done
echo "stages: $n_ok passed, $n_bad failed"
exit $failed
