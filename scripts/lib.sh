# scripts/lib.sh — sourced by run.sh, scripts/attribution.sh and scripts/topology.sh: start a
# private memcached and hitcost-server on free loopback ports, pinned, and stop everything
# started on exit (TERM, then KILL after 5 s). Needs `cd` to the repository first.
#
#   start_memcached CPU [MEMORY_MB] [LOG]   sets MC_PORT, MC_PID (CPU "" = not pinned)
#   start_server BUILD_DIR CPU LOG ARGS...   sets SERVER_URL, SERVER_PID
#   stop_started                      (also the EXIT trap)

STARTED_PIDS=()

stop_started() {
  local p
  for p in "${STARTED_PIDS[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for _ in $(seq 1 50); do
    local alive=0
    for p in "${STARTED_PIDS[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
    [ "$alive" = 0 ] && break
    sleep 0.1
  done
  for p in "${STARTED_PIDS[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
  for p in "${STARTED_PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  STARTED_PIDS=()
}

tcp_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# memcached on a free loopback port (retries if another process wins the port).
start_memcached() {
  local cpu=$1 memory=${2:-1024} log=${3:-} user_args=() pin=() attempt
  [ "$(id -u)" -eq 0 ] && user_args=(-u root)
  [ -n "$cpu" ] && pin=(taskset -c "$cpu")
  for attempt in 1 2 3 4 5; do
    MC_PORT=$(./scripts/free-port.sh)
    if [ -n "$log" ]; then
      "${pin[@]}" memcached -l 127.0.0.1 -p "$MC_PORT" -U 0 -m "$memory" -t 1 "${user_args[@]}" >>"$log" 2>&1 &
    else
      "${pin[@]}" memcached -l 127.0.0.1 -p "$MC_PORT" -U 0 -m "$memory" -t 1 "${user_args[@]}" &
    fi
    MC_PID=$!
    for _ in $(seq 1 100); do
      tcp_open "$MC_PORT" && break
      kill -0 "$MC_PID" 2>/dev/null || break
      sleep 0.05
    done
    if kill -0 "$MC_PID" 2>/dev/null && tcp_open "$MC_PORT"; then
      STARTED_PIDS+=("$MC_PID")
      return 0
    fi
    kill "$MC_PID" 2>/dev/null || true
    wait "$MC_PID" 2>/dev/null || true
  done
  echo "could not start memcached" >&2
  return 1
}

# hitcost-server on a free port, one io thread pinned to CPU; it prints "listening on IP:PORT".
start_server() {
  local build=$1 cpu=$2 log=$3
  shift 3
  "$build/server/hitcost-server" --port 0 --threads 1 --cpus "$cpu" "$@" >"$log" 2>&1 &
  SERVER_PID=$!
  STARTED_PIDS+=("$SERVER_PID")
  for _ in $(seq 1 200); do
    grep -q '^listening on ' "$log" 2>/dev/null && break
    if ! kill -0 "$SERVER_PID" 2>/dev/null; then
      echo "hitcost-server exited:" >&2
      cat "$log" >&2
      return 1
    fi
    sleep 0.05
  done
  grep -q '^listening on ' "$log" || { echo "hitcost-server did not start within 10 s" >&2; return 1; }
  SERVER_URL="http://$(sed -n 's/^listening on //p' "$log" | head -1)"
}
