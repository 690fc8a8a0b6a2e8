#!/usr/bin/env bash
# Installs what devsim needs, builds it, starts a private mosquitto on a free loopback port and
# runs the Milkcocoa accelerometer scenario against it for a few seconds, showing the messages
# as a subscriber receives them.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
bash scripts/install-deps.sh
bin=$(release_devsim)

dir=$(mktemp -d)
broker= subscriber=
# Named before anything starts: Ctrl-C at any moment leaves nothing running.
trap 'kill $broker $subscriber 2>/dev/null; rm -rf "$dir"' EXIT
port=$(free_port)
start_mosquitto "$dir" "$port"

echo "== mosquitto on 127.0.0.1:$port; subscriber output below"
mosquitto_sub -h 127.0.0.1 -p "$port" -t '#' -v &
subscriber=$!
sleep 0.3
"$bin" run scenarios/milkcocoa-accelerometer.yaml --host 127.0.0.1 --port "$port" \
  --duration "${DURATION:-5s}" --report "$dir/report.json"
sleep 0.3
echo "== report"
cat "$dir/report.json"
