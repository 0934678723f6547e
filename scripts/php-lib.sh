# shellcheck shell=bash
# scripts/php-lib.sh — sourced by scripts/php-stack.sh (and any script that wants PHP in
# the loop): the PHP backend of php/ behind Debian's php-fpm and nginx, on a free loopback
# port, everything in a private run directory. Works from any current directory.
#
#   start_php_stack OPTIONS...   sets PHP_STACK_URL, PHP_STACK_PORT, PHP_STACK_NGINX_PID,
#                                PHP_STACK_FPM_PID, PHP_STACK_FPM_WORKERS,
#                                PHP_STACK_NGINX_WORKERS (space-separated), PHP_STACK_DIR
#   stop_php_stack               TERM, then KILL after 5 s, masters and workers; removes the
#                                run directory (kept with PHP_STACK_KEEP=1)
#   php_stack_usage              the options, for --help
#
# The caller owns the exit path: at_cleanup stop_php_stack (scripts/lib.sh, which this file
# sources when the caller has not) stops it on every exit, signals included.

PHP_STACK_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
declare -F hold_signals >/dev/null || source "$PHP_STACK_ROOT/scripts/lib.sh"

php_stack_usage() {
  cat <<'EOF'
  --memcached HOST:PORT      memcached to read and write (required)
  --origin URL               hitcost-server base URL for /data/{id} on a miss (required)
  --extension memcached|memcache   PHP client: Memcached (php-memcached flags, default)
                             or Memcache (php-memcache flags)
  --namespace NS             key namespace: hc:NS:pID:rROWS (default v1)
  --rows R                   rows when ?rows= is absent (default 50)
  --max-rows N, --max-id N   the largest ?rows= and id served (defaults 10000, 1e12)
  --store-as struct|html     a miss stores the page data (default) or the rendered page
  --serializer php|igbinary|json|msgpack   how an array is stored (default php)
  --compression on|off|always   on: the extension's rule (default); always: php-memcache's
                             MEMCACHE_COMPRESSED on every set
  --compression-type fastlz|zlib   php-memcached's compressor (default fastlz)
  --threshold BYTES, --factor F, --min-savings S   the extension's compression rule
  --workers N                php-fpm pm.max_children, pm = static (default 1)
  --cpus LIST                pin php-fpm and nginx with taskset -c LIST (CPUs online)
  --fpm-cpus LIST, --nginx-cpus LIST   pin each one on its own (overrides --cpus)
  --fpm-listen unix|tcp      php-fpm on a unix socket (default) or a free loopback port
  --port PORT                nginx port, 1..65535 (default: a free one)
EOF
}

# The value must not break the generated configs (quotes, $, newlines, spaces).
_php_stack_plain() {
  if [[ ! $2 =~ ^[A-Za-z0-9._:/,=+-]+$ ]]; then
    echo "php stack: bad value for $1: '$2' (letters, digits and ._:/,=+- only)" >&2
    return 1
  fi
}

_php_stack_children() { pgrep -P "$1" 2>/dev/null | tr '\n' ' ' | sed 's/ $//' || true; }

_php_stack_fail() {
  echo "php stack: $1" >&2
  local f
  for f in "$PHP_STACK_DIR"/php-fpm.log "$PHP_STACK_DIR"/php-error.log "$PHP_STACK_DIR"/nginx-error.log; do
    [ -s "$f" ] && { echo "--- $f" >&2; tail -20 "$f" >&2; }
  done
  stop_php_stack
  return 1
}

start_php_stack() {
  local memcached="" origin="" workers=1 cpus="" fpm_cpus="" nginx_cpus="" listen=unix port=""
  local env_lines="" opt val
  while [ $# -gt 0 ]; do
    opt=$1
    val=${2-}
    [ $# -ge 2 ] || { echo "php stack: $opt needs a value" >&2; return 2; }
    _php_stack_plain "$opt" "$val" || return 2
    case $opt in
      --memcached) memcached=$val; env_lines+="env[HC_MEMCACHED] = \"$val\""$'\n' ;;
      --origin) origin=$val; env_lines+="env[HC_ORIGIN] = \"$val\""$'\n' ;;
      --extension) env_lines+="env[HC_EXTENSION] = \"$val\""$'\n' ;;
      --namespace) env_lines+="env[HC_NAMESPACE] = \"$val\""$'\n' ;;
      --rows) env_lines+="env[HC_ROWS] = \"$val\""$'\n' ;;
      --max-rows) env_lines+="env[HC_MAX_ROWS] = \"$val\""$'\n' ;;
      --max-id) env_lines+="env[HC_MAX_ID] = \"$val\""$'\n' ;;
      --store-as) env_lines+="env[HC_STORE_AS] = \"$val\""$'\n' ;;
      --serializer) env_lines+="env[HC_SERIALIZER] = \"$val\""$'\n' ;;
      --compression) env_lines+="env[HC_COMPRESSION] = \"$val\""$'\n' ;;
      --compression-type) env_lines+="env[HC_COMPRESSION_TYPE] = \"$val\""$'\n' ;;
      --threshold) env_lines+="env[HC_COMPRESS_THRESHOLD] = \"$val\""$'\n' ;;
      --factor) env_lines+="env[HC_COMPRESS_FACTOR] = \"$val\""$'\n' ;;
      --min-savings) env_lines+="env[HC_COMPRESS_MIN_SAVINGS] = \"$val\""$'\n' ;;
      --workers) workers=$val ;;
      --cpus) cpus=$val ;;
      --fpm-cpus) fpm_cpus=$val ;;
      --nginx-cpus) nginx_cpus=$val ;;
      --fpm-listen) listen=$val ;;
      --port) port=$val ;;
      *) echo "php stack: unknown option $opt" >&2; php_stack_usage >&2; return 2 ;;
    esac
    shift 2
  done
  [ -n "$memcached" ] && [ -n "$origin" ] || { echo "php stack: --memcached and --origin are required" >&2; return 2; }
  check_address --memcached "$memcached" || return
  check_base_url --origin "$origin" || return
  [ -z "$port" ] || check_port --port "$port" || return
  [[ $workers =~ ^[1-9][0-9]*$ ]] || { echo "php stack: --workers wants a positive integer" >&2; return 2; }
  [[ $listen == unix || $listen == tcp ]] || { echo "php stack: --fpm-listen unix|tcp" >&2; return 2; }
  local opt_name
  for opt_name in cpus fpm_cpus nginx_cpus; do
    if [ -n "${!opt_name}" ]; then check_cpus "--${opt_name//_/-}" "${!opt_name}" || return; fi
  done
  fpm_cpus=${fpm_cpus:-$cpus}
  nginx_cpus=${nginx_cpus:-$cpus}

  local fpm_bin
  fpm_bin=$(command -v php-fpm8.2 || command -v php-fpm || true)
  [ -n "$fpm_bin" ] && command -v nginx >/dev/null ||
    { echo "php stack: needs php-fpm and nginx (HITCOST_DEPS=test scripts/install-deps.sh)" >&2; return 1; }

  PHP_STACK_DIR=$(mktemp -d /tmp/hitcost-php-stack.XXXXXX)
  PHP_STACK_FPM_PID="" PHP_STACK_NGINX_PID="" PHP_STACK_FPM_WORKERS="" PHP_STACK_NGINX_WORKERS=""
  local dir=$PHP_STACK_DIR root=0 fpm_pin=() nginx_pin=() fpm_addr
  [ "$(id -u)" -eq 0 ] && root=1
  [ -n "$fpm_cpus" ] && fpm_pin=(taskset -c "$fpm_cpus")
  [ -n "$nginx_cpus" ] && nginx_pin=(taskset -c "$nginx_cpus")
  mkdir -p "$dir/nginx-temp"

  # php-fpm: one static pool. clear_env with explicit env lines: the app sees its
  # settings and nothing else of the caller's environment.
  for _ in 1 2 3 4 5; do
    if [ "$listen" = unix ]; then
      fpm_addr="$dir/php-fpm.sock"
    else
      fpm_addr="127.0.0.1:$("$PHP_STACK_ROOT/scripts/free-port.sh")"
    fi
    {
      printf '[global]\npid = %s\nerror_log = %s\ndaemonize = no\nlog_level = notice\n\n' \
        "$dir/php-fpm.pid" "$dir/php-fpm.log"
      printf '[hitcost]\nlisten = %s\n' "$fpm_addr"
      [ "$listen" = unix ] && printf 'listen.mode = 0600\n'  # the socket: this user only
      [ "$root" = 1 ] && printf 'user = root\ngroup = root\n'
      printf 'pm = static\npm.max_children = %s\nclear_env = yes\ncatch_workers_output = yes\n' "$workers"
      printf 'decorate_workers_output = no\n'
      printf 'php_admin_value[error_log] = %s\nphp_admin_flag[log_errors] = on\n' "$dir/php-error.log"
      printf 'php_admin_flag[display_errors] = off\nphp_admin_flag[display_startup_errors] = off\n'
      printf 'php_admin_flag[expose_php] = off\n'
      printf '%s' "$env_lines"
    } >"$dir/php-fpm.conf"
    local fpm_args=(-F -y "$dir/php-fpm.conf")
    [ "$root" = 1 ] && fpm_args+=(-R)  # php-fpm refuses to run pools as root without it
    hold_signals  # no signal between the start and the pid the stop needs
    "${fpm_pin[@]}" "$fpm_bin" "${fpm_args[@]}" >>"$dir/php-fpm.out" 2>&1 &
    PHP_STACK_FPM_PID=$!
    release_signals
    for _ in $(seq 1 100); do
      grep -q 'ready to handle connections' "$dir/php-fpm.log" 2>/dev/null && break
      pid_alive "$PHP_STACK_FPM_PID" || break
      sleep 0.05
    done
    grep -q 'ready to handle connections' "$dir/php-fpm.log" 2>/dev/null && break
    hold_signals
    kill -TERM "$PHP_STACK_FPM_PID" 2>/dev/null || true
    wait "$PHP_STACK_FPM_PID" 2>/dev/null || true
    PHP_STACK_FPM_PID=""
    release_signals
    # Only a lost port race is worth another try.
    grep -q 'Address already in use' "$dir/php-fpm.log" 2>/dev/null || break
  done
  [ -n "$PHP_STACK_FPM_PID" ] || { _php_stack_fail "php-fpm did not start"; return 1; }

  local upstream="unix:$fpm_addr"
  [ "$listen" = tcp ] && upstream=$fpm_addr
  for _ in 1 2 3 4 5; do
    PHP_STACK_PORT=${port:-$("$PHP_STACK_ROOT/scripts/free-port.sh")}
    {
      echo "worker_processes 1;"
      echo "pid $dir/nginx.pid;"
      echo "error_log $dir/nginx-error.log warn;"
      [ "$root" = 1 ] && echo "user root root;"  # workers must reach the root-owned socket
      echo "events { worker_connections 1024; }"
      echo "http {"
      echo "  access_log off;"
      echo "  server_tokens off;"
      echo "  keepalive_requests 1000000;"  # like hitcost-server: no reconnect every 1000 requests
      for t in client_body proxy fastcgi uwsgi scgi; do echo "  ${t}_temp_path $dir/nginx-temp/$t;"; done
      echo "  fastcgi_buffer_size 64k;"  # big pages stay in memory, not in temp files
      echo "  fastcgi_buffers 16 64k;"
      echo "  server {"
      echo "    listen 127.0.0.1:$PHP_STACK_PORT;"
      echo "    location / {"
      echo "      fastcgi_pass $upstream;"
      echo "      fastcgi_param SCRIPT_FILENAME $PHP_STACK_ROOT/php/public/index.php;"
      echo "      fastcgi_param SCRIPT_NAME /index.php;"
      echo "      fastcgi_param REQUEST_METHOD \$request_method;"
      echo "      fastcgi_param REQUEST_URI \$request_uri;"
      echo "      fastcgi_param QUERY_STRING \$query_string;"
      echo "      fastcgi_param CONTENT_TYPE \$content_type;"
      echo "      fastcgi_param CONTENT_LENGTH \$content_length;"
      echo "      fastcgi_param SERVER_PROTOCOL \$server_protocol;"
      echo "      fastcgi_param REMOTE_ADDR \$remote_addr;"
      echo "      fastcgi_param SERVER_ADDR \$server_addr;"
      echo "      fastcgi_param SERVER_PORT \$server_port;"
      echo "    }"
      echo "  }"
      echo "}"
    } >"$dir/nginx.conf"
    : >"$dir/nginx-error.log"
    hold_signals
    "${nginx_pin[@]}" nginx -p "$dir" -e "$dir/nginx-error.log" -c "$dir/nginx.conf" -g 'daemon off;' \
      >>"$dir/nginx.out" 2>&1 &
    PHP_STACK_NGINX_PID=$!
    release_signals
    for _ in $(seq 1 100); do
      tcp_open "$PHP_STACK_PORT" && break
      pid_alive "$PHP_STACK_NGINX_PID" || break
      sleep 0.05
    done
    pid_alive "$PHP_STACK_NGINX_PID" && break
    hold_signals
    wait "$PHP_STACK_NGINX_PID" 2>/dev/null || true
    PHP_STACK_NGINX_PID=""
    release_signals
    [ -z "$port" ] && grep -q 'Address already in use' "$dir/nginx-error.log" "$dir/nginx.out" 2>/dev/null || break
  done
  [ -n "$PHP_STACK_NGINX_PID" ] || { _php_stack_fail "nginx did not start"; return 1; }
  PHP_STACK_URL="http://127.0.0.1:$PHP_STACK_PORT"

  # Ready when the app answers through both: its health check also validates the settings.
  local health=""
  for _ in $(seq 1 100); do
    health=$(curl -s --max-time 2 "$PHP_STACK_URL/healthz" 2>/dev/null || true)
    [ "$health" = ok ] && break
    pid_alive "$PHP_STACK_FPM_PID" && pid_alive "$PHP_STACK_NGINX_PID" || break
    sleep 0.1
  done
  [ "$health" = ok ] || { _php_stack_fail "GET /healthz answered '${health:-nothing}'"; return 1; }

  for _ in $(seq 1 50); do
    PHP_STACK_FPM_WORKERS=$(_php_stack_children "$PHP_STACK_FPM_PID")
    [ "$(wc -w <<<"$PHP_STACK_FPM_WORKERS")" -ge "$workers" ] && break
    sleep 0.05
  done
  PHP_STACK_NGINX_WORKERS=$(_php_stack_children "$PHP_STACK_NGINX_PID")
}

stop_php_stack() {
  [ -n "${PHP_STACK_DIR:-}" ] || return 0
  hold_signals  # a signal meanwhile acts once the stack is down
  local masters=() all=() p c
  for p in ${PHP_STACK_NGINX_PID:-} ${PHP_STACK_FPM_PID:-}; do
    masters+=("$p")
    all+=("$p")
    # Workers recorded at start and any respawned since: each one is waited for.
    for c in $(_php_stack_children "$p"); do all+=("$c"); done
  done
  for p in ${PHP_STACK_FPM_WORKERS:-} ${PHP_STACK_NGINX_WORKERS:-}; do all+=("$p"); done
  # TERM: nginx's fast shutdown, php-fpm's immediate stop (both end their workers).
  for p in "${masters[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  _lib_wait_gone "$LIB_STOP_WAIT_S" "${all[@]}"
  _lib_kill "${all[@]}"  # KILL what is left, then reap the masters
  if [ "${PHP_STACK_KEEP:-0}" = 1 ]; then
    echo "php stack: run directory kept: $PHP_STACK_DIR" >&2
  else
    rm -rf "$PHP_STACK_DIR"
  fi
  PHP_STACK_DIR="" PHP_STACK_NGINX_PID="" PHP_STACK_FPM_PID="" PHP_STACK_FPM_WORKERS="" PHP_STACK_NGINX_WORKERS=""
  PHP_STACK_URL="" PHP_STACK_PORT=""
  release_signals
}
