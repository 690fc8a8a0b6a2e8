#!/usr/bin/env bash
# Issue 6, fault 9 (soak): devsim against a broker killed (-9) and restarted twice a minute for an
# hour, 1,000 devices at QoS 1 buffering while it is away. Not a test: it takes an hour. It prints
# devsim's resident memory over time and the run's counts, and exits 1 when a promise is broken:
#
#   - RSS flat after warm-up: the last ten minutes' mean within 10 % of the mean of minutes 5-15;
#   - counts exact: scheduled == published + skippedOffline + droppedBuffer + buffered + failed,
#     published == acknowledged + inFlight, and one reconnect per device per restart;
#   - devsim never exits early or crashes.
#
# Delivery is counted too, by a mosquitto_sub with a persistent session on a broker with
# persistence, and printed, but not asserted: a broker killed with -9 may lose messages it has
# already acknowledged (forwarded to no one yet, or not yet saved), and that loss is the broker's.
#
#   scripts/soak.sh                          one hour, 1,000 devices, a restart every 30 s
#   DURATION=600 DEVICES=200 scripts/soak.sh a shorter look
#
# DURATION (seconds, default 3600), DEVICES (default 1000), RESTART_EVERY (seconds, default 30),
# OUTAGE (seconds the broker stays down, default 2), KEEP=1 keeps the work folder.
set -euo pipefail
# The whole script is one block, which bash reads before it runs any of it: an hour is long
# enough for someone to edit this file, and bash would otherwise read the rest from the new one.
{
cd "$(dirname "$0")/.."
. scripts/lib.sh
duration=${DURATION:-3600}
devices=${DEVICES:-1000}
restart_every=${RESTART_EVERY:-30}
outage=${OUTAGE:-2}
bash scripts/install-deps.sh >/dev/null
swift build -c release --product devsim >/dev/null

dir=$(mktemp -d)
chmod 777 "$dir" # mosquitto started as root saves its database as the mosquitto user
# A copy, so that a build during the hour does not change the binary under the run.
bin=$dir/devsim
cp "$(swift build -c release --show-bin-path)/devsim" "$bin"
port=$(free_port)
cat > "$dir/mosquitto.conf" <<CONF
listener $port 127.0.0.1
allow_anonymous true
persistence true
persistence_location $dir/
autosave_interval 5
max_queued_messages 0
max_inflight_messages 0
CONF
cat > "$dir/soak.yaml" <<YAML
name: soak
broker:
  keepalive: 30s
offline: { policy: buffer, maxMessages: 100 }
devices:
  - name: node
    count: $devices
    id: "soak-{index}"
    topic: "soak/{id}"
    publish: 1/s
    qos: 1
    rampUp: 500/s
    jitter: auto
    payload:
      style: flat
      fields:
        seq: { counter: 0 }
        v: { uniform: { min: 0, max: 100 }, decimals: 2 }
YAML

broker=
subscriber=
devsim=
cleanup() {
  for pid in $devsim $subscriber $broker; do kill -9 "$pid" 2>/dev/null || true; done
  if [ "${KEEP:-0}" = 1 ]; then echo "work folder kept: $dir"; else rm -rf "$dir"; fi
}
trap cleanup EXIT
start_broker() {
  start_mosquitto "$dir" "$port"
}

start_broker
# A persistent session (-c) with a fixed id: after each restart the broker restores it from its
# saved database and keeps what devsim sends until the subscriber is back.
mosquitto_sub -h 127.0.0.1 -p "$port" -i soak-counter -c -q 1 -t 'soak/#' -F '%t %p' > "$dir/received.txt" 2> "$dir/sub.log" &
subscriber=$!
sleep 6 # one autosave, so the subscription survives the first kill

"$bin" run "$dir/soak.yaml" --host 127.0.0.1 --port "$port" --duration "${duration}s" --stats-interval 60s \
  --report "$dir/report.json" 2> "$dir/devsim.log" &
devsim=$!
started=$(date +%s)
echo "soak: $devices devices, QoS 1, a kill -9 every ${restart_every}s for ${duration}s (devsim pid $devsim, broker port $port)"

restarts=0
next_restart=$(( started + restart_every ))
# No restarts in the last minute, so what was kept is flushed before the run ends.
last_restart=$(( started + duration - 60 ))
echo "seconds,rss_kb" > "$dir/rss.csv"
while kill -0 "$devsim" 2>/dev/null; do
  now=$(date +%s)
  rss=$(awk '/^VmRSS/ {print $2}' "/proc/$devsim/status" 2>/dev/null || true)
  [ -n "$rss" ] && echo "$(( now - started )),$rss" >> "$dir/rss.csv"
  if [ "$now" -ge "$next_restart" ] && [ "$now" -le "$last_restart" ]; then
    kill -9 "$broker" 2>/dev/null || true; wait "$broker" 2>/dev/null || true
    sleep "$outage"
    start_broker
    restarts=$(( restarts + 1 ))
    next_restart=$(( next_restart + restart_every ))
  fi
  sleep 5
done
set +e
wait "$devsim"
status=$?
set -e
sleep 3 # the subscriber takes the last deliveries
kill "$subscriber" 2>/dev/null || true

python3 - "$dir" "$status" "$restarts" "$devices" "$duration" <<'PY'
import json, sys
folder, status, restarts, devices, duration = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
broken = []
if status != 0:
    broken.append(f"devsim exited {status}")
try:
    r = json.load(open(f"{folder}/report.json"))
except Exception as error:
    print(f"no report: {error}"); sys.exit(1)

samples = [tuple(map(int, line.split(","))) for line in open(f"{folder}/rss.csv").read().split()[1:]]
def mean(window):
    values = [kb for t, kb in samples if window[0] <= t < window[1]]
    return sum(values) / len(values) if values else float("nan")
warm = mean((300, 900)) if duration >= 1500 else mean((duration * 0.1, duration * 0.3))
last = mean((duration - 600, duration + 60)) if duration >= 1500 else mean((duration * 0.7, duration + 60))
peak = max(kb for _, kb in samples)
print(f"== soak: {devices} devices x 1/s, QoS 1, {restarts} broker restarts (kill -9) in {duration} s")
print("RSS MB by ten minutes: " + "  ".join(
    f"{m//60}m {mean((m, m + 600))/1024:.1f}" for m in range(0, duration, 600)))
print(f"RSS after warm-up {warm/1024:.1f} MB, over the last stretch {last/1024:.1f} MB "
      f"({100*(last-warm)/warm:+.1f} %), peak {peak/1024:.1f} MB")
if last > warm * 1.10:
    broken.append(f"RSS grew {100*(last-warm)/warm:.1f} % after warm-up")

kept = r["published"] + r["skippedOffline"] + r["droppedBuffer"] + r["buffered"] + r["failed"]
print(f"scheduled {r['scheduled']} = published {r['published']} + skippedOffline {r['skippedOffline']} "
      f"+ droppedBuffer {r['droppedBuffer']} + buffered {r['buffered']} + failed {r['failed']} ({kept})")
print(f"acknowledged {r['acknowledged']} + inFlight {r['inFlight']} of published {r['published']}; "
      f"reconnects {r['reconnects']} (expected {restarts * devices}); connection errors {r['connectionErrors']}")
l = r["lateness"]; a = r.get("latency") or {}
print(f"lateness ms p50 {l['p50']} p99 {l['p99']} max {l['max']}; ack latency ms p50 {a.get('p50')} p99 {a.get('p99')} max {a.get('max')}")
if r["scheduled"] != kept: broken.append("scheduled is not the sum of where the ticks went")
if r["published"] != r["acknowledged"] + r["inFlight"]: broken.append("published is not acknowledged + inFlight")
if r["reconnects"] != restarts * devices: broken.append("reconnects is not one per device per restart")

seen = set(); lines = 0
for line in open(f"{folder}/received.txt", errors="replace"):
    lines += 1
    topic, _, payload = line.partition(" ")
    try: seen.add((topic, json.loads(payload)["seq"]))
    except Exception: pass
print(f"delivered to the persistent subscriber: {len(seen)} distinct of {r['acknowledged']} acknowledged "
      f"({r['acknowledged'] - len(seen)} missing, {lines - len(seen)} duplicates)")
if broken:
    print("BROKEN: " + "; ".join(broken)); sys.exit(1)
print("soak: every promise held")
PY
exit
}
