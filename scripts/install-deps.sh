#!/usr/bin/env bash
# Installs the system packages devsim builds, tests and demonstrates with (Debian/Ubuntu, as root).
set -euo pipefail
# iptables, iproute2 (ip, tc) and util-linux (unshare, nsenter): the fault tests black-hole and
# throttle a broker inside a network namespace of their own. python3 and python3-venv: the
# integration tests' second broker, amqtt, runs from a virtual environment (install-amqtt.sh).
# dpkg-dev (dpkg-shlibdeps) and binutils (objdump, strip): scripts/package.sh. prometheus: its
# promtool checks /metrics. chromium: the live page is tested in a real browser, headless.
# python3-yaml: scripts/example-test.sh reads a CI example's steps to run them. curl: the
# example fetches the tarball with it.
packages=(libmosquitto-dev mosquitto mosquitto-clients libyaml-dev libwslay-dev libssl-dev libmicrohttpd-dev libsystemd-dev pkg-config openssl
  iptables iproute2 util-linux python3 python3-venv python3-jinja2 python3-yaml curl dpkg-dev binutils prometheus chromium)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update
  apt-get install -y --no-install-recommends "${missing[@]}"
fi
# The packaged broker starts itself as a service on port 1883 on some systems; devsim's tests
# start their own on free ports and do not need it.
