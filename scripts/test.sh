#!/usr/bin/env bash
# Installs what the tests need and runs them all: the format lint (scripts/lint.sh), unit tests,
# integration tests against a real mosquitto (and amqtt, a second broker) each test starts on a
# free loopback port, Sparkplug B payloads checked against Python's protobuf (install-sparkplug.sh),
# process tests of the built binary, the release build's smoke test (scripts/release-smoke.sh),
# the release packages installed and run (scripts/package-test.sh) and ThreadSanitizer over the
# multi-threaded code (scripts/tsan.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh --tests
bash scripts/install-amqtt.sh
bash scripts/install-sparkplug.sh
bash scripts/lint.sh
swift build --build-tests
swift test --skip-build
bash scripts/release-smoke.sh
bash scripts/package-test.sh
bash scripts/tsan.sh
