#!/usr/bin/env bash
# The PHP backend (php/) behind php-fpm and nginx, serving /page/{id} like hitcost-server,
# in the foreground until Ctrl-C, TERM or --time-limit; everything it started is stopped
# on every exit path. Prints:
#   php stack: http://127.0.0.1:PORT nginx_pid=N fpm_pid=N
#   php stack workers: fpm=N[,N...] nginx=N
#
#   scripts/php-stack.sh --memcached 127.0.0.1:11211 --origin http://127.0.0.1:8080 \
#       [--extension memcache] [--serializer json] [--workers 2] [--cpus 1] [--time-limit 60]
# Other scripts source scripts/php-lib.sh and call start_php_stack / stop_php_stack.
set -euo pipefail

# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=scripts/php-lib.sh
source "$(dirname "$0")/php-lib.sh"
lib_init "php stack"

usage() {
  echo "usage: $0 --memcached HOST:PORT --origin URL [options]"
  php_stack_usage
  echo "  --time-limit S             stop after S seconds (default: run until INT/TERM)"
  echo "  PHP_STACK_KEEP=1 keeps the run directory (configs, logs) after the stop"
  echo "Exit codes: 0 --help, 1 failed (did not start, or a process exited on its own), 2 usage error"
  echo "  (also a CPU not online, a port outside 1..65535), 130 interrupted (Ctrl-C, SIGTERM) or --time-limit reached:"
  echo "  its normal end."
}

time_limit=0
args=()
while [ $# -gt 0 ]; do
  case $1 in
    -h|--help) usage; exit "$EXIT_OK" ;;
    --time-limit)
      [[ ${2-} =~ ^[0-9]+$ ]] || { echo "php stack: --time-limit wants seconds" >&2; exit "$EXIT_USAGE"; }
      time_limit=$2
      shift 2 ;;
    *) args+=("$1"); shift ;;
  esac
done

at_cleanup stop_php_stack
[ "$time_limit" = 0 ] || start_time_limit "$time_limit"
start_php_stack ${args[@]+"${args[@]}"} || exit
echo "php stack: $PHP_STACK_URL nginx_pid=$PHP_STACK_NGINX_PID fpm_pid=$PHP_STACK_FPM_PID"
echo "php stack workers: fpm=${PHP_STACK_FPM_WORKERS// /,} nginx=${PHP_STACK_NGINX_WORKERS// /,}"

# Each second: are both masters still there? The sleep is waited for in the background, so a
# signal (or the time limit) acts at once.
while :; do
  for p in "$PHP_STACK_NGINX_PID" "$PHP_STACK_FPM_PID"; do
    if ! pid_alive "$p"; then
      echo "php stack: process $p exited on its own" >&2
      exit "$EXIT_FAILED"
    fi
  done
  run_bg sleep 1
done
