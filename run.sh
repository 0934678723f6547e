#!/usr/bin/env bash
# ./run.sh — installs what is missing, builds (Release), starts a memcached on a free
# loopback port and hitcost-server, runs the default comparison (the seed 001 table:
# serialized structure vs pre-rendered HTML, each with and without zlib, on memcached,
# at 99 % hits), prints the table and stops everything it started, also on Ctrl-C.
#
# Longer or different runs: arguments go to `hitcost-load sweep`, e.g.
#   ./run.sh --duration 30s --repeat 5
#   ./run.sh --strategies html,struct:msgpack,struct:msgpack+zlib --rows 500
# Placement: on 2+ CPUs the server runs on CPU 0, memcached and the load on CPU 1
# (set HITCOST_SERVER_CPU / HITCOST_OTHER_CPU to change it).
set -euo pipefail
cd "$(dirname "$0")"

HITCOST_DEPS=build ./scripts/install-deps.sh   # run.sh needs no test tools (PHP, chromium)
echo "== building (Release) into build/release" >&2
./scripts/build.sh build/release Release -DHITCOST_BUILD_TESTS=OFF -DHITCOST_BUILD_BENCH=OFF >&2

out=${HITCOST_OUT:-out}
mkdir -p "$out"
ncpu=$(nproc)
server_cpu=${HITCOST_SERVER_CPU:-0}
other_cpu=${HITCOST_OTHER_CPU:-$(( ncpu > 1 ? 1 : 0 ))}

pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
}
trap cleanup EXIT
trap 'echo "interrupted" >&2; exit 130' INT TERM

# memcached on a free loopback port (retry if another process wins the port).
user_args=()
[ "$(id -u)" -eq 0 ] && user_args=(-u root)
for attempt in 1 2 3 4 5; do
  mc_port=$(./scripts/free-port.sh)
  taskset -c "$other_cpu" memcached -l 127.0.0.1 -p "$mc_port" -U 0 -m 1024 -t 1 "${user_args[@]}" &
  mc_pid=$!
  for _ in $(seq 1 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$mc_port") 2>/dev/null && break
    sleep 0.05
  done
  if kill -0 "$mc_pid" 2>/dev/null && (exec 3<>"/dev/tcp/127.0.0.1/$mc_port") 2>/dev/null; then
    pids+=("$mc_pid"); break
  fi
  kill "$mc_pid" 2>/dev/null || true
  [ "$attempt" -eq 5 ] && { echo "could not start memcached" >&2; exit 1; }
done
echo "== memcached on 127.0.0.1:$mc_port (pid $mc_pid, CPU $other_cpu)" >&2

# hitcost-server on a free port: it prints "listening on 127.0.0.1:PORT".
server_log="$out/server.log"
build/release/server/hitcost-server --port 0 --threads 1 --cpus "$server_cpu" \
  --store "memcached:127.0.0.1:$mc_port" --strategy html >"$server_log" 2>&1 &
server_pid=$!
pids+=("$server_pid")
for _ in $(seq 1 200); do
  grep -q '^listening on ' "$server_log" 2>/dev/null && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$server_log" >&2; exit 1; }
  sleep 0.05
done
url="http://$(sed -n 's/^listening on //p' "$server_log" | head -1)"
echo "== hitcost-server at $url (pid $server_pid, CPU $server_cpu)" >&2

build/release/client/hitcost-load sweep --url "$url" --cpus "$other_cpu" \
  --json "$out/sweep.json" --csv "$out/sweep.csv" --html "$out/sweep.html" "$@"
echo "== results: $out/sweep.html (report with charts), $out/sweep.json, $out/sweep.csv" >&2
echo "   longer run: ./run.sh --duration 30s --repeat 5   (all options: build/release/client/hitcost-load sweep --help)" >&2
