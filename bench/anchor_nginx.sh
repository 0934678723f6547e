#!/usr/bin/env bash
# The server against its anchor, side by side in one run: wrk against nginx serving a
# static ~10 KB file with one worker, and against `hitcost-server --threads 1` serving a
# ~10 KB page (strategy html, memory store: every request a hit). Both get the SAME bytes
# (nginx serves a copy of hitcost's page), the same keep-alive wrk, the same CPU placement.
# A third row runs hitcost-server with --no-metrics: the cost of its own instrumentation.
#
# Prints req/s and server CPU µs per request (from /proc/PID/stat over the run), each as
# median [min..max] over --repeat interleaved runs, and the ratios.
#   bench/anchor_nginx.sh [--duration 10] [--repeat 3] [--connections 16]
# HITCOST_NO_BUILD=1 skips the build; HITCOST_BUILD_DIR picks the tree (default build/release).
# Everything it starts is stopped on exit, also on Ctrl-C.
# Exit codes: 0 done, 1 failed (could not install, build, start or measure), 2 usage error,
# 130 interrupted (Ctrl-C, SIGTERM).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh  # http_get: a failed request says the server's status and reason
lib_init anchor_nginx
duration=10; repeat=3; connections=16
value_options "duration repeat connections" "$@"
HITCOST_DEPS="build bench" ./scripts/install-deps.sh  # wrk and nginx, also for a tree built before
ensure_built build/release Release "" || exit
. bench/proc_cpu.sh

ncpu=$(nproc)
server_cpu=0
load_cpu=$(( ncpu > 1 ? 1 : 0 ))
tmp=$(mktemp -d)
chmod 755 "$tmp"  # the nginx worker runs as an unprivileged user
http_use_dir "$tmp/http"
# shellcheck disable=SC2317  # run by the cleanup (at_cleanup)
remove_tmp() { stop_started; rm -rf "$tmp"; }  # the servers' logs are in $tmp: stopped first
at_cleanup remove_tmp

start_hitcost() {  # start_hitcost LOGFILE [extra args] -> sets hc_pid, hc_port
  start_server "$BUILD_DIR" "$server_cpu" "$1" --store memory --strategy html "${@:2}" || exit
  hc_pid=$SERVER_PID
  hc_port=${SERVER_URL##*:}
}

# 1. A hitcost page of about 10 KB: the smallest row count whose page reaches 10240 bytes.
start_hitcost "$tmp/probe.log"
rows=1
while :; do
  http_get "http://127.0.0.1:$hc_port/page/1?rows=$rows" || exit
  size=$(wc -c <"$HTTP_BODY_FILE")
  [ "$size" -ge 10240 ] && break
  rows=$((rows + 1))
done
mkdir -p "$tmp/www"
cp "$HTTP_BODY_FILE" "$tmp/www/page.html"
stop_pid "$hc_pid"
echo "page: $rows rows, $size bytes; server on CPU $server_cpu, wrk on CPU $load_cpu, $connections connections, ${duration}s x $repeat"

# 2. nginx, one worker, the same bytes as a static file.
ng_port=$(./scripts/free-port.sh)
cat >"$tmp/nginx.conf" <<CONF
worker_processes 1;
daemon off;
pid $tmp/nginx.pid;
error_log $tmp/nginx.error.log;
events { worker_connections 4096; }
http {
  access_log off;
  sendfile on;
  tcp_nodelay on;
  keepalive_requests 100000000;
  keepalive_timeout 60s;
  open_file_cache max=16;
  client_body_temp_path $tmp/body; proxy_temp_path $tmp/proxy; fastcgi_temp_path $tmp/fcgi;
  uwsgi_temp_path $tmp/uwsgi; scgi_temp_path $tmp/scgi;
  types { text/html html; }
  server {
    listen 127.0.0.1:$ng_port;
    root $tmp/www;
  }
}
CONF
start_service taskset -c "$server_cpu" nginx -c "$tmp/nginx.conf"
ng_master=$BG_PID
for _ in $(seq 1 100); do tcp_open "$ng_port" && break; sleep 0.05; done
ng_pids() { echo "$ng_master $(pgrep -P "$ng_master" | tr '\n' ' ')"; }

# 3. hitcost-server with and without its per-phase instrumentation.
start_hitcost "$tmp/hc.log"
hc_on_pid=$hc_pid; hc_on_port=$hc_port
start_hitcost "$tmp/hc_off.log" --no-metrics
hc_off_pid=$hc_pid; hc_off_port=$hc_port
http_get "http://127.0.0.1:$hc_on_port/page/1?rows=$rows" || exit     # warm: every timed request hits
http_get "http://127.0.0.1:$hc_off_port/page/1?rows=$rows" || exit
http_get "http://127.0.0.1:$hc_on_port/page/1?rows=$rows" || exit
cmp -s <(curl -s "http://127.0.0.1:$ng_port/page.html") "$HTTP_BODY_FILE" ||
  { echo "nginx and hitcost do not serve the same bytes" >&2; curl -si "http://127.0.0.1:$ng_port/page.html" | head -5 >&2; cat "$tmp/nginx.error.log" >&2; exit 1; }

run_one() {  # run_one NAME URL PIDS... -> appends "rps cpu_us_per_req p50 p99" to $tmp/NAME
  local name=$1 url=$2; shift 2
  local c0 c1 out rps reqs
  c0=$(cpu_us "$@")
  out=$(taskset -c "$load_cpu" wrk -t1 -c"$connections" -d"${duration}s" --latency "$url")
  c1=$(cpu_us "$@")
  rps=$(awk '/^Requests\/sec/ {print $2}' <<<"$out")
  reqs=$(awk '/requests in/ {print $1}' <<<"$out")
  p50=$(awk '$1=="50%" {print $2}' <<<"$out")
  p99=$(awk '$1=="99%" {print $2}' <<<"$out")
  grep -q 'Non-2xx\|Socket errors' <<<"$out" && { echo "$name: wrk saw errors:" >&2; echo "$out" >&2; }
  echo "$rps $(awk -v c=$((c1 - c0)) -v r="$reqs" 'BEGIN {printf "%.2f", c / r}') $p50 $p99" >>"$tmp/$name"
}

for i in $(seq 1 "$repeat"); do
  run_one nginx "http://127.0.0.1:$ng_port/page.html" $(ng_pids)
  run_one hitcost "http://127.0.0.1:$hc_on_port/page/1?rows=$rows" "$hc_on_pid"
  run_one hitcost_no_metrics "http://127.0.0.1:$hc_off_port/page/1?rows=$rows" "$hc_off_pid"
done

summary() {  # summary NAME COLUMN -> "median [min..max]"
  local col=$2
  local vals; vals=$(awk -v c="$col" '{print $c}' "$tmp/$1")
  printf '%s [%s..%s]' "$(median <<<"$vals")" "$(sort -g <<<"$vals" | head -1)" "$(sort -g <<<"$vals" | tail -1)"
}
med() { awk -v c="$2" '{print $c}' "$tmp/$1" | median; }
printf '\n%-22s %-28s %-26s %-10s %-10s\n' server "req/s median [min..max]" "CPU us/req median [range]" "p50" "p99"
for n in nginx hitcost hitcost_no_metrics; do
  printf '%-22s %-28s %-26s %-10s %-10s\n' "$n" "$(summary $n 1)" "$(summary $n 2)" \
    "$(awk '{print $3}' "$tmp/$n" | head -1)" "$(awk '{print $4}' "$tmp/$n" | head -1)"
done
echo
awk -v a="$(med hitcost 1)" -v b="$(med nginx 1)" 'BEGIN {printf "req/s ratio hitcost/nginx: %.2f (goal >= 1.0; below 0.8 is a defect)\n", a/b}'
awk -v a="$(med nginx 2)" -v b="$(med hitcost 2)" 'BEGIN {printf "CPU per request nginx/hitcost: %.2f (>1: hitcost uses less CPU per request)\n", a/b}'
awk -v a="$(med hitcost 2)" -v b="$(med hitcost_no_metrics 2)" 'BEGIN {printf "instrumentation cost: %+.1f%% CPU per request (goal <= 3%%)\n", (a/b-1)*100}'
