#!/usr/bin/env bash
# What other work on the machine does to each figure: the same sweep with a burner — a process
# that spins a fraction (its duty) of every 10 ms and sleeps the rest — on the server's CPU, on
# the other CPU (memcached and the load), and with none, in interleaved rounds (every condition
# once per round, in a shuffled order, so drift hits all alike). report/noise.h reads its
# coefficients from this measurement; docs/method.md's "Noise" section has the table it printed.
#
#   bench/noise.sh [--rounds 5] [--duration 3s] [--strategies html,struct:json]
#                  [--duties 0.25,0.5,0.9] [--out out/noise]
#
# Placement: hitcost-server on CPU 0 (HITCOST_SERVER_CPU), memcached and the load on CPU 1
# (HITCOST_OTHER_CPU), as ./run.sh places them. Every sweep runs each strategy once (closed loop:
# server CPU per hit, req/s) and once in an open loop at one rate for all conditions (half the
# slowest capacity measured first without a burner: p99 latency).
# Prints, per strategy and condition, the median over rounds of: server CPU per hit, req/s,
# latency p99, and the other work measured on the server's CPUs and on its peers' (cores; what
# figures/cpu_accounting.h judges), with the per-round ratio to "none" (median [min..max]) and
# that ratio's change per core of other work (the coefficient).
# Needs jq and perl. Exit codes: 0 done, 1 failed, 2 usage error, 130 interrupted.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
lib_init noise
rounds=5 duration=3s strategies=html,struct:json duties=0.25,0.5,0.9 out=out/noise
value_options "rounds duration strategies duties out" "$@"
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "noise: --rounds wants a positive number" >&2; exit "$EXIT_USAGE"; }
for d in ${duties//,/ }; do
  [[ $d =~ ^0?\.[0-9]+$|^1$ ]] || { echo "noise: --duties are fractions in (0, 1]: $d" >&2; exit "$EXIT_USAGE"; }
done
server_cpu=${HITCOST_SERVER_CPU:-0}
other_cpu=${HITCOST_OTHER_CPU:-1}
check_cpus HITCOST_SERVER_CPU "$server_cpu" || exit
check_cpus HITCOST_OTHER_CPU "$other_cpu" || exit
command -v jq >/dev/null && command -v perl >/dev/null || { echo "noise: needs jq and perl" >&2; exit "$EXIT_FAILED"; }
ensure_built build/release Release build || exit
load=$BUILD_DIR/client/hitcost-load
mkdir -p "$out" && rm -f "$out"/*.json || { echo "noise: cannot write to $out" >&2; exit "$EXIT_OUTPUT"; }

start_memcached "$other_cpu" 1024 || exit
start_server "$BUILD_DIR" "$server_cpu" "$out/server.log" --store "memcached:127.0.0.1:$MC_PORT" || exit
echo "== memcached (CPU $other_cpu) and hitcost-server (CPU $server_cpu) at $SERVER_URL" >&2

# Conditions: "none", "server@D" (a burner on the server's CPU at duty D), "other@D".
conditions=(none)
for d in ${duties//,/ }; do conditions+=("server@$d"); done
conditions+=("other@0.5")

common=(--url "$SERVER_URL" --strategies "$strategies" --duration "$duration" --repeat 1 --cpus "$other_cpu"
        --retry-contaminated 0 -q)
sweep() {  # sweep JSON [extra options]
  local json=$1 code=0
  shift
  run_bg "$load" sweep "${common[@]}" --json "$json" "$@" >"$json.log" 2>&1 || code=$?
  check_child "$code" "the sweep for $json" "$json.log"
}

# One rate for every condition's latency runs: half the slowest capacity, without a burner.
sweep "$out/calibrate.json" --latency-rate 0 || exit
rate=$(jq '[.runs[] | select(.role == "capacity") | .throughput_rps] | min / 2 | floor' "$out/calibrate.json")
echo "== latency runs at $rate req/s" >&2

burn() {  # burn CPU DUTY: spins DUTY of every 10 ms on CPU
  start_bg taskset -c "$1" perl -MTime::HiRes=time,sleep -e \
    '$d = shift; $p = 0.01; while (1) { $t = time; 1 while time - $t < $d * $p; sleep((1 - $d) * $p) if $d < 1 }' "$2"
  BURNER=$BG_PID
}
for r in $(seq 1 "$rounds"); do
  for c in $(printf '%s\n' "${conditions[@]}" | shuf --random-source=<(yes "$r")); do
    echo "== round $r/$rounds: $c" >&2
    BURNER=""
    case $c in
      server@*) burn "$server_cpu" "${c#server@}" ;;
      other@*) burn "$other_cpu" "${c#other@}" ;;
    esac
    sweep "$out/$c-$r.json" --latency-rate "$rate" || exit
    [ -z "$BURNER" ] || stop_pid "$BURNER"
  done
done

# The table: each condition's medians, and its per-round ratio to "none".
for s in ${strategies//,/ }; do
  printf '\n%s\n%-12s %-26s %-24s %-24s %-14s %-14s\n' "$s" condition "CPU/hit us (ratio)" "req/s (ratio)" \
    "p99 us (ratio)" "other@server" "other@peers"
  for c in "${conditions[@]}"; do
    files=()
    for r in $(seq 1 "$rounds"); do files+=("$out/$c-$r.json" "$out/none-$r.json"); done
    jq -rs --arg s "$s" --arg c "$c" '
      def med: sort | if length == 0 then null elif length % 2 == 1 then .[length/2|floor]
               else (.[length/2 - 1] + .[length/2]) / 2 end;
      def f(x): if x == null then "-" else (x * 100 | round / 100 | tostring) end;
      def cap($d): $d.runs[] | select(.strategy == $s and .role == "capacity");
      def lat($d): $d.runs[] | select(.strategy == $s and .role == "latency");
      [range(0; length; 2) as $i | {
         hit: cap(.[$i]).server_cpu_us_per_hit, hit0: cap(.[$i+1]).server_cpu_us_per_hit,
         rps: cap(.[$i]).throughput_rps, rps0: cap(.[$i+1]).throughput_rps,
         p99: lat(.[$i]).latency_us.p99, p990: lat(.[$i+1]).latency_us.p99,
         os: cap(.[$i]).cpu.contamination.other_server_cores, op: cap(.[$i]).cpu.contamination.other_peer_cores }]
      | . as $rs
      | def col(a; b): ([$rs[] | .[a]] | med) as $m | ([$rs[] | select(.[a] != null and .[b] != null) | .[a] / .[b]]) as $q
          | "\(f($m)) (\(f($q | med)) [\(f($q | min))..\(f($q | max))])";
      "\($c | .[0:12] + " " * (12 - length)) \(col("hit"; "hit0") | .[0:26] + " " * ([0, 26 - length] | max)) \(col("rps"; "rps0") | .[0:24] + " " * ([0, 24 - length] | max)) \(col("p99"; "p990") | .[0:24] + " " * ([0, 24 - length] | max)) \(f([$rs[].os] | med) | .[0:14] + " " * ([0, 14 - length] | max)) \(f([$rs[].op] | med))"
    ' "${files[@]}"
  done
done
echo
echo "figures: median over $rounds rounds; (ratio) = median [min..max] of the per-round ratio to none;" \
  "other@server/peers: other work measured on the server's CPU / its peers' (cores, kernel work excluded)"
exit "$LIB_EXIT"
