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
#   scripts/topology.sh --server URL --memcached HOST:PORT,... --clients K --index I --out SHARED
#                       [--wait-ready 120]
#                       one of K clients, each its own process (a Kubernetes Indexed Job's pod,
#                       another machine): this one runs client I+1 only (I is 0..K-1, as a Job's
#                       completion index, so a manifest passes that index as it is). The K meet in the folder
#                       --out, which they all see (a shared volume) and which holds this run
#                       only: each says it is ready for a step there; client 1 configures and
#                       warms the server once per step when all K are ready, then names a start
#                       time 2.5 s ahead; all K start their load then (hitcost-load --start-at,
#                       after client 1's floor and each one's idle baseline), and client 1 (index 0) merges the K
#                       clients' runs at the end. A client that fails marks it there and the
#                       others stop (exit 1); one not ready within --wait-ready seconds ends the
#                       run too (exit 1).
#   scripts/topology.sh --netns [--rtt 200us] [--loss 0] [--rate 0] [--nodes 3] [--clients 2] ...
#                       hosts that are not loopback, on this machine (scripts/netns.sh): each
#                       memcached node, the server and each client in a network namespace of its
#                       own, all linked through a private switch with that round trip between any
#                       two, loss per link (0.1%) and rate per link (1gbit); root only. Each step
#                       runs twice, in the namespaces and then on loopback (nodes and a server of
#                       their own: the same strategy, seeds, durations and CPUs), and the report
#                       sets the two side by side per strategy (server CPU per hit, p50, p99)
#   scripts/topology.sh ... --check-args
#                       checks the line (and hitcost-load's, with its own parser) and exits 0
#                       printing "topology: arguments ok": nothing is started, written or asked
#
# Why the script, not each client, switches strategies: `hitcost-load sweep` configures the
# server itself (POST /admin/config, /admin/warm); K sweeps at once would switch it under
# each other. Here the script configures and warms once per step, then the K clients load
# it with plain runs (no warming), all started together and all finished before the next
# step. Each client's runs become one sweep JSON, and the K sweep JSONs are merged.
#
# Outputs in --out: merged.json, merged.html, merged.csv, client-I.json (client I's runs as a
# sweep JSON), runs/ (every single run JSON and log), nodes.txt, server.log; with --netns also
# loopback/merged.json (the loopback side; its runs are runs/lo-*), compare.txt (the two side by
# side), server-netns.log and netns/ (rtt.txt: the round trip measured server → mc1; placement.txt:
# the CPUs each process was allowed; the switch's log and counters).
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
source scripts/netns.sh
lib_init topology

nodes=3; clients=2; strategies="html,html+zlib,struct:json,struct:json+zlib"
duration=5s; warmup=1s; repeat=1; rows=50; hit_ratio=0.99; keys=1000; connections=8
server_threads=2; out=out/topology; time_limit=900
server_url=""; node_list=""; index=""; me=""; wait_ready=120; check_args=""
netns=""; rtt=0; loss=0; rate=0
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
    --index) index=$2; shift 2 ;;
    --wait-ready) wait_ready=$2; shift 2 ;;
    --check-args) check_args=1; shift ;;
    --netns) netns=1; shift ;;
    --rtt) rtt=$2; shift 2 ;;
    --loss) loss=$2; shift 2 ;;
    --rate) rate=$2; shift 2 ;;
    -h|--help) print_usage; exit "$EXIT_OK" ;;
    *) echo "topology: unknown option $1 (see --help)" >&2; exit "$EXIT_USAGE" ;;
  esac
done
for v in nodes clients repeat rows keys connections server_threads time_limit wait_ready; do
  [[ ${!v} =~ ^[1-9][0-9]*$ ]] || { echo "topology: --${v//_/-} must be a positive integer" >&2; exit "$EXIT_USAGE"; }
done
IFS=, read -r -a strategy_list <<<"$strategies"
[ ${#strategy_list[@]} -gt 0 ] || { echo "topology: --strategies is empty" >&2; exit "$EXIT_USAGE"; }
steps=$(( ${#strategy_list[@]} * repeat ))
# Each client gets its own range of never-seen ids per step (forced misses must stay misses
# for every client); all ranges stay below hitcost-server's default --max-id (1e12).
[ $(( clients * steps )) -lt 900 ] || { echo "topology: too many clients x steps (max 899)" >&2; exit "$EXIT_USAGE"; }
if [ -n "$netns" ]; then
  [ -z "$server_url" ] || { echo "topology: --netns starts its own nodes and server (not with --server)" >&2; exit "$EXIT_USAGE"; }
  netns_parse_shape "$rtt" "$loss" "$rate" || exit
elif [ "$rtt$loss$rate" != 000 ]; then
  echo "topology: --rtt, --loss and --rate shape the links of --netns" >&2; exit "$EXIT_USAGE"
fi

if [ -n "$server_url" ]; then
  [ -n "$node_list" ] || { echo "topology: --server needs --memcached HOST:PORT,... (its nodes)" >&2; exit "$EXIT_USAGE"; }
  check_base_url --server "$server_url" || exit
  check_address --memcached "$node_list" || exit
  if [ -n "$index" ]; then
    [[ $index =~ ^(0|[1-9][0-9]*)$ ]] && [ "$index" -lt "$clients" ] ||
      { echo "topology: --index must be 0..$((clients - 1)) (--clients $clients), got '$index'" >&2; exit "$EXIT_USAGE"; }
    me=$((index + 1))  # the client this process runs: c1..cK in the files, as without --index
  fi
  load_bin=${HITCOST_LOAD_BIN:-}
  if [ -z "$load_bin" ]; then ensure_built build/release Release "build test" || exit; load_bin=$BUILD_DIR/client/hitcost-load; fi
  tools=(curl jq)
else
  [ -z "$node_list" ] || { echo "topology: --memcached goes with --server (otherwise it starts its own nodes)" >&2; exit "$EXIT_USAGE"; }
  [ -z "$index" ] || { echo "topology: --index goes with --server and --memcached (the K clients share a server started elsewhere)" >&2; exit "$EXIT_USAGE"; }
  ensure_built build/release Release "build test" || exit
  load_bin=$BUILD_DIR/client/hitcost-load
  tools=(memcached curl jq)
  if [ -n "$netns" ] && [ -z "$check_args" ]; then netns_check || exit; fi
fi
for tool in "${tools[@]}"; do
  command -v "$tool" >/dev/null || { echo "topology: needs $tool (apt-get install $tool)" >&2; exit "$EXIT_FAILED"; }
done
if ! "$load_bin" merge --help >/dev/null 2>&1; then
  echo "topology: $load_bin has no 'merge' subcommand; rebuild it" >&2; exit "$EXIT_FAILED"
fi

# client_args C STEP: client C's hitcost-load line for step STEP (0-based) in CLIENT_ARGS. Each
# client gets its own range of never-seen ids per step (forced misses stay misses for every
# client) and its own seed.
client_args() {
  local c=$1 step=$2 name=c$1-step$2
  CLIENT_ARGS=(--url "$url" --keys "$keys" --rows "$rows" --hit-ratio "$hit_ratio"
    --miss-start "$(( (1 + (c - 1) + clients * step) * 1000000000 ))" --seed "$((c * 1000 + step))"
    -c "$connections" -t 1 -d "$duration" --warmup "$warmup" --no-progress --json "$out/runs/$rp$name.json")
  # K clients: one load start for all (step_start_at), and one floor, client 1's: K
  # calibrations at once would share the server's threads and land in each other's idle.
  [ "$clients" = 1 ] || CLIENT_ARGS+=(--start-at "${step_start_at:-$(($(date +%s%3N) + start_margin_ms))}")
  [ "$clients" = 1 ] || [ "$c" = 1 ] || CLIENT_ARGS+=(--no-floor)
  # --netns: the same CPU for client C on both sides.
  [ -z "$netns" ] || CLIENT_ARGS+=(--cpus "$(netns_cpus other $((nodes + c - 1)))")
}
rp=""  # the runs' file prefix: lo- for the loopback side of --netns
# How far ahead of now the K clients' load starts (hitcost-load --start-at): their processes
# start, client 1 asks the floor (~0.2 s), then each takes its idle baseline (1 s) in the
# second before the start, while no client loads the server.
start_margin_ms=2500
step_start_at=""

if [ -n "$check_args" ]; then
  # The line as the clients would run it, by hitcost-load's own parser (no connection made,
  # no file written): a renamed flag fails here, not in a cluster.
  url=${server_url:-http://127.0.0.1:8080}
  client_args "${me:-1}" 0
  "$load_bin" "${CLIENT_ARGS[@]}" --check-args >/dev/null || exit
  echo "topology: arguments ok"
  exit "$EXIT_OK"
fi

if [ -n "$index" ]; then
  # One of K: --out is shared and holds this run only; nothing in it is removed.
  if [ -e "$out/merged.json" ]; then
    echo "topology: --out $out holds a finished run (merged.json): give each run its own folder" >&2; exit "$EXIT_USAGE"
  fi
  if ! mkdir -p "$out/runs" "$out/steps"; then
    echo "topology: cannot create --out $out" >&2; exit "$EXIT_OUTPUT"
  fi
elif ! rm -rf "$out" || ! mkdir -p "$out/runs"; then
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
    start_memcached "${netns:+$(netns_cpus other $((i - 1)))}" 256 "$out/memcached-$i.log" || { echo "topology: could not start memcached $i" >&2; exit "$EXIT_FAILED"; }
    mc_nodes+=("127.0.0.1:$MC_PORT")
    echo "== memcached $i on 127.0.0.1:$MC_PORT (pid $MC_PID)" >&2
  done
  store="memcached:$(IFS=,; echo "${mc_nodes[*]}")"

  # 2. hitcost-server on a free port, pointed at every node, not pinned.
  start_server "$BUILD_DIR" "${netns:+$(netns_cpus server 0)}" "$out/server.log" --threads "$server_threads" --store "$store" --strategy html ||
    exit "$EXIT_FAILED"
  url=$SERVER_URL server_pid=$SERVER_PID
  http_get "$url/healthz" 5 || exit "$EXIT_FAILED"
  echo "== hitcost-server at $url (pid $server_pid, $server_threads threads), store $store" >&2
fi
if [ -n "$netns" ]; then
  # The same nodes, server and clients in network namespaces (scripts/netns.sh); the ones above
  # are the loopback side. The report's node table and merged.json are the namespaces'.
  { netns_init "$out/netns" && netns_shape "$rtt" "$loss" "$rate" &&
    netns_topology_start "$nodes" "$clients" "$BUILD_DIR" "$server_threads" "$out"; } || exit "$EXIT_FAILED"
  lo_url=$url url=$NETNS_URL mc_nodes=("${NETNS_NODES[@]}")
  netns_rtt server mc1 20 || exit "$EXIT_FAILED"
  echo "asked $rtt measured_min_us $NETNS_RTT_MIN_US measured_median_us $NETNS_RTT_MEDIAN_US answered $NETNS_RTT_ANSWERED" >"$out/netns/rtt.txt"
  echo "== netns $NETNS_PREFIX: ${mc_nodes[*]}, hitcost-server at $url, $clients clients; links: rtt $rtt, loss $loss, rate $rate;" \
    "round trip server → mc1 measured ${NETNS_RTT_MIN_US} us min, ${NETNS_RTT_MEDIAN_US} us median (ICMP)" >&2
fi
echo "== $clients clients x $connections connections, ${duration} per run after ${warmup} warm-up, $steps steps" >&2

# 4-5. The report of the first DONE steps (all of them, or those an interruption left
# finished): one sweep JSON per client, the merge, how the keys spread over the nodes, the
# tables. Returns the merge's exit code instead of exiting: on an interruption it runs inside
# the cleanup, which must go on to stop the nodes and the server.
# client_sweeps PREFIX DIR DONE: each client's first DONE labelled runs (runs/PREFIXcC-stepI) as
# one sweep JSON, DIR/client-C.json; their paths in SWEEP_INPUTS, what merge reads.
client_sweeps() {
  local prefix=$1 dir=$2 done=$3 c i runs
  SWEEP_INPUTS=()
  for c in $(seq 1 "$clients"); do
    runs=()
    for i in $(seq 0 $((done - 1))); do runs+=("$out/runs/${prefix}c$c-step$i.labelled.json"); done
    jq -s '{runs: .}' "${runs[@]}" >"$dir/client-$c.json"
    SWEEP_INPUTS+=("$dir/client-$c.json")
  done
}

make_report() {
  local done=$1 c code=0 interrupted=""
  interrupted=$(lib_caught) || interrupted=""
  client_sweeps "" "$out" "$done"
  run_bg "$load_bin" merge "${SWEEP_INPUTS[@]}" --json "$out/merged.json" --html "$out/merged.html" --csv "$out/merged.csv" \
    --title "hitcost: $nodes memcached nodes, $clients clients${interrupted:+ (interrupted after $done of $steps steps)}" \
    2>"$out/merge.log" || code=$?
  if [ "$code" != 0 ]; then
    echo "topology: hitcost-load merge exited $code ($(exit_meaning "$(child_exit "$code")")):" >&2
    tail -20 "$out/merge.log" >&2
    return "$(child_exit "$code")"
  fi

  if [ -n "$netns" ]; then
    # The loopback side's runs, merged apart (the same steps), and the two side by side.
    mkdir -p "$out/loopback"
    client_sweeps lo- "$out/loopback" "$done"
    run_bg "$load_bin" merge "${SWEEP_INPUTS[@]}" --json "$out/loopback/merged.json" 2>"$out/loopback/merge.log" ||
      { echo "topology: merging the loopback side failed:" >&2; tail -5 "$out/loopback/merge.log" >&2; return "$EXIT_FAILED"; }
    netns_compare "$out/merged.json" "$out/loopback/merged.json" | align >"$out/compare.txt"
    netns_nodes_table "${mc_nodes[@]}" >"$out/nodes.txt"
  else
    # How the keys spread over the nodes (libmemcached ketama), then the report.
    memcached_nodes_table "${mc_nodes[@]}" >"$out/nodes.txt"
  fi

  echo
  if [ -n "$interrupted" ]; then
    local why="SIG$interrupted"
    [ "$interrupted" = USR1 ] && why="--time-limit ${time_limit}s reached"
    echo "hitcost topology: INTERRUPTED ($why) after $done of $steps steps: the report covers the $done that"
    echo "finished; the step in progress is left out"
  fi
  echo "hitcost topology: $nodes memcached nodes, 1 hitcost-server ($([ -n "$server_url" ] && echo "at $url" || echo "$server_threads threads")), $clients clients x $connections connections"
  [ -z "$netns" ] || echo "each in a network namespace of its own: links rtt $rtt (measured $(cut -d' ' -f6 "$out/netns/rtt.txt") us median), loss $loss, rate $rate"
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
  if [ -n "$netns" ]; then
    echo
    echo "network namespaces (rtt $rtt) against loopback, the same strategies, seeds and CPUs, interleaved step by step"
    echo "(medians over repeats; server CPU per hit net of idle; latency closed loop, all clients merged):"
    cat "$out/compare.txt"
  fi
  echo
  echo "files: $out/merged.json $out/merged.html $out/merged.csv (clients: $out/client-*.json, runs: $out/runs/)"
}

# Interrupted (Ctrl-C, SIGTERM, --time-limit) once some steps finished: their report, made
# while the nodes and the server are still up (cleanup hooks run before they are stopped); the
# clients of the step in progress are stopped first, and that step is left out. Exit 130 stays.
# With --index only client 1 reports: it holds the steps' outcome.
report_finished_steps() {
  lib_caught >/dev/null || return 0
  stop_clients
  [ "$steps_done" -gt 0 ] && [ "${me:-1}" = 1 ] || return 0
  make_report "$steps_done" || true
}
steps_done=0
at_cleanup report_finished_steps

# --index: how the K client processes meet in $out/steps. Client C (index + 1) writes
# ready-S-cC when it can start step S (S = steps: all its runs are in runs/); client 1 waits
# for all K, configures and warms, then writes go-S holding a start time (epoch ms)
# start_margin_ms ahead; every client starts its process at once and its load at that time
# (hitcost-load --start-at), so the K windows are one. A client that ends early writes
# failed-cC, and whoever waits on it stops. Files appear whole (written aside, then
# renamed): a reader never sees half of one.
mark() { local f=$out/steps/$1; printf '%s\n' "${2:-}" >"$f.tmp.$me" && mv "$f.tmp.$me" "$f"; }
finished_ok=""
tell_others() { [ -z "$index" ] || [ -n "$finished_ok" ] || mark "failed-c$me" "$(date -u +%FT%TZ)"; }
at_cleanup tell_others
# wait_for WHAT FILE...: until every FILE exists, at most --wait-ready seconds; a failed-c*
# file from another client ends this one (exit 1), naming it.
wait_for() {
  local what=$1 f failed deadline=$((SECONDS + wait_ready)) missing
  shift
  while :; do
    failed=""
    for f in "$out"/steps/failed-c*; do [ -e "$f" ] && failed+="${f##*/failed-c} "; done
    if [ -n "$failed" ]; then
      echo "topology: client(s) $failed ended early (see their logs); client $me stops" >&2; exit "$EXIT_FAILED"
    fi
    missing=0
    for f in "$@"; do [ -e "$f" ] || missing=$((missing + 1)); done
    [ "$missing" = 0 ] && return 0
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "topology: client $me waited ${wait_ready}s for $what: $missing of $# not there ($out/steps)" >&2; exit "$EXIT_FAILED"
    fi
    sleep 0.1
  done
}
# every_client_ready S: client 1 waits for the K clients' ready-S marks
every_client_ready() {
  local c files=()
  for c in $(seq 1 "$clients"); do files+=("$out/steps/ready-$1-c$c"); done
  wait_for "$clients clients ready for step $(($1 + 1))" "${files[@]}"
}

# 3. Each step: configure + warm once, then K clients at once, then wait for all of them.
# With --index this process is client index+1 of K: the same steps, its own client only.
my_clients=$(seq 1 "$clients")
[ -z "$index" ] || my_clients=$me
token() { tr -c 'a-z0-9\n' '-' <<<"$1" | tr -s '-'; }
# --netns: each step on the namespaces' side, then on loopback's. admin METHOD PATH [DATA]
# [MAX_S] and start_client C PROGRAM ARGS... reach the side's server and start its client.
sides=main
[ -z "$netns" ] || sides="netns loopback"
use_side() {
  side=$1
  case $side in
    netns) url=$NETNS_URL rp="" ;;
    loopback) url=$lo_url rp=lo- ;;
  esac
}
admin() {
  if [ "$side" = netns ]; then netns_http server "$1" "$NETNS_ADMIN_URL$2" "${@:3}"
  elif [ "$1" = POST ]; then http_post "$url$2" "${@:3}"
  else http_get "$url$2" "${@:3}"; fi
}
start_client() {
  local cpu
  case $side in
    netns) netns_start client "c$1" "$(netns_cpus other $((nodes + $1 - 1)))" "${@:2}" ;;
    loopback) cpu=$(netns_cpus other $((nodes + $1 - 1))); start_bg ${cpu:+taskset -c "$cpu"} "${@:2}" ;;
    *) start_bg "${@:2}" ;;
  esac
}
step=0
for rep in $(seq 0 $((repeat - 1))); do
  for s in "${strategy_list[@]}"; do
   for side in $sides; do
    use_side "$side"
    [ -z "$index" ] || mark "ready-$step-c$me"
    if [ "${me:-1}" = 1 ]; then
      [ -z "$index" ] || every_client_ready "$step"
      ns="topo-$(token "$s")-r$rows"
      body=$(jq -cn --arg s "$s" --arg ns "$ns" --argjson rows "$rows" '{strategy:$s, namespace:$ns, rows:$rows}')
      # A 400 names the value the server rejects (a strategy typo): a usage error, exit 2.
      admin POST /admin/config "$body" 10 || { code=$?; echo "topology: the configuration was $body" >&2; exit "$code"; }
      cp "$HTTP_BODY_FILE" "$out/runs/${rp}config-$step.json"
      # A warm can lose sets (store timeouts on a busy machine): warm again, up to 3 times, so
      # the hit ratio is the one asked for; warn if some ids are still missing.
      for attempt in 1 2 3; do
        admin POST "/admin/warm?from=0&to=$keys&rows=$rows" "" 600 || exit
        warm=$HTTP_BODY
        [ "$(jq '.errors' <<<"$warm")" = 0 ] && break
        [ "$attempt" = 3 ] && echo "topology: warning: warming $s still had errors: $warm (hit ratio will be lower)" >&2
      done
      step_start_at=$(($(date +%s%3N) + start_margin_ms))
      [ -z "$index" ] || mark "go-$step" "$step_start_at $(jq -c . <<<"$warm")"
    else
      wait_for "client 1's go for step $((step + 1))" "$out/steps/go-$step"
      step_start_at=$(cut -d' ' -f1 "$out/steps/go-$step")
      warm=$(cut -d' ' -f2- "$out/steps/go-$step")
    fi
    echo "== step $((step + 1))/$steps: $s (repeat $((rep + 1))/$repeat)${netns:+ on $side}, warmed: $warm" >&2
    client_pids=()
    for c in $my_clients; do
      client_args "$c" "$step"
      start_client "$c" "$load_bin" "${CLIENT_ARGS[@]}" >"$out/runs/${rp}c$c-step$step.log" 2>&1
      client_pids+=("$BG_PID")
    done
    # A client with errors above --max-error-rate (3) still wrote its JSON: the report is made
    # and the script ends with 3. Any other failure ends it with that client's code.
    i=0
    for c in $my_clients; do
      code=0
      wait_bg "${client_pids[$i]}" || code=$?
      check_child "$code" "client $c in step $((step + 1))${netns:+ on $side}" "$out/runs/${rp}c$c-step$step.log"
      i=$((i + 1))
    done
    # Label each run as a sweep run: (strategy, store, repeat) is what merge groups on.
    for c in $my_clients; do
      jq --arg s "$s" --argjson rep "$rep" '.strategy = $s | .sweep_store = "" | .repeat = $rep' \
        "$out/runs/${rp}c$c-step$step.json" >"$out/runs/${rp}c$c-step$step.labelled.json.tmp" &&
        mv "$out/runs/${rp}c$c-step$step.labelled.json.tmp" "$out/runs/${rp}c$c-step$step.labelled.json"
    done
   done
    step=$((step + 1)) steps_done=$((steps_done + 1))
  done
done

if [ -n "$index" ]; then
  mark "ready-$steps-c$me"  # all of this client's runs are in runs/
  if [ "$me" != 1 ]; then
    finished_ok=1
    echo "topology: client $me of $clients finished $steps steps; client 1 merges them in $out" >&2
    exit "$LIB_EXIT"
  fi
  every_client_ready "$steps"
fi
make_report "$steps" || exit
finished_ok=1
exit "$LIB_EXIT"
