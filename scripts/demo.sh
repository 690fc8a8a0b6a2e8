#!/usr/bin/env bash
# Installs what devsim builds and the demo runs with (not the tests' packages), builds it, starts
# a private mosquitto on a free loopback port and runs the Milkcocoa accelerometer scenario against
# it for a few seconds, showing the messages as a subscriber receives them; then a summary of a
# few lines, and where the full report is (JSON, and a page to open).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
bash scripts/install-deps.sh
# A debug build: a third of a release build's time, and the demo's one device needs no speed
# (scripts/test.sh builds on it).
swift build --product devsim
bin="$(swift build --show-bin-path)/devsim"

dir=$(mktemp -d)
out=${TMPDIR:-/tmp}/devsim-demo
mkdir -p "$out"
broker= subscriber=
# Named before anything starts: Ctrl-C at any moment leaves nothing running.
trap 'kill $broker $subscriber 2>/dev/null; rm -rf "$dir"' EXIT
port=$(free_port)
start_mosquitto "$dir" "$port"

echo "== mosquitto on 127.0.0.1:$port; subscriber output below"
# Shown as it comes, and kept to be counted.
mosquitto_sub -h 127.0.0.1 -p "$port" -t '#' -v > >(tee "$dir/received") &
subscriber=$!
sleep 0.3
"$bin" run scenarios/milkcocoa-accelerometer.yaml --host 127.0.0.1 --port "$port" \
  --duration "${DURATION:-5s}" --report "$out/report.json"
"$bin" report html "$out/report.json" --output "$out/report.html"
sleep 0.3
echo "== summary"
python3 - "$out" "$(wc -l < "$dir/received")" <<'PY'
import json, sys
out, received = sys.argv[1], int(sys.argv[2])
r = json.load(open(f"{out}/report.json"))
acked = r.get("ackedPercent")
print(f"published {r['published']:,} of {r['scheduled']:,} scheduled, {r['ratePerSecond']:g} msg/s over {r['durationSeconds']:g} s; "
      + (f"acknowledged {r['acknowledged']:,} ({acked:.1f} %)" if acked is not None else "QoS 0: nothing to acknowledge"))
print(f"{r['connectionsUp']}/{r['connections']} connections up at the end, lateness p99 {r['lateness']['p99']:g} ms; "
      f"the subscriber received {received:,}")
print(f"the full report: {out}/report.json, and as a page: {out}/report.html")
PY
