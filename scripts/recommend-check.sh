#!/usr/bin/env bash
# scripts/recommend-check.sh — hitcost-corpus recommend's answer checked on the whole hit: the
# corpus served by hitcost-server at GET /value/{n} from a real memcached, today's form against
# the recommended one in interleaved rounds until decided, the two figures side by side.
#
#   scripts/recommend-check.sh CORPUS [--php] [--duration 2s] [--min-rounds 3] [--max-rounds 10]
#                              [--max-time 600] [-- extra hitcost-corpus recommend options]
#
# How it measures.
#  1. hitcost-corpus recommend CORPUS, pinned to the other CPU, every value weighted alike (as
#     the sweep asks them), its memory counted by the memcached started here (--slabs-from), its
#     dictionaries kept (--dict-dir) for the server.
#  2. Today: the form most values are stored in, the compressor most compressed ones have and
#     the flag scheme's default rule (recommend's JSON "today": the corpus says no more of what
#     the application does). Recommended: the answer's strategy, threshold and dictionary.
#  3. hitcost-server serving the values recommend measured (CORPUS without the fifth that trained
#     the dictionaries: recommend --dict-dir writes it as measured.hcorpus), under the corpus's
#     flag scheme with the answer's dictionary loaded, on the server CPU over that memcached, and hitcost-load sweep over /value/{id} (every value, a
#     100 % hit ratio: CPU per request is CPU per hit) of today's and the recommended strategy,
#     each under its own threshold (--thresholds), rounds until the verdict is decided.
#  4. Prints the prediction and the measurement side by side. recommend times read + render
#     alone (no fetch, no response): its ratio is of those µs. The same saving in µs on the
#     whole hit predicts the server's ratio: 1 - (1 - r) x today's read+render µs / today's
#     server µs per hit, over r's interval. They agree when that interval and the sweep's
#     verdict interval overlap.
#  5. --php: the proof for a PHP shop is PHP itself. The PHP application (php/ under php-fpm
#     behind nginx, scripts/php-stack.sh; its extension decodes by the flags, its /value/{n}
#     renders byte for byte as hitcost-server does) reads the same values, which hitcost-server
#     writes (sweep --admin-url): today's form against the best answer PHP's extension reads
#     (the answer itself when it does, else the best PHP writes), swept until decided, its
#     verdict printed beside the C++ server's for the same pair.
# Placement: HITCOST_SERVER_CPU (default 0) for hitcost-server, HITCOST_OTHER_CPU (default 1) for
# memcached, the load and recommend's measuring thread.
# Output: out/recommend-check/ (HITCOST_OUT): recommend.{txt,json,html} (the chart), dicts/,
# sweep.{json,log}, server.log, check.json (both figures); with --php php-sweep.{json,log} and
# cpp-pair.{json,log} (the C++ sweep of the PHP pair, when it is not the answer's).
# Environment: HITCOST_BUILD_DIR (default build/release), HITCOST_NO_BUILD=1 uses it as built.
# Exit codes: 0 done (also when recommend makes no recommendation: nothing to check, said so),
# 1 failed (could not start or measure), 2 usage error, 3 a program found errors (a codec bug in
# recommend, errors above the sweep's limits), 4 an output not written, 130 interrupted.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
source scripts/php-lib.sh
lib_init recommend-check

corpus="" duration=2s min_rounds=3 max_rounds=10 max_time=600 php=""
extra=()
while [ $# -gt 0 ]; do
  case $1 in
    --duration) duration=$2; shift 2 ;;
    --min-rounds) min_rounds=$2; shift 2 ;;
    --max-rounds) max_rounds=$2; shift 2 ;;
    --max-time) max_time=$2; shift 2 ;;
    --php) php=1; shift ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) print_usage; exit "$EXIT_OK" ;;
    -*) echo "recommend-check: unknown option $1 (see --help)" >&2; exit "$EXIT_USAGE" ;;
    *) [ -z "$corpus" ] || { echo "recommend-check: one corpus, not '$1' too" >&2; exit "$EXIT_USAGE"; }
       corpus=$1; shift ;;
  esac
done
[ -n "$corpus" ] || { echo "recommend-check: which corpus? (see --help)" >&2; exit "$EXIT_USAGE"; }
for v in min_rounds max_rounds max_time; do
  [[ ${!v} =~ ^[1-9][0-9]*$ ]] || { echo "recommend-check: --${v//_/-} wants a positive number" >&2; exit "$EXIT_USAGE"; }
done
[ -r "$corpus" ] || { echo "recommend-check: cannot read the corpus $corpus" >&2; exit "$EXIT_FAILED"; }
ncpu=$(nproc)
server_cpu=${HITCOST_SERVER_CPU:-0}
other_cpu=${HITCOST_OTHER_CPU:-$(( ncpu > 1 ? 1 : 0 ))}
check_cpus HITCOST_SERVER_CPU "$server_cpu" || exit
check_cpus HITCOST_OTHER_CPU "$other_cpu" || exit

ensure_built build/release Release "build php" || exit  # php: jq
corpus_bin=$BUILD_DIR/advise/hitcost-corpus
load=$BUILD_DIR/client/hitcost-load
[ -x "$corpus_bin" ] || { echo "recommend-check: $corpus_bin is missing (build first)" >&2; exit "$EXIT_FAILED"; }

out=${HITCOST_OUT:-out}/recommend-check
if ! mkdir -p "$out/dicts" ||
   ! rm -f "$out"/{recommend.txt,recommend.json,recommend.html,sweep.json,sweep.log,check.json,php-sweep.json,php-sweep.log,cpp-pair.json,cpp-pair.log}; then
  echo "recommend-check: cannot write to $out" >&2; exit "$EXIT_OUTPUT"
fi

start_memcached "$other_cpu" 1024 || exit
echo "== memcached on 127.0.0.1:$MC_PORT (pid $MC_PID, CPU $other_cpu)" >&2

# 1. The answer.
echo "== hitcost-corpus recommend $corpus (CPU $other_cpu)" >&2
code=0
run_bg "$corpus_bin" recommend "$corpus" --cpu "$other_cpu" --weight uniform --slabs-from "memcached:127.0.0.1:$MC_PORT" \
  --dict-dir "$out/dicts" --json "$out/recommend.json" --html "$out/recommend.html" ${extra[@]+"${extra[@]}"} \
  >"$out/recommend.txt" || code=$?
check_child "$code" "hitcost-corpus recommend" "$out/recommend.txt" || exit
sed -n '1,/^$/p' "$out/recommend.txt"
if ! jq -e '.recommendation.made' "$out/recommend.json" >/dev/null; then
  echo "recommend-check: no recommendation to check: $(jq -r '.recommendation.sentence' "$out/recommend.json")"
  exit "$LIB_EXIT"
fi

# 2. Today and the answer as strategies the server stores.
scheme=$(jq -r '.today.scheme' "$out/recommend.json")
today=$(jq -r '.today.strategy' "$out/recommend.json")
today_t=$(jq -r '.today.threshold_bytes // 0' "$out/recommend.json")
rec=$(jq -r '.recommendation.strategy' "$out/recommend.json")
rec_t=$(jq -r '.recommendation.threshold_bytes // 0' "$out/recommend.json")
scope=$(jq -r '.recommendation.dictionary_scope // empty' "$out/recommend.json")
dict_file=$(jq -r '.recommendation.dictionary_file // empty' "$out/recommend.json")
keys=$(jq -r '.corpus.values_good' "$out/recommend.json")  # what the server numbers 0..N-1
if [ "$today" = "$rec" ] && [ "$today_t" = "$rec_t" ]; then
  echo "recommend-check: the answer is today's form ($today, threshold $today_t B): nothing to check"
  exit "$LIB_EXIT"
fi
dict=()
[ -z "$scope" ] || dict=(--zstd-dict "$scope=$out/dicts/$dict_file")
# The values recommend measured: without the fifth that trained its dictionaries, so that no
# value a dictionary learnt from is swept either.
served=$corpus
if [ "$(jq -r '.corpus.training_values' "$out/recommend.json")" != 0 ]; then
  served=$out/dicts/measured.hcorpus
fi

# 3. The whole hit on the server.
start_server "$BUILD_DIR" "$server_cpu" "$out/server.log" --store "memcached:127.0.0.1:$MC_PORT" \
  --corpus "$served" --flags "$scheme" --strategy "$today" ${dict[@]+"${dict[@]}"} || exit
echo "== hitcost-server at $SERVER_URL (pid $SERVER_PID, CPU $server_cpu): today $today (threshold $today_t B)" \
  "against $rec (threshold $rec_t B)" >&2
code=0
run_bg "$load" sweep --url "$SERVER_URL" --path-template '/value/{id}' --keys "$keys" --hit-ratio 1 \
  --strategies "$today,$rec" --thresholds "$today_t,$rec_t" --flags "$scheme" --cpus "$other_cpu" \
  --latency-rate 0 --duration "$duration" --min-rounds "$min_rounds" --max-rounds "$max_rounds" \
  --max-time "${max_time}s" --json "$out/sweep.json" >"$out/sweep.log" || code=$?
check_child "$code" "hitcost-load sweep" "$out/sweep.log" || exit

# 4. Side by side. recommend's ratio is of read + render alone; the server's of the whole hit
# (fetch, unwrap, decode, render, response). The same saving in µs explains both: predicted
# whole-hit ratio = 1 - (1 - r) x today's read+render µs / today's server µs per hit, r over its
# interval (today's server µs is the sweep's median: a point, not an interval).
jq -n --slurpfile r "$out/recommend.json" --slurpfile s "$out/sweep.json" --arg rec "$rec" --arg today "$today" '
  ($r[0].recommendation.confirmed) as $p
  | ($r[0].confirmation.rows[0].read_render_ns.mean / 1000) as $rr
  | ([$s[0].summary[] | select(.strategy == $today)][0].server_cpu_us_per_hit.median) as $st
  | ([$s[0].summary[] | select(.strategy == $rec)][0].server_cpu_us_per_hit.median) as $sr
  | ([$s[0].verdicts[] | select(.subject == $rec)][0]) as $m
  | def whole(x): if x == null then null else 1 - (1 - x) * $rr / $st end;
  {today: $r[0].today, recommended: $r[0].recommendation.candidate,
   predicted: {what: "hitcost-corpus recommend: read + render CPU per hit (no fetch, no response)",
               read_render_ratio: $p.ratio, low: $p.low, high: $p.high, kind: $p.kind,
               today_read_render_us: $rr, saving_us: (if $p.ratio == null then null else (1 - $p.ratio) * $rr end),
               whole_hit_ratio: whole($p.ratio), whole_low: whole($p.low), whole_high: whole($p.high)},
   measured: {what: "hitcost-server CPU per hit, GET /value/{n}, the whole hit", metric: $m.metric,
              ratio: $m.ratio, low: $m.low, high: $m.high, kind: $m.kind, decided: $m.decided, pairs: $m.pairs,
              today_us: $st, recommended_us: $sr, saving_us: ($st - $sr)}}
  | .agree = ((.predicted.whole_low != null) and (.measured.low != null)
              and (.predicted.whole_low <= .measured.high) and (.measured.low <= .predicted.whole_high))' \
  >"$out/check.json" || { echo "recommend-check: cannot write $out/check.json" >&2; exit "$EXIT_OUTPUT"; }
jq -r '
  def r3: . * 1000 | round / 1000;
  def r2: . * 100 | round / 100;
  "\nrecommended \(.recommended) against today (\(.today.strategy)\(if .today.threshold_bytes == null then ", nothing compressed" else ", threshold \(.today.threshold_bytes) B" end)):",
  "  predicted  read + render \(.predicted.read_render_ratio | r3)x [\(.predicted.low | r3)..\(.predicted.high | r3)]: saves \(.predicted.saving_us | r2) of \(.predicted.today_read_render_us | r2) us per hit;",
  "             the whole hit \(.predicted.whole_hit_ratio | r3)x [\(.predicted.whole_low | r3)..\(.predicted.whole_high | r3)] of the server'"'"'s \(.measured.today_us | r2) us",
  "  measured   the whole hit \(if .measured.ratio == null then "undecided" else "\(.measured.ratio | r3)x [\(.measured.low | r3)..\(.measured.high | r3)] (\(.measured.kind))" end): \(.measured.today_us | r2) -> \(.measured.recommended_us | r2) us, saves \(.measured.saving_us | r2) us; \(.measured.pairs) rounds",
  "  \(if .agree then "agree: the server confirms the predicted saving within its interval" else "disagree: the intervals do not overlap (see sweep.log and recommend.txt)" end)"' \
  "$out/check.json"

# 5. PHP on the same values: today against the best answer PHP's extension reads.
if [ -n "$php" ]; then
  case $scheme in
    php-memcached) extension=memcached ;;
    php-memcache) extension=memcache ;;
    *) echo "recommend-check: --php: PHP's extensions cannot read the $scheme flag scheme" >&2; exit "$EXIT_USAGE" ;;
  esac
  pick='if .recommendation.php != "cannot read" then .recommendation else .recommendation_php end'
  if ! jq -e "($pick) | .made" "$out/recommend.json" >/dev/null; then
    echo "recommend-check: --php: no answer PHP's extension reads: nothing to check on PHP"
    exit "$LIB_EXIT"
  fi
  prec=$(jq -r "($pick).strategy" "$out/recommend.json")
  prec_t=$(jq -r "($pick).threshold_bytes // 0" "$out/recommend.json")
  at_cleanup stop_php_stack  # before memcached and hitcost-server
  start_php_stack --memcached "127.0.0.1:$MC_PORT" --origin "$SERVER_URL" --cpus "$server_cpu" \
    --extension "$extension" || exit
  echo "== PHP at $PHP_STACK_URL (php-fpm $PHP_STACK_FPM_PID, nginx $PHP_STACK_NGINX_PID; CPU $server_cpu):" \
    "today $today against $prec (threshold $prec_t B)" >&2
  pair=(--path-template '/value/{id}' --keys "$keys" --hit-ratio 1 --strategies "$today,$prec"
        --thresholds "$today_t,$prec_t" --flags "$scheme" --cpus "$other_cpu" --latency-rate 0 --duration "$duration"
        --min-rounds "$min_rounds" --max-rounds "$max_rounds" --max-time "${max_time}s")
  code=0
  run_bg "$load" sweep --url "$PHP_STACK_URL" --admin-url "$SERVER_URL" \
    --server-tree "$PHP_STACK_FPM_PID,$PHP_STACK_NGINX_PID" --cache-pids "$MC_PID" "${pair[@]}" \
    --json "$out/php-sweep.json" >"$out/php-sweep.log" || code=$?
  check_child "$code" "the PHP sweep" "$out/php-sweep.log" || exit
  if [ "$prec" = "$rec" ] && [ "$prec_t" = "$rec_t" ]; then
    cp "$out/sweep.json" "$out/cpp-pair.json"
  else
    code=0
    run_bg "$load" sweep --url "$SERVER_URL" "${pair[@]}" --json "$out/cpp-pair.json" >"$out/cpp-pair.log" || code=$?
    check_child "$code" "the C++ sweep of the PHP pair" "$out/cpp-pair.log" || exit
  fi
  jq -n -r --slurpfile p "$out/php-sweep.json" --slurpfile c "$out/cpp-pair.json" --arg prec "$prec" --arg today "$today" '
    def r3: . * 1000 | round / 1000;
    def r2: . * 100 | round / 100;
    def row($doc; $who): ([$doc.summary[] | select(.strategy == $today)][0].server_cpu_us_per_hit.median) as $t
      | ([$doc.summary[] | select(.strategy == $prec)][0].server_cpu_us_per_hit.median) as $r
      | ([$doc.verdicts[] | select(.subject == $prec)][0]) as $v
      | "  \($who)  \($t | r2) -> \($r | r2) us per hit: \(if $v.ratio == null then "undecided" else "\($v.ratio | r3)x [\($v.low | r3)..\($v.high | r3)] (\($v.kind))" end), \($v.pairs) rounds";
    "
for PHP: \($prec) against today (\($today)), the whole hit on each backend:",
    row($p[0]; "PHP (php-fpm + nginx)"), row($c[0]; "C++ (hitcost-server)  ")'
fi
echo "== results: $out/check.json, $out/recommend.txt, $out/sweep.log${php:+, $out/php-sweep.log}" >&2
exit "$LIB_EXIT"
