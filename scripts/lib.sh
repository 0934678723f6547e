# shellcheck shell=bash disable=SC2034  # (variables set for the scripts that source it)
# scripts/lib.sh — sourced by run.sh, the scripts in scripts/ and the bench anchors: the
# exit-code contract, one cleanup that stops everything a script started, waits a signal can
# interrupt, HTTP calls that show the server's reason, CPU checks, and a private memcached and
# hitcost-server on free loopback ports. Works from any current directory.
#
#   EXIT_OK EXIT_FAILED EXIT_USAGE EXIT_ERRORS EXIT_OUTPUT EXIT_INTERRUPTED   0 1 2 3 4 130
#   lib_init NAME             traps: INT, TERM and the --time-limit timer print why and exit
#                             130; EXIT runs the cleanup, once: at_cleanup commands (last
#                             registered first), then stop_started
#   at_cleanup COMMAND...     a command the cleanup runs before the started processes stop
#   hold_signals, release_signals   between them a signal is only noted; the release acts on
#                             it (around `cmd &` and the line that keeps its pid, or a stop)
#   start_time_limit SECONDS  the script stops (130) after SECONDS
#   start_bg PROGRAM ARGS...  PROGRAM in the background, its pid registered before any signal
#                             can act (redirect the call); sets BG_PID
#   wait_bg PID               waits for a started process, returns its exit code, forgets it
#   run_bg PROGRAM ARGS...    start_bg and wait_bg: a signal to the script acts at once (a
#                             foreground child would delay the trap until the child ends)
#   start_service PROGRAM ARGS...   start_bg for a process the others talk to: stopped after them,
#                             in a process group of its own (a terminal's Ctrl-C reaches the
#                             script and its clients, not the services they still need)
#   stop_pid PID [WAIT_S]     TERM one started process, KILL after WAIT_S (5), forget it
#   stop_started              the same for everything started: the clients, then the services
#   stop_clients              TERM, then KILL, the started processes that are not services, and
#                             wait until they are gone (reaped later, by stop_started)
#   print_usage               the calling script's --help: its header comment, from line 2 to
#                             the first `set -` line, without the leading '# '
#   value_options "NAME..." ARGS...   a command line of options that each take a value: each
#                             `--NAME VALUE` (NAME one of the quoted words) sets the variable
#                             NAME, dashes as underscores (--hit-ratio → hit_ratio); -h/--help
#                             prints the usage and exits 0; an unknown option or a missing value
#                             says so and exits 2
#   lib_caught                prints the signal caught (INT, TERM, or USR1 for the time limit)
#                             and succeeds, or fails when none was: an at_cleanup command tells
#                             an interrupted run from a finished one with it
#   child_exit CODE           a child's exit code as this script's: the contract's codes pass,
#                             killed by INT or TERM → 130, anything else → 1
#   check_child CODE WHAT [LOG]   after a hitcost-load run: 3 → a warning and LIB_EXIT=3 (the
#                             outputs exist; the script goes on), 130 → the script is
#                             interrupted (as by its own trap), other failures → exit
#   http_get URL [MAX_S], http_post URL [DATA] [MAX_S]
#                             sets HTTP_STATUS, HTTP_BODY (text) and HTTP_BODY_FILE (the exact
#                             bytes, until the next call); on no answer or a non-2xx status it
#                             prints "NAME: POST /path → 400: the server's reason" and returns 2
#                             for 400 (the server rejected a value) or 1; with
#                             HITCOST_ADMIN_TOKEN_FILE set, each request carries that file's token
#                             (Authorization: Bearer, for a server's --admin-token-file)
#   http_use_dir DIR          keep those files in DIR, not in a temporary directory of their own
#                             (the cleanup removes DIR; a script without lib_init removes it)
#   pid_alive PID             the process runs and is not a zombie (builtins only: cheap in loops)
#   check_cpus WHAT LIST      returns 2 with a message when a CPU of LIST is not online or
#                             not allowed to this process
#   check_port WHAT PORT [ZERO]   returns 2 with a message unless PORT is 1..65535, or 0 when
#                             ZERO says what 0 means there ("a free port"); never wrapped
#   check_address WHAT HOST:PORT[,HOST:PORT...]   each a host and such a port ([v6]:PORT too)
#   check_base_url WHAT URL   http://HOST:PORT[/], the port checked; a path is refused (the
#                             programs' paths are their own options)
#   ensure_built DEFAULT_DIR TYPE DEPS
#                             the build-directory rule: sets BUILD_DIR to HITCOST_BUILD_DIR, else
#                             DEFAULT_DIR (both relative to the checkout, where the scripts run);
#                             unless HITCOST_NO_BUILD is set, installs the DEPS groups
#                             (scripts/install-deps.sh; "" = none) and builds TYPE there without
#                             tests and benchmarks; then hitcost-server and hitcost-load must be
#                             in it (else a message and EXIT_FAILED)
#   start_memcached CPU [MEMORY_MB] [LOG]    sets MC_PORT, MC_PID (CPU "" = not pinned)
#   start_server BUILD_DIR CPU LOG ARGS...   sets SERVER_URL, SERVER_PID (CPU "" = not pinned)
#   wait_listening LOG PID [TIMEOUT_S]       waits for hitcost-server's "listening on IP:PORT"
#                             in LOG, sets LISTENING_ADDR=IP:PORT; returns EXIT_FAILED with a
#                             message (and LOG) as soon as PID exits, or after TIMEOUT_S (10)
#   memcached_stat HOST:PORT NAME            one figure of a node's `stats` (bash /dev/tcp)
#   memcached_nodes_table HOST:PORT...       a table of how the keys spread over the nodes:
#                             curr_items, get_hits, get_misses, bytes, CPU seconds (topology.sh,
#                             the compose load service)

# The exit-code contract, the same in hitcost-server, hitcost-load and every script.
readonly EXIT_OK=0           # a measurement that is a measurement; a server stopped cleanly
readonly EXIT_FAILED=1       # nothing could be measured, or something could not start
readonly EXIT_USAGE=2        # unknown option or bad value (also one the server rejects: 400)
readonly EXIT_ERRORS=3       # a run had errors above --max-error-rate
readonly EXIT_OUTPUT=4       # an output could not be written
readonly EXIT_INTERRUPTED=130  # SIGINT, SIGTERM or --time-limit

LIB_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LIB_NAME=$(basename "$0" .sh)
LIB_EXIT=$EXIT_OK   # what a script ends with after check_child let it go on
LIB_STOP_WAIT_S=5   # TERM, then KILL after this many seconds

STARTED_PIDS=()
_LIB_SERVICES=()    # the started pids that serve the others (memcached, hitcost-server): stopped last
_LIB_HOLD=0         # > 0: a signal is only noted (a pid between start and registration, or the cleanup)
_LIB_CAUGHT=""      # the first signal caught: INT, TERM or USR1 (the time limit)
_LIB_CLEANED=""
_LIB_HOOKS=()
_LIB_TIME_LIMIT=""
_LIB_HTTP_DIR=""
_LIB_WAIT_PID=""    # the started process wait_bg is waiting for
_LIB_OWN_GROUP=""   # set by start_service: the next start_bg gives its process a group of its own
_LIB_OUT="" _LIB_ERR=""  # the script's own stdout and stderr, kept by lib_init

exit_meaning() {
  case $1 in
    0) echo "success" ;;
    1) echo "failed" ;;
    2) echo "usage error" ;;
    3) echo "errors above --max-error-rate" ;;
    4) echo "an output could not be written" ;;
    130) echo "interrupted" ;;
    *) echo "unexpected exit code" ;;
  esac
}

lib_init() {
  LIB_NAME=$1
  # A signal can act inside a call whose output goes to a file (start_bg CMD >log): the
  # message and the cleanup's output go back to where the script's own went.
  exec {_LIB_OUT}>&1 {_LIB_ERR}>&2
  trap '_lib_on_signal INT' INT
  trap '_lib_on_signal TERM' TERM
  trap '_lib_on_signal USR1' USR1
  # One simple command: no signal can act between noting the exit code and holding signals.
  # shellcheck disable=SC2154  # _lib_exit_code is assigned in the trap itself
  trap '_lib_exit_code=$? _LIB_HOLD=$((_LIB_HOLD + 1)); _lib_cleanup_once; exit "$_lib_exit_code"' EXIT
}

at_cleanup() { _LIB_HOOKS+=("$*"); }

# Bash runs a trap between two commands, so a signal can land between `cmd &` and the line
# that registers its pid; while _LIB_HOLD is set the trap only notes the signal, and the
# release acts on it.
# A trap that interrupts `wait` must not exit either: in bash 5.2, after `exit` from such a
# trap, a `wait` in the EXIT trap for a child that has already ended blocks until some other
# child ends (the cleanup hung for as long as a server kept running). So it ends the awaited
# process, and wait_bg, back in the script's own flow, stops everything; when the signal lands
# just before the `wait`, the TERM already sent still makes it return.
_lib_on_signal() {
  [ -n "$_LIB_CAUGHT" ] || _LIB_CAUGHT=$1
  if [ "$_LIB_HOLD" -gt 0 ]; then return 0; fi
  if [ -n "$_LIB_WAIT_PID" ]; then
    kill -TERM "$_LIB_WAIT_PID" 2>/dev/null || true
    return 0
  fi
  _lib_interrupted
}

hold_signals() { _LIB_HOLD=$((_LIB_HOLD + 1)); }

release_signals() {
  _LIB_HOLD=$((_LIB_HOLD - 1))
  if [ "$_LIB_HOLD" -eq 0 ] && [ -n "$_LIB_CAUGHT" ]; then _lib_interrupted; fi
}

# The cleanup runs here before `exit`, not only from the EXIT trap: a signal that lands as the
# EXIT trap begins would otherwise end that trap before it stopped anything.
_lib_interrupted() {
  if [ -n "$_LIB_ERR" ]; then exec 1>&"$_LIB_OUT" 2>&"$_LIB_ERR"; fi
  if [ "$_LIB_CAUGHT" = USR1 ]; then
    echo "$LIB_NAME: --time-limit ${_LIB_TIME_LIMIT}s reached, stopping everything it started" >&2
  else
    echo "$LIB_NAME: interrupted (SIG$_LIB_CAUGHT), stopping everything it started" >&2
  fi
  _lib_cleanup_once
  exit "$EXIT_INTERRUPTED"
}

_lib_cleanup_once() {
  [ -z "$_LIB_CLEANED" ] || return 0
  _LIB_CLEANED=1 _LIB_HOLD=1  # signals from now on are only noted: the cleanup finishes
  set +e  # a failing kill (a process already gone) must not end the cleanup
  local i
  for ((i = ${#_LIB_HOOKS[@]} - 1; i >= 0; i--)); do eval "${_LIB_HOOKS[i]}"; done
  stop_started
  [ -n "$_LIB_HTTP_DIR" ] && rm -rf "$_LIB_HTTP_DIR"
  return 0
}

# Alive and not a zombie (a dead child stays in the table until it is reaped). Builtins only:
# the PHP stack's foreground loop calls it every second on a machine that is measuring.
pid_alive() {
  local st
  read -r st 2>/dev/null <"/proc/$1/stat" || return 1
  st=${st##*) }  # the state follows the command name's closing parenthesis
  [[ $st != Z* ]]
}

_lib_forget() {
  local p kept=() services=()
  for p in ${STARTED_PIDS[@]+"${STARTED_PIDS[@]}"}; do [ "$p" = "$1" ] || kept+=("$p"); done
  for p in ${_LIB_SERVICES[@]+"${_LIB_SERVICES[@]}"}; do [ "$p" = "$1" ] || services+=("$p"); done
  STARTED_PIDS=(${kept[@]+"${kept[@]}"})
  _LIB_SERVICES=(${services[@]+"${services[@]}"})
}

start_bg() {
  local own_group=${_LIB_OWN_GROUP:-}
  _LIB_OWN_GROUP=""
  if [ "$(type -t "$1")" != file ]; then
    echo "$LIB_NAME: start_bg runs programs, not the $(type -t "$1") '$1' (its children would outlive a stop)" >&2
    return "$EXIT_FAILED"
  fi
  hold_signals
  # Job control for this one start gives the process a group of its own; its stdin is then
  # /dev/null by hand, as a background job without job control gets it.
  if [ -n "$own_group" ]; then
    set -m
    if [ -n "$_LIB_ERR" ]; then "$@" </dev/null {_LIB_OUT}>&- {_LIB_ERR}>&- & else "$@" </dev/null & fi
    BG_PID=$!
    set +m
  elif [ -n "$_LIB_ERR" ]; then
    "$@" {_LIB_OUT}>&- {_LIB_ERR}>&- &  # the kept copies stay with the script
    BG_PID=$!
  else
    "$@" &
    BG_PID=$!
  fi
  STARTED_PIDS+=("$BG_PID")
  release_signals
}

wait_bg() {
  local code=0
  _LIB_WAIT_PID=$1
  wait "$1" || code=$?
  _LIB_WAIT_PID=""
  # Interrupted: the process is still registered, the cleanup stops and reaps it.
  if [ -n "$_LIB_CAUGHT" ] && [ "$_LIB_HOLD" -eq 0 ]; then _lib_interrupted; fi
  _lib_forget "$1"
  return "$code"
}

run_bg() {
  start_bg "$@" || return
  wait_bg "$BG_PID"
}

# A service runs in a process group of its own: a terminal's Ctrl-C goes to the foreground
# group only — the script and its clients — so a client that is told to stop still finds its
# services while it finishes (a sweep puts the server's configuration back), and the cleanup
# stops the services after the clients, as it does for a SIGTERM to the script. They stay in
# the script's session.
start_service() {
  hold_signals
  _LIB_OWN_GROUP=1
  if start_bg "$@"; then _LIB_SERVICES+=("$BG_PID"); else release_signals; return "$EXIT_FAILED"; fi
  release_signals
}

# _lib_term WAIT_S PID...: TERM all of them at once (memcached takes up to a second to stop:
# one after the other, ten nodes would outlast any bound), then _lib_wait_gone.
_lib_term() {
  local wait_s=$1 p
  shift
  for p in "$@"; do kill -TERM "$p" 2>/dev/null || true; done
  _lib_wait_gone "$wait_s" "$@"
}

# _lib_wait_gone WAIT_S PID...: until none of them runs, or WAIT_S has passed. The pids need
# not be this shell's children (the PHP stack waits for its masters' workers too).
_lib_wait_gone() {
  local wait_s=$1 p deadline alive
  shift
  deadline=$(( ${EPOCHREALTIME//[!0-9]/} + wait_s * 1000000 ))  # µs (the separator is the locale's)
  while [ "${EPOCHREALTIME//[!0-9]/}" -lt "$deadline" ]; do
    alive=0
    for p in "$@"; do
      if pid_alive "$p"; then alive=1; break; fi
    done
    [ "$alive" = 1 ] || break
    sleep 0.02
  done
}

# _lib_kill PID...: KILL what is left, then reap. Every KILL comes before any wait: a wait never
# blocks on one process while another still runs.
_lib_kill() {
  local p
  for p in "$@"; do
    if pid_alive "$p"; then kill -KILL "$p" 2>/dev/null || true; fi
  done
  for p in "$@"; do wait "$p" 2>/dev/null || true; done
}

stop_pid() {
  hold_signals
  _lib_term "${2:-$LIB_STOP_WAIT_S}" "$1"
  _lib_kill "$1"
  _lib_forget "$1"
  release_signals
}

# The started pids that are not services (the clients), into the array named by $1.
_lib_clients() {
  local -n _lib_out=$1
  local p
  for p in ${STARTED_PIDS[@]+"${STARTED_PIDS[@]}"}; do
    [[ " ${_LIB_SERVICES[*]-} " == *" $p "* ]] || _lib_out+=("$p")
  done
}

# The clients first (they may still talk to the services: a sweep writes what it finished),
# then the services; each group within LIB_STOP_WAIT_S.
stop_started() {
  hold_signals
  local first=()
  _lib_clients first
  _lib_term "$LIB_STOP_WAIT_S" ${first[@]+"${first[@]}"}
  _lib_term "$LIB_STOP_WAIT_S" ${_LIB_SERVICES[@]+"${_LIB_SERVICES[@]}"}
  _lib_kill ${STARTED_PIDS[@]+"${STARTED_PIDS[@]}"}
  STARTED_PIDS=() _LIB_SERVICES=()
  release_signals
}

# Not reaped here: the cleanup's stop_started waits for every pid once the services are told to
# stop as well. A `wait` for a child bash has already reaped (a client whose wait_bg was
# interrupted) can block until some other child ends: with the services still running, that
# would be never (see _lib_on_signal).
stop_clients() {
  hold_signals
  local p first=()
  _lib_clients first
  _lib_term "$LIB_STOP_WAIT_S" ${first[@]+"${first[@]}"}
  for p in ${first[@]+"${first[@]}"}; do
    if pid_alive "$p"; then kill -KILL "$p" 2>/dev/null || true; fi
  done
  _lib_wait_gone 1 ${first[@]+"${first[@]}"}
  release_signals
}

print_usage() {
  sed -n '2,/^set -[eu]/p' "$0" | sed '$d; s/^# \{0,1\}//'
}

value_options() {
  local names=" $1 " name
  shift
  while [ $# -gt 0 ]; do
    case $1 in -h | --help) print_usage; exit "$EXIT_OK" ;; esac
    name=${1#--}
    if [[ $1 != --* || $names != *" $name "* ]]; then
      echo "${LIB_NAME:-${0##*/}}: unknown option $1 (see --help)" >&2
      exit "$EXIT_USAGE"
    fi
    [ $# -ge 2 ] || { echo "${LIB_NAME:-${0##*/}}: $1 takes a value" >&2; exit "$EXIT_USAGE"; }
    printf -v "${name//-/_}" '%s' "$2"
    shift 2
  done
}

lib_caught() {
  [ -n "$_LIB_CAUGHT" ] || return 1
  echo "$_LIB_CAUGHT"
}

# The --time-limit timer, a background subshell: it sleeps, then sends USR1 to the script.
# Stopped with TERM, it takes its sleep down with it: the trap is set before the sleep starts
# and kills it once its pid is known, and the pid is checked after the trap may have run.
_lib_timer() {
  local seconds=$1 script=$2 cancelled="" sleep_pid=""
  set +e
  trap 'cancelled=1; if [ -n "$sleep_pid" ]; then kill "$sleep_pid" 2>/dev/null; fi' TERM
  # A terminal's Ctrl-C reaches the script's whole process group, this subshell too: left to
  # its default, SIGINT ended the subshell and left its sleep running after the script. The
  # script stops the timer itself (TERM, above) when it acts on the signal.
  trap '' INT
  exec >/dev/null 2>&1 </dev/null
  sleep "$seconds" &
  sleep_pid=$!
  if [ -n "$cancelled" ]; then kill "$sleep_pid" 2>/dev/null; fi
  wait "$sleep_pid"
  if [ -z "$cancelled" ]; then kill -USR1 "$script"; fi
  kill "$sleep_pid" 2>/dev/null
  wait "$sleep_pid"
  exit 0
}

start_time_limit() {
  _LIB_TIME_LIMIT=$1
  hold_signals
  _lib_timer "$1" "$$" &
  STARTED_PIDS+=("$!")
  release_signals
}

child_exit() {
  case $1 in
    0 | 1 | 2 | 3 | 4 | 130) echo "$1" ;;
    $((128 + 2)) | $((128 + 15))) echo "$EXIT_INTERRUPTED" ;;
    *) echo "$EXIT_FAILED" ;;
  esac
}

check_child() {
  local code what=$2 log=${3:-}
  code=$(child_exit "$1")
  [ "$code" = 0 ] && return 0
  # An interrupted child means an interrupted script: the terminal's Ctrl-C reaches the script's
  # whole process group, and the child may end before the script's own trap has run. The
  # interruption path (the cleanup's hooks, then exit 130) follows either way, never the
  # child's log of a window cut short.
  if [ "$code" = "$EXIT_INTERRUPTED" ]; then
    [ -n "$_LIB_CAUGHT" ] || _LIB_CAUGHT=INT
    _lib_interrupted
  fi
  if [ "$code" = "$EXIT_ERRORS" ]; then
    echo "$LIB_NAME: warning: $what had errors above --max-error-rate (its figures are in its outputs); exit code 3 at the end" >&2
    LIB_EXIT=$EXIT_ERRORS
    return 0
  fi
  echo "$LIB_NAME: $what exited $1 ($(exit_meaning "$code"))" >&2
  if [ -n "$log" ] && [ -s "$log" ]; then tail -20 "$log" >&2; fi
  exit "$code"
}

# http_request METHOD URL DATA MAX_S: curl in the background (a signal acts at once), the body
# in a file, the status apart; the server's reason (the body of a non-2xx answer) on stderr.
_lib_http() {
  local method=$1 url=$2 data=$3 max_s=$4 code=0 path args
  # The script's own directory, removed by its cleanup; in a subshell ($(...)) that directory
  # would be the subshell's alone and outlive it, so then it is removed when the subshell exits.
  if [ "$BASHPID" != "$$" ] && [ -z "${_LIB_HTTP_SUBSHELL:-}" ]; then
    _LIB_HTTP_SUBSHELL=1 _LIB_HTTP_DIR=""
    trap '[ -n "$_LIB_HTTP_DIR" ] && rm -rf "$_LIB_HTTP_DIR"' EXIT
  fi
  if [ -z "$_LIB_HTTP_DIR" ]; then
    _LIB_HTTP_DIR=$(mktemp -d "${TMPDIR:-/tmp}/hitcost-http.XXXXXX")
  fi
  mkdir -p "$_LIB_HTTP_DIR"
  HTTP_BODY_FILE=$_LIB_HTTP_DIR/body
  args=(-sS --max-time "$max_s" -o "$HTTP_BODY_FILE" -w '%{http_code}')
  # A server beyond loopback wants its admin token (--admin-token-file): its first line, trimmed
  # as the server and hitcost-load trim it, sent from a header file, so the token is in no
  # command line (ps) and in no log.
  if [ -n "${HITCOST_ADMIN_TOKEN_FILE:-}" ]; then
    (umask 077 && printf 'Authorization: Bearer %s\n' "$(head -n1 "$HITCOST_ADMIN_TOKEN_FILE" | sed 's/^[[:space:]]*//; s/[[:space:]]*$//')" >"$_LIB_HTTP_DIR/auth") ||
      { echo "$LIB_NAME: HITCOST_ADMIN_TOKEN_FILE $HITCOST_ADMIN_TOKEN_FILE cannot be read" >&2; return "$EXIT_FAILED"; }
    args+=(-H "@$_LIB_HTTP_DIR/auth")
  fi
  [ "$method" = POST ] && args+=(-X POST --data "$data")
  path=/${url#*://*/}
  [ "$path" = "/$url" ] && path=/
  run_bg curl "${args[@]}" "$url" >"$_LIB_HTTP_DIR/status" 2>"$_LIB_HTTP_DIR/curl-error" || code=$?
  HTTP_STATUS=$(cat "$_LIB_HTTP_DIR/status" 2>/dev/null)
  HTTP_BODY=$(cat "$HTTP_BODY_FILE" 2>/dev/null)
  if [ "$code" != 0 ] || [ "${HTTP_STATUS:-000}" = 000 ]; then
    echo "$LIB_NAME: $method $path: no answer from ${url%"${path#/}"} ($(tr '\n' ' ' <"$_LIB_HTTP_DIR/curl-error" | sed 's/ *$//'))" >&2
    return "$EXIT_FAILED"
  fi
  if [[ $HTTP_STATUS != 2?? ]]; then
    echo "$LIB_NAME: $method $path → $HTTP_STATUS: $(head -c 500 "$HTTP_BODY_FILE" | head -5)" >&2
    [ "$HTTP_STATUS" = 400 ] && return "$EXIT_USAGE"
    return "$EXIT_FAILED"
  fi
}

http_use_dir() { _LIB_HTTP_DIR=$1; }

http_get() { _lib_http GET "$1" "" "${2:-10}"; }
http_post() { _lib_http POST "$1" "${2:-}" "${3:-10}"; }

# _lib_cpus LIST: one CPU number a line ("0-3,6" → 0 1 2 3 6); fails on anything else.
_lib_cpus() {
  local part pieces cpu
  IFS=, read -r -a pieces <<<"$1"
  [ "${#pieces[@]}" -gt 0 ] || return 1
  for part in "${pieces[@]}"; do
    if [[ $part =~ ^([0-9]{1,4})-([0-9]{1,4})$ ]] && ((10#${BASH_REMATCH[1]} <= 10#${BASH_REMATCH[2]})); then
      for ((cpu = 10#${BASH_REMATCH[1]}; cpu <= 10#${BASH_REMATCH[2]}; cpu++)); do echo "$cpu"; done
    elif [[ $part =~ ^[0-9]{1,4}$ ]]; then
      echo "$((10#$part))"
    else
      return 1
    fi
  done
}

check_cpus() {
  local what=$1 list=$2 online allowed want cpu
  if ! want=$(_lib_cpus "$list"); then
    echo "$LIB_NAME: $what: '$list' is not a CPU list (e.g. 1 or 0,2 or 0-3)" >&2
    return "$EXIT_USAGE"
  fi
  online=$(cat /sys/devices/system/cpu/online 2>/dev/null || echo "0-$(($(nproc --all) - 1))")
  allowed=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)
  local -A is_online=() is_allowed=()
  for cpu in $(_lib_cpus "$online"); do is_online[$cpu]=1; done
  for cpu in $(_lib_cpus "${allowed:-$online}"); do is_allowed[$cpu]=1; done
  for cpu in $want; do
    if [ -z "${is_online[$cpu]:-}" ]; then
      echo "$LIB_NAME: $what: CPU $cpu is not online (online: $online)" >&2
      return "$EXIT_USAGE"
    fi
    if [ -z "${is_allowed[$cpu]:-}" ]; then
      echo "$LIB_NAME: $what: CPU $cpu is online but not allowed to this process (Cpus_allowed_list: $allowed)" >&2
      return "$EXIT_USAGE"
    fi
  done
}

check_port() {
  local what=$1 port=$2 zero=${3:-}
  if [[ $port =~ ^[0-9]{1,5}$ ]] && ((10#$port >= 1 && 10#$port <= 65535)); then return 0; fi
  if [ -n "$zero" ] && [[ $port =~ ^0+$ ]]; then return 0; fi
  echo "$LIB_NAME: $what: '$port' is not a port (1..65535${zero:+, or 0 for $zero})" >&2
  return "$EXIT_USAGE"
}

check_address() {
  local what=$1 list=$2 item items
  IFS=, read -r -a items <<<"$list"
  [ "${#items[@]}" -gt 0 ] || { echo "$LIB_NAME: $what: no HOST:PORT given" >&2; return "$EXIT_USAGE"; }
  for item in "${items[@]}"; do
    if [[ ! $item =~ ^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+):([^:]*)$ ]]; then
      echo "$LIB_NAME: $what: '$item' is not HOST:PORT" >&2
      return "$EXIT_USAGE"
    fi
    check_port "$what $item" "${BASH_REMATCH[2]}" || return
  done
}

check_base_url() {
  local what=$1 url=$2
  if [[ ! $url =~ ^http://(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)(:([^/]*))?/?$ ]]; then
    echo "$LIB_NAME: $what: '$url' is not a base URL http://HOST:PORT (no path: paths are the programs' own)" >&2
    return "$EXIT_USAGE"
  fi
  [ -z "${BASH_REMATCH[2]}" ] || check_port "$what" "${BASH_REMATCH[3]}"
}

tcp_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

ensure_built() {
  local default=$1 type=$2 deps=$3 b
  BUILD_DIR=${HITCOST_BUILD_DIR:-$default}
  if [ -z "${HITCOST_NO_BUILD:-}" ]; then
    if [ -n "$deps" ]; then HITCOST_DEPS=$deps "$LIB_ROOT/scripts/install-deps.sh" || return "$EXIT_FAILED"; fi
    echo "== building ($type) into $BUILD_DIR" >&2
    "$LIB_ROOT/scripts/build.sh" "$BUILD_DIR" "$type" -DHITCOST_BUILD_TESTS=OFF -DHITCOST_BUILD_BENCH=OFF >&2 ||
      return "$EXIT_FAILED"
  fi
  for b in "$BUILD_DIR/server/hitcost-server" "$BUILD_DIR/client/hitcost-load"; do
    [ -x "$b" ] || { echo "$LIB_NAME: $b is missing (build first, or unset HITCOST_NO_BUILD)" >&2; return "$EXIT_FAILED"; }
  done
}

# memcached on a free loopback port (retries if another process wins the port).
start_memcached() {
  local cpu=$1 memory=${2:-1024} log=${3:-} cmd=()
  [ -n "$cpu" ] && cmd=(taskset -c "$cpu")
  cmd+=(memcached -l 127.0.0.1 -U 0 -m "$memory" -t 1)
  [ "$(id -u)" -eq 0 ] && cmd+=(-u root)
  for _ in 1 2 3 4 5; do
    MC_PORT=$("$LIB_ROOT/scripts/free-port.sh")
    if [ -n "$log" ]; then
      start_service "${cmd[@]}" -p "$MC_PORT" >>"$log" 2>&1
    else
      start_service "${cmd[@]}" -p "$MC_PORT"
    fi
    MC_PID=$BG_PID
    for _ in $(seq 1 100); do
      tcp_open "$MC_PORT" && break
      pid_alive "$MC_PID" || break
      sleep 0.05
    done
    if pid_alive "$MC_PID" && tcp_open "$MC_PORT"; then return 0; fi
    stop_pid "$MC_PID"
  done
  echo "$LIB_NAME: could not start memcached (5 tries)${log:+; the last lines of $log:}" >&2
  [ -z "$log" ] || tail -n 3 "$log" >&2
  return "$EXIT_FAILED"
}

# hitcost-server on a free port, pinned to CPU with one io thread unless ARGS name --threads;
# it prints "listening on IP:PORT".
start_server() {
  local build=$1 cpu=$2 log=$3 pin=() threads=(--threads 1) a
  shift 3
  for a in "$@"; do [ "$a" = --threads ] && threads=(); done
  [ -n "$cpu" ] && pin=(--cpus "$cpu")
  start_service "$build/server/hitcost-server" --port 0 ${threads[@]+"${threads[@]}"} ${pin[@]+"${pin[@]}"} "$@" \
    >"$log" 2>&1
  SERVER_PID=$BG_PID
  wait_listening "$log" "$SERVER_PID" || return
  SERVER_URL="http://$LISTENING_ADDR"
}

# A variable, not printed: in $(...) a signal to the script would wait for the whole loop.
wait_listening() {
  local log=$1 pid=$2 timeout_s=${3:-10} deadline
  LISTENING_ADDR=""
  deadline=$(( ${EPOCHREALTIME//[!0-9]/} + timeout_s * 1000000 ))  # µs
  until grep -q '^listening on ' "$log" 2>/dev/null; do
    if ! pid_alive "$pid"; then
      echo "$LIB_NAME: hitcost-server exited:" >&2
      cat "$log" >&2
      return "$EXIT_FAILED"
    fi
    if [ "${EPOCHREALTIME//[!0-9]/}" -ge "$deadline" ]; then
      echo "$LIB_NAME: hitcost-server did not start within $timeout_s s" >&2
      return "$EXIT_FAILED"
    fi
    sleep 0.05
  done
  LISTENING_ADDR=$(sed -n 's/^listening on //p' "$log" | head -1)
}

# memcached_stat HOST:PORT NAME -> one figure from `stats` (bash /dev/tcp, no extra tools)
memcached_stat() {
  local node=$1 name=$2 line
  exec 5<>"/dev/tcp/${node%:*}/${node##*:}"
  printf 'stats\r\n' >&5
  while IFS= read -r -t 2 line <&5; do
    line=${line%$'\r'}
    [ "$line" = END ] && break
    [[ $line == "STAT $name "* ]] && echo "${line#STAT "$name" }"
  done
  exec 5<&-
}

memcached_nodes_table() {
  local node cpu
  printf '%-22s %10s %12s %12s %14s %12s\n' node curr_items get_hits get_misses bytes cpu_s
  for node in "$@"; do
    cpu=$(awk -v u="$(memcached_stat "$node" rusage_user)" -v s="$(memcached_stat "$node" rusage_system)" \
      'BEGIN {printf "%.2f", u + s}')
    printf '%-22s %10s %12s %12s %14s %12s\n' "$node" "$(memcached_stat "$node" curr_items)" \
      "$(memcached_stat "$node" get_hits)" "$(memcached_stat "$node" get_misses)" \
      "$(memcached_stat "$node" bytes)" "$cpu"
  done
}
