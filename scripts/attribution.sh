#!/usr/bin/env bash
# scripts/attribution.sh — where loopback receive work is billed, measured three ways on the
# same strategies, interleaved:
#   sender-pays     what the kernel bills: the sender runs the receive path (softirq) of what
#                   it sends (no IRQ time accounting on this kernel);
#   receiver-pays   the same runs, softirq ticks (/proc/stat) moved across: the server's CPUs'
#                   to its peers, the peers' CPUs' to the server (hitcost-load computes both);
#   rps             receive flow steering on lo (rps_cpus, rps_sock_flow_entries,
#                   rps_flow_cnt): the kernel itself runs each receive on the receiver's CPU,
#                   so the busy time of the server's CPU is its receiver-pays cost (plus the
#                   IPIs and steering RPS adds, which no process is billed for).
#
#   scripts/attribution.sh [--strategies html,struct:php+zlib] [--rounds 3] [--duration 3s]
#                          [--out out/attribution]
#
# Needs root for rps (it writes /sys/class/net/lo/queues/rx-0/rps_cpus and
# /proc/sys/net/core/rps_sock_flow_entries) and restores the old values on exit, Ctrl-C
# included. Server on CPU 0, memcached and the load on CPU 1; 99 % hits, 50-row pages.
# Builds HITCOST_BUILD_DIR (default build/release) unless HITCOST_NO_BUILD=1. Output: one run JSON per mode × strategy ×
# round in --out, and a table of medians.
# Exit codes: 0 done, 1 failed (not root, too few CPUs, could not start or measure), 2 usage
# error (also a strategy the server rejects), 3 a run had errors above --max-error-rate (the
# table is still made), 4 an output not written, 130 interrupted (Ctrl-C, SIGTERM).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
lib_init attribution

strategies=html,struct:php+zlib; rounds=3; duration=3s; out=out/attribution
value_options "strategies rounds duration out" "$@"
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "attribution: --rounds wants a positive integer" >&2; exit "$EXIT_USAGE"; }
[ "$(id -u)" -eq 0 ] || { echo "attribution: needs root (it switches receive flow steering on lo)" >&2; exit "$EXIT_FAILED"; }
# The placement is fixed: the server on CPU 0, its peers on CPU 1.
check_cpus "needs CPUs 0 and 1 (the server apart from its peers)" 0,1 || exit "$EXIT_FAILED"
command -v jq >/dev/null || { echo "attribution: needs jq (apt-get install jq)" >&2; exit "$EXIT_FAILED"; }
ensure_built build/release Release build || exit
if ! mkdir -p "$out" || ! rm -f "$out"/*.json; then echo "attribution: cannot write to $out" >&2; exit "$EXIT_OUTPUT"; fi

rps_cpus_file=/sys/class/net/lo/queues/rx-0/rps_cpus
flow_cnt_file=/sys/class/net/lo/queues/rx-0/rps_flow_cnt
entries_file=/proc/sys/net/core/rps_sock_flow_entries
saved=("$(cat "$rps_cpus_file")" "$(cat "$flow_cnt_file")" "$(cat "$entries_file")")
set_rps() { echo "$1" >"$rps_cpus_file"; echo "$2" >"$flow_cnt_file"; echo "$2" >"$entries_file"; }
# shellcheck disable=SC2317  # run by the cleanup (at_cleanup)
restore() {
  echo "${saved[0]}" >"$rps_cpus_file"; echo "${saved[1]}" >"$flow_cnt_file"; echo "${saved[2]}" >"$entries_file"
  echo "== restored: rps_cpus ${saved[0]}, rps_flow_cnt ${saved[1]}, rps_sock_flow_entries ${saved[2]}" >&2
}
at_cleanup restore

start_memcached 1 1024 || exit
start_server "$BUILD_DIR" 0 "$out/server.log" --store "memcached:127.0.0.1:$MC_PORT" || exit
IFS=, read -r -a list <<<"$strategies"
# configure STRATEGY: a 400 (a strategy typo) is a usage error, its reason on stderr.
configure() {
  local ns
  ns="at-$(tr -c 'a-z0-9\n' '-' <<<"$1")"
  http_post "$SERVER_URL/admin/config" "$(jq -cn --arg s "$1" --arg ns "$ns" '{strategy:$s, namespace:$ns}')"
}
for s in "${list[@]}"; do
  configure "$s" || exit
  http_post "$SERVER_URL/admin/warm?from=0&to=1000" "" 600 || exit
done
all_cpus=$(printf '%x' $(( (1 << $(nproc)) - 1 )))
for r in $(seq 1 "$rounds"); do
  modes=(normal rps)
  [ $((r % 2)) = 0 ] && modes=(rps normal)  # alternate which mode goes first
  for mode in "${modes[@]}"; do
    if [ "$mode" = rps ]; then set_rps "$all_cpus" 32768; else set_rps 0 0; fi
    for s in "${list[@]}"; do
      configure "$s" || exit
      f="$out/$mode-$(tr -c 'a-z0-9\n' '-' <<<"$s")-r$r.json"
      code=0
      run_bg "$BUILD_DIR/client/hitcost-load" --url "$SERVER_URL" --cpus 1 -d "$duration" --keys 1000 --hit-ratio 0.99 \
        --no-progress -q --json "$f" >/dev/null || code=$?
      check_child "$code" "the $mode run of $s in round $r"
      jq --arg m "$mode" --arg s "$s" '.attribution_mode = $m | .strategy = $s' "$f" >"$f.tmp" && mv "$f.tmp" "$f"
      echo "== round $r/$rounds $mode $s: $(jq -r '"\(.throughput_rps | floor) req/s, server \(.server_cpu_us_per_hit * 100 | round / 100) us/hit"' "$f")" >&2
    done
  done
done
set_rps 0 0

echo
echo "medians over $rounds rounds (µs per request unless said; 99 % hits, server CPU 0, memcached + load CPU 1)"
jq -rs '
  def med(f): [.[] | f | select(. != null)] | sort | if length == 0 then null else .[(length - 1) / 2 | floor] end;
  def r2: if . == null then "-" else (. * 100 | round / 100 | tostring) end;
  (["mode", "strategy", "req/s", "server/hit sender-pays", "server/hit receiver-pays", "softirq server CPU",
    "softirq peer CPUs", "busy server CPU", "cache", "client", "busy all CPUs"] | @tsv),
  (group_by([.attribution_mode, .strategy])[] |
    [.[0].attribution_mode, .[0].strategy, (med(.throughput_rps) | floor | tostring),
     (med(.cpu.server_hit_sender_pays_us) | r2), (med(.cpu.server_hit_receiver_pays_us) | r2),
     (med(.cpu.softirq_us_per_req.server_cpus) | r2), (med(.cpu.softirq_us_per_req.peer_cpus) | r2),
     (med(.cpu.cpus_busy_us_per_req.server_cpus) | r2), (med(.cpu.per_request_us.net.cache) | r2),
     (med(.cpu.per_request_us.net.client) | r2), (med(.cpu.machine_busy_us_per_req.net) | r2)] | @tsv)
' "$out"/*.json | column -t -s $'\t'
echo
echo "files: $out/*.json"
exit "$LIB_EXIT"
