#!/usr/bin/env bash
# Proves the Dockerfile works on a machine that reaches no container registry, only Debian's
# package mirrors. As root, on Debian bookworm, with the Swift toolchain at /opt/swift:
#
#   scripts/container-test.sh
#
# 1. makes local stand-ins for the Dockerfile's two base images, once (cached as podman images):
#    localhost/debian:bookworm-slim   debootstrap --variant=minbase bookworm, podman import
#    localhost/devsim-swift-base      that, plus what the official swift image carries for the
#                                     toolchain (binutils, libc and libstdc++ headers, libcurl...);
#                                     the toolchain itself is mounted read-only at build time
# 2. builds the Dockerfile unchanged but for its ARGs (podman build -v /opt/swift:/opt/swift:ro)
# 3. runs the image (--network host) against a private mosquitto on a free loopback port and
#    checks: the binary's libraries resolve, the baked-in scenarios validate, a scripted one
#    dry-runs, messages arrive, the process runs as non-root, and `podman stop` (SIGTERM) makes
#    devsim exit 0 with a report.
#
# Prints one PASS or FAIL line per check; exits 1 if any failed. REBUILD_BASE=1 remakes the base
# images; IMAGE=name picks the tag built (default localhost/devsim:test); SWIFT_DIR the toolchain.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
start=$SECONDS

swift_dir=${SWIFT_DIR:-/opt/swift}
image=${IMAGE:-localhost/devsim:test}
runtime_base=localhost/debian:bookworm-slim
swift_base=localhost/devsim-swift-base
# debootstrap's own default mirror unless DEBIAN_MIRROR names another.
mirror=${DEBIAN_MIRROR:-}
# This kind of machine (a container itself) needs runc and explicit limits.
run_flags=(--runtime runc --ulimit nofile=20000:20000 --ulimit nproc=4096:4096)
build_flags=(--runtime runc --ulimit nofile=20000:20000 --ulimit nproc=4096:4096 --network host)

failures=0
pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
step() { echo "== $* ($((SECONDS - start)) s)"; }

need=()
command -v podman >/dev/null || need+=(podman)
command -v runc >/dev/null || need+=(runc)
command -v debootstrap >/dev/null || need+=(debootstrap)
command -v mosquitto_sub >/dev/null || need+=(mosquitto-clients)
[ -x /usr/sbin/mosquitto ] || need+=(mosquitto)
if [ ${#need[@]} -gt 0 ]; then
  step "installing ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update
  apt-get install -y --no-install-recommends "${need[@]}"
fi
[ -x "$swift_dir/usr/bin/swift" ] || { echo "FAIL no Swift toolchain at $swift_dir (set SWIFT_DIR)"; exit 1; }

work=$(mktemp -d)
container=devsim-container-test-$$
broker=
cleanup() {
  podman rm -f "$container" >/dev/null 2>&1 || true
  [ -n "$broker" ] && kill "$broker" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# -- 1. base images ------------------------------------------------------------------------------
if [ -n "${REBUILD_BASE:-}" ]; then
  podman rmi -f "$swift_base" "$runtime_base" >/dev/null 2>&1 || true
fi
if podman image exists "$runtime_base"; then
  step "$runtime_base: cached"
else
  step "$runtime_base: debootstrap --variant=minbase bookworm (a few minutes)"
  rootfs="$work/rootfs"
  debootstrap --variant=minbase bookworm "$rootfs" ${mirror:+"$mirror"} > "$work/debootstrap.log" 2>&1 \
    || { tail -20 "$work/debootstrap.log"; echo "FAIL debootstrap"; exit 1; }
  # As in the official slim image: no apt cache, no package lists.
  rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
  tar -C "$rootfs" -c . | podman import --change 'CMD ["bash"]' - "$runtime_base" >/dev/null
  rm -rf "$rootfs"
fi
if podman image exists "$swift_base"; then
  step "$swift_base: cached"
else
  step "$swift_base: the packages the official swift:bookworm image carries"
  # The official image's list (swift-docker, 6.x/bookworm), less what only lldb and the REPL need.
  cat > "$work/Containerfile.swift-base" <<EOF
FROM $runtime_base
RUN export DEBIAN_FRONTEND=noninteractive && apt-get update \\
    && apt-get install -y --no-install-recommends binutils binutils-gold gcc libc6-dev \\
       libgcc-12-dev libstdc++-12-dev libcurl4-openssl-dev libedit2 libncurses-dev \\
       libsqlite3-0 libxml2-dev zlib1g-dev libpython3.11 tzdata git ca-certificates pkg-config unzip \\
    && rm -rf /var/lib/apt/lists/*
ENV PATH=/opt/swift/usr/bin:\$PATH
EOF
  podman build "${build_flags[@]}" -t "$swift_base" -f "$work/Containerfile.swift-base" "$work" \
    > "$work/swift-base.log" 2>&1 || { tail -20 "$work/swift-base.log"; echo "FAIL swift base image"; exit 1; }
fi

# -- 2. the image --------------------------------------------------------------------------------
step "podman build (Dockerfile unchanged; ARGs point at the stand-ins)"
build_start=$SECONDS
if podman build "${build_flags[@]}" -v "$swift_dir:/opt/swift:ro" \
    --build-arg SWIFT_IMAGE="$swift_base" --build-arg RUNTIME_IMAGE="$runtime_base" \
    -t "$image" -f Dockerfile . > "$work/build.log" 2>&1; then
  pass "image builds ($image, $((SECONDS - build_start)) s)"
else
  tail -40 "$work/build.log"
  fail "image builds"
  exit 1
fi
size=$(podman image inspect --format '{{.Size}}' "$image")
binary=$(podman run --rm "${run_flags[@]}" --entrypoint stat "$image" -c %s /usr/local/bin/devsim)
echo "   image $((size / 1000000)) MB, /usr/local/bin/devsim $((binary / 1000000)) MB"

# -- 3. checks -----------------------------------------------------------------------------------
user=$(podman image inspect --format '{{.Config.User}}' "$image")
case "$user" in
  ""|root|0|0:*|root:*) fail "image USER is non-root (it is '${user:-unset}')" ;;
  *) pass "image USER is non-root ($user)" ;;
esac

missing=$(podman run --rm "${run_flags[@]}" --entrypoint ldd "$image" /usr/local/bin/devsim | grep 'not found' || true)
if [ -z "$missing" ]; then pass "every library the binary links is in the runtime image"; else fail "ldd: $missing"; fi

if version=$(podman run --rm "${run_flags[@]}" "$image" --version 2>&1); then
  pass "devsim --version: $version"
else
  fail "devsim --version: $version"
fi

scenarios=()
for file in scenarios/*.yaml; do scenarios+=("/usr/share/devsim/scenarios/$(basename "$file")"); done
# aws-iot-core.yaml's things each have their own certificate, made as its comments say and
# readable by the image's user.
bash scripts/make-device-certs.sh --out "$work/certs" --prefix thing- --count 10 > /dev/null
bash scripts/make-device-certs.sh --out "$work/certs" --prefix sensor- --count 5 > /dev/null
chmod -R a+rX "$work/certs"
if out=$(podman run --rm "${run_flags[@]}" -e DEVICES=10 -e AWS_IOT_CERTS=/certs -v "$work/certs:/certs:ro" "$image" \
  validate "${scenarios[@]}" 2>&1); then
  pass "the ${#scenarios[@]} baked-in scenarios validate"
else
  fail "baked-in scenarios validate: $out"
fi
# A device script runs in the image's Lua (liblua5.4-0), the scenario's script baked in beside it.
if out=$(podman run --rm "${run_flags[@]}" "$image" run /usr/share/devsim/scenarios/thermostat.yaml --dry-run --messages 4 --seed 1 2>&1) \
  && grep -q 'setpoint' <<< "$out" && ! grep -q 'heatRate' <<< "$out"; then
  pass "a scripted scenario runs (thermostat.yaml, a dry run)"
else
  fail "a scripted scenario runs: $out"
fi

port=$(free_port)
start_mosquitto "$work" "$port"
mosquitto_sub -h 127.0.0.1 -p "$port" -t 'demo/Test/push' -C 3 -W 30 > "$work/messages" 2>&1 &
subscriber=$!
sleep 0.3

mkdir -p "$work/out"
chown 10001:10001 "$work/out" 2>/dev/null || chmod 0777 "$work/out"
step "podman run: the image's default CMD against 127.0.0.1:$port"
podman run -d --name "$container" --network host "${run_flags[@]}" \
  -e DEVSIM_HOST=127.0.0.1 -e DEVSIM_PORT="$port" -e DEVSIM_REPORT=/var/lib/devsim/out/report.json \
  -v "$work/out:/var/lib/devsim/out" "$image" > /dev/null

if wait "$subscriber" && [ "$(wc -l < "$work/messages")" -eq 3 ]; then
  pass "messages arrive at the broker: $(head -1 "$work/messages")"
else
  fail "messages arrive at the broker: $(cat "$work/messages")"
fi

uid=$(podman exec "$container" id -u 2>&1 || true)
if [ -n "$uid" ] && [ "$uid" != 0 ]; then pass "devsim runs as uid $uid"; else fail "devsim runs as non-root (id -u: $uid)"; fi

stop_start=$SECONDS
podman stop -t 20 "$container" > /dev/null
code=$(podman inspect --format '{{.State.ExitCode}}' "$container")
if [ "$code" = 0 ]; then
  pass "podman stop (SIGTERM): exit 0 after $((SECONDS - stop_start)) s"
else
  fail "podman stop (SIGTERM): exit $code"
  podman logs "$container" 2>&1 | tail -20
fi
if [ -s "$work/out/report.json" ] && python3 - "$work/out/report.json" <<'EOF'
import json, sys
report = json.load(open(sys.argv[1]))
print("   report: outcome=%s published=%s scheduled=%s" % (report.get("outcome"), report.get("published"), report.get("scheduled")))
sys.exit(0 if report.get("published", 0) > 0 else 1)
EOF
then
  pass "the report is written on SIGTERM and counts the messages"
else
  fail "the report is written on SIGTERM"
  podman logs "$container" 2>&1 | tail -20
fi

echo "== $((SECONDS - start)) s in all"
if [ "$failures" -gt 0 ]; then
  echo "FAIL $failures check(s) failed"
  exit 1
fi
echo "PASS container test"
