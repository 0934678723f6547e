#!/usr/bin/env bash
# scripts/netns-fault.sh — faults between hosts during one load run (issue 29, part 5): a
# memcached host is cut off, then slowed, then healed, while hitcost-load keeps asking.
#
# Every process in a network namespace of its own (scripts/netns.sh): --nodes memcached hosts
# (mc1, mc2, ...), the server and one client, each linked to a private switch with --rtt between
# any two of them. The server's pages are warmed, then one run of --before + --cut + --delay +
# --after seconds (after a 1 s warm-up) during which, by the script's own clock:
#   --cut S      mc1 cut off (every packet to or from it dropped, both directions)
#   --delay S    then mc1 reachable again, with --delay-by added to every round trip with it
#   heal         then mc1 as before, for --after seconds
# The report prints the run's per-second series (req/s, hit ratio, errors, latency) with the
# fault windows marked, the server's store errors by kind, and checks that the server kept
# answering (no client error, no second without answers), that the hit ratio fell while mc1 was
# cut (its keys fall through to the origin) and that it came back within --recover-within
# seconds of the cut's end to at least 0.9 of its value before the fault.
#
#   scripts/netns-fault.sh [--nodes 2] [--rtt 200us] [--strategy html] [--keys 1000] [--rows 50]
#                          [--connections 4] [--server-threads 2] [--before 3] [--cut 3]
#                          [--delay 3] [--delay-by 5ms] [--after 5] [--recover-within 5]
#                          [--store-options ''] [--out out/netns-fault] [--time-limit 300]
#
# --store-options: appended to the server's memcached store spec (e.g.
# 'timeout_ms=50&retry_timeout_ms=250'; docs/formats.md#stores): how long a call to a host that
# does not answer waits, and how long that host is then skipped.
# Outputs in --out: run.json (the run, with its series), faults.txt (UNIX_S VERB HOST EXTRA, one
# line per fault, the script's clock), fault-report.json (the series with each second's window,
# the checks and their figures), stats-before.json, stats-after.json, server.log, netns/ (the
# switch's log and counters, placement.txt: the CPUs each process was allowed).
# Needs root, ip (iproute2), perl and /dev/net/tun (scripts/netns.sh checks them).
# Environment: HITCOST_BUILD_DIR (default build/release), HITCOST_NO_BUILD=1 skips the build.
# Exit codes: 0 every check held, 1 could not start or run, or a check failed (the report says
# which), 2 usage error, 4 an output not written, 130 interrupted or --time-limit reached.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
source scripts/netns.sh
lib_init netns-fault

nodes=2 rtt=200us strategy=html keys=1000 rows=50 connections=4 server_threads=2
before=3 cut=3 delay=3 delay_by=5ms after=5 recover_within=5 store_options=""
out=out/netns-fault time_limit=300
value_options "nodes rtt strategy keys rows connections server-threads before cut delay delay-by after recover-within store-options out time-limit" "$@"
for v in nodes keys rows connections server_threads before cut delay after recover_within time_limit; do
  [[ ${!v} =~ ^[1-9][0-9]*$ ]] || { echo "netns-fault: --${v//_/-} must be a positive integer" >&2; exit "$EXIT_USAGE"; }
done
netns_parse_shape "$rtt" 0 0 || exit
_netns_us "$delay_by" >/dev/null || { echo "netns-fault: --delay-by '$delay_by' is not a duration" >&2; exit "$EXIT_USAGE"; }

netns_check || exit
ensure_built build/release Release "build test" || exit
for tool in memcached curl jq; do
  command -v "$tool" >/dev/null || { echo "netns-fault: needs $tool (apt-get install $tool)" >&2; exit "$EXIT_FAILED"; }
done
if ! rm -rf "$out" || ! mkdir -p "$out"; then echo "netns-fault: cannot create --out $out" >&2; exit "$EXIT_OUTPUT"; fi
out=$(cd "$out" && pwd)
start_time_limit "$time_limit"

# The hosts: memcached nodes, the server, the client; pinned by netns_cpus (the server alone
# on the last CPU when there are two or more).
netns_init "$out/netns" || exit
netns_shape "$rtt" 0 0 || exit
node_addrs=()
for i in $(seq 1 "$nodes"); do netns_host "mc$i" || exit; node_addrs+=("$NETNS_ADDR:11211"); done
netns_host server || exit
server_addr=$NETNS_ADDR
netns_host client || exit
mc_user=()
[ "$(id -u)" -eq 0 ] && mc_user=(-u root)
for i in $(seq 1 "$nodes"); do
  netns_start service "mc$i" "$(netns_cpus other $((i - 1)))" memcached -l "$(netns_addr "mc$i")" -p 11211 -U 0 -m 64 -t 1 \
    ${mc_user[@]+"${mc_user[@]}"} >"$out/memcached-$i.log" 2>&1 || exit
done
for a in "${node_addrs[@]}"; do netns_wait_tcp server "$a" || exit; done
store="memcached:$(IFS=,; echo "${node_addrs[*]}")${store_options:+?$store_options}"
server_cpus=$(netns_cpus server 0)
netns_start service server "$server_cpus" "$BUILD_DIR/server/hitcost-server" --host 0.0.0.0 --port 8080 \
  --threads "$server_threads" ${server_cpus:+--cpus "$server_cpus"} --store "$store" --strategy "$strategy" \
  >"$out/server.log" 2>&1 || exit
wait_listening "$out/server.log" "$BG_PID" || exit
netns_wait_tcp client "$server_addr:8080" || exit
echo "== $nodes memcached hosts (${node_addrs[*]}), hitcost-server at $server_addr:8080, a client; rtt $rtt (each link ${NETNS_LINK_DELAY_US} us one way)" >&2

# Admin calls from the server's own namespace, over its loopback (the admin routes answer
# loopback peers only).
admin=http://127.0.0.1:8080
for attempt in 1 2 3; do
  netns_http server POST "$admin/admin/warm?from=0&to=$keys&rows=$rows" "" 600 || exit
  [ "$(jq '.errors' <<<"$HTTP_BODY")" = 0 ] && break
  [ "$attempt" = 3 ] && echo "netns-fault: warning: warming still had errors: $HTTP_BODY" >&2
done
echo "== warmed: $HTTP_BODY" >&2
netns_http server GET "$admin/stats" || exit
cp "$HTTP_BODY_FILE" "$out/stats-before.json"

# The run: every answer should be a hit before the fault (--hit-ratio 1: warmed ids only).
total=$((before + cut + delay + after))
netns_start client client "$(netns_cpus other "$nodes")" "$BUILD_DIR/client/hitcost-load" --url "http://$server_addr:8080" \
  --keys "$keys" --rows "$rows" --hit-ratio 1 -c "$connections" -t 1 -d "${total}s" --warmup 1s --idle 0 --no-floor \
  --max-transport-error-rate 1 --max-error-rate 1 --no-progress --series --json "$out/run.json" >"$out/run.log" 2>&1 || exit
load_pid=$BG_PID
NETNS_FAULTS_FILE=$out/faults.txt
: >"$NETNS_FAULTS_FILE"
# The window starts after the warm-up (and the client's start): the faults are placed from the
# client's own window start (run.json started_unix_ns) when the report is made.
run_bg sleep "$((1 + before)).3"
netns_fault cut mc1 || exit
echo "== mc1 cut off" >&2
run_bg sleep "$cut"
netns_fault delay mc1 "$delay_by" || exit
echo "== mc1 back, $delay_by slower" >&2
run_bg sleep "$delay"
netns_fault heal mc1 || exit
echo "== mc1 healed" >&2
code=0
wait_bg "$load_pid" || code=$?
check_child "$code" "hitcost-load" "$out/run.log"
netns_http server GET "$admin/stats" || exit
cp "$HTTP_BODY_FILE" "$out/stats-after.json"
netns_counters "$out/netns/switch-counters.txt" || true

# The report: each second of the series with the window it overlaps, the checks.
jq -n --slurpfile run "$out/run.json" --slurpfile s0 "$out/stats-before.json" --slurpfile s1 "$out/stats-after.json" \
  --rawfile faults "$out/faults.txt" --argjson within "$recover_within" '
  ($run[0]) as $r | ($r.started_unix_ns / 1e9) as $t0 |
  [$faults | split("\n")[] | select(length > 0) | split(" ") | {t: ((.[0] | tonumber) - $t0), verb: .[1], host: .[2], extra: .[3]}] as $f |
  ($f | map(select(.verb == "cut")) | .[0].t) as $cut_at |
  ($f | map(select(.verb == "delay")) | .[0].t) as $delay_at |
  ($f | map(select(.verb == "heal")) | .[0].t) as $heal_at |
  def window($s): ($s.t_s) as $a | ($s.t_s + $s.len_s) as $b |
    if $b <= $cut_at then "before"
    elif $a >= $cut_at and $b <= $delay_at then "cut"
    elif $a < $delay_at and $b > $cut_at then "cut/partly"
    elif $a >= $delay_at and $b <= $heal_at then "delay"
    elif $a < $heal_at and $b > $delay_at then "delay/partly"
    else "healed" end;
  def ratio($s): if ($s.hits + $s.misses) > 0 then $s.hits / ($s.hits + $s.misses) else null end;
  [$r.series[] | . + {window: window(.), hit_ratio: ratio(.)}] as $series |
  ([$series[] | select(.window == "before") | .hit_ratio] | if length > 0 then add / length else null end) as $pre |
  ([$series[] | select(.window == "cut") | .hit_ratio] | min) as $cut_min |
  ([$series[] | select(.t_s >= $delay_at and .hit_ratio != null and $pre != null and .hit_ratio >= 0.9 * $pre)] | first) as $back |
  ([$series[] | select(.window == "healed") | .hit_ratio] | if length > 0 then min else null end) as $healed_min |
  ($s1[0].store_errors_by_kind // {}) as $e1 | ($s0[0].store_errors_by_kind // {}) as $e0 |
  {
    faults: $f,
    pre_fault_hit_ratio: $pre,
    cut_min_hit_ratio: $cut_min,
    hits_back_after_cut_s: (if $back == null then null else ($back.t_s + $back.len_s - $delay_at) end),
    healed_min_hit_ratio: $healed_min,
    client_errors: $r.errors,
    seconds_without_answers: [$series[] | select(.ok == 0) | .t_s],
    store_errors_by_kind: ($e1 | with_entries(.value -= ($e0[.key] // 0))),
    store_errors: (($s1[0].store_errors // 0) - ($s0[0].store_errors // 0)),
    store_fast_fails: (($s1[0].store.extra.fast_fails // 0) - ($s0[0].store.extra.fast_fails // 0)),
    series: [$series[] | {t_s, len_s, window, requests, ok, errors, hits, misses, hit_ratio, p50_us, p99_us, max_us}]
  } |
  .checks = [
    {what: "no client errors (the server answered every request)", ok: (.client_errors.total == 0)},
    {what: "every second had answers", ok: (.seconds_without_answers | length == 0)},
    {what: "the hit ratio fell while mc1 was cut", ok: (.cut_min_hit_ratio != null and .pre_fault_hit_ratio != null and .cut_min_hit_ratio < 0.9 * .pre_fault_hit_ratio)},
    {what: "store errors counted by kind during the cut", ok: (.store_errors > 0 and (.store_errors_by_kind | to_entries | map(.value) | add // 0) > 0)},
    {what: "hits back to 0.9 of before within \($within) s of the cut ending", ok: (.hits_back_after_cut_s != null and .hits_back_after_cut_s <= $within)},
    {what: "hits stay back after the heal", ok: (.healed_min_hit_ratio != null and .pre_fault_hit_ratio != null and .healed_min_hit_ratio >= 0.9 * .pre_fault_hit_ratio)}
  ]' >"$out/fault-report.json" || { echo "netns-fault: cannot write $out/fault-report.json" >&2; exit "$EXIT_OUTPUT"; }

echo
echo "hitcost netns faults: $nodes memcached hosts, 1 hitcost-server ($server_threads threads), 1 client x $connections connections, rtt $rtt"
echo "faults (seconds into the measured window, by the script's clock):"
jq -r '.faults[] | "  \(.t * 1000 | round / 1000) s  \(.verb) \(.host)\(if .extra != "-" then " " + .extra else "" end)"' "$out/fault-report.json"
echo
echo "per second (hit ratio by X-Cache; a window marked 'partly' overlaps a fault's start or end):"
jq -r 'def f(x; d): if x == null then "-" else (x * pow(10; d) | round / pow(10; d) | tostring) end;
  (["t_s", "window", "req/s", "hit_ratio", "errors", "p50_us", "p99_us", "max_us"] | @tsv),
  (.series[] | [f(.t_s; 1), .window, f(.requests / .len_s; 0), f(.hit_ratio; 3), .errors, f(.p50_us; 0), f(.p99_us; 0), f(.max_us; 0)] | @tsv)' \
  "$out/fault-report.json" | awk -F'\t' '{ printf "  %-6s %-13s %8s %9s %7s %9s %9s %9s\n", $1, $2, $3, $4, $5, $6, $7, $8 }'
echo
jq -r 'def r(x): if x == null then "-" else (x * 1000 | round / 1000 | tostring) end;
  "server store errors during the run: \(.store_errors) (by kind: \(.store_errors_by_kind | to_entries | map("\(.key) \(.value)") | join(", ") | if . == "" then "none" else . end));",
  "  \(.store_fast_fails) of them at once (the store skips a node for retry_timeout_ms after a timeout); the others waited up to timeout_ms or found no connection",
  "client errors: \(.client_errors.total) (\(.client_errors | del(.total) | to_entries | map(select(.value != 0 and (.value | type) == "number")) | map("\(.key) \(.value)") | join(", ") | if . == "" then "none by kind" else . end))",
  "hit ratio: \(r(.pre_fault_hit_ratio)) before, \(r(.cut_min_hit_ratio)) lowest while cut, back to 0.9 of before \(if .hits_back_after_cut_s == null then "never" else "\(r(.hits_back_after_cut_s)) s" end) after the cut ended (the end of the first such second), \(r(.healed_min_hit_ratio)) lowest after the heal"' \
  "$out/fault-report.json"
echo "checks:"
jq -r '.checks[] | "  \(if .ok then "ok  " else "FAIL" end)  \(.what)"' "$out/fault-report.json"
echo "files: $out/fault-report.json $out/run.json $out/faults.txt"
if [ "$(jq '[.checks[] | select(.ok | not)] | length' "$out/fault-report.json")" != 0 ]; then
  echo "netns-fault: a check failed (above)" >&2
  exit "$EXIT_FAILED"
fi
exit "$LIB_EXIT"
