#!/usr/bin/env bash
# scripts/topology.sh — several memcached nodes and several load clients, no containers.
#
# Starts N memcached processes on free loopback ports, one hitcost-server pointed at all of
# them (libmemcached consistent hashing), and for each strategy (× --repeat) runs K
# hitcost-load processes at the same time against that server. Their JSONs are merged with
# `hitcost-load merge` (histograms bucket by bucket, so merged percentiles are those of all
# samples together) into one report; the script prints it, with how the keys spread over
# the nodes, and stops everything it started — also on Ctrl-C and when --time-limit runs out.
#
#   scripts/topology.sh [--nodes 3] [--clients 2] [--strategies html,html+zlib,struct:json,struct:json+zlib]
#                       [--duration 5s] [--warmup 1s] [--repeat 1] [--rows 50] [--hit-ratio 0.99]
#                       [--keys 1000] [--connections 8] [--server-threads 2] [--out out/topology]
#                       [--time-limit 900]
#   scripts/topology.sh --server URL --memcached HOST:PORT,... [--clients 2] ...
#                       against a server and nodes started elsewhere (the compose stack's
#                       load service, HITCOST_LOAD_CLIENTS): nothing is built, started or
#                       stopped but the clients; hitcost-load is $HITCOST_LOAD_BIN if set
#
# Why the script, not each client, switches strategies: `hitcost-load sweep` configures the
# server itself (POST /admin/config, /admin/warm); K sweeps at once would switch it under
# each other. Here the script configures and warms once per step, then the K clients load
# it with plain runs (no warming), all started together and all finished before the next
# step. Each client's runs become one sweep JSON, and the K sweep JSONs are merged.
#
# Outputs in --out: merged.json, merged.html, merged.csv, client-I.json (client I's runs as a
# sweep JSON), runs/ (every single run JSON and log), nodes.txt, server.log.
# Environment: HITCOST_BUILD_DIR (default build/release), HITCOST_NO_BUILD=1 skips the
# dependency check and the build (the binaries must exist).
# Exit codes: 0 done, 1 failed (could not start or run), 2 usage error (also a strategy or value
# the server rejects, a port outside 1..65535), 3 a client had errors above --max-error-rate (the report is still made),
# 4 an output not written, 130 interrupted (Ctrl-C, SIGTERM) or --time-limit reached (the steps
# that finished are merged and reported first; the one in progress is left out).
# Every CPU figure of the report says whether it is raw or net of the idle baseline, and under
# which attribution (the runs' cpu.attribution).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
lib_init topology

nodes=3; clients=2; strategies="html,html+zlib,struct:json,struct:json+zlib"
duration=5s; warmup=1s; repeat=1; rows=50; hit_ratio=0.99; keys=1000; connections=8
server_threads=2; out=out/topology; time_limit=900
server_url=""; node_list=""
while [ $# -gt 0 ]; do
  case $1 in
    --nodes) nodes=$2; shift 2 ;;
    --clients) clients=$2; shift 2 ;;
    --strategies) strategies=$2; shift 2 ;;
    --duration) duration=$2; shift 2 ;;
    --warmup) warmup=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --rows) rows=$2; shift 2 ;;
    --hit-ratio) hit_ratio=$2; shift 2 ;;
    --keys) keys=$2; shift 2 ;;
    --connections) connections=$2; shift 2 ;;
    --server-threads) server_threads=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --time-limit) time_limit=$2; shift 2 ;;
    --server) server_url=$2; shift 2 ;;
    --memcached) node_list=$2; shift 2 ;;
    -h|--help) print_usage; exit "$EXIT_OK" ;;
    *) echo "topology: unknown option $1 (see --help)" >&2; exit "$EXIT_USAGE" ;;
  esac
done
for v in nodes clients repeat rows keys connections server_threads time_limit; do
  [[ ${!v} =~ ^[1-9][0-9]*$ ]] || { echo "topology: --${v//_/-} must be a positive integer" >&2; exit "$EXIT_USAGE"; }
done
IFS=, read -r -a strategy_list <<<"$strategies"
[ ${#strategy_list[@]} -gt 0 ] || { echo "topology: --strategies is empty" >&2; exit "$EXIT_USAGE"; }
steps=$(( ${#strategy_list[@]} * repeat ))
# Each client gets its own range of never-seen ids per step (forced misses must stay misses
# for every client); all ranges stay below hitcost-server's default --max-id (1e12).
[ $(( clients * steps )) -lt 900 ] || { echo "topology: too many clients x steps (max 899)" >&2; exit "$EXIT_USAGE"; }

if [ -n "$server_url" ]; then
  [ -n "$node_list" ] || { echo "topology: --server needs --memcached HOST:PORT,... (its nodes)" >&2; exit "$EXIT_USAGE"; }
  check_base_url --server "$server_url" || exit
  check_address --memcached "$node_list" || exit
  load_bin=${HITCOST_LOAD_BIN:-}
  if [ -z "$load_bin" ]; then ensure_built build/release Release "build test" || exit; load_bin=$BUILD_DIR/client/hitcost-load; fi
  tools=(curl jq)
else
  [ -z "$node_list" ] || { echo "topology: --memcached goes with --server (otherwise it starts its own nodes)" >&2; exit "$EXIT_USAGE"; }
  ensure_built build/release Release "build test" || exit
  load_bin=$BUILD_DIR/client/hitcost-load
  tools=(memcached curl jq)
fi
for tool in "${tools[@]}"; do
  command -v "$tool" >/dev/null || { echo "topology: needs $tool (apt-get install $tool)" >&2; exit "$EXIT_FAILED"; }
done
if ! "$load_bin" merge --help >/dev/null 2>&1; then
  echo "topology: $load_bin has no 'merge' subcommand; rebuild it" >&2; exit "$EXIT_FAILED"
fi

if ! rm -rf "$out" || ! mkdir -p "$out/runs"; then
  echo "topology: cannot create --out $out" >&2; exit "$EXIT_OUTPUT"
fi

# Everything started from here on is stopped on every exit path, the clients first (TERM,
# then KILL after 5 s; scripts/lib.sh), and the whole run is bounded by --time-limit.
start_time_limit "$time_limit"

# align: tab-separated lines -> columns two spaces apart, indented (awk: no util-linux needed)
align() {
  awk -F'\t' '{ for (i = 1; i <= NF; i++) { c[NR, i] = $i; if (length($i) > w[i]) w[i] = length($i) }
                 if (NF > nf) nf = NF; n = NR }
       END { for (r = 1; r <= n; r++) { line = " "
               for (i = 1; i <= nf; i++) line = line sprintf(" %-" w[i] "s", c[r, i]); sub(/ +$/, "", line); print line } }'
}

if [ -n "$server_url" ]; then
  # 1-2. A server and nodes started elsewhere: only checked.
  IFS=, read -r -a mc_nodes <<<"$node_list"
  nodes=${#mc_nodes[@]}
  url=$server_url
  http_get "$url/healthz" 5 || exit "$EXIT_FAILED"
  echo "== hitcost-server at $url (started elsewhere), memcached nodes ${mc_nodes[*]}" >&2
else
  # 1. N memcached nodes on free loopback ports, not pinned (scripts/lib.sh retries when
  # another process wins the port).
  mc_nodes=()
  for i in $(seq 1 "$nodes"); do
    start_memcached "" 256 "$out/memcached-$i.log" || { echo "topology: could not start memcached $i" >&2; exit "$EXIT_FAILED"; }
    mc_nodes+=("127.0.0.1:$MC_PORT")
    echo "== memcached $i on 127.0.0.1:$MC_PORT (pid $MC_PID)" >&2
  done
  store="memcached:$(IFS=,; echo "${mc_nodes[*]}")"

  # 2. hitcost-server on a free port, pointed at every node, not pinned.
  start_server "$BUILD_DIR" "" "$out/server.log" --threads "$server_threads" --store "$store" --strategy html ||
    exit "$EXIT_FAILED"
  url=$SERVER_URL server_pid=$SERVER_PID
  http_get "$url/healthz" 5 || exit "$EXIT_FAILED"
  echo "== hitcost-server at $url (pid $server_pid, $server_threads threads), store $store" >&2
fi
echo "== $clients clients x $connections connections, ${duration} per run after ${warmup} warm-up, $steps steps" >&2

# 4-5. The report of the first DONE steps (all of them, or those an interruption left
# finished): one sweep JSON per client, the merge, how the keys spread over the nodes, the
# tables. Returns the merge's exit code instead of exiting: on an interruption it runs inside
# the cleanup, which must go on to stop the nodes and the server.
make_report() {
  local done=$1 c i code=0 runs inputs=() interrupted=""
  interrupted=$(lib_caught) || interrupted=""
  for c in $(seq 1 "$clients"); do
    runs=()
    for i in $(seq 0 $((done - 1))); do runs+=("$out/runs/c$c-step$i.labelled.json"); done
    jq -s '{runs: .}' "${runs[@]}" >"$out/client-$c.json"
    inputs+=("$out/client-$c.json")
  done
  run_bg "$load_bin" merge "${inputs[@]}" --json "$out/merged.json" --html "$out/merged.html" --csv "$out/merged.csv" \
    --title "hitcost: $nodes memcached nodes, $clients clients${interrupted:+ (interrupted after $done of $steps steps)}" \
    2>"$out/merge.log" || code=$?
  if [ "$code" != 0 ]; then
    echo "topology: hitcost-load merge exited $code ($(exit_meaning "$(child_exit "$code")")):" >&2
    tail -20 "$out/merge.log" >&2
    return "$(child_exit "$code")"
  fi

  # How the keys spread over the nodes (libmemcached ketama), then the report.
  memcached_nodes_table "${mc_nodes[@]}" >"$out/nodes.txt"

  echo
  if [ -n "$interrupted" ]; then
    local why="SIG$interrupted"
    [ "$interrupted" = USR1 ] && why="--time-limit ${time_limit}s reached"
    echo "hitcost topology: INTERRUPTED ($why) after $done of $steps steps: the report covers the $done that"
    echo "finished; the step in progress is left out"
  fi
  echo "hitcost topology: $nodes memcached nodes, 1 hitcost-server ($([ -n "$server_url" ] && echo "at $url" || echo "$server_threads threads")), $clients clients x $connections connections"
  echo
  echo "memcached nodes (keys spread by libmemcached's consistent hashing):"
  cat "$out/nodes.txt"
  echo
  echo "per client and step (requests, errors, req/s):"
  for c in $(seq 1 "$clients"); do
    jq -r --arg c "client $c" '.runs[] | "  \($c)  \(.strategy) (repeat \(.repeat + 1))  requests \(.requests)  errors \(.errors.total)  \(.throughput_rps | floor) req/s"' \
      "$out/client-$c.json"
  done
  echo
  echo "merged ($clients clients, closed loop; percentiles from the merged histograms, queueing included;"
  echo "server CPU from one client's /stats delta: per hit as the server sampled it, per request by getrusage):"
  # Every CPU figure says what it is, from the run's own fields: raw (as measured over the
  # window, idle included, billed as the kernel bills) or net (the --idle baseline subtracted,
  # split by the run's cpu.attribution: sender-pays or receiver-pays).
  jq -r '
    def f(x; d): if x == null then "-" else (x * pow(10; d) | round / pow(10; d) | tostring) end;
    (["strategy", "repeat", "requests", "errors", "req/s", "hit%", "closed-loop p50us", "p99us", "p99.9us", "max_us",
      "srv_us/hit net", "srv_us/req raw", "srv_us/req net", "mc_us/req raw", "attribution"] | @tsv),
    (.runs[] | [.strategy, .repeat + 1, .requests, .errors.total, f(.throughput_rps; 0), f(.hit_ratio * 100; 2),
                f(.latency_us.p50; 1), f(.latency_us.p99; 1), f(.latency_us.p999; 1), f(.latency_us.max; 1),
                f(.server_cpu_us_per_hit; 2), f(.cpu.per_request_us.raw.server // .server_cpu_us_per_req; 2),
                f(.cpu.per_request_us.attributed.server; 2), f(.cpu.per_request_us.raw.cache // .cache_cpu_us_per_req; 2),
                (.cpu.attribution // "-")] | @tsv)' "$out/merged.json" |
    align
  echo "  raw: as measured over the window (idle included); net: the idle baseline (--idle) subtracted, under"
  echo "  the attribution shown (sender-pays: loopback receive work billed to the sender, as the kernel bills it)"
  echo
  echo "summary (median [min..max] over repeats; CPU net of idle, $(jq -r '[.runs[].cpu.attribution // empty] | unique | if length == 0 then "attribution unknown" else join(", ") end' "$out/merged.json")):"
  jq -r '
    def r(x; d): if x == null then "-" else "\(x.median * pow(10; d) | round / pow(10; d)) [\(x.min * pow(10; d) | round / pow(10; d))..\(x.max * pow(10; d) | round / pow(10; d))]" end;
    (["strategy", "runs kept", "errors", "req/s", "server us/hit net", "server us/req net", "cache us/req net"] | @tsv),
    (.summary[] | [.strategy, "\(.used)/\(.runs)", .errors, r(.throughput_rps; 0), r(.server_cpu_us_per_hit; 2),
                   r(.server_cpu_us_per_req; 2), r(.cache_cpu_us_per_req; 2)] | @tsv)' "$out/merged.json" |
    align
  jq -r '.verdicts[]? | "  " + .text' "$out/merged.json"
  [ -s "$out/merge.log" ] && sed 's/^/  /' "$out/merge.log"
  echo
  echo "files: $out/merged.json $out/merged.html $out/merged.csv (clients: $out/client-*.json, runs: $out/runs/)"
}

# Interrupted (Ctrl-C, SIGTERM, --time-limit) once some steps finished: their report, made
# while the nodes and the server are still up (cleanup hooks run before they are stopped); the
# clients of the step in progress are stopped first, and that step is left out. Exit 130 stays.
report_finished_steps() {
  lib_caught >/dev/null || return 0
  stop_clients
  [ "$steps_done" -gt 0 ] || return 0
  make_report "$steps_done" || true
}
steps_done=0
at_cleanup report_finished_steps

# 3. Each step: configure + warm once, then K clients at once, then wait for all of them.
token() { tr -c 'a-z0-9\n' '-' <<<"$1" | tr -s '-'; }
step=0
for rep in $(seq 0 $((repeat - 1))); do
  for s in "${strategy_list[@]}"; do
    ns="topo-$(token "$s")-r$rows"
    body=$(jq -cn --arg s "$s" --arg ns "$ns" --argjson rows "$rows" '{strategy:$s, namespace:$ns, rows:$rows}')
    # A 400 names the value the server rejects (a strategy typo): a usage error, exit 2.
    http_post "$url/admin/config" "$body" 10 || { code=$?; echo "topology: the configuration was $body" >&2; exit "$code"; }
    cp "$HTTP_BODY_FILE" "$out/runs/config-$step.json"
    # A warm can lose sets (store timeouts on a busy machine): warm again, up to 3 times, so
    # the hit ratio is the one asked for; warn if some ids are still missing.
    for attempt in 1 2 3; do
      http_post "$url/admin/warm?from=0&to=$keys&rows=$rows" "" 600 || exit
      warm=$HTTP_BODY
      [ "$(jq '.errors' <<<"$warm")" = 0 ] && break
      [ "$attempt" = 3 ] && echo "topology: warning: warming $s still had errors: $warm (hit ratio will be lower)" >&2
    done
    echo "== step $((step + 1))/$steps: $s (repeat $((rep + 1))/$repeat), warmed: $warm" >&2
    client_pids=()
    for c in $(seq 1 "$clients"); do
      miss_start=$(( (1 + (c - 1) + clients * step) * 1000000000 ))
      name="c$c-step$step"
      start_bg "$load_bin" --url "$url" --keys "$keys" --rows "$rows" --hit-ratio "$hit_ratio" \
        --miss-start "$miss_start" --seed "$((c * 1000 + step))" -c "$connections" -t 1 \
        -d "$duration" --warmup "$warmup" --no-progress --json "$out/runs/$name.json" \
        >"$out/runs/$name.log" 2>&1
      client_pids+=("$BG_PID")
    done
    # A client with errors above --max-error-rate (3) still wrote its JSON: the report is made
    # and the script ends with 3. Any other failure ends it with that client's code.
    for c in $(seq 1 "$clients"); do
      code=0
      wait_bg "${client_pids[$((c - 1))]}" || code=$?
      check_child "$code" "client $c in step $((step + 1))" "$out/runs/c$c-step$step.log"
    done
    # Label each run as a sweep run: (strategy, store, repeat) is what merge groups on.
    for c in $(seq 1 "$clients"); do
      jq --arg s "$s" --argjson rep "$rep" '.strategy = $s | .sweep_store = "" | .repeat = $rep' \
        "$out/runs/c$c-step$step.json" >"$out/runs/c$c-step$step.labelled.json"
    done
    step=$((step + 1)) steps_done=$((steps_done + 1))
  done
done

make_report "$steps" || exit
exit "$LIB_EXIT"
