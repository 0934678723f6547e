#!/usr/bin/env bash
# The compose `load` service: one `hitcost-load sweep` against the server, JSON + HTML + CSV
# into the mounted folder. It shares the server container's network namespace
# (network_mode: service:server), so the server is 127.0.0.1 and the admin routes the sweep
# uses (POST /admin/config, /admin/warm) answer it as a loopback peer — no token needed.
#   HITCOST_URL        default http://127.0.0.1:8080
#   HITCOST_OUT_DIR    default /out
#   HITCOST_SWEEP_ARGS extra sweep options, e.g. "--duration 10s --repeat 5 --strategies html,struct:msgpack+zlib"
set -euo pipefail
url=${HITCOST_URL:-http://127.0.0.1:8080}
out=${HITCOST_OUT_DIR:-/out}
mkdir -p "$out"
# depends_on already waited for the health check; this only bounds a race, at most 30 s.
for _ in $(seq 1 60); do
  curl -fsS --max-time 1 "$url/healthz" >/dev/null 2>&1 && break
  sleep 0.5
done
curl -fsS --max-time 2 "$url/healthz" >/dev/null || { echo "hitcost-load-sweep: $url/healthz does not answer" >&2; exit 1; }
read -r -a extra <<<"${HITCOST_SWEEP_ARGS:-}"
echo "hitcost-load-sweep: $url -> $out/sweep.{json,html,csv} ${extra[*]}" >&2
exec hitcost-load sweep --url "$url" --no-progress \
  --json "$out/sweep.json" --html "$out/sweep.html" --csv "$out/sweep.csv" "${extra[@]}"
