#!/usr/bin/env bash
# Installs what the tests need and runs them all: unit tests, integration tests against a real
# mosquitto each test starts on a free loopback port, and process tests of the built binary.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
swift build --build-tests
swift test --skip-build
