# devsim as a container: built in the official Swift image, run on a slim Debian with only the
# libraries the binary links (ldd: libmosquitto.so.1, libyaml-0.so.2, libwslay.so.0, libssl and
# libcrypto, libmicrohttpd.so.12, libsystemd.so.0, liblua5.4.so.0, libstdc++ and glibc; the Swift
# runtime and Foundation are linked in by --static-swift-stdlib).
#
#   docker build -t devsim .
#   docker run --rm --network host -e DEVSIM_HOST=127.0.0.1 devsim
#   docker run --rm devsim run /usr/share/devsim/scenarios/broker-load.yaml --host broker --duration 5m
#
# The base images are ARGs so they can be swapped for a mirror or a local stand-in
# (scripts/container-test.sh builds this file unchanged with local images).
ARG SWIFT_IMAGE=swift:6.3-bookworm
ARG RUNTIME_IMAGE=debian:bookworm-slim

FROM ${SWIFT_IMAGE} AS build
# The official image has swift on PATH already; a stand-in may mount a toolchain at /opt/swift.
ENV PATH=/opt/swift/usr/bin:$PATH
RUN export DEBIAN_FRONTEND=noninteractive \
    && apt-get update \
    && apt-get install -y --no-install-recommends libmosquitto-dev libyaml-dev libwslay-dev libssl-dev libmicrohttpd-dev libsystemd-dev liblua5.4-dev pkg-config \
    && apt-get clean && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# Every target the manifest declares must exist, so Tests, Benchmarks and Fuzz come too (only devsim is built).
COPY Package.swift ./
COPY Sources ./Sources
COPY Benchmarks ./Benchmarks
COPY Fuzz ./Fuzz
COPY Tests ./Tests
RUN swift build -c release --static-swift-stdlib --product devsim \
    && install -D -m 0755 "$(swift build -c release --static-swift-stdlib --show-bin-path)/devsim" /out/devsim \
    && strip /out/devsim

FROM ${RUNTIME_IMAGE}
RUN export DEBIAN_FRONTEND=noninteractive \
    && apt-get update \
    && apt-get install -y --no-install-recommends libmosquitto1 libyaml-0-2 libwslay1 libssl3 libmicrohttpd12 libsystemd0 liblua5.4-0 libstdc++6 ca-certificates \
    && apt-get clean && rm -rf /var/lib/apt/lists/* \
    && groupadd --system --gid 10001 devsim \
    && useradd --system --uid 10001 --gid devsim --home-dir /var/lib/devsim --create-home \
       --shell /usr/sbin/nologin devsim
COPY --from=build /out/devsim /usr/local/bin/devsim
# The ready-made scenarios, at a fixed path: /usr/share/devsim/scenarios/NAME.yaml, and the
# scripts of some, in scripts/ beside them
COPY scenarios/ /usr/share/devsim/scenarios/
# Reports written by --report land here unless a path says otherwise; mount a volume on it.
WORKDIR /var/lib/devsim
USER 10001:10001
# Configure by DEVSIM_* variables (DEVSIM_HOST, DEVSIM_PORT, DEVSIM_DURATION, DEVSIM_REPORT, ...)
# or by arguments after the image name, which replace CMD. SIGTERM (docker stop, Kubernetes)
# drains in-flight messages, writes the report and exits 0.
ENTRYPOINT ["devsim"]
CMD ["run", "/usr/share/devsim/scenarios/milkcocoa-accelerometer.yaml", "--duration", "30s"]
