# hitcost in containers: a build stage with the Debian 12 toolchain and -dev packages, then a
# slim runtime with only the shared libraries the two programs link against, plus memcached
# (the same Debian 1.6 build the native scripts use) and curl (health checks, admin calls).
#
#   docker build -t hitcost .
#   docker run --rm -p 8080:8080 hitcost            # hitcost-server, memory store
#   docker-compose up / docker compose up           # 3 memcached nodes + server (docker-compose.yml)
#
# Nothing is downloaded at build time except Debian packages (apt); the sources come from the
# build context (.dockerignore keeps build trees and outputs out of it).

FROM debian:bookworm-slim AS build
ARG DEBIAN_FRONTEND=noninteractive
RUN apt-get update -qq \
 && apt-get install -y -qq --no-install-recommends \
      build-essential cmake pkg-config \
      libboost-dev nlohmann-json3-dev libmsgpack-cxx-dev libsimdjson-dev \
      zlib1g-dev libzstd-dev liblz4-dev libmemcached-dev libcli11-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# Only what the two programs need (tests, benchmarks and fuzzers are not built here).
COPY CMakeLists.txt ./
COPY core core
COPY proc proc
COPY codecs codecs
COPY stores stores
COPY server server
COPY client client
ARG BUILD_TYPE=Release
ARG JOBS=2
RUN cmake -S . -B /build -DCMAKE_BUILD_TYPE=${BUILD_TYPE} \
      -DHITCOST_BUILD_TESTS=OFF -DHITCOST_BUILD_BENCH=OFF \
 && cmake --build /build -j${JOBS} --target hitcost-server hitcost-load \
 && strip /build/server/hitcost-server /build/client/hitcost-load

FROM debian:bookworm-slim AS runtime
ARG DEBIAN_FRONTEND=noninteractive
# Runtime libraries only: libmemcached11 (pulls libhashkit2, libsasl2-2), zlib, zstd, lz4,
# simdjson; libstdc++6 is in the base image. memcached serves the cache nodes in compose.
RUN apt-get update -qq \
 && apt-get install -y -qq --no-install-recommends \
      libmemcached11 zlib1g libzstd1 liblz4-1 libsimdjson14 \
      memcached curl \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --home-dir /nonexistent --shell /usr/sbin/nologin hitcost \
 && mkdir -p /out && chown hitcost /out
COPY --from=build /build/server/hitcost-server /build/client/hitcost-load /usr/local/bin/
COPY docker/load-sweep.sh /usr/local/bin/hitcost-load-sweep
USER hitcost
EXPOSE 8080
# In a container the server must listen on all interfaces (its default is 127.0.0.1).
HEALTHCHECK --interval=2s --timeout=2s --retries=30 \
  CMD curl -fsS --max-time 2 http://127.0.0.1:8080/healthz || exit 1
CMD ["hitcost-server", "--host", "0.0.0.0", "--port", "8080", "--store", "memory"]
