#!/usr/bin/env bash
# scripts/php-compare.sh — the seed experiment in PHP and in C++: the same values in the
# same memcached, read and rendered by hitcost-server and by the PHP application (php/ under
# php-fpm behind nginx), CPU per hit side by side with a verdict for each strategy.
#
#   scripts/php-compare.sh [--strategies S,S] [--rounds N | --min-rounds 3 --max-rounds 10]
#                          [--max-time 900] [--duration 3s] [--rows 50] [--keys 500] [--workers 1]
#                          [--extension memcached|memcache] [-- extra hitcost-load sweep options]
# --extension memcache: the PHP side reads with the Memcache class (pecl memcache) and
# hitcost-server writes php-memcache flags; default strategies then end with
# php-memcache-default instead of php-default and igbinary (which that extension lacks).
#
# How it measures. One memcached, one hitcost-server (the writer: it stores every strategy's
# values under a namespace of its own, php-memcached flags, and is the origin on a miss) and
# one PHP stack on free loopback ports. Each round runs one sweep per backend, all strategies
# once each in a shuffled order, at a 100 % hit ratio (every request a hit, so the PHP side's
# CPU per request is its CPU per hit); the backends alternate which goes first. The C++ side's
# CPU per hit is hitcost-server's own sample; the PHP side's comes from /proc for the php-fpm
# and nginx process trees (hitcost-load --server-tree), memcached's from its pid; both net of
# an idle baseline, sender-pays. `hitcost-load compare` pools the rounds and gives each
# strategy's PHP ÷ C++ ratio, paired by round, with the sweep's three answers ("costs X×
# [interval]", "the same within 5 %", undecided). Until decided (the default): after
# --min-rounds rounds, a round at a time until every strategy is decided, --max-rounds are in
# hand or --max-time seconds have passed (the verdicts pay for the looks: report/verdict.h);
# --rounds N runs exactly N rounds and looks once.
# Placement: on 2+ CPUs the server side (hitcost-server, or php-fpm and nginx) on CPU 0,
# memcached and the load on CPU 1 (HITCOST_SERVER_CPU / HITCOST_OTHER_CPU change it; a CPU
# not online is a usage error).
# Output: out/php-compare/ (HITCOST_OUT): each sweep's JSON, compare.{json,csv,html}.
# Environment: HITCOST_BUILD_DIR (default build/release), HITCOST_NO_BUILD=1 uses it as built.
# Exit codes: 0 done, 1 failed (could not start or measure), 2 usage error, 3 a sweep had
# errors above --max-error-rate (the comparison is still made), 4 an output not written (these
# three from hitcost-load, passed on), 130 interrupted (Ctrl-C, SIGTERM).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
source scripts/php-lib.sh
lib_init php-compare

strategies=""
rounds="" min_rounds=3 max_rounds=10 max_time=900 duration=3s rows=50 keys=500 workers=1 extension=memcached
extra=()
while [ $# -gt 0 ]; do
  case $1 in
    --strategies) strategies=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --min-rounds) min_rounds=$2; shift 2 ;;
    --max-rounds) max_rounds=$2; shift 2 ;;
    --max-time) max_time=$2; shift 2 ;;
    --duration) duration=$2; shift 2 ;;
    --rows) rows=$2; shift 2 ;;
    --keys) keys=$2; shift 2 ;;
    --workers) workers=$2; shift 2 ;;
    --extension) extension=$2; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) print_usage; exit "$EXIT_OK" ;;
    *) echo "php-compare: unknown option $1 (see --help)" >&2; exit "$EXIT_USAGE" ;;
  esac
done
for v in ${rounds:+rounds} min_rounds max_rounds max_time; do
  [[ ${!v} =~ ^[1-9][0-9]*$ ]] || { echo "php-compare: --${v//_/-} wants a positive number" >&2; exit "$EXIT_USAGE"; }
done
[ "$min_rounds" -ge 2 ] && [ "$max_rounds" -ge "$min_rounds" ] ||
  { echo "php-compare: want 2 <= --min-rounds <= --max-rounds" >&2; exit "$EXIT_USAGE"; }
# The looks: every round from --min-rounds (until decided), or one after the last (--rounds N).
if [ -n "$rounds" ]; then looks=(--min-rounds 0); last_round=$rounds
else looks=(--min-rounds "$min_rounds" --max-rounds "$max_rounds"); last_round=$max_rounds; fi
case $extension in
  memcached) flags=php-memcached
    : "${strategies:=struct:php+zlib,struct:php,html+zlib,html,php-default,struct:igbinary+fastlz}" ;;
  memcache) flags=php-memcache
    : "${strategies:=struct:php+zlib,struct:php,html+zlib,html,php-memcache-default}" ;;
  *) echo "php-compare: --extension is memcached or memcache" >&2; exit "$EXIT_USAGE" ;;
esac
ncpu=$(nproc)
server_cpu=${HITCOST_SERVER_CPU:-0}
other_cpu=${HITCOST_OTHER_CPU:-$(( ncpu > 1 ? 1 : 0 ))}
check_cpus HITCOST_SERVER_CPU "$server_cpu" || exit
check_cpus HITCOST_OTHER_CPU "$other_cpu" || exit

ensure_built build/release Release "build php" || exit
load=$BUILD_DIR/client/hitcost-load

out=${HITCOST_OUT:-out}/php-compare
if ! mkdir -p "$out" || ! rm -f "$out"/cpp-*.json "$out"/php-*.json; then
  echo "php-compare: cannot write to $out" >&2; exit "$EXIT_OUTPUT"
fi

at_cleanup stop_php_stack  # the PHP stack first, then memcached and hitcost-server

start_memcached "$other_cpu" 1024 || exit
echo "== memcached on 127.0.0.1:$MC_PORT (pid $MC_PID, CPU $other_cpu)" >&2
start_server "$BUILD_DIR" "$server_cpu" "$out/server.log" --store "memcached:127.0.0.1:$MC_PORT" \
  --flags "$flags" --strategy html || exit
echo "== hitcost-server at $SERVER_URL (pid $SERVER_PID, CPU $server_cpu)" >&2
start_php_stack --memcached "127.0.0.1:$MC_PORT" --origin "$SERVER_URL" --workers "$workers" \
  --cpus "$server_cpu" --rows "$rows" --extension "$extension" || exit
echo "== PHP at $PHP_STACK_URL (php-fpm $PHP_STACK_FPM_PID: workers $PHP_STACK_FPM_WORKERS;" \
  "nginx $PHP_STACK_NGINX_PID: workers $PHP_STACK_NGINX_WORKERS; CPU $server_cpu)" >&2

common=(--strategies "$strategies" --repeat 1 --latency-rate 0 --duration "$duration" --rows "$rows"
        --keys "$keys" --hit-ratio 1 --cpus "$other_cpu" --flags "$flags")
# In the background and waited for: a signal acts at once. A sweep with errors above
# --max-error-rate (3) still wrote its JSON: the comparison is made and the script ends with 3.
sweep_cpp() {
  local code=0
  run_bg "$load" sweep --url "$SERVER_URL" "${common[@]}" --order-seed "$1" --json "$out/cpp-$1.json" \
    ${extra[@]+"${extra[@]}"} >"$out/cpp-$1.log" || code=$?
  check_child "$code" "the C++ sweep of round $1" "$out/cpp-$1.log"
}
sweep_php() {
  local code=0
  run_bg "$load" sweep --url "$PHP_STACK_URL" --admin-url "$SERVER_URL" \
    --server-tree "$PHP_STACK_FPM_PID,$PHP_STACK_NGINX_PID" --cache-pids "$MC_PID" \
    "${common[@]}" --order-seed "$1" --json "$out/php-$1.json" ${extra[@]+"${extra[@]}"} >"$out/php-$1.log" ||
    code=$?
  check_child "$code" "the PHP sweep of round $1" "$out/php-$1.log"
}
# Whether every strategy's verdict is decided after the rounds in hand (hitcost-load compare's
# JSON: .verdicts[].decided), and a line saying so.
decided_so_far() {
  local code=0
  run_bg "$load" compare "${inputs[@]}" --baseline c++ "${looks[@]}" --json "$out/look.json" >/dev/null || code=$?
  check_child "$code" "hitcost-load compare (look after round $1)" || return 1
  jq -r --arg r "$1" '"== after round \($r): \([.verdicts[] | select(.decided)] | length) of \(.verdicts | length) strategies decided"' \
    "$out/look.json" >&2
  jq -e '.verdicts | length > 0 and all(.decided)' "$out/look.json" >/dev/null
}
inputs=()
started=$SECONDS
stopped="the last round (--rounds $last_round)"
for r in $(seq 1 "$last_round"); do
  echo "== round $r${rounds:+ of $rounds}" >&2
  if [ $((r % 2)) = 1 ]; then sweep_cpp "$r"; sweep_php "$r"; else sweep_php "$r"; sweep_cpp "$r"; fi
  inputs+=("c++=$out/cpp-$r.json" "php=$out/php-$r.json")
  [ -n "$rounds" ] || [ "$r" -lt "$min_rounds" ] && continue
  if decided_so_far "$r"; then stopped="every strategy decided"; break; fi
  stopped="--max-rounds $max_rounds"
  # A round takes about what the rounds so far took on average: no new one past --max-time.
  if [ $((SECONDS - started + (SECONDS - started) / r)) -gt "$max_time" ]; then
    stopped="the time budget (--max-time $max_time s)"; break
  fi
done
rm -f "$out/look.json"

echo
echo "CPU per hit, hitcost-server (C++) and PHP (php-fpm + nginx) on the same values; rows: backends, grouped by strategy"
echo "rounds: $((${#inputs[@]} / 2)) (stopped at $stopped)"
code=0
run_bg "$load" compare "${inputs[@]}" --baseline c++ "${looks[@]}" --json "$out/compare.json" \
  --csv "$out/compare.csv" --html "$out/compare.html" || code=$?
check_child "$code" "hitcost-load compare"
echo "== results: $out/compare.html, $out/compare.json, $out/compare.csv; each sweep's log and JSON in $out" >&2
exit "$LIB_EXIT"
