#!/usr/bin/env bash
# ./run.sh — installs what is missing, builds (Release), starts a memcached on a free
# loopback port and hitcost-server, runs the default comparison (the seed 001 table:
# serialized structure vs pre-rendered HTML, each with and without zlib, on memcached,
# at 99 % hits), prints the table and stops everything it started, also on Ctrl-C.
#
# What it prints: server CPU per hit and capacity from closed-loop runs in rounds (each
# strategy once per round, in a shuffled order) until every verdict against html is decided —
# "costs X× [interval]" or "the same within 5 %" — or the budget is spent (at most 8 rounds,
# 170 s: the whole run fits in 3 minutes), latency from one open-loop run per strategy at a
# common rate, and the verdicts with how many rounds each took (hitcost-load sweep).
#
# Longer or different runs: arguments go to `hitcost-load sweep`, e.g.
#   ./run.sh --duration 10s --max-rounds 20 --max-time 15m
#   ./run.sh --repeat 8                 (exactly 8 rounds, one look at the verdicts)
#   ./run.sh --strategies html,struct:msgpack,struct:msgpack+zlib --rows 500
# (all of them: build/release/client/hitcost-load sweep --help; ./run.sh --help prints this).
# Placement: on 2+ CPUs the server runs on CPU 0, memcached and the load on CPU 1
# (set HITCOST_SERVER_CPU / HITCOST_OTHER_CPU to change it; a CPU not online is a usage error).
# Environment: HITCOST_BUILD_DIR (default build/release), HITCOST_NO_BUILD=1 uses it as built
# (no install, no build).
# Exit codes: 0 done, 1 failed (could not install, build, start or measure), 2 usage error
# (also from hitcost-load sweep: a strategy the server refuses, checked before anything runs),
# 3 errors above --max-error-rate, 4 an output not written (all three from hitcost-load sweep,
# passed on), 130 interrupted (Ctrl-C, SIGTERM: the sweep stops first and puts the server's
# configuration back, then memcached and the server are stopped).
set -euo pipefail
cd "$(dirname "$0")"
source scripts/lib.sh
lib_init run

if [ "${1:-}" = -h ] || [ "${1:-}" = --help ]; then
  print_usage
  exit "$EXIT_OK"
fi
ncpu=$(nproc)
server_cpu=${HITCOST_SERVER_CPU:-0}
other_cpu=${HITCOST_OTHER_CPU:-$(( ncpu > 1 ? 1 : 0 ))}
check_cpus HITCOST_SERVER_CPU "$server_cpu" || exit
check_cpus HITCOST_OTHER_CPU "$other_cpu" || exit

ensure_built build/release Release build || exit  # run.sh needs no test tools (PHP, chromium)

out=${HITCOST_OUT:-out}
mkdir -p "$out" || { echo "run: cannot create $out" >&2; exit "$EXIT_OUTPUT"; }

start_memcached "$other_cpu" 1024 || exit
echo "== memcached on 127.0.0.1:$MC_PORT (pid $MC_PID, CPU $other_cpu)" >&2
start_server "$BUILD_DIR" "$server_cpu" "$out/server.log" --store "memcached:127.0.0.1:$MC_PORT" --strategy html ||
  exit
echo "== hitcost-server at $SERVER_URL (pid $SERVER_PID, CPU $server_cpu)" >&2

# In the background and waited for: a signal to this script acts at once, and the sweep is
# stopped (TERM: it writes what it finished) before the server it talks to.
# The default budget, unless the arguments set the rounds themselves.
budget=(--max-rounds 8 --max-time 170s)
for a in "$@"; do case $a in --repeat|--repeat=*|--max-rounds|--max-rounds=*|--max-time|--max-time=*) budget=() ;; esac; done
code=0
run_bg "$BUILD_DIR/client/hitcost-load" sweep --url "$SERVER_URL" --cpus "$other_cpu" \
  --json "$out/sweep.json" --csv "$out/sweep.csv" --html "$out/sweep.html" ${budget[@]+"${budget[@]}"} "$@" || code=$?
check_child "$code" "hitcost-load sweep"
echo "== results: $out/sweep.html (report with charts), $out/sweep.json, $out/sweep.csv" >&2
echo "   longer run: ./run.sh --duration 10s --max-rounds 20 --max-time 15m   (all options: $BUILD_DIR/client/hitcost-load sweep --help)" >&2
exit "$LIB_EXIT"
