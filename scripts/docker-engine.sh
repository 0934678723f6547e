# shellcheck shell=bash disable=SC2034  # (COMPOSE and ENGINE_* are for the scripts that source it)
# scripts/docker-engine.sh — sourced by scripts/test-containers.sh and bench/containers.sh: a
# Docker engine to build and run the compose stack on, the base image the Dockerfile starts
# from, and the compose command.
#
#   engine_start DIR   uses the engine that answers (DOCKER_HOST or the default socket) if one
#                      does; otherwise starts Debian's dockerd (package docker.io) with its own
#                      data root (DIR/data), exec root and socket, iptables off (the stack's
#                      traffic stays on the networks compose creates; nothing is NATed to the
#                      outside), the storage driver dockerd picks (overlay2, vfs where overlay
#                      is not available; HITCOST_DOCKER_STORAGE=vfs forces one). Exports
#                      DOCKER_HOST. Returns 1 naming the missing piece when no engine starts.
#   engine_stop        stops the dockerd engine_start started (only that one) and removes its
#                      data root; nothing when the engine was already running
#   ensure_base_image  debian:bookworm-slim, or, when it is missing and cannot be pulled (no
#                      registry here), a minimal Debian 12 root made by mmdebstrap
#                      (--variant=minbase) and `docker import`ed under that name
#   compose_command    sets COMPOSE to `docker compose` (v2) when it answers, else
#                      `docker-compose` (v1, Debian 12's package); returns 1 when neither is there
# ENGINE_STARTED=1 when this file started the engine; ENGINE_LOG its log.

ENGINE_STARTED=0 ENGINE_PID="" ENGINE_DIR="" ENGINE_RUN="" ENGINE_LOG=""

engine_start() {
  local dir=$1 driver=()
  if docker info >/dev/null 2>&1; then
    echo "== docker: using the engine that answers ($(docker info -f '{{.ServerVersion}}, {{.Driver}}' 2>/dev/null))" >&2
    return 0
  fi
  command -v dockerd >/dev/null || { echo "docker-engine: no engine answers and dockerd is missing (apt-get install docker.io)" >&2; return 1; }
  command -v docker >/dev/null || { echo "docker-engine: the docker client is missing (apt-get install docker.io)" >&2; return 1; }
  ENGINE_DIR=$dir
  # The socket and containerd's sockets live under the exec root: a short path (sun_path is 108 bytes).
  ENGINE_RUN=$(mktemp -d /run/hitcost-docker.XXXXXX) || return 1
  mkdir -p "$dir/data" || return 1
  ENGINE_LOG=$dir/dockerd.log
  [ -n "${HITCOST_DOCKER_STORAGE:-}" ] && driver=(--storage-driver "$HITCOST_DOCKER_STORAGE")
  local cmd=(dockerd --data-root "$dir/data" --exec-root "$ENGINE_RUN/exec" --pidfile "$ENGINE_RUN/dockerd.pid"
    -H "unix://$ENGINE_RUN/docker.sock" --iptables=false --ip-masq=false "${driver[@]}")
  # scripts/lib.sh's lib_init keeps copies of the script's stdout and stderr: they stay with the
  # script, not with dockerd and the shims it starts (which would hold the caller's pipe open).
  if [ -n "${_LIB_ERR:-}" ]; then
    "${cmd[@]}" >"$ENGINE_LOG" 2>&1 {_LIB_OUT}>&- {_LIB_ERR}>&- &
  else
    "${cmd[@]}" >"$ENGINE_LOG" 2>&1 &
  fi
  ENGINE_PID=$!
  ENGINE_STARTED=1
  export DOCKER_HOST="unix://$ENGINE_RUN/docker.sock"
  for _ in $(seq 1 120); do
    docker info >/dev/null 2>&1 && break
    kill -0 "$ENGINE_PID" 2>/dev/null || break
    sleep 0.5
  done
  if ! docker info >/dev/null 2>&1; then
    echo "docker-engine: dockerd did not start (log $ENGINE_LOG):" >&2
    tail -20 "$ENGINE_LOG" >&2
    return 1
  fi
  echo "== docker: started dockerd $(docker info -f '{{.ServerVersion}}, storage {{.Driver}}, cgroup {{.CgroupVersion}}') (pid $ENGINE_PID, data root $dir/data, socket $DOCKER_HOST)" >&2
}

engine_stop() {
  [ "$ENGINE_STARTED" = 1 ] || return 0
  kill -TERM "$ENGINE_PID" 2>/dev/null
  for _ in $(seq 1 60); do kill -0 "$ENGINE_PID" 2>/dev/null || break; sleep 0.5; done
  kill -KILL "$ENGINE_PID" 2>/dev/null
  wait "$ENGINE_PID" 2>/dev/null
  # What dockerd may leave mounted below its roots (a KILL skips its own unmounting).
  awk -v a="$ENGINE_DIR/" -v b="$ENGINE_RUN/" 'index($2, a) == 1 || index($2, b) == 1 {print $2}' /proc/self/mounts |
    sort -r | while read -r m; do umount -l "$m" 2>/dev/null; done
  rm -rf "$ENGINE_DIR/data" "$ENGINE_RUN"
  ENGINE_STARTED=0
  echo "== docker: stopped dockerd (pid $ENGINE_PID), removed its data root" >&2
}

ensure_base_image() {
  local image=debian:bookworm-slim tar
  docker image inspect "$image" >/dev/null 2>&1 && return 0
  if timeout 60 docker pull -q "$image" >/dev/null 2>&1; then echo "== docker: pulled $image" >&2; return 0; fi
  command -v mmdebstrap >/dev/null || { echo "docker-engine: $image is missing, no registry answers and mmdebstrap is missing (apt-get install mmdebstrap)" >&2; return 1; }
  echo "== docker: $image is missing and cannot be pulled: building it with mmdebstrap --variant=minbase" >&2
  tar=$(mktemp /var/tmp/hitcost-base.XXXXXX.tar) || return 1
  # Without documentation, man pages and locales, as Debian's -slim images are.
  if ! mmdebstrap --quiet --variant=minbase \
        --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
        --dpkgopt='path-include=/usr/share/doc/*/copyright' --dpkgopt='path-exclude=/usr/share/locale/*' \
        --dpkgopt='path-exclude=/usr/share/info/*' bookworm "$tar" >&2; then
    rm -f "$tar"; echo "docker-engine: mmdebstrap failed" >&2; return 1
  fi
  docker import --change 'CMD ["bash"]' "$tar" "$image" >/dev/null || { rm -f "$tar"; return 1; }
  rm -f "$tar"
  echo "== docker: imported $image ($(docker image inspect -f '{{.Size}}' "$image" | awk '{printf "%.0f MB", $1 / 1e6}'))" >&2
}

compose_command() {
  if docker compose version >/dev/null 2>&1; then COMPOSE=(docker compose)
  elif command -v docker-compose >/dev/null; then COMPOSE=(docker-compose)
  else COMPOSE=(); echo "docker-engine: neither 'docker compose' nor docker-compose is installed (apt-get install docker-compose)" >&2; return 1; fi
}
