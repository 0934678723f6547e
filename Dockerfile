# hitcost in containers: a build stage with the Debian 12 toolchain and -dev packages, then a
# slim runtime with only the shared libraries the three programs link against, plus memcached
# (the same Debian 1.6 build the native scripts use), curl (health checks, admin calls) and
# jq (the several-clients mode of the load service, scripts/topology.sh).
#
#   docker build --network host -t hitcost .        # --network host: apt in the build
#   docker run --rm -p 8080:8080 hitcost            # hitcost-server, memory store
#   docker-compose up / docker compose up           # 3 memcached nodes + server (docker-compose.yml)
#
# Nothing is downloaded at build time except Debian packages (apt); the sources come from the
# build context, which .dockerignore limits to what the programs and the load service need.
# scripts/test-containers.sh (the containers stage of ./test.sh) builds this image, checks
# with ldd that the runtime stage resolves every library and holds no build tools, and runs
# the compose stack.

FROM debian:bookworm-slim AS build
ARG DEBIAN_FRONTEND=noninteractive
# libssl-dev: libmemcached.pc requires libcrypto; without it pkg-config refuses libmemcached.
RUN apt-get update -qq \
 && apt-get install -y -qq --no-install-recommends \
      build-essential cmake pkg-config \
      libboost-dev nlohmann-json3-dev libsimdjson-dev \
      zlib1g-dev libzstd-dev liblz4-dev libdeflate-dev libisal-dev libmemcached-dev libssl-dev libcli11-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# One COPY (the context is already only the sources): one layer, which matters on the vfs
# storage driver, where every layer is a full copy of the tree below it.
COPY . .
ARG BUILD_TYPE=Release
ARG JOBS=2
RUN cmake -S . -B /build -DCMAKE_BUILD_TYPE=${BUILD_TYPE} \
      -DHITCOST_BUILD_TESTS=OFF -DHITCOST_BUILD_BENCH=OFF \
 && cmake --build /build -j${JOBS} --target hitcost-server hitcost-load hitcost-corpus \
 && mkdir -p /dist/bin /dist/share/scripts \
 && cp /build/server/hitcost-server /build/client/hitcost-load /build/advise/hitcost-corpus /dist/bin/ \
 && strip /dist/bin/* \
 && cp docker/load-sweep.sh /dist/bin/hitcost-load-sweep \
 && cp docker/memcached-nodes.sh /dist/bin/hitcost-memcached-nodes \
 && cp scripts/lib.sh scripts/free-port.sh scripts/topology.sh scripts/netns.sh /dist/share/scripts/

FROM debian:bookworm-slim AS runtime
ARG DEBIAN_FRONTEND=noninteractive
# Runtime libraries only: libmemcached11 (pulls libhashkit2, libsasl2-2, libssl3), zlib, zstd,
# lz4, libdeflate, ISA-L, simdjson; libstdc++6 is in the base image. memcached serves the cache nodes in compose.
RUN apt-get update -qq \
 && apt-get install -y -qq --no-install-recommends \
      libmemcached11 zlib1g libzstd1 liblz4-1 libdeflate0 libisal2 libsimdjson14 \
      memcached curl jq \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --home-dir /nonexistent --shell /usr/sbin/nologin hitcost \
 && mkdir -p /out && chown hitcost /out
COPY --from=build /dist/bin/ /usr/local/bin/
COPY --from=build /dist/share/ /usr/local/share/hitcost/
USER hitcost
EXPOSE 8080
# In a container the server must listen on all interfaces (its default is 127.0.0.1).
HEALTHCHECK --interval=2s --timeout=2s --retries=30 \
  CMD curl -fsS --max-time 2 http://127.0.0.1:8080/healthz || exit 1
CMD ["hitcost-server", "--host", "0.0.0.0", "--port", "8080", "--store", "memory"]
