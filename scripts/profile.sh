#!/usr/bin/env bash
# scripts/profile.sh — where hitcost-server spends its CPU for one strategy, at a high hit ratio.
#
#   scripts/profile.sh --strategy S [--store memcached|memory|SPEC] [--tool callgrind|perf]
#                      [--duration 10s] [--rate 20] [--requests N] [--connections 2]
#                      [--rows 50] [--keys 200] [--hit-ratio 0.99] [--flags F] [--out out/profile]
#
# callgrind (valgrind): exact, repeatable instruction counts (Ir) per function — works on
#   VMs without hardware counters. The server runs ~50x slower under it, so the load is an
#   open loop at a low --rate (default 20 req/s: struct:json+zlib costs ~15 ms a request under valgrind) and only the measured window is collected:
#   the server starts with instrumentation off, the store is warmed, then `callgrind_control
#   -i on` ... load ... `-i off`. Output: OUT/callgrind.out, OUT/top-inclusive.txt and
#   OUT/top-self.txt (callgrind_annotate, top 25 functions by inclusive and by self Ir).
#   Browse further with `callgrind_annotate OUT/callgrind.out` or kcachegrind.
# perf: sampling of real time on CPU (`perf record -e cpu-clock -g`, a software event, so it
#   works without hardware counters too; the server runs at full speed, load at --rate, or
#   closed loop with --rate 0). Output: OUT/perf.data, OUT/top-inclusive.txt (children) and
#   OUT/top-self.txt. Browse further with `perf report -i OUT/perf.data`.
#
# --store memcached (default) starts a private memcached on a free loopback port; any other
# store spec (memory, memory:objects, mmap:/tmp/f, memcached:H:P,...) is passed to the server.
# The server is built with debug info (RelWithDebInfo) into build/profile; HITCOST_BUILD_DIR
# picks another tree (e.g. build/test) and HITCOST_NO_BUILD=1 skips the build.
# Everything it starts is stopped on exit, also on Ctrl-C.
set -euo pipefail
cd "$(dirname "$0")/.."

strategy=""; store=memcached; tool=callgrind; duration=10s; rate=20; requests=0; conns=2
rows=50; keys=200; hit_ratio=0.99; flags=""; out=out/profile
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
  case $1 in
    --strategy) strategy=$2; shift 2 ;;
    --store) store=$2; shift 2 ;;
    --tool) tool=$2; shift 2 ;;
    --duration) duration=$2; shift 2 ;;
    --rate) rate=$2; shift 2 ;;
    --requests) requests=$2; shift 2 ;;
    --connections) conns=$2; shift 2 ;;
    --rows) rows=$2; shift 2 ;;
    --keys) keys=$2; shift 2 ;;
    --hit-ratio) hit_ratio=$2; shift 2 ;;
    --flags) flags=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "profile: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
[ -n "$strategy" ] || { echo "profile: --strategy is required, e.g. --strategy struct:json+zlib" >&2; exit 2; }
case $tool in
  callgrind) need=(valgrind callgrind_annotate callgrind_control) ;;
  perf) need=(perf) ;;
  *) echo "profile: --tool is callgrind or perf" >&2; exit 2 ;;
esac
for t in "${need[@]}" curl jq memcached; do
  command -v "$t" >/dev/null || { echo "profile: needs $t (Debian: valgrind, linux-perf, curl, jq, memcached)" >&2; exit 1; }
done

build=${HITCOST_BUILD_DIR:-build/profile}
if [ -z "${HITCOST_NO_BUILD:-}" ]; then
  ./scripts/install-deps.sh
  echo "== building (RelWithDebInfo) into $build" >&2
  ./scripts/build.sh "$build" RelWithDebInfo -DHITCOST_BUILD_TESTS=OFF -DHITCOST_BUILD_BENCH=OFF >&2
fi
server_bin=$build/server/hitcost-server
load_bin=$build/client/hitcost-load
for b in "$server_bin" "$load_bin"; do [ -x "$b" ] || { echo "profile: $b is missing" >&2; exit 1; }; done

mkdir -p "$out"
rm -f "$out/callgrind.out" "$out/perf.data" "$out/top-inclusive.txt" "$out/top-self.txt"
pids=()
cleanup() {
  local p
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for _ in $(seq 1 100); do  # valgrind writes its profile at exit: give it up to 10 s
    local alive=0
    for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
    [ "$alive" = 0 ] && break
    sleep 0.1
  done
  for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
}
trap cleanup EXIT
trap 'echo "profile: interrupted" >&2; exit 130' INT TERM
tcp_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# 1. The store: a private memcached unless a full spec was given.
if [ "$store" = memcached ]; then
  user_args=()
  [ "$(id -u)" -eq 0 ] && user_args=(-u root)
  for attempt in 1 2 3 4 5; do
    mc_port=$(./scripts/free-port.sh)
    memcached -l 127.0.0.1 -p "$mc_port" -U 0 -m 256 -t 1 "${user_args[@]}" >"$out/memcached.log" 2>&1 &
    mc_pid=$!
    for _ in $(seq 1 100); do tcp_open "$mc_port" && break; kill -0 "$mc_pid" 2>/dev/null || break; sleep 0.05; done
    if kill -0 "$mc_pid" 2>/dev/null && tcp_open "$mc_port"; then pids+=("$mc_pid"); break; fi
    kill "$mc_pid" 2>/dev/null || true; wait "$mc_pid" 2>/dev/null || true
    [ "$attempt" -eq 5 ] && { echo "profile: could not start memcached" >&2; exit 1; }
  done
  store="memcached:127.0.0.1:$mc_port"
fi

# 2. The server, one io thread; under callgrind with instrumentation off until the window.
server_args=(--port 0 --threads 1 --store "$store" --strategy "$strategy")
[ -n "$flags" ] && server_args+=(--flags "$flags")
if [ "$tool" = callgrind ]; then
  valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$out/callgrind.out" \
    "$server_bin" "${server_args[@]}" >"$out/server.log" 2>"$out/valgrind.log" &
else
  "$server_bin" "${server_args[@]}" >"$out/server.log" 2>&1 &
fi
server_pid=$!
pids+=("$server_pid")
for _ in $(seq 1 600); do  # up to 60 s: valgrind starts slowly
  grep -q '^listening on ' "$out/server.log" 2>/dev/null && break
  kill -0 "$server_pid" 2>/dev/null || { echo "profile: server exited" >&2; cat "$out/server.log" "$out/valgrind.log" >&2 2>/dev/null; exit 1; }
  sleep 0.1
done
url="http://$(sed -n 's/^listening on //p' "$out/server.log" | head -1)"
[ "$url" != "http://" ] || { echo "profile: hitcost-server did not start within 60 s" >&2; exit 1; }
echo "== hitcost-server ($tool) at $url, store $store, strategy $strategy" >&2

# 3. Configure and warm (not profiled): every timed request for ids < keys is a hit.
ns="prof-$(tr -c 'a-z0-9\n' '-' <<<"$strategy" | tr -s '-')-r$rows"
curl -fsS --max-time 60 -X POST --data "$(jq -cn --arg s "$strategy" --arg ns "$ns" --argjson r "$rows" \
  '{strategy:$s, namespace:$ns, rows:$r}')" "$url/admin/config" >/dev/null
echo "== warmed: $(curl -fsS --max-time 600 -X POST "$url/admin/warm?from=0&to=$keys&rows=$rows")" >&2

# 4. The measured window, collected.
load_args=(--url "$url" --keys "$keys" --rows "$rows" --hit-ratio "$hit_ratio" -c "$conns" -t 1
           --rate "$rate" -d "$duration" --warmup 0 --timeout 10s --no-progress --json "$out/load.json")
[ "$requests" != 0 ] && load_args+=(--requests "$requests")
if [ "$tool" = callgrind ]; then
  callgrind_control -i on "$server_pid" >/dev/null
  "$load_bin" "${load_args[@]}" | tee "$out/load.txt"
  callgrind_control -i off "$server_pid" >/dev/null
  kill -TERM "$server_pid"
  for _ in $(seq 1 300); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done  # profile written at exit
  wait "$server_pid" 2>/dev/null || true
  [ -s "$out/callgrind.out" ] || { echo "profile: no callgrind output" >&2; cat "$out/valgrind.log" >&2; exit 1; }
  # Top 25 function lines of each listing (the header and totals come first).
  # Template and parameter lists collapsed (Asio's names run to thousands of characters),
  # source paths dropped, lines cut at 200 characters.
  top() {
    awk '/^ *[0-9,]+ +\([0-9. %]+\) +/ && !/PROGRAM TOTALS/ && n < 25 {print; n++}' |
      sed -e 's/ \[[^]]*\]$//' -e ':a' -e 's/<[^<>]*>/{}/' -e 'ta' -e 's/{}/<>/g' \
          -e ':b' -e 's/\([^ ]\)([^()]*)/\1[]/' -e 'tb' -e 's/\[\]/()/g' -e 's|) *[^ ]*/[^/: ]*:|)  |' | cut -c1-200
  }
  { echo "top 25 by inclusive Ir (the function and everything it calls)"
    callgrind_annotate --inclusive=yes "$out/callgrind.out" 2>/dev/null | top; } >"$out/top-inclusive.txt"
  { echo "top 25 by self Ir (instructions in the function's own code)"
    callgrind_annotate "$out/callgrind.out" 2>/dev/null | top; } >"$out/top-self.txt"
  total=$(callgrind_annotate "$out/callgrind.out" 2>/dev/null | awk '/PROGRAM TOTALS/ && !t {gsub(",", "", $1); t = $1} END {print t}')
  reqs=$(jq '.requests' "$out/load.json")  # (the load's warm-up is 0: every collected request is counted)
  echo
  awk -v t="$total" -v r="$reqs" 'BEGIN { if (r > 0) printf "instructions per request (whole server process, all threads, incl. 2 GET /stats): %.0f  (%s Ir / %s requests)\n", t / r, t, r }'
else
  perf record -e cpu-clock -F 999 -g -p "$server_pid" -o "$out/perf.data" >"$out/perf-record.log" 2>&1 &
  perf_pid=$!
  pids+=("$perf_pid")
  sleep 0.5
  "$load_bin" "${load_args[@]}" | tee "$out/load.txt"
  kill -INT "$perf_pid"; wait "$perf_pid" 2>/dev/null || true
  top() { grep -v '^#' | grep '%' | awk 'n < 25 {print; n++}' | cut -c1-200; }
  { echo "top 25 by children (inclusive) samples"
    perf report -i "$out/perf.data" --stdio --children --percent-limit 0.5 -g none 2>/dev/null | top; } >"$out/top-inclusive.txt"
  { echo "top 25 by self samples"
    perf report -i "$out/perf.data" --stdio --no-children -g none 2>/dev/null | top; } >"$out/top-self.txt"
fi
echo
cat "$out/top-inclusive.txt"
echo
cat "$out/top-self.txt"
echo
echo "files: $out/ (top-inclusive.txt, top-self.txt, load.json, $( [ "$tool" = callgrind ] && echo callgrind.out || echo perf.data))"
