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

source "$(dirname "$0")/php-lib.sh"

usage() {
  echo "usage: $0 --memcached HOST:PORT --origin URL [options]"
  php_stack_usage
  echo "  --time-limit S             stop after S seconds (default: run until INT/TERM)"
  echo "  PHP_STACK_KEEP=1 keeps the run directory (configs, logs) after the stop"
}

time_limit=0
args=()
while [ $# -gt 0 ]; do
  case $1 in
    -h|--help) usage; exit 0 ;;
    --time-limit)
      [[ ${2-} =~ ^[0-9]+$ ]] || { echo "php stack: --time-limit wants seconds" >&2; exit 2; }
      time_limit=$2
      shift 2 ;;
    *) args+=("$1"); shift ;;
  esac
done

ticker=""
cleanup() {
  [ -n "$ticker" ] && kill "$ticker" 2>/dev/null || true
  stop_php_stack
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

start_php_stack "${args[@]}"
echo "php stack: $PHP_STACK_URL nginx_pid=$PHP_STACK_NGINX_PID fpm_pid=$PHP_STACK_FPM_PID"
echo "php stack workers: fpm=${PHP_STACK_FPM_WORKERS// /,} nginx=${PHP_STACK_NGINX_WORKERS// /,}"

# Sleep in the background and `wait` for it: a signal interrupts `wait` at once, while a
# foreground sleep would delay the trap until it ends.
start=$SECONDS
while [ "$time_limit" = 0 ] || [ $((SECONDS - start)) -lt "$time_limit" ]; do
  for p in "$PHP_STACK_NGINX_PID" "$PHP_STACK_FPM_PID"; do
    if ! _php_stack_alive "$p"; then
      echo "php stack: process $p exited on its own" >&2
      exit 1
    fi
  done
  sleep 1 &
  ticker=$!
  wait "$ticker" || true
  ticker=""
done
echo "php stack: time limit of ${time_limit} s reached" >&2
