#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages (as root) that devsim builds and its demo runs with, or with
# --tests also those the tests add: the demo on a fresh machine waits for no browser.
#
#   scripts/install-deps.sh           building, scripts/demo.sh, soak.sh and fuzz.sh
#   scripts/install-deps.sh --tests   and the tests' (scripts/test.sh, CI, the release's packages)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
# The libraries devsim links, with their headers and pkg-config (liblua5.4-dev: device scripts);
# mosquitto and mosquitto-clients: the broker and the subscriber the demo (and the tests) start;
# python3: lib.sh's free_port.
build=(libmosquitto-dev libyaml-dev libwslay-dev libssl-dev libmicrohttpd-dev libsystemd-dev liblua5.4-dev pkg-config mosquitto
  mosquitto-clients python3)
# iptables, iproute2 (ip, tc) and util-linux (unshare, nsenter): the fault tests black-hole and
# throttle a broker inside a network namespace of their own. python3-venv: the integration tests'
# second broker, amqtt, runs from a virtual environment (install-amqtt.sh). openssl: the tests'
# certificates. python3-jinja2: Home Assistant's templates rendered over devsim's discovery
# configs. dpkg-dev (dpkg-shlibdeps) and binutils (objdump, strip): scripts/package.sh.
# prometheus: its promtool checks /metrics. chromium: the live page is tested in a real browser,
# headless. python3-yaml: scripts/example-test.sh reads a CI example's steps to run them. curl:
# the example fetches the tarball with it.
tests=(openssl iptables iproute2 util-linux python3-venv python3-jinja2 python3-yaml curl dpkg-dev binutils prometheus chromium)
case "${1:-}" in
  "") install_missing "${build[@]}" ;;
  --tests) install_missing "${build[@]}" "${tests[@]}" ;;
  *)
    echo "usage: install-deps.sh [--tests]" >&2
    exit 2
    ;;
esac
# The packaged broker starts itself as a service on port 1883 on some systems; devsim's tests
# start their own on free ports and do not need it.
