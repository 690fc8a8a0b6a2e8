#!/usr/bin/env bash
# ThreadSanitizer over the tests of the code that runs on several threads: Reactor, Mosquitto
# and Simulator. A build of its own (.build-tsan), so the usual one stays as it is. Exits 1 on any
# report: shared state is behind Reactor's Locked (a pthread mutex, which ThreadSanitizer sees),
# never Synchronization's Mutex (a futex it cannot follow), so nothing needs suppressing.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --build-tests --sanitize=thread --build-path .build-tsan >/dev/null
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
TSAN_OPTIONS="halt_on_error=0 report_signal_unsafe=0" \
  swift test --skip-build --sanitize=thread --build-path .build-tsan --filter 'ReactorTests|MosquittoTests|SimulatorTests' > "$log" 2>&1 || status=$?
reports=$(grep -c "WARNING: ThreadSanitizer" "$log" || true)
if [ "$reports" -gt 0 ]; then
  grep -A40 "WARNING: ThreadSanitizer" "$log" | head -200 || true  # head closing the pipe is no failure
  echo "tsan: $reports reports (above)" >&2
  exit 1
fi
if [ "$status" -ne 0 ]; then
  # The failures first: the tail alone does not say which test it was.
  grep -E "✘|recorded an issue|Expectation failed|Caught error" "$log" | head -40 || true
  tail -40 "$log"
  echo "tsan: the tests failed under ThreadSanitizer" >&2
  exit 1
fi
echo "tsan: $(grep -E 'Test run with' "$log" | tail -1 | sed -e 's/.*Test run with //' -e 's/\.$//'), no race reported"
