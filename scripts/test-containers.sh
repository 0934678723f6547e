#!/usr/bin/env bash
# scripts/test-containers.sh — journey 1 (docs/journeys.md) end to end on a real Docker engine: the
# image builds, the programs run in it with only their libraries, and the compose stack runs a
# sweep, in both network modes and scaled. ./test.sh runs it as the `containers` stage.
#
#   1. an engine: the one that answers, else Debian's dockerd started here with its own data
#      root, exec root and socket, iptables off (scripts/docker-engine.sh), stopped at the end
#   2. debian:bookworm-slim: present, pulled, or made with mmdebstrap and `docker import`ed
#   3. `compose build` (host networking for apt), then the image: ldd resolves every library of
#      the three programs, each answers --help, no compiler or headers, a non-root user
#   4. bridge: `compose up -d` and a page through the published port; then
#      `compose --profile load up --exit-code-from load` with a short sweep: exit 0,
#      sweep.json with 0 errors and the hit ratio near its target, every memcached node holds
#      items and served hits (nodes.txt, the nodes' own stats), the HTML report; then
#      `compose down` leaves no container and no network of the project
#   5. host network (docker-compose.host.yml): the same, nodes on free loopback ports
#   6. scaled: HITCOST_NODES=4 memcached containers, HITCOST_LOAD_CLIENTS=2 load processes
#      per step, merged: the same checks, 4 nodes, 2 inputs in the merged report
#   7. Kubernetes (scripts/test-kubernetes.sh): deploy/kubernetes rendered, schema-checked
#      strictly, every container's line through its program's --check-args, a misspelled field
#      and a renamed flag caught, and overlays/quick executed on this engine with this image
#      (3 memcached pods, the server, an Indexed Job of 3 load pods, merged exactly)
# Compose: `docker compose` (v2) when installed, else `docker-compose` (v1, Debian 12).
# Every check is counted; the last lines say how many passed and how long each step took.
# A missing piece (no engine, no compose, no base image) fails the stage, naming it.
#   HITCOST_CONTAINERS_DIR  where the engine's data root and the outputs go (default /var/tmp)
#   HITCOST_CONTAINERS_KEEP=1  keep the outputs (sweep.json, logs) after the run
#   HITCOST_DOCKER_STORAGE  force a storage driver (vfs) on the engine started here
# Exit codes: 0 every check passed, 1 a check failed or a piece is missing.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=scripts/lib.sh
source scripts/lib.sh
# shellcheck source=scripts/docker-engine.sh
source scripts/docker-engine.sh
lib_init test-containers

work=$(mktemp -d "${HITCOST_CONTAINERS_DIR:-/var/tmp}/hitcost-containers.XXXXXX") || exit 1
image=hitcost:test-$$          # not hitcost:latest: a user's own image on their engine stays
projects=()                    # compose projects started: brought down at exit whatever happens
checked=0 failures=0 timings=()
pass() { checked=$((checked + 1)); echo "  ok    $*" >&2; }
fail() { checked=$((checked + 1)); failures=$((failures + 1)); echo "  FAIL  $*" >&2; }
expect() { local what=$1; shift; if "$@"; then pass "$what"; else fail "$what"; fi; }
timed() { timings+=("$(printf '%-34s %5ss' "$1" "$2")"); }

compose_command
compose=(${COMPOSE[@]+"${COMPOSE[@]}"})

# The cleanup (scripts/lib.sh runs these at exit or on a signal, last registered first): the
# projects down and the image removed while the engine runs, then the engine, then the outputs.
remove_work() {
  if [ -n "${HITCOST_CONTAINERS_KEEP:-}" ]; then echo "test-containers: outputs kept in $work" >&2
  else rm -rf "$work"; fi
}
remove_projects() {
  local p
  for p in ${projects[@]+"${projects[@]}"}; do
    "${compose[@]}" -p "$p" -f docker-compose.yml --profile load down --remove-orphans >/dev/null 2>&1
  done
  # What step 7's driver ran (its label's value starts hck$$), if it was stopped before its own cleanup.
  docker ps -a --filter label=hitcost.k8s-run --format '{{.ID}} {{.Label "hitcost.k8s-run"}}' 2>/dev/null |
    awk -v p="hck$$" 'index($2, p) == 1 {print $1}' | xargs -r docker rm -f >/dev/null 2>&1
  docker network ls --filter label=hitcost.k8s-run --format '{{.Name}}' 2>/dev/null |
    awk -v p="hck$$" 'index($1, p) == 1' | xargs -r docker network rm >/dev/null 2>&1
  [ "$ENGINE_STARTED" = 1 ] || docker image rm -f "$image" >/dev/null 2>&1
}
at_cleanup remove_work
at_cleanup engine_stop
at_cleanup remove_projects

missing() { echo "test-containers: FAIL: $*" >&2; exit 1; }
[ ${#compose[@]} -gt 0 ] || missing "no compose command (see above)"
command -v jq >/dev/null || missing "jq is missing (apt-get install jq)"

# 1-2. The engine and the base image.
t0=$SECONDS
engine_start "$work/engine" || missing "no Docker engine (see above)"
timed "engine start" $((SECONDS - t0))
echo "== compose: $("${compose[@]}" version --short 2>/dev/null || "${compose[@]}" version | head -1); disk free in $work: $(df -h --output=avail "$work" | tail -1 | tr -d ' ')" >&2
t0=$SECONDS
ensure_base_image || missing "no debian:bookworm-slim base image (see above)"
timed "base image" $((SECONDS - t0))

# compose ARGS... with this run's settings (env RUN_ENV=(...) set by the caller)
run_compose() { env HITCOST_IMAGE="$image" HITCOST_USER="$(id -u):$(id -g)" "${RUN_ENV[@]}" "${compose[@]}" "$@"; }

# 3. The image.
t0=$SECONDS
RUN_ENV=()
if ! run_compose -p "hitcost-build-$$" -f docker-compose.yml build >"$work/build.log" 2>&1; then
  tail -40 "$work/build.log" >&2
  missing "compose build failed (the last lines above)"
fi
timed "image build (compose build)" $((SECONDS - t0))
size_mb=$(docker image inspect -f '{{.Size}}' "$image" | awk '{printf "%.0f", $1 / 1e6}')
echo "== image $image: $size_mb MB (base debian:bookworm-slim $(docker image inspect -f '{{.Size}}' debian:bookworm-slim | awk '{printf "%.0f", $1 / 1e6}') MB)" >&2
for program in hitcost-server hitcost-load hitcost-corpus; do
  libs=$(docker run --rm --entrypoint ldd "$image" "/usr/local/bin/$program" 2>&1)
  expect "$program: ldd resolves every library ($(grep -c '=>' <<<"$libs") linked)" \
    bash -c '[ "$(grep -c "=> /" <<<"$1")" -gt 3 ] && ! grep -q "not found" <<<"$1"' _ "$libs"
  expect "$program --help runs in the image" docker run --rm "$image" "$program" --help >/dev/null
done
expect "the runtime holds no compiler, build tool or headers" docker run --rm --entrypoint bash "$image" -c \
  'for t in gcc g++ c++ cc cmake make pkg-config; do command -v "$t" && exit 1; done; [ ! -d /usr/include/boost ]'
expect "the programs run as a non-root user" [ "$(docker run --rm "$image" id -u)" = 10001 ]

# check_run NAME OUT NODES RC [CLIENTS]: what one `up --exit-code-from load` must leave behind
check_run() {
  local name=$1 out=$2 nodes=$3 rc=$4 clients=${5:-1} runs rows listed
  expect "$name: up --exit-code-from load exits 0 (got $rc)" [ "$rc" = 0 ]
  expect "$name: sweep.json written" [ -s "$out/sweep.json" ]
  [ -s "$out/sweep.json" ] || return 0
  runs=$(jq '.runs | length' "$out/sweep.json")
  expect "$name: 2 strategies measured (got $runs runs)" [ "$runs" -ge 2 ]
  expect "$name: every run has 0 errors" \
    [ "$(jq '[.runs[] | select(.errors.total != 0 or .requests < 100)] | length' "$out/sweep.json")" = 0 ]
  expect "$name: every run's hit ratio within 0.02 of the target 0.99 ($(jq -c '[.runs[].hit_ratio]' "$out/sweep.json"))" \
    [ "$(jq '[.runs[] | select((.hit_ratio - 0.99) | fabs > 0.02)] | length' "$out/sweep.json")" = 0 ]
  [ "$clients" -gt 1 ] && expect "$name: the report merges $clients clients" \
    [ "$(jq '.merged.inputs' "$out/sweep.json")" = "$clients" ]
  expect "$name: sweep.html is an HTML report" grep -q '<svg' "$out/sweep.html"
  listed=$(awk 'NR > 1' "$out/nodes.txt" 2>/dev/null | wc -l)
  rows=$(awk 'NR > 1 && $2 > 0 && $3 > 0' "$out/nodes.txt" 2>/dev/null | wc -l)
  expect "$name: nodes.txt lists $nodes memcached nodes (got $listed)" [ "$listed" = "$nodes" ]
  expect "$name: every node holds items and served hits ($rows of $listed did)" [ "$rows" = "$listed" ]
  sed 's/^/        /' "$out/nodes.txt" >&2
}

compose_down() {  # compose_down PROJECT FILES...: its output in the work folder (shown on failure)
  local project=$1 rc=0
  shift
  run_compose -p "$project" "$@" --profile load down --remove-orphans >"$work/$project.down.log" 2>&1 || rc=$?
  [ "$rc" = 0 ] || cat "$work/$project.down.log" >&2
  return "$rc"
}

# check_down NAME PROJECT FILES...: down, then nothing of the project is left
check_down() {
  local name=$1 project=$2 t0=$SECONDS
  shift 2
  expect "$name: compose down exits 0" compose_down "$project" "$@"
  timed "$name: down" $((SECONDS - t0))
  expect "$name: no container of the project is left" \
    [ -z "$(docker ps -aq --filter "label=com.docker.compose.project=$project")" ]
  expect "$name: no network of the project is left" \
    [ -z "$(docker network ls -q --filter "label=com.docker.compose.project=$project")" ]
}

# check_published NAME PORT: `up -d` with the default files (docker-compose.override.yml
# publishes the server on 127.0.0.1:HITCOST_PORT = PORT), a page through that port, down
check_published() {
  local name=$1 port=$2 project=hitcost-$1-up-$$ t0=$SECONDS status=""
  projects+=("$project")
  run_compose -p "$project" up -d >"$work/$project.up-d.log" 2>&1 || cat "$work/$project.up-d.log" >&2
  for _ in $(seq 1 120); do
    status=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://127.0.0.1:$port/page/7" 2>/dev/null)
    [ "$status" = 200 ] && break
    sleep 0.5
  done
  expect "$name: up -d publishes the server on 127.0.0.1:$port (GET /page/7 -> ${status:-no answer})" [ "$status" = 200 ]
  expect "$name: the page came through memcached (X-Cache on a second GET)" \
    bash -c 'curl -si --max-time 2 "$1" | grep -qi "^x-cache: hit"' _ "http://127.0.0.1:$port/page/7"
  expect "$name: down after up -d" compose_down "$project"
  timed "$name: up -d, GET, down" $((SECONDS - t0))
}

# stack NAME NODES CLIENTS FILES... — one journey: up with a short sweep, the checks, down
stack() {
  local name=$1 nodes=$2 clients=$3 project=hitcost-$1-$$ out=$work/$1 rc=0 t0=$SECONDS
  shift 3
  local files=() f
  for f in "$@"; do files+=(-f "$f"); done
  mkdir -p "$out"
  projects+=("$project")
  echo "== $name: ${compose[*]} ${files[*]} --profile load up --exit-code-from load (${RUN_ENV[*]})" >&2
  # Bounded: a stack that never gets healthy ends the step, not the CI run.
  timeout 420 env HITCOST_OUT="$out" "${RUN_ENV[@]}" HITCOST_IMAGE="$image" HITCOST_USER="$(id -u):$(id -g)" \
    "${compose[@]}" -p "$project" "${files[@]}" --profile load up --exit-code-from load >"$out/up.log" 2>&1 || rc=$?
  timed "$name: up + sweep" $((SECONDS - t0))
  [ "$rc" = 0 ] || tail -40 "$out/up.log" >&2
  check_run "$name" "$out" "$nodes" "$rc" "$clients"
  check_down "$name" "$project" "${files[@]}"
}

sweep_args="--strategies html,struct:json+zlib --duration 1s --warmup 300ms --keys 300 --connections 4"
# 4. Bridge network, 3 nodes, one load process; the default files, as the README runs them.
bridge_port=$(scripts/free-port.sh)
RUN_ENV=(HITCOST_PORT="$bridge_port" HITCOST_SWEEP_ARGS="$sweep_args --repeat 1 --latency-rate 0 --retry-contaminated 0")
check_published bridge "$bridge_port"
stack bridge 3 1
# 5. Host network: the nodes and the server on free loopback ports of this machine.
node_ports=()
for _ in 1 2 3; do node_ports+=("127.0.0.1:$(scripts/free-port.sh)"); done
RUN_ENV=(HITCOST_PORT="$(scripts/free-port.sh)" HITCOST_HOST_NODES="$(IFS=,; echo "${node_ports[*]}")"
         HITCOST_SWEEP_ARGS="$sweep_args --repeat 1 --latency-rate 0 --retry-contaminated 0")
stack host 3 1 docker-compose.yml docker-compose.host.yml
# 6. Scaled: 4 memcached containers, 2 load processes per step (scripts/topology.sh --server).
RUN_ENV=(HITCOST_PORT="$(scripts/free-port.sh)" HITCOST_NODES=4 HITCOST_LOAD_CLIENTS=2 HITCOST_SWEEP_ARGS="$sweep_args")
stack scaled 4 2 docker-compose.yml
# 7. The Kubernetes manifests, on the same engine and image.
# shellcheck source=scripts/test-kubernetes.sh
source scripts/test-kubernetes.sh

echo "== time per step:" >&2
printf '   %s\n' "${timings[@]}" >&2
echo "test-containers: $((checked - failures)) of $checked checks passed (image $size_mb MB, ${compose[*]})" >&2
# 45 checks in steps 3-6 and 41 in step 7 when every output is there (fewer only after a failure)
[ "$checked" -ge 86 ] || { echo "test-containers: FAIL: only $checked checks ran (expected at least 86)" >&2; exit 1; }
[ "$failures" = 0 ]
