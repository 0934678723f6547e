#!/usr/bin/env bash
# Installs every Debian package hitcost needs, and nothing when all are present.
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
)

# Fuzzing (scripts/test-fuzz.sh): clang 14 with its sanitizer runtimes and libFuzzer;
# llvm-14 brings llvm-symbolizer for readable sanitizer stacks.
fuzz_pkgs=(
  clang libclang-rt-14-dev libfuzzer-14-dev llvm-14
)

# The compose journey on a real engine (scripts/test-containers.sh): Debian's Docker engine
# (dockerd 20.10, with tini as docker-init), Compose v1, and mmdebstrap for the base image
# when no registry answers.
containers_pkgs=(
  docker.io docker-compose mmdebstrap
)

# The anchors the benchmarks compare against (bench/*.sh): wrk and nginx.
bench_pkgs=(
  wrk nginx
)

want=()
groups=${HITCOST_DEPS:-"build test"}
for g in $groups; do
  case $g in
    build) want+=("${build_pkgs[@]}") ;;
    test)  want+=("${test_pkgs[@]}") ;;
    php)   want+=("${php_pkgs[@]}") ;;
    bench) want+=("${bench_pkgs[@]}") ;;
    fuzz)  want+=("${fuzz_pkgs[@]}") ;;
    containers) want+=("${containers_pkgs[@]}") ;;
    *) echo "install-deps: unknown group '$g'" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "install-deps: installing ${missing[*]}" >&2
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
# A fresh machine's package lists may be stale or empty: update first, then install.
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
