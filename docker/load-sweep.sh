#!/usr/bin/env bash
# The compose `load` service. It shares the server container's network namespace
# (network_mode: service:server), so the server is 127.0.0.1 and the admin routes it uses
# (POST /admin/config, /admin/warm) answer it as a loopback peer — no token needed.
#   HITCOST_LOAD_CLIENTS=1  one `hitcost-load sweep`: sweep.{json,html,csv} in the out folder
#   HITCOST_LOAD_CLIENTS=K  K load processes per step, started together, merged by
#                           `hitcost-load merge` (scripts/topology.sh --server): the same
#                           sweep.{json,html,csv} (merged) plus topology/ (each client, each run)
#   HITCOST_URL        default http://127.0.0.1:8080
#   HITCOST_MEMCACHED  the nodes, HOST:PORT,... (a name stands for every address it has, as the
#                      server's resolve=all reads it): nodes.txt, how the keys spread over them
#   HITCOST_OUT_DIR    default /out
#   HITCOST_SWEEP_ARGS extra options: of `hitcost-load sweep` (e.g. "--duration 10s --repeat 5
#                      --strategies html,struct:msgpack+zlib"), or with K clients of
#                      scripts/topology.sh (--strategies --duration --warmup --repeat --rows
#                      --hit-ratio --keys --connections)
set -euo pipefail
scripts=${HITCOST_SCRIPTS:-/usr/local/share/hitcost/scripts}
# shellcheck source=../scripts/lib.sh
source "$scripts/lib.sh"
url=${HITCOST_URL:-http://127.0.0.1:8080}
out=${HITCOST_OUT_DIR:-/out}
clients=${HITCOST_LOAD_CLIENTS:-1}
[[ $clients =~ ^[1-9][0-9]*$ ]] || { echo "hitcost-load-sweep: HITCOST_LOAD_CLIENTS must be a positive integer" >&2; exit 2; }
mkdir -p "$out"
# depends_on already waited for the health check; this only bounds a race, at most 30 s.
for _ in $(seq 1 60); do
  curl -fsS --max-time 1 "$url/healthz" >/dev/null 2>&1 && break
  sleep 0.5
done
curl -fsS --max-time 2 "$url/healthz" >/dev/null || { echo "hitcost-load-sweep: $url/healthz does not answer" >&2; exit 1; }
read -r -a extra <<<"${HITCOST_SWEEP_ARGS:-}"
# The nodes as numeric HOST:PORT: a name stands for every IPv4 address it has (Docker's DNS
# answers a scaled service's name with each replica), as the server's resolve=all reads it on a
# compose network (IPv4 unless the network enables IPv6; resolve=all would take those too).
nodes=()
IFS=, read -r -a listed <<<"${HITCOST_MEMCACHED:?HITCOST_MEMCACHED is not set (HOST:PORT,...)}"
for n in "${listed[@]}"; do
  host=${n%:*} port=${n##*:}
  if [[ $host =~ ^[0-9.]+$ ]]; then nodes+=("$n"); continue; fi
  mapfile -t addrs < <(getent ahostsv4 "$host" | awk '{print $1}' | sort -u)
  [ ${#addrs[@]} -gt 0 ] || { echo "hitcost-load-sweep: cannot resolve $host" >&2; exit 1; }
  for a in "${addrs[@]}"; do nodes+=("$a:$port"); done
done
echo "hitcost-load-sweep: $clients client(s) per step against $url, memcached ${nodes[*]} -> $out/sweep.{json,html,csv} ${extra[*]}" >&2

code=0
if [ "$clients" -eq 1 ]; then
  hitcost-load sweep --url "$url" --no-progress \
    --json "$out/sweep.json" --html "$out/sweep.html" --csv "$out/sweep.csv" "${extra[@]}" || code=$?
else
  HITCOST_LOAD_BIN=$(command -v hitcost-load) "$scripts/topology.sh" \
    --server "$url" --memcached "$(IFS=,; echo "${nodes[*]}")" --clients "$clients" --out "$out/topology" \
    "${extra[@]}" || code=$?
  for f in json html csv; do
    [ -f "$out/topology/merged.$f" ] && cp "$out/topology/merged.$f" "$out/sweep.$f"
  done
fi
# How the keys spread over the nodes, from their own `stats` (the container ends with the sweep,
# and the nodes' figures with it).
if ! memcached_nodes_table "${nodes[@]}" >"$out/nodes.txt"; then
  echo "hitcost-load-sweep: could not read the nodes' stats" >&2
  [ "$code" -ne 0 ] || code=1
fi
echo "memcached nodes:" >&2
cat "$out/nodes.txt" >&2
exit "$code"
