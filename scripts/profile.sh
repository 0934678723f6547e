#!/usr/bin/env bash
# scripts/profile.sh — where hitcost-server spends its CPU for one strategy, at a high hit ratio.
#
#   scripts/profile.sh --strategy S [--store memcached|memory|SPEC] [--tool callgrind|perf]
#                      [--duration 10s] [--rate 20] [--requests N] [--connections 2]
#                      [--rows 50] [--keys 200] [--hit-ratio 0.99] [--flags F] [--idle 1]
#                      [--out out/profile]
#
# callgrind (valgrind): exact, repeatable instruction counts (Ir) per function — works on
#   VMs without hardware counters. The server runs ~50x slower under it, so the load is an
#   open loop at a low --rate (default 20 req/s: struct:json+zlib costs ~15 ms a request
#   under valgrind) and only chosen windows are collected: the server starts with
#   instrumentation off and the store is warmed; then `callgrind_control -i on`, an idle
#   window of --idle seconds (default 1, 0 = none) with no load, dumped on its own (the
#   sweeper timer, 100 ms per io thread, and whatever else runs when nothing is asked; the
#   dump zeroes the counters); then the load runs and the load window is dumped.
#   Output: OUT/callgrind.out (the load window), OUT/callgrind-idle.out, OUT/top-inclusive.txt
#   and OUT/top-self.txt (callgrind_annotate, top 25 functions of the load window by
#   inclusive and by self Ir), and one line:
#     instructions per page: R raw, N net of idle (idle: I Ir/s over S s)
#   R = the load window's Ir (whole process, all threads) / the pages the server itself
#   counted in that window (`pages` in GET /stats, taken just before instrumentation is
#   switched on and just after the window is dumped, so those two GETs are not in the Ir);
#   N subtracts I x the window's seconds first. The window still holds hitcost-load's own
#   GET /healthz before its run and GET /stats before and after it (counted in Ir, not in
#   pages).
#   Browse further with `callgrind_annotate OUT/callgrind.out` or kcachegrind.
# perf: sampling of real time on CPU (`perf record -e cpu-clock -g`, a software event, so it
#   works without hardware counters too; the server runs at full speed, load at --rate, or
#   closed loop with --rate 0). Before the load it prints the server's idle CPU over --idle
#   seconds (utime+stime from /proc/PID/stat, in 1/CLK_TCK steps, and ns on CPU summed
#   from /proc/PID/task/*/schedstat); after it the pages the server counted (GET /stats
#   delta) and its CPU per page, raw and net of the idle rate. Output: OUT/perf.data,
#   OUT/top-inclusive.txt (children), OUT/top-self.txt and OUT/idle.txt. Browse further
#   with `perf report -i OUT/perf.data`.
#
# --store memcached (default) starts a private memcached on a free loopback port; any other
# store spec (memory, memory:objects, mmap:/tmp/f, memcached:H:P,...) is passed to the server,
# with --store-create: a file store is made where no file is; an existing file is used only if it
# is a store file (hitcost-server refuses anything else and leaves it as it is).
# The server is built with debug info (RelWithDebInfo) into build/profile; HITCOST_BUILD_DIR
# picks another tree (e.g. build/test) and HITCOST_NO_BUILD=1 skips the build.
# Everything it starts is stopped on exit, also on Ctrl-C.
# Exit codes: 0 done, 1 failed (a tool missing, could not start or profile), 2 usage error
# (also a strategy the server rejects), 3 the load had errors above --max-error-rate (the
# profile is still made), 4 an output not written, 130 interrupted (Ctrl-C, SIGTERM).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
lib_init profile
LIB_STOP_WAIT_S=10  # valgrind writes its profile at exit

strategy=""; store=memcached; tool=callgrind; duration=10s; rate=20; requests=0; connections=2
rows=50; keys=200; hit_ratio=0.99; flags=""; idle=1; out=out/profile
value_options "strategy store tool duration rate requests connections rows keys hit-ratio flags idle out" "$@"
[ -n "$strategy" ] || { echo "profile: --strategy is required, e.g. --strategy struct:json+zlib" >&2; exit "$EXIT_USAGE"; }
[[ $idle =~ ^[0-9]+([.][0-9]+)?$ ]] || { echo "profile: --idle takes seconds, e.g. 1 or 2.5 (0 = no idle window)" >&2; exit "$EXIT_USAGE"; }
idle_on=$(awk -v x="$idle" 'BEGIN {print (x > 0) ? 1 : 0}')
case $tool in
  callgrind) need=(valgrind callgrind_annotate callgrind_control) ;;
  perf) need=(perf) ;;
  *) echo "profile: --tool is callgrind or perf" >&2; exit "$EXIT_USAGE" ;;
esac
for t in "${need[@]}" curl jq memcached; do
  command -v "$t" >/dev/null || { echo "profile: needs $t (Debian: valgrind, linux-perf, curl, jq, memcached)" >&2; exit "$EXIT_FAILED"; }
done

ensure_built build/profile RelWithDebInfo "build test" || exit
server_bin=$BUILD_DIR/server/hitcost-server
load_bin=$BUILD_DIR/client/hitcost-load

if ! mkdir -p "$out" || ! rm -f "$out/callgrind.out" "$out/callgrind-idle.out" "$out"/callgrind.part* \
     "$out/perf.data" "$out/top-inclusive.txt" "$out/top-self.txt"; then
  echo "profile: cannot write to $out" >&2; exit "$EXIT_OUTPUT"
fi

# 1. The store: a private memcached unless a full spec was given.
if [ "$store" = memcached ]; then
  : >"$out/memcached.log"
  start_memcached "" 256 "$out/memcached.log" || exit
  store="memcached:127.0.0.1:$MC_PORT"
fi

# 2. The server, one io thread; under callgrind with instrumentation off until the window.
server_args=(--port 0 --threads 1 --store "$store" --store-create --strategy "$strategy")
[ -n "$flags" ] && server_args+=(--flags "$flags")
if [ "$tool" = callgrind ]; then
  # Each `callgrind_control --dump` writes OUT/callgrind.part.N (N = 1, 2, ...); the dump at
  # exit goes to OUT/callgrind.part (instrumentation is off by then: next to nothing).
  start_service valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$out/callgrind.part" \
    "$server_bin" "${server_args[@]}" >"$out/server.log" 2>"$out/valgrind.log"
else
  start_service "$server_bin" "${server_args[@]}" >"$out/server.log" 2>&1
fi
server_pid=$BG_PID
if ! wait_listening "$out/server.log" "$server_pid" 60; then  # 60 s: valgrind starts slowly
  [ "$tool" != callgrind ] || cat "$out/valgrind.log" >&2
  exit "$EXIT_FAILED"
fi
url="http://$LISTENING_ADDR"
echo "== hitcost-server ($tool) at $url, store $store, strategy $strategy" >&2

# 3. Configure and warm (not profiled): every timed request for ids < keys is a hit.
ns="prof-$(tr -c 'a-z0-9\n' '-' <<<"$strategy" | tr -s '-')-r$rows"
# A 400 names the value the server rejects (a strategy typo): a usage error, exit 2.
http_post "$url/admin/config" "$(jq -cn --arg s "$strategy" --arg ns "$ns" --argjson r "$rows" \
  '{strategy:$s, namespace:$ns, rows:$r}')" 60 || exit
http_post "$url/admin/warm?from=0&to=$keys&rows=$rows" "" 600 || exit
echo "== warmed: $HTTP_BODY" >&2

# 4. The measured window, collected, and the server's own page count over it.
load_args=(--url "$url" --keys "$keys" --rows "$rows" --hit-ratio "$hit_ratio" -c "$connections" -t 1
           --rate "$rate" -d "$duration" --warmup 0 --timeout 10s --no-progress --json "$out/load.json")
[ "$requests" != 0 ] && load_args+=(--requests "$requests")
now() { date +%s.%N; }
# stats: GET /stats into STATS (not through $(...): the request must run in this shell, where
# a signal stops it at once).
stats() { http_get "$url/stats" 60 || exit; STATS=$HTTP_BODY; }
# run_load: the load in the background, waited for; its output shown when it ends.
run_load() {
  local code=0
  run_bg "$load_bin" "${load_args[@]}" >"$out/load.txt" || code=$?
  cat "$out/load.txt"
  check_child "$code" "hitcost-load"
}
# window_counts: the pages and requests the server counted between the GET /stats answers $s0
# and $s1, into pages and reqs; fails, saying so, when its counters were reset in between.
window_counts() {
  local delta
  delta=$(jq -rn --argjson a "$s0" --argjson b "$s1" \
    'if ($b.pages < $a.pages or $b.requests < $a.requests) then "reset"
     else "\($b.pages - $a.pages) \($b.requests - $a.requests)" end') ||
    { echo "profile: the server's /stats answers are not readable" >&2; exit "$EXIT_FAILED"; }
  if [ "$delta" = reset ]; then
    echo "profile: the server's counters were reset during the window; no per-page figure" >&2
    return 1
  fi
  read -r pages reqs <<<"$delta"
}
if [ "$tool" = callgrind ]; then
  cg() { callgrind_control "$@" "$server_pid" >/dev/null; }  # always by pid: others may run callgrind
  # Windows are cut by dumps while instrumentation is on (a dump zeroes the counters), not
  # by `-z` or by dumping after `-i off`: in callgrind 3.19 either leaves the next dump's
  # `summary:` line (callgrind_annotate's PROGRAM TOTALS) negative, i.e. near 2^64.
  # Our GET /stats come before `-i on` and after the load's dump: not in its Ir. The server
  # counts no pages while idle, so the pages delta is the load window's.
  stats; s0=$STATS
  parts=0
  cg -i on; t0=$(now)
  if [ "$idle_on" = 1 ]; then  # 4a. idle: instrumentation on, no load, its own part
    echo "== idle window: ${idle} s with no load" >&2
    i0=$t0
    sleep "$idle"
    cg --dump=idle; i1=$(now); t0=$i1; parts=$((parts + 1)); idle_part=$parts
  fi
  run_load  # 4b. the load window
  cg --dump=load; t1=$(now); parts=$((parts + 1)); load_part=$parts
  cg -i off
  stats; s1=$STATS
  stop_pid "$server_pid" 30  # valgrind's exit dump
  [ -s "$out/callgrind.part.$load_part" ] ||
    { echo "profile: no callgrind dump of the load window" >&2; cat "$out/valgrind.log" >&2; exit "$EXIT_FAILED"; }
  mv "$out/callgrind.part.$load_part" "$out/callgrind.out"
  [ "$idle_on" = 1 ] && mv "$out/callgrind.part.$idle_part" "$out/callgrind-idle.out"
  rm -f "$out/callgrind.part"  # the exit dump: instrumentation was off
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
  # PROGRAM TOTALS (the file's summary: line), checked against the sum of its costs (totals:).
  total_ir() {
    local t sum
    t=$(callgrind_annotate "$1" 2>/dev/null | awk '/PROGRAM TOTALS/ && !t {gsub(",", "", $1); t = $1} END {print t + 0}')
    sum=$(awk '/^totals:/ {print $2; exit}' "$1")
    awk -v t="$t" -v s="${sum:-0}" 'BEGIN { exit !(t > 0 && s > 0 && t < 1.05 * s && s < 1.05 * t) }' ||
      { echo "profile: $1: PROGRAM TOTALS $t disagrees with the sum of its costs ${sum:-?}" >&2; exit "$EXIT_FAILED"; }
    echo "$t"
  }
  total=$(total_ir "$out/callgrind.out")
  idle_ir=0; idle_s=0
  [ "$idle_on" = 1 ] && { idle_ir=$(total_ir "$out/callgrind-idle.out"); idle_s=$(awk -v a="$i0" -v b="$i1" 'BEGIN {print b - a}'); }
  window_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}')
  echo
  if window_counts; then
    client_reqs=$(jq '.requests' "$out/load.json")
    # reqs - pages: hitcost-load's GET /healthz (it checks the server answers) and GET /stats
    # before and after its run, plus our second GET /stats, which counts itself before
    # answering. pages - client_reqs: hitcost-load's first request, sent once before its run
    # (measure/preflight.h), and its warm-up's.
    echo "pages served in the window (server's /stats pages delta): $pages; other requests: $((reqs - pages)) (GET /healthz, GET /stats); hitcost-load counted $client_reqs requests in its window"
    awk -v t="$total" -v p="$pages" -v i="$idle_ir" -v is="$idle_s" -v w="$window_s" 'BEGIN {
      if (p <= 0) { print "profile: no pages in the window" > "/dev/stderr"; exit }
      rate = is > 0 ? i / is : 0
      printf "instructions per page: %.0f raw, ", t / p
      if (is > 0) printf "%.0f net of idle (idle: %.0f Ir/s over %.1f s; load window %.1f s, %s Ir over %s pages)\n", (t - rate * w) / p, rate, is, w, t, p
      else printf "no idle baseline (--idle 0) (load window %.1f s, %s Ir over %s pages)\n", w, t, p
    }'
  fi
else
  # utime + stime of the whole process, in clock ticks (fields 14 and 15, counted after
  # the ")" that ends the command name, which may itself hold spaces or parentheses), and
  # time on CPU in ns summed over its threads (schedstat): the ticks are 10 ms coarse.
  cpu_ticks() { sed 's/.*) //' "/proc/$server_pid/stat" | awk '{print $12 + $13}'; }
  cpu_ns() { cat "/proc/$server_pid"/task/*/schedstat 2>/dev/null | awk '{s += $1} END {printf "%.0f\n", s}'; }  # %.0f: mawk prints big sums as 2.9e+09
  tck=$(getconf CLK_TCK)
  idle_ns_per_s=0
  if [ "$idle_on" = 1 ]; then
    k0=$(cpu_ticks); n0=$(cpu_ns); i0=$(now); sleep "$idle"; k1=$(cpu_ticks); n1=$(cpu_ns); i1=$(now)
    idle_ns_per_s=$(awk -v n="$((n1 - n0))" -v a="$i0" -v b="$i1" 'BEGIN {print n / (b - a)}')
    awk -v k="$((k1 - k0))" -v t="$tck" -v n="$((n1 - n0))" -v a="$i0" -v b="$i1" 'BEGIN {
      printf "server idle CPU over %.1f s with no load: %.0f ms utime+stime (/proc/PID/stat, %.0f ms steps), %.2f ms on CPU (/proc/PID/task/*/schedstat)\n", b - a, 1000 * k / t, 1000 / t, n / 1e6 }' |
      tee "$out/idle.txt"
  fi
  stats; s0=$STATS; k0=$(cpu_ticks); n0=$(cpu_ns); t0=$(now)
  start_bg perf record -e cpu-clock -F 999 -g -p "$server_pid" -o "$out/perf.data" >"$out/perf-record.log" 2>&1
  perf_pid=$BG_PID
  sleep 0.5
  run_load
  kill -INT "$perf_pid"; wait_bg "$perf_pid" || true  # perf writes perf.data on SIGINT
  k1=$(cpu_ticks); n1=$(cpu_ns); t1=$(now); stats; s1=$STATS
  echo
  if window_counts; then
    awk -v p="$pages" -v k="$((k1 - k0))" -v t="$tck" -v n="$((n1 - n0))" -v r="$idle_ns_per_s" -v on="$idle_on" -v a="$t0" -v b="$t1" 'BEGIN {
      printf "pages served while perf recorded (server'"'"'s /stats pages delta): %d over %.1f s; server CPU meanwhile: %.2f ms on CPU (schedstat), %.0f ms utime+stime\n", p, b - a, n / 1e6, 1000 * k / t
      if (p <= 0) exit
      printf "server CPU per page: %.1f us raw, ", n / p / 1e3
      if (on) printf "%.1f us net of idle (idle: %.2f ms/s)\n", (n - r * (b - a)) / p / 1e3, r / 1e6
      else print "no idle baseline (--idle 0)" }'
  fi
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
files="top-inclusive.txt, top-self.txt, load.json"
if [ "$tool" = callgrind ]; then files+=", callgrind.out"; [ "$idle_on" = 1 ] && files+=", callgrind-idle.out"
else files+=", perf.data"; [ "$idle_on" = 1 ] && files+=", idle.txt"; fi
echo "files: $out/ ($files)"
exit "$LIB_EXIT"
