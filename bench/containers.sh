#!/usr/bin/env bash
# What the containers add to the figures: the same sweep against the same stack (3 memcached
# nodes, hitcost-server with 2 io threads, one load process, nothing pinned), three ways, in
# interleaved rounds (each round runs the three in a shuffled order):
#   native  processes on this machine over loopback (build/release, scripts/lib.sh)
#   host    the compose stack with docker-compose.host.yml: containers on the host's network
#   bridge  the compose stack as it ships: the server reaches memcached over the bridge (veth);
#           the load shares the server's network namespace, so load→server is loopback in both
# Prints, per strategy, server CPU per hit, server CPU per request, req/s and closed-loop p50 as
# median [min..max] over the rounds, and bridge/host and host/native as the median [min..max]
# of the per-round ratios. A difference is called only when it exceeds 5 % and the rounds
# agree in sign beyond chance (a two-sided sign test, p < 0.05: all of 6 rounds, 9 of 10);
# otherwise "inconclusive" (or "not called" when the rounds agree on less than 5 %). Each p is
# that one comparison's: with 16 in the tables, about one call at p < 0.05 is expected by
# chance alone; read a figure's p, not only its word.
#   bench/containers.sh [--repeat 10] [--duration 3s] [--strategies html,struct:json+zlib] [--out out/containers]
# The engine, base image and image come from scripts/docker-engine.sh and `compose build`, as in
# scripts/test-containers.sh (an engine started here is stopped at the end). HITCOST_NO_BUILD=1
# skips the native build; HITCOST_BUILD_DIR picks its tree (default build/release).
# Exit codes: 0 done, 1 failed (an engine, build, stack or sweep), 2 usage error, 130 interrupted.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
source scripts/docker-engine.sh
lib_init containers
repeat=10; duration=3s; strategies=html,struct:json+zlib; out=out/containers
value_options "repeat duration strategies out" "$@"
rounds=$repeat
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "containers: --repeat must be a positive integer" >&2; exit "$EXIT_USAGE"; }
HITCOST_DEPS="build test containers" ./scripts/install-deps.sh
ensure_built build/release Release "" || exit
compose_command || exit "$EXIT_FAILED"
compose=("${COMPOSE[@]}")
rm -rf "$out"; mkdir -p "$out"
out=$(cd "$out" && pwd)  # compose takes a relative HITCOST_OUT without ./ for a volume name
at_cleanup engine_stop
engine_start "$out/engine" || exit "$EXIT_FAILED"
ensure_base_image || exit "$EXIT_FAILED"
image=${HITCOST_IMAGE:-hitcost:latest}
echo "== building $image (compose build)" >&2
HITCOST_IMAGE=$image "${compose[@]}" -f docker-compose.yml build >"$out/build.log" 2>&1 ||
  { tail -30 "$out/build.log" >&2; exit "$EXIT_FAILED"; }

sweep_args=(--strategies "$strategies" --duration "$duration" --repeat 1 --latency-rate 0)
arm_native() {  # 3 memcached + the server + the sweep, as processes
  local dir=$1 nodes=() i
  for i in 1 2 3; do start_memcached "" 256 "$dir/memcached.log" || return; nodes+=("127.0.0.1:$MC_PORT"); done
  start_server "$BUILD_DIR" "" "$dir/server.log" --threads 2 \
    --store "memcached:$(IFS=,; echo "${nodes[*]}")" --flags php-memcached || return
  run_bg "$BUILD_DIR/client/hitcost-load" sweep --url "$SERVER_URL" --no-progress --json "$dir/sweep.json" \
    "${sweep_args[@]}" >"$dir/sweep.log" 2>&1
  local rc=$?
  stop_started
  return "$rc"
}
arm_compose() {  # arm_compose DIR FILES...: the stack, one sweep, down
  local dir=$1 project=hitcost-bench-$$ files=() f rc=0
  shift
  for f in "$@"; do files+=(-f "$f"); done
  local nodes=()
  for _ in 1 2 3; do nodes+=("127.0.0.1:$(scripts/free-port.sh)"); done
  run_bg env HITCOST_IMAGE="$image" HITCOST_OUT="$dir" HITCOST_USER="$(id -u):$(id -g)" \
    HITCOST_PORT="$(scripts/free-port.sh)" HITCOST_HOST_NODES="$(IFS=,; echo "${nodes[*]}")" \
    HITCOST_SWEEP_ARGS="${sweep_args[*]}" "${compose[@]}" -p "$project" "${files[@]}" --profile load up \
    --exit-code-from load >"$dir/up.log" 2>&1 || rc=$?
  "${compose[@]}" -p "$project" "${files[@]}" --profile load down --remove-orphans >>"$dir/up.log" 2>&1 || rc=1
  return "$rc"
}

for r in $(seq 1 "$rounds"); do
  for arm in $(printf '%s\n' native host bridge | shuf); do
    dir=$out/r$r-$arm; mkdir -p "$dir"
    echo "== round $r/$rounds: $arm" >&2
    case $arm in
      native) arm_native "$dir" ;;
      host) arm_compose "$dir" docker-compose.yml docker-compose.host.yml ;;
      bridge) arm_compose "$dir" docker-compose.yml ;;
    esac || { echo "containers: round $r, $arm failed (logs in $dir)" >&2; exit "$EXIT_FAILED"; }
  done
done

# One row per (round, arm, strategy), then the medians and the paired ratios.
for r in $(seq 1 "$rounds"); do for arm in native host bridge; do
  jq -c --argjson r "$r" --arg arm "$arm" '.runs[] | select(.mode == "closed-loop") |
    {r: $r, arm: $arm, s: .strategy, hit: .server_cpu_us_per_hit, req: .server_cpu_us_per_req,
     rps: .throughput_rps, p50: .latency_us.p50, errors: .errors.total}' "$out/r$r-$arm/sweep.json"
done; done >"$out/rows.jsonl"
summary() {
  local s
  echo "errors in all runs: $(jq -s 'map(.errors) | add' "$out/rows.jsonl")"
  for s in $(jq -r '.s' "$out/rows.jsonl" | sort -u); do
    echo
    echo "strategy $s ($rounds rounds; median [min..max]; ratios per round, paired)"
    jq -rs --argjson n "$rounds" --arg s "$s" '
      def med: sort | if length % 2 == 1 then .[length / 2 | floor] else (.[length / 2 - 1] + .[length / 2]) / 2 end;
      def fmt(d): (. * pow(10; d) | round / pow(10; d) | tostring);
      def spread(d): "\(med | fmt(d)) [\(min | fmt(d))..\(max | fmt(d))]";
      def ratio(a; b; k): [group_by(.r)[] | (map(select(.arm == a))[0][k]) / (map(select(.arm == b))[0][k])];
      # The sign test, two-sided: under "no difference" each round is above 1 with chance 1/2,
      # so p = P(at least max(k, n-k) of n on one side) * 2 (capped at 1).
      def choose(n; i): reduce range(0; i) as $j (1; . * (n - $j) / ($j + 1));
      def sign_p: length as $n | (map(select(. > 1)) | length) as $k | ([$k, $n - $k] | max) as $m |
                  ([range($m; $n + 1) | choose($n; .)] | add) * 2 / pow(2; $n) | if . > 1 then 1 else . end;
      # called when p < 0.05 and the median is beyond 5 %; otherwise inconclusive or not called
      def verdict: sign_p as $p | "p=\($p * 1000 | round / 1000)" as $pt |
                   if $p >= 0.05 then "inconclusive (\($pt))"
                   elif (med - 1 | fabs) < 0.05 then "< 5 %, not called (\($pt))"
                   elif med > 1 then "higher (\($pt))" else "lower (\($pt))" end;
      map(select(.s == $s)) as $g |
      (["metric", "native", "host", "bridge", "bridge/host", "verdict", "host/native", "verdict"] | @tsv),
      (["server us/hit:hit", "server us/req:req", "req/s:rps", "p50 us closed loop:p50"][] | split(":") as [$metric, $k] |
        [$metric,
         ($g | map(select(.arm == "native")[$k]) | spread(1)),
         ($g | map(select(.arm == "host")[$k]) | spread(1)),
         ($g | map(select(.arm == "bridge")[$k]) | spread(1)),
         ($g | ratio("bridge"; "host"; $k) | spread(3)), ($g | ratio("bridge"; "host"; $k) | verdict),
         ($g | ratio("host"; "native"; $k) | spread(3)), ($g | ratio("host"; "native"; $k) | verdict)] | @tsv)
    ' "$out/rows.jsonl" | column -t -s $'\t'
  done
}
summary | tee "$out/summary.txt"
echo "files: $out/summary.txt, $out/rows.jsonl, each run in $out/rR-ARM/" >&2
