#!/usr/bin/env bash
# ThreadSanitizer over the tests of the code that runs on several threads: Reactor, Mosquitto
# and Simulator. A build of its own (.build-tsan), so the usual one stays as it is. Exits 1 on any
# report but the one suppressed in scripts/tsan.supp, which says why.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --build-tests --sanitize=thread --build-path .build-tsan >/dev/null
log=$(mktemp)
trap 'rm -f "$log"' EXIT
TSAN_OPTIONS="suppressions=$PWD/scripts/tsan.supp halt_on_error=0 report_signal_unsafe=0" \
  swift test --skip-build --sanitize=thread --build-path .build-tsan --filter 'ReactorTests|MosquittoTests|SimulatorTests' > "$log" 2>&1 || {
    tail -40 "$log"; echo "tsan: the tests failed under ThreadSanitizer" >&2; exit 1; }
if grep -q "WARNING: ThreadSanitizer" "$log"; then
  grep -A30 "WARNING: ThreadSanitizer" "$log" | head -120
  echo "tsan: $(grep -c 'WARNING: ThreadSanitizer' "$log") reports (above)" >&2
  exit 1
fi
echo "tsan: $(grep -E 'Test run with' "$log" | tail -1 | sed -e 's/.*Test run with //' -e 's/\.$//'), no race reported"
