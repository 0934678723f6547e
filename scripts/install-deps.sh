#!/usr/bin/env bash
# Installs every Debian package hitcost needs, and nothing when all are present; with the
# containers group also the npm packages of tests/kubernetes (from its lock, when not installed).
# Idempotent: both ./run.sh and ./test.sh call it first. Needs root (or sudo) only
# when something is missing. Groups: HITCOST_DEPS="build test php bench fuzz containers" (default "build test";
# ./test.sh asks for fuzz and containers too; test includes php).
set -euo pipefail

build_pkgs=(
  build-essential cmake pkg-config
  libboost-dev                # Asio + Beast (header-only in Boost 1.74)
  nlohmann-json3-dev libsimdjson-dev
  zlib1g-dev libzstd-dev liblz4-dev
  libdeflate-dev libisal-dev  # faster inflate of the same zlib bytes (codecs/inflate.h)
  libmemcached-dev libcli11-dev
  libbenchmark-dev libgtest-dev
  memcached curl
  ccache  # scripts/ccache.sh: an unchanged file is not compiled again, in any clone
)
# PHP in the loop: the extensions are the reference readers/writers for the flag schemes
# (FORMATS.md; the tests check hitcost's values against them through memcached), and
# php-fpm behind nginx runs the PHP backend (php/, scripts/php-stack.sh).
php_pkgs=(
  php-cli php-memcache php-memcached php-msgpack php-igbinary php-fpm nginx
  jq  # php-compare.sh reads each look's verdicts
)
# chromium renders the HTML report in a test (headless, no network).
# jq and docker-compose: the no-container topology script and the compose-file check
# (`docker-compose config` needs no engine); valgrind: scripts/profile.sh.
test_pkgs=(
  "${php_pkgs[@]}"
  chromium
  jq docker-compose valgrind
  iproute2  # ip netns, the links of scripts/netns.sh (topology.sh --netns, netns-fault.sh)
)

# Fuzzing (scripts/test-fuzz.sh): clang 14 with its sanitizer runtimes and libFuzzer;
# llvm-14 brings llvm-symbolizer for readable sanitizer stacks.
fuzz_pkgs=(
  clang libclang-rt-14-dev libfuzzer-14-dev llvm-14
)

# The compose journey on a real engine (scripts/test-containers.sh): Debian's Docker engine
# (dockerd 20.10, with tini as docker-init), Compose v1, and mmdebstrap for the base image
# when no registry answers. Node.js and npm: the strict schema check of the rendered Kubernetes
# manifests (tests/kubernetes/schema-check.mjs; its npm packages come below). kubectl is not
# listed: these machines have it preinstalled from a package apt here cannot reinstall.
containers_pkgs=(
  docker.io docker-compose mmdebstrap
  nodejs npm
)

# The anchors the benchmarks compare against (bench/*.sh): wrk and nginx.
bench_pkgs=(
  wrk nginx
)

want=()
want_npm=""
groups=${HITCOST_DEPS:-"build test"}
for g in $groups; do
  case $g in
    build) want+=("${build_pkgs[@]}") ;;
    test)  want+=("${test_pkgs[@]}") ;;
    php)   want+=("${php_pkgs[@]}") ;;
    bench) want+=("${bench_pkgs[@]}") ;;
    fuzz)  want+=("${fuzz_pkgs[@]}") ;;
    containers) want+=("${containers_pkgs[@]}"); want_npm=1 ;;
    *) echo "install-deps: unknown group '$g'" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
# A name an installed package provides is there too, as apt sees it: NodeSource's nodejs (on
# some machines instead of Debian's) provides npm and conflicts with Debian's npm package, so
# asking apt for npm there would replace that nodejs by Debian's older one.
if [ ${#missing[@]} -gt 0 ]; then
  provided=$(dpkg-query -W -f='${db:Status-Abbrev}|${Provides}\n' 2>/dev/null |
    awk -F'|' '$1 ~ /^ii/ { n = split($2, a, ","); for (i = 1; i <= n; i++) { sub(/\(.*/, "", a[i]); gsub(/[ \t]/, "", a[i]); if (a[i] != "") print a[i] } }')
  still=()
  for p in "${missing[@]}"; do
    grep -qxF -- "$p" <<<"$provided" || still+=("$p")
  done
  missing=("${still[@]}")
fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}" >&2
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  # A fresh machine's package lists may be stale or empty: update first, then install.
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

# The schema check's npm packages (kubernetes-models, yaml), exactly as tests/kubernetes/
# package-lock.json pins them: `npm ci` installs the lock and nothing else, so every machine
# checks the manifests against the same schemas. npm writes node_modules/.package-lock.json
# when it installs; when that is at least as new as the lock, this lock is installed already
# and nothing is done (npm ci would delete and fetch everything again). As the calling user,
# not root: node_modules belongs to the checkout.
if [ -n "$want_npm" ]; then
  k8s_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/tests/kubernetes
  if [ -f "$k8s_dir/package-lock.json" ] &&
     { [ ! -f "$k8s_dir/node_modules/.package-lock.json" ] ||
       [ "$k8s_dir/package-lock.json" -nt "$k8s_dir/node_modules/.package-lock.json" ]; }; then
    echo "install-deps: npm ci in tests/kubernetes" >&2
    (cd "$k8s_dir" && npm ci --no-audit --no-fund >&2)
  fi
fi
