#!/usr/bin/env bash
# The release build, run as a user runs it: every shipped scenario validated, dry-run and sampled,
# and two of them run against a private mosquitto with --verify. An optimized build ends object
# lifetimes where a debug build, the tests', keeps them (a dry run once crashed in release only),
# so CI runs this beside the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
bin=$(release_devsim)
dir=$(mktemp -d)
broker=
trap 'kill $broker 2>/dev/null; rm -rf "$dir"' EXIT

# aws-iot-core.yaml's things each have their own certificate, made as its comments say.
bash scripts/make-device-certs.sh --out "$dir/certs" --prefix thing- --count 10 > /dev/null
bash scripts/make-device-certs.sh --out "$dir/certs" --prefix sensor- --count 5 > /dev/null
export AWS_IOT_CERTS="$dir/certs"
"$bin" validate scenarios/*.yaml > /dev/null
for scenario in scenarios/*.yaml; do
  "$bin" run "$scenario" --dry-run --messages 500 --seed 1 > "$dir/dry.jsonl"
  # 500 ticks; what a device says besides its ticks is marked: its will ("will":true), its roles'
  # messages ("what": availability, discovery, births) and the state said at the CONNACK ("state":true).
  ticks=$(grep -v -e '"will":true' -e '"what":"' -e '"state":true}$' "$dir/dry.jsonl" | wc -l)
  [ "$ticks" -eq 500 ] || { echo "release smoke: $scenario dry run printed $ticks ticks, not 500" >&2; exit 1; }
  "$bin" sample "$scenario" --seed 1 > /dev/null
done

port=$(free_port)
start_mosquitto "$dir" "$port"
for scenario in scenarios/milkcocoa-accelerometer.yaml scenarios/sensor-room.yaml; do
  DEVICES=20 "$bin" run "$scenario" --host 127.0.0.1 --port "$port" --anonymous --duration 3s --verify --quiet \
    --report "$dir/report.json" --expect 'published>=1' --expect 'lost==0'
done
echo "release smoke: passed"
