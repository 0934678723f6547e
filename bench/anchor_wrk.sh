#!/usr/bin/env bash
# The load generator against its anchor: wrk and hitcost-load drive the same
# `hitcost-server --threads 1` (memory store, strategy html, one warmed page: every request a
# hit) with the same connections, one load thread each, the same CPU placement, the same
# request bytes, interleaved run by run.
#
# Prints req/s, load-generator CPU µs per request (user+system of the whole process, from
# the shell's `times` after it exits: no extra package), p50 and p99, each as
# median [min..max] over --repeat runs, and the ratios. Goals: hitcost-load's req/s within
# 5 % of wrk's (the server is the bottleneck for both, so this checks that the client is not);
# CPU per request no worse than wrk's (the client must out-generate the server).
# hitcost-load runs with --warmup 0 --no-server-stats so that both count every request of
# the process and neither talks to /stats; it still records hit/miss/service histograms and
# the per-second series, which wrk does not.
#   bench/anchor_wrk.sh [--duration 5] [--repeat 3] [--connections 16] [--rows 50]
# HITCOST_NO_BUILD=1 skips the build; HITCOST_BUILD_DIR picks the tree (default build/release).
# Everything it starts is stopped on exit, also on Ctrl-C.
# Exit codes: 0 done, 1 failed (could not install, build, start or measure), 2 usage error,
# 130 interrupted (Ctrl-C, SIGTERM).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh  # http_get: a failed request says the server's status and reason
lib_init anchor_wrk
duration=5; repeat=3; connections=16; rows=50
value_options "duration repeat connections rows" "$@"
HITCOST_DEPS="build bench" ./scripts/install-deps.sh  # wrk, also for a tree built before
ensure_built build/release Release "" || exit
. bench/proc_cpu.sh  # median()

ncpu=$(nproc)
server_cpu=0
load_cpu=$(( ncpu > 1 ? 1 : 0 ))
tmp=$(mktemp -d)
http_use_dir "$tmp/http"
# shellcheck disable=SC2317  # run by the cleanup (at_cleanup)
remove_tmp() { stop_started; rm -rf "$tmp"; }  # the server's log is in $tmp: stopped first
at_cleanup remove_tmp

start_server "$BUILD_DIR" "$server_cpu" "$tmp/server.log" --store memory --strategy html || exit
url=$SERVER_URL
path="/page/1?rows=$rows"
http_get "$url$path" || exit   # also warms the page: every timed request is a hit
size=$(wc -c <"$HTTP_BODY_FILE")
curl -s -D - -o /dev/null "$url$path" | grep -qi '^x-cache: hit' || { echo "page is not a hit after warming" >&2; exit 1; }
echo "page $path: $size bytes; server on CPU $server_cpu, load on CPU $load_cpu, $connections connections, 1 load thread, ${duration}s x $repeat, interleaved"

# cpu_of CMD... : runs CMD in a subshell and prints its user+system CPU in µs (from `times`,
# which reports the waited-for children of the subshell) on the last line of $tmp/cpu.
cpu_of() {
  ( "$@"; times ) >"$tmp/out" 2>"$tmp/err" || { cat "$tmp/err" >&2; return 1; }
  tail -1 "$tmp/out" | awk '{
    split($1, u, /[ms]/); split($2, s, /[ms]/)
    printf "%.0f\n", ((u[1] * 60 + u[2]) + (s[1] * 60 + s[2])) * 1e6 }' >"$tmp/cpu"
}

to_us() {  # wrk latency "812.00us" / "1.20ms" / "2.00s" -> µs
  awk -v v="$1" 'BEGIN {
    if (v ~ /us$/) { sub(/us$/, "", v); print v + 0 }
    else if (v ~ /ms$/) { sub(/ms$/, "", v); print v * 1000 }
    else if (v ~ /s$/) { sub(/s$/, "", v); print v * 1e6 } }'
}

run_wrk() {
  cpu_of taskset -c "$load_cpu" wrk -t1 -c"$connections" -d"${duration}s" --latency "$url$path"
  local out reqs rps p50 p99
  out=$(head -n -2 "$tmp/out")
  grep -q 'Non-2xx\|Socket errors' <<<"$out" && { echo "wrk saw errors:" >&2; echo "$out" >&2; }
  reqs=$(awk '/requests in/ {print $1}' <<<"$out")
  rps=$(awk '/^Requests\/sec/ {print $2}' <<<"$out")
  p50=$(to_us "$(awk '$1=="50%" {print $2}' <<<"$out")")
  p99=$(to_us "$(awk '$1=="99%" {print $2}' <<<"$out")")
  echo "$rps $(awk -v c="$(cat "$tmp/cpu")" -v r="$reqs" 'BEGIN {printf "%.3f", c / r}') $p50 $p99" >>"$tmp/wrk"
}

run_hitcost() {
  cpu_of taskset -c "$load_cpu" "$BUILD_DIR/client/hitcost-load" --url "$url" --path-template /page/1 --rows "$rows" \
    --keys 1 -t 1 -c "$connections" -d "${duration}s" --warmup 0 --no-server-stats --no-progress -q --csv "$tmp/hc.csv"
  # CSV columns: 7 requests, 8 errors, 10 throughput_rps, 12 p50_us, 14 p99_us
  local row; row=$(tail -1 "$tmp/hc.csv")
  local errors; errors=$(cut -d, -f8 <<<"$row")
  [ "$errors" = 0 ] || echo "hitcost-load saw $errors errors" >&2
  awk -F, -v c="$(cat "$tmp/cpu")" '{printf "%s %.3f %s %s\n", $10, c / $7, $12, $14}' <<<"$row" >>"$tmp/hitcost-load"
}

for i in $(seq 1 "$repeat"); do
  run_wrk
  run_hitcost
done

summary() {  # summary NAME COLUMN -> "median [min..max]"
  local vals; vals=$(awk -v c="$2" '{print $c}' "$tmp/$1")
  printf '%.*f [%.*f..%.*f]' "$3" "$(median <<<"$vals")" "$3" "$(sort -g <<<"$vals" | head -1)" \
    "$3" "$(sort -g <<<"$vals" | tail -1)"
}
med() { awk -v c="$2" '{print $c}' "$tmp/$1" | median; }
printf '\n%-13s %-26s %-24s %-24s %-24s\n' tool "req/s median [min..max]" "CPU us/req" "p50 us" "p99 us"
for n in wrk hitcost-load; do
  printf '%-13s %-26s %-24s %-24s %-24s\n' "$n" "$(summary $n 1 0)" "$(summary $n 2 2)" "$(summary $n 3 1)" \
    "$(summary $n 4 1)"
done
echo
awk -v a="$(med hitcost-load 1)" -v b="$(med wrk 1)" \
  'BEGIN {printf "req/s hitcost-load/wrk: %.3f (goal: within 5%%, i.e. >= 0.95)\n", a/b}'
awk -v a="$(med hitcost-load 2)" -v b="$(med wrk 2)" \
  'BEGIN {printf "CPU per request hitcost-load/wrk: %.2f (goal <= 1.0)\n", a/b}'
