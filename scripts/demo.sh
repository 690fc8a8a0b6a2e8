#!/usr/bin/env bash
# Installs what devsim needs, builds it, starts a private mosquitto on a free loopback port and
# runs the Milkcocoa accelerometer scenario against it for a few seconds, showing the messages
# as a subscriber receives them.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
swift build -c release
bin=$(swift build -c release --show-bin-path)/devsim

dir=$(mktemp -d)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null || echo 18830)
printf 'listener %s 127.0.0.1\nallow_anonymous true\n' "$port" > "$dir/mosquitto.conf"
/usr/sbin/mosquitto -c "$dir/mosquitto.conf" > "$dir/broker.log" 2>&1 &
broker=$!
trap 'kill $broker $subscriber 2>/dev/null; rm -rf "$dir"' EXIT
sleep 0.5

echo "== mosquitto on 127.0.0.1:$port; subscriber output below"
mosquitto_sub -h 127.0.0.1 -p "$port" -t '#' -v &
subscriber=$!
sleep 0.3
"$bin" run scenarios/milkcocoa-accelerometer.yaml --host 127.0.0.1 --port "$port" \
  --duration "${DURATION:-5s}" --report "$dir/report.json"
sleep 0.3
echo "== report"
cat "$dir/report.json"
