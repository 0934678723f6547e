#!/usr/bin/env bash
# The `mc` service's memcached: one per HOST:PORT of HITCOST_HOST_NODES (comma-separated).
# docker-compose.yml runs one per replica (0.0.0.0:11211); docker-compose.host.yml runs
# several in one container on the host's network, since a scaled service cannot give its
# replicas distinct ports. Ends when any of them ends (the restart policy starts the set again).
#   hitcost-memcached-nodes           start them (memcached options from MEMCACHED_MEMORY_MB,
#                                     MEMCACHED_THREADS)
#   hitcost-memcached-nodes --check   the health check: every node answers "version"
#   hitcost-memcached-nodes --check-args  checks the settings and exits 0 ("arguments ok"),
#                                     starting nothing (scripts/test-kubernetes.sh runs it)
set -euo pipefail
IFS=, read -r -a nodes <<<"${HITCOST_HOST_NODES:?HITCOST_HOST_NODES is not set (HOST:PORT,...)}"
[ ${#nodes[@]} -gt 0 ] || { echo "hitcost-memcached-nodes: HITCOST_HOST_NODES is empty" >&2; exit 2; }
# Wrong settings are a usage error (2) here, not a memcached that exits and restarts forever.
for n in "${nodes[@]}"; do
  if [[ ! $n =~ ^[A-Za-z0-9._-]+:([0-9]{1,5})$ ]] || ((10#${BASH_REMATCH[1]} < 1 || 10#${BASH_REMATCH[1]} > 65535)); then
    echo "hitcost-memcached-nodes: HITCOST_HOST_NODES: '$n' is not HOST:PORT" >&2; exit 2
  fi
done
for v in MEMCACHED_MEMORY_MB MEMCACHED_THREADS; do
  [[ ${!v:-1} =~ ^[1-9][0-9]{0,5}$ ]] || { echo "hitcost-memcached-nodes: $v must be a positive integer, got '${!v}'" >&2; exit 2; }
done
case ${1:-} in
  ""|--check) ;;
  --check-args) echo "hitcost-memcached-nodes: arguments ok"; exit 0 ;;
  *) echo "hitcost-memcached-nodes: unknown argument '$1' (--check, --check-args or none)" >&2; exit 2 ;;
esac
if [ "${1:-}" = --check ]; then
  for n in "${nodes[@]}"; do
    host=${n%:*}
    [ "$host" = 0.0.0.0 ] && host=127.0.0.1  # listening everywhere: asked here
    exec 3<>"/dev/tcp/$host/${n##*:}"
    printf 'version\r\n' >&3
    read -r -t 2 line <&3
    [[ $line == VERSION* ]] || { echo "node $n: no answer to version" >&2; exit 1; }
    exec 3<&-
  done
  exit 0
fi
for n in "${nodes[@]}"; do
  memcached -l "${n%:*}" -p "${n##*:}" -U 0 -m "${MEMCACHED_MEMORY_MB:-256}" -t "${MEMCACHED_THREADS:-1}" -c 4096 &
done
wait -n
echo "hitcost-memcached-nodes: a memcached ended; stopping the others" >&2
exit 1
