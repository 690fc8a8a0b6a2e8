#!/usr/bin/env bash
# Benchmarks devsim (release build) against a private mosquitto on a free loopback port, and
# prints figures; not part of the tests. Each figure is measured in the same run as its peer.
#
#   scripts/bench.sh              all benchmarks
#   scripts/bench.sh side-by-side devsim beside mosquitto_pub -l: throughput, then sizes
#   scripts/bench.sh throughput   one connection, QoS 0, publish: max: devsim beside mosquitto_pub -l
#   scripts/bench.sh rate         1,000 devices x 10 Hz for 60 s, with the defaults and in lock-step:
#                                 achieved vs scheduled, lateness
#   scripts/bench.sh capacity     1,000 devices from 1 Hz: run --find-capacity at QoS 0 and at QoS 1,
#                                 the answer and the table of steps (CAPACITY_STEP, CAPACITY_WARMUP;
#                                 CAPACITY_QOS="1" for one; CAPACITY_VERIFY=1 adds --verify --slo lost==0)
#   scripts/bench.sh punctuality  1,000 devices x 10 Hz with the defaults beside cyclictest (one thread,
#                                 1 ms) in the same PUNCTUALITY_SECONDS (default 20): devsim's
#                                 lateness p99 against this machine's own scheduling delay
#   scripts/bench.sh payload      nanoseconds to make one payload (no broker)
#   scripts/bench.sh sizes        one connection, QoS 0, publish: max, payloads of 64 B, 1 KB, 64 KB and 1 MB:
#                                 CPU per message and MB/s, mosquitto_pub -l beside devsim's JSON padded by
#                                 payload.size and its style: raw random bytes (SIZES_SCALE scales the counts)
#   scripts/bench.sh instructions callgrind instructions per message, one connection at publish: max,
#                                 QoS 0 and QoS 1: the difference between 60,000 and 20,000 messages
#                                 (start-up cancels out); set DEVSIM_BIN to the old binary to compare,
#                                 PAYLOAD_SIZE (such as 1KB) to pad the payloads
#   scripts/bench.sh qos1         one connection at publish: max, QoS 1, 16 and 100 in flight
#   scripts/bench.sh scale        CONNECTIONS (default 6000) connections: time to all up, memory, idle CPU
#   scripts/bench.sh reload       1,000 devices, SIGHUP changing one group of 10, then scaling it:
#                                 what each reload touched, and every other connection's connects
#   scripts/bench.sh commands     1,000 devices at 1 Hz that take commands: what subscribing costs
#                                 (beside the same fleet without), and a burst of 1,000 commands in 1 s
#   scripts/bench.sh tls-contexts TLS_CONTEXTS (default 1000) contexts, one per device certificate, against
#                                 one shared: ms and KB per context, before issue 27 (a trust store per
#                                 context) and after (one shared), and TLSContexts.prepare
#   scripts/bench.sh identities   IDENTITIES (default 1000) devices over TLS to a mosquitto with
#                                 require_certificate and use_identity_as_username, rampUp: max: a
#                                 certificate per device ("{id}.pem") against one shared, and per device
#                                 with the system's store (no ca): connections per second, max RSS
#   scripts/bench.sh sparkplug    1,000 devices at 1 Hz under 10 Sparkplug edge nodes (reporting all, and by
#                                 exception) beside the same fields as JSON over 10 shared connections:
#                                 callgrind instructions per message (30,000 less 10,000 messages), payload
#                                 and topic bytes per message (mosquitto_sub), CPU and max RSS over 30 s
#   scripts/bench.sh websockets   ws:// beside tcp: QoS 0 and QoS 1 on one connection, 1,000 connections
#                                 (scripts/bench-websockets.sh, as root, in a network namespace)
#
# MESSAGES (default 200000) and RATE_SECONDS (default 60) scale them. The devsim measured is
# DEVSIM_BIN (an old one, to compare in the same session; an installed one, /usr/bin/devsim), or
# this tree's release build where Swift is installed, or else the devsim on PATH: the benchmarks
# of the binary need neither Swift nor the tests' packages (payload and tls-contexts build
# benchmarks of this tree, so they need Swift). Only what a benchmark needs is installed.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
install_missing mosquitto mosquitto-clients python3 time >/dev/null
if [ -n "${DEVSIM_BIN:-}" ]; then
  bin=$DEVSIM_BIN
elif command -v swift >/dev/null; then
  bash scripts/install-deps.sh >/dev/null
  bin=$(release_devsim)
else
  bin=$(command -v devsim) || {
    echo "bench.sh: no devsim: install one (README, Install) or give DEVSIM_BIN, or install Swift to build this tree" >&2
    exit 1
  }
fi
which=${1:-all}
messages=${MESSAGES:-200000}
rate_seconds=${RATE_SECONDS:-60}

dir=$(mktemp -d)
broker=
trap 'kill $broker 2>/dev/null; rm -rf "$dir"' EXIT
port=$(free_port)
start_mosquitto "$dir" "$port" "max_queued_messages 0"


# Six generated fields, as a payload's `fields:` (108 bytes of JSON): the benchmarks' payload.
six_fields() {
  cat <<'YAML'
        Accel_X: { accelerometer: x, decimals: 4 }
        Accel_Y: { accelerometer: y, decimals: 4 }
        Accel_Z: { accelerometer: z, decimals: 4 }
        Temp: { sine: { min: 18, max: 26, period: 1h }, decimals: 2 }
        Humidity: { uniform: { min: 40, max: 60 }, decimals: 2 }
        Seq: { counter: 0 }
YAML
}

# One connection at publish: max with six generated fields (108-byte payloads), at QoS $1;
# padded to PAYLOAD_SIZE (payload.size) when set.
publishing_at_max() {
  cat <<YAML
name: throughput
$(connect_properties)
devices:
  - name: bench
    topic: bench/push
    publish: max
    qos: $1
    payload:
${PAYLOAD_SIZE:+      size: $PAYLOAD_SIZE}
      fields:
$(six_fields)
YAML
}

# CONNECT_PROPERTIES=1: MQTT 5 with broker.properties, whose CONNECT goes through devsim's raw
# bridge (the relay's price); CONNECT_PROPERTIES=0: MQTT 5 without, the figure to compare it to.
connect_properties() {
  case "${CONNECT_PROPERTIES:-}" in
    1) printf 'broker:\n  protocol: mqtt5\n  properties: { sessionExpiry: 1h }\n' ;;
    0) printf 'broker:\n  protocol: mqtt5\n' ;;
  esac
}

throughput() {
  publishing_at_max 0 > "$dir/throughput.yaml"
  # The same number of lines of the same shape and size, made in advance, for mosquitto_pub.
  "$bin" run "$dir/throughput.yaml" --dry-run --messages "$messages" --seed 1 \
    | python3 -c 'import sys, json; [print(json.loads(l)["payload"]) for l in sys.stdin]' > "$dir/lines.txt"
  local bytes=$(( $(wc -c < "$dir/lines.txt") / messages ))

  /usr/bin/time -v mosquitto_pub -h 127.0.0.1 -p "$port" -t bench/push -q 0 -l < "$dir/lines.txt" 2> "$dir/pub.time"
  /usr/bin/time -v "$bin" run "$dir/throughput.yaml" --host 127.0.0.1 --port "$port" --messages "$messages" \
    --stats-interval 0 --quiet --loops 1 --report "$dir/throughput.json" 2> "$dir/devsim.time"

  python3 - "$messages" "$bytes" "$(cpu "$dir/pub.time")" "$(wall "$dir/pub.time")" "$(cpu "$dir/devsim.time")" "$(wall "$dir/devsim.time")" "$(rss "$dir/devsim.time")" <<'PY'
import sys
n, size = int(sys.argv[1]), int(sys.argv[2])
pc, pw, dc, dw, rss = map(float, sys.argv[3:8])
print(f"== throughput: one connection, QoS 0, {n} messages of about {size} bytes")
print(f"{'':16}{'msgs/s':>12}{'CPU s/100k':>12}{'CPU us/msg':>12}")
print(f"{'mosquitto_pub -l':16}{n/pw:12.0f}{pc/n*1e5:12.3f}{pc/n*1e6:12.2f}")
print(f"{'devsim':16}{n/dw:12.0f}{dc/n*1e5:12.3f}{dc/n*1e6:12.2f}")
print(f"devsim CPU per message / mosquitto_pub's: {dc/pc:.2f}x   (devsim max RSS {rss/1024:.1f} MB; devsim generates its payloads, mosquitto_pub reads them)")
PY
}

# One connection at publish: max, QoS 0, payloads of exactly $1 bytes: $2 json (a counter padded
# by payload.size) or raw (random bytes, style: raw).
sized_fleet() {
  if [ "$2" = raw ]; then
    printf 'name: sizes\ndevices:\n  - name: bench\n    topic: bench/sizes\n    publish: max\n    payload: { style: raw, size: %s, fields: { blob: { bytes: { content: random } } } }\n' "$1"
  else
    printf 'name: sizes\ndevices:\n  - name: bench\n    topic: bench/sizes\n    publish: max\n    payload: { size: %s, fields: { seq: { counter: 0 } } }\n' "$1"
  fi
}

# Payload sizes as broker benchmarks quote them (issue 29). mosquitto_pub -l is libmosquitto's
# floor: one connection publishing ready-made lines from stdin as fast as the socket takes them,
# the lines (of the size less the newline it strips) made by a python pipe whose CPU is not
# counted. devsim makes every payload itself: its JSON padded by payload.size, or random bytes.
# Each sender runs twice, N/4 and N messages, and the figures are of the difference: start-up,
# connecting and mosquitto_pub's wait at the end of its input (0.2 to 0.9 s) cancel out.
sizes() {
  local scale=${SIZES_SCALE:-1}
  echo "== sizes: one connection, QoS 0, publish: max to the same mosquitto ($(basename "$bin")); MB = 1,048,576 bytes"
  echo "   figures of N less N/4 messages; CPU is user + system of the sender alone"
  printf '%-8s%-20s%10s%14s%12s%12s\n' size sender N 'CPU us/msg' 'MB/s' 'msgs/s'
  for spec in 64:1000000 1024:400000 65536:20000 1048576:1200; do
    local size=${spec%%:*} n quarter
    n=$(python3 -c "print(max(4, int(${spec##*:} * $scale)))")
    quarter=$(( n / 4 ))
    for count in "$quarter" "$n"; do
      python3 -c 'import sys; n, s = int(sys.argv[1]), int(sys.argv[2]); line = b"x" * (s - 1) + b"\n"; w = sys.stdout.buffer.write
for _ in range(n): w(line)' "$count" "$size" \
        | /usr/bin/time -v mosquitto_pub -h 127.0.0.1 -p "$port" -t bench/sizes -q 0 -l 2> "$dir/pub.$count.time"
    done
    sizes_row "$size" "mosquitto_pub -l" "$quarter" "$n" "$dir/pub.$quarter.time" "$dir/pub.$n.time"
    for kind in json raw; do
      sized_fleet "$size" "$kind" > "$dir/sizes.yaml"
      for count in "$quarter" "$n"; do
        /usr/bin/time -v "$bin" run "$dir/sizes.yaml" --host 127.0.0.1 --port "$port" --messages "$count" --seed 1 \
          --stats-interval 0 --quiet --loops 1 --report "$dir/sizes.json" 2> "$dir/devsim.$count.time"
        python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); sys.exit(0 if r["published"] == int(sys.argv[2]) and r["oversized"] == 0 else 1)' \
          "$dir/sizes.json" "$count" || echo "devsim $kind $size: not every message published at its size (see $dir/sizes.json)" >&2
      done
      sizes_row "$size" "devsim $kind" "$quarter" "$n" "$dir/devsim.$quarter.time" "$dir/devsim.$n.time"
    done
  done
}

sizes_row() {
  python3 - "$1" "$2" "$3" "$4" "$(cpu "$5")" "$(wall "$5")" "$(cpu "$6")" "$(wall "$6")" <<'PY'
import sys
size, name, few, n = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
cpu0, wall0, cpu1, wall1 = map(float, sys.argv[5:9])
m, cpu, wall = n - few, max(cpu1 - cpu0, 0.0), max(wall1 - wall0, 1e-3)
label = f"{size // 1048576} MB" if size >= 1048576 else f"{size // 1024} KB" if size >= 1024 else f"{size} B"
print(f"{label:<8}{name:<20}{n:>10}{cpu / m * 1e6:>14.2f}{size * m / wall / 1048576:>12.1f}{m / wall:>12.0f}")
PY
}

rate() {
  # The defaults as a new user meets them, then the same fleet in lock-step on purpose.
  rate_run defaults ""
  rate_run lock-step "    jitter: none
    rampUp: max"
}

rate_run() {
  local name=$1 extra=$2
  cat > "$dir/rate.yaml" <<YAML
name: rate
devices:
  - name: phone
    count: 1000
    topic: "rate/{id}"
    sample: 10Hz
    publish: 10/s
$extra
    payload:
      fields:
        Accel_X: { accelerometer: x, decimals: 4 }
        Accel_Y: { accelerometer: y, decimals: 4 }
YAML
  /usr/bin/time -v "$bin" run "$dir/rate.yaml" --host 127.0.0.1 --port "$port" --duration "${rate_seconds}s" \
    --stats-interval 0 --quiet --report "$dir/rate.json" 2> "$dir/rate.time"
  python3 - "$dir/rate.json" "$rate_seconds" "$(cpu "$dir/rate.time")" "$(rss "$dir/rate.time")" "$name" <<'PY'
import sys, json
r = json.load(open(sys.argv[1])); seconds = float(sys.argv[2]); cpu = float(sys.argv[3]); rss = float(sys.argv[4])
ideal = 1000 * 10 * seconds
print(f"== rate ({sys.argv[5]}): 1000 devices x 10 Hz for {seconds:.0f} s")
print(f"scheduled {r['scheduled']} (ideal {ideal:.0f}; clocks start at each CONNACK), published {r['published']}, "
      f"late >2ms {r['late']} ({100*r['late']/max(1,r['scheduled']):.2f}%), skipped {r['skippedOffline']}, failed {r['failed']}")
print(f"published / ideal {100*r['published']/ideal:.3f}%   published / scheduled {100*r['published']/max(1,r['scheduled']):.3f}%")
l = r["lateness"]
print(f"lateness ms: p50 {l['p50']} p90 {l['p90']} p99 {l['p99']} p99.9 {l['p999']} max {l['max']}; all connected after {r.get('allConnectedSeconds')} s")
print(f"CPU {cpu:.2f} s ({100*cpu/seconds:.1f}% of one core), max RSS {rss/1024:.1f} MB")
PY
}

capacity() {
  local qos
  for qos in ${CAPACITY_QOS:-0 1}; do
    cat > "$dir/capacity.yaml" <<YAML
name: capacity
devices:
  - name: phone
    count: 1000
    topic: "capacity/{id}"
    publish: 1/s
    qos: $qos
    payload:
      fields:
        Accel_X: { accelerometer: x, decimals: 4 }
        Accel_Y: { accelerometer: y, decimals: 4 }
        seq: { counter: 0 }
YAML
    local slos=(--slo 'lateness.p99<5ms' --slo 'rate>=99.9%')
    [ "$qos" = 1 ] && slos+=(--slo 'p99<50ms')
    [ "${CAPACITY_VERIFY:-0}" = 1 ] && slos+=(--verify --slo 'lost==0')
    /usr/bin/time -v "$bin" run "$dir/capacity.yaml" --host 127.0.0.1 --port "$port" --find-capacity "${slos[@]}" \
      --step "${CAPACITY_STEP:-15s}" --warmup "${CAPACITY_WARMUP:-5s}" --stats-interval 0 --quiet \
      --report "$dir/capacity.json" 2> "$dir/capacity.time" || true
    python3 - "$dir/capacity.json" "$qos" "$(cpu "$dir/capacity.time")" <<'PY'
import sys, json
r = json.load(open(sys.argv[1])); c = r["capacity"]
print(f"== capacity: 1000 devices from 1 Hz, QoS {sys.argv[2]}, SLOs {', '.join(c['slos'])}; "
      f"{c['warmUpSeconds']:g} s warm-up + {c['stepSeconds']:g} s a step; {r['durationSeconds']:.0f} s, CPU {float(sys.argv[3]):.1f} s")
first = c.get("brokenFirst") or {}
print(f"capacity {c.get('capacityPerSecond')} msg/s; broke at {c.get('brokeAtPerSecond')} msg/s: "
      f"{first.get('assertion')} {first.get('message')}")
loss = any("loss" in s for s in c["steps"])
print("| step | target msg/s | published msg/s | latency p99 ms | lateness p99 ms |" + (" lost |" if loss else "") + " verdict |")
print("|---|---|---|---|---|" + ("---|" if loss else "") + "---|")
for s in c["steps"]:
    latency = (s.get("latency") or {}).get("p99", "")
    lost = f" {s['loss']['lost']} |" if loss and "loss" in s else (" |" if loss else "")
    verdict = "passed" if s["passed"] else "broke " + "; ".join(f"{v['assertion']} ({v['message']})" for v in s["verdicts"] if not v["passed"])
    print(f"| {s['step']} | {s['targetPerSecond']:g} | {s['ratePerSecond']:g} | {latency} | {s['lateness']['p99']} |{lost} {verdict} |")
PY
  done
}

qos1() {
  cat > "$dir/qos1.yaml" <<'YAML'
name: qos1
devices:
  - name: bench
    topic: bench/qos1
    publish: max
    qos: 1
    payload:
      fields:
        Accel_X: { accelerometer: x, decimals: 4 }
        Accel_Y: { accelerometer: y, decimals: 4 }
        Seq: { counter: 0 }
YAML
  echo "== qos1: one connection, publish: max, QoS 1, 10 s"
  for window in 16 100; do
    "$bin" run "$dir/qos1.yaml" --host 127.0.0.1 --port "$port" --duration 10s --max-inflight "$window" \
      --stats-interval 0 --quiet --report "$dir/qos1.json"
    python3 - "$dir/qos1.json" "$window" <<'PY'
import sys, json
r = json.load(open(sys.argv[1])); l = r["latency"]
print(f"{sys.argv[2]:>4} in flight: {r['ratePerSecond']:>9.0f} msg/s, acknowledged {r['acknowledged']} of {r['published']}; "
      f"ack latency ms p50 {l['p50']} p90 {l['p90']} p99 {l['p99']} p99.9 {l['p999']} max {l['max']}")
PY
  done
}

scale() {
  local connections=${CONNECTIONS:-6000}
  cat > "$dir/scale.yaml" <<YAML
name: scale
devices:
  - name: node
    count: $connections
    topic: "scale/{id}"
    publish: 1/60s
    rampUp: 1000/s
    jitter: auto
    payload:
      fields:
        v: { counter: 0 }
YAML
  sed "s/count: $connections/count: 1/" "$dir/scale.yaml" > "$dir/one.yaml"
  /usr/bin/time -v "$bin" run "$dir/one.yaml" --host 127.0.0.1 --port "$port" --duration 5s --stats-interval 0 --quiet 2> "$dir/one.time"
  local seconds=$(( connections / 1000 + 35 ))
  /usr/bin/time -v "$bin" run "$dir/scale.yaml" --host 127.0.0.1 --port "$port" --duration "${seconds}s" \
    --stats-interval 0 --quiet --report "$dir/scale.json" 2> "$dir/scale.time" &
  local timer=$!
  sleep 2
  local pid=$(pgrep -P "$timer")
  # Idle cost: CPU over 20 s once everything is connected (1 message a minute per device).
  sleep $(( connections / 1000 + 8 ))
  local before=$(awk '{print $14+$15}' /proc/$pid/stat)
  sleep 20
  local after=$(awk '{print $14+$15}' /proc/$pid/stat)
  wait "$timer"
  python3 - "$dir/scale.json" "$connections" "$(rss "$dir/one.time")" "$(rss "$dir/scale.time")" "$before" "$after" "$(getconf CLK_TCK)" <<'PY'
import sys, json
r = json.load(open(sys.argv[1])); n = int(sys.argv[2]); base, peak = float(sys.argv[3]), float(sys.argv[4])
ticks = (int(sys.argv[6]) - int(sys.argv[5])) / int(sys.argv[7])
print(f"== scale: {n} connections (rampUp 1000/s, 1 msg/min each)")
print(f"all connected after {r['allConnectedSeconds']} s; up at the end {r['connectionsUp']}/{r['connections']}; errors {r['connectionErrors']}")
print(f"max RSS {peak/1024:.1f} MB (one connection: {base/1024:.1f} MB): {(peak-base)/n:.1f} KB per connection")
print(f"idle CPU {100*ticks/20:.2f} % of a core over 20 s")
PY
}

reload() {
  local group='  - name: %s
    count: %d
    topic: "reload/%s/{index}"
    publish: 1/s
    jitter: auto
    rampUp: 500/s
    payload: { fields: { %s: { counter: 0 } } }
'
  { echo "devices:"; printf "$group" fleet 990 fleet seq; printf "$group" edit 10 edit seq; } > "$dir/reload.yaml"
  local before; before=$(grep -c "New client connected" "$dir/broker.log" || true)
  /usr/bin/time -v "$bin" run "$dir/reload.yaml" --host 127.0.0.1 --port "$port" --duration 20s --stats-interval 0 \
    --report "$dir/reload.json" 2> "$dir/reload.log" &
  local pid=$!
  sleep 8
  { echo "devices:"; printf "$group" fleet 990 fleet seq; printf "$group" edit 10 edit n; } > "$dir/reload.yaml"
  pkill -HUP -P "$pid" -x devsim
  sleep 5
  { echo "devices:"; printf "$group" fleet 990 fleet seq; printf "$group" edit 20 edit n; } > "$dir/reload.yaml"
  pkill -HUP -P "$pid" -x devsim
  wait "$pid"
  tail -n +$((before + 1)) "$dir/broker.log" > "$dir/reload.broker.log"
  python3 - "$dir/reload.json" "$dir/reload.broker.log" "$(cpu "$dir/reload.log")" <<'PY'
import collections, json, re, sys
r = json.load(open(sys.argv[1]))
connects = collections.Counter(re.findall(r" as (\S+) \(", open(sys.argv[2]).read()))
fleet = {k: v for k, v in connects.items() if k.startswith("fleet-")}
edit = {k: v for k, v in connects.items() if k.startswith("edit-")}
print("== reload: 1,000 devices at 1 Hz for 20 s; SIGHUP at 8 s (group 'edit', 10 devices, a new field), at 13 s (edit: 20 devices)")
for reload in r.get("reloads", []):
    print(f"reload at {reload['atSeconds']} s: " + "; ".join(f"{k} {', '.join(reload[k])}" for k in ("added", "removed", "changed", "scaled", "unchanged") if reload.get(k)))
groups = {g["name"]: g for g in r["groups"]}
print(f"fleet: {len(fleet)} connections, connects per connection {sorted(set(fleet.values()))}, reconnects {groups['fleet']['reconnects']}, "
      f"skippedOffline {groups['fleet']['skippedOffline']}")
print(f"edit: {len(edit)} client ids, connects per id {dict(sorted(collections.Counter(edit.values()).items()))}; "
      f"every tick accounted: {r['scheduled'] == sum(r[k] for k in ('published','skippedOffline','buffered','droppedBuffer','failed','paused'))}")
print(f"devsim CPU {sys.argv[3]} s over the run")
PY
}

commands() {
  local fleet='devices:
  - name: room
    count: 1000
    topic: "bench/{id}/state"
    publish: 1/s
    jitter: auto
    rampUp: 500/s
%s    payload: { style: flat, fields: { t: { sine: { min: 18, max: 24, period: 1h } }, light: { bool: 0%s } } }
'
  printf "$fleet" "" "" > "$dir/plain.yaml"
  printf "$fleet" '    commands: { topic: "bench/{id}/set" }
' ", command: set" > "$dir/commands.yaml"
  for which in plain commands; do
    /usr/bin/time -v "$bin" run "$dir/$which.yaml" --host 127.0.0.1 --port "$port" --duration 16s --stats-interval 0 --quiet \
      --report "$dir/$which.json" 2> "$dir/$which.time" &
    local pid=$!
    if [ "$which" = commands ]; then
      sleep 8
      # 1,000 commands in about a second, one to each device, over one connection.
      python3 - "$port" <<'PY'
import socket, struct, sys, time
def pkt(h, body):
    l, rl = len(body), b""
    while True:
        d, l = l % 128, l // 128
        rl += bytes([d | (0x80 if l else 0)])
        if not l: break
    return bytes([h]) + rl + body
s = lambda t: struct.pack("!H", len(t)) + t.encode()
c = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
c.send(pkt(0x10, s("MQTT") + bytes([4, 2]) + struct.pack("!H", 60) + s("bench-commander")))
c.recv(4)
start = time.monotonic()
for i in range(1, 1001):
    c.send(pkt(0x30, s(f"bench/room-{i}/set") + b'{"light": true}'))
    time.sleep(max(0, start + i / 1000 - time.monotonic()))
c.send(b"\xe0\x00")
print(f"sent 1000 commands in {time.monotonic() - start:.2f} s")
PY
    fi
    wait "$pid"
  done
  python3 - "$dir/plain.json" "$dir/commands.json" "$(cpu "$dir/plain.time")" "$(cpu "$dir/commands.time")" <<'PY'
import json, sys
plain, commands = (json.load(open(p)) for p in sys.argv[1:3])
print("== commands: 1,000 devices at 1 Hz for 16 s, rampUp 500/s")
for name, r, cpu in (("without commands", plain, sys.argv[3]), ("with commands   ", commands, sys.argv[4])):
    lost = sum(r[k] for k in ("skippedOffline", "droppedBuffer", "failed", "buffered"))
    print(f"{name}: all connected after {r['allConnectedSeconds']} s, CPU {cpu} s, scheduled {r['scheduled']}, published {r['published']}, "
          f"not published {lost}, lateness p99 {r['lateness']['p99']} ms")
c = commands.get("commands", {})
print(f"commands: received {c.get('received')}, applied {c.get('applied')}, rejected {c.get('rejected')}, answered {c.get('answered')}; "
      f"command to answer p50 {commands.get('commandLatency', {}).get('p50')} ms, p99 {commands.get('commandLatency', {}).get('p99')} ms")
s = commands.get("commandSubscribeLatency", {})
print(f"CONNACK to SUBACK of the command topics: p50 {s.get('p50')} ms, p99 {s.get('p99')} ms, max {s.get('max')} ms over {s.get('count')} connections")
PY
}

# The benchmarks built from this tree's Benchmarks/, which an installed devsim has not.
needs_swift() {
  command -v swift >/dev/null || { echo "bench.sh $which: builds a benchmark of this tree, so it needs Swift" >&2; exit 1; }
  bash scripts/install-deps.sh >/dev/null
}

payload() {
  needs_swift
  echo "== payload"
  swift build -c release --product PayloadBenchmark >/dev/null
  "$(swift build -c release --show-bin-path)/PayloadBenchmark"
}

# A TLS context per device identity (issue 27): each mode in a process of its own, so that each
# starts from the same resident memory.
tls_contexts() {
  needs_swift
  install_missing openssl >/dev/null
  echo "== tls-contexts"
  local count=${TLS_CONTEXTS:-1000}
  bash scripts/make-device-certs.sh --out "$dir/certs" --prefix thing- --count "$count" >/dev/null
  swift build -c release --product TLSContextBenchmark >/dev/null
  local benchmark
  benchmark="$(swift build -c release --show-bin-path)/TLSContextBenchmark"
  for mode in shared new-ca new-system prepare old-ca old-system; do
    "$benchmark" "$dir/certs" "$count" "$mode"
  done
}

# Each device its own certificate (issue 27), as AWS IoT Core wants, against one for the fleet:
# the same ramp to a mosquitto that takes the certificate's CN as the user name.
identities() {
  install_missing openssl >/dev/null
  local count=${IDENTITIES:-1000} certs=$dir/identities tport
  bash scripts/make-device-certs.sh --out "$certs" --prefix thing- --count "$count" --host 127.0.0.1 >/dev/null
  tport=$(free_port)
  mkdir -p "$dir/tls-broker"
  local main_broker=$broker
  start_mosquitto "$dir/tls-broker" "$tport" "cafile $certs/ca.pem" "certfile $certs/server.pem" "keyfile $certs/server.key" \
    "require_certificate true" "use_identity_as_username true"
  local tls_broker=$broker
  broker="$main_broker $tls_broker"
  echo "== identities: $count devices over TLS, rampUp: max, require_certificate ($(basename "$bin"))"
  # "system": no ca, so the system's store, here Debian's bundle with the test CA added.
  cat /etc/ssl/certs/ca-certificates.crt "$certs/ca.pem" > "$certs/system.pem"
  for kind in own shared own-system; do
    local certificate='"{id}.pem"' key='"{id}.key"' ca='ca: ca.pem, '
    [ "$kind" = shared ] && certificate=thing-1.pem key=thing-1.key
    [ "$kind" = own-system ] && ca=
    cat > "$certs/$kind.yaml" <<YAML
name: identities-$kind
broker:
  tls: { ${ca}certificate: $certificate, key: $key }
devices:
  - name: thing
    count: $count
    id: "thing-{index}"
    topic: "things/{id}/t"
    publish: 1/60s
    rampUp: max
    payload:
      fields:
        v: { counter: 0 }
YAML
    SSL_CERT_FILE=$certs/system.pem /usr/bin/time -v "$bin" run "$certs/$kind.yaml" --host 127.0.0.1 --port "$tport" --duration 15s --stats-interval 0 --quiet \
      --report "$dir/$kind.json" 2> "$dir/$kind.time" || true
    python3 - "$dir/$kind.json" "$kind" "$(rss "$dir/$kind.time")" "$(cpu "$dir/$kind.time")" "$(wall "$dir/$kind.time")" <<'PY'
import sys, json
r = json.load(open(sys.argv[1])); s = r.get('allConnectedSeconds')
rate = f"{r['connections'] / s:.0f} connections/s" if s else "not all connected"
# The run's clock starts once its connections are set up: the process's wall time beyond the
# 15 s run shows what comes before it (the checks of the files, and contexts made at set-up).
print(f"{sys.argv[2]:>10} certificate(s): all {r['connectionsUp']}/{r['connections']} up after {s} s ({rate}); "
      f"errors {r['connectionErrors']}; max RSS {float(sys.argv[3]) / 1024:.1f} MB; CPU {sys.argv[4]} s; "
      f"wall {float(sys.argv[5]):.1f} s for a 15 s run")
PY
  done
}

# devsim's lateness beside the machine's own scheduling delay, measured in the same seconds: on a
# shared VM an absolute target means little, so devsim is held to cyclictest's p99 plus the 0.5 ms
# timer slack of its loops (issue 26).
punctuality() {
  install_missing rt-tests >/dev/null
  local seconds=${PUNCTUALITY_SECONDS:-20}
  cat > "$dir/punctuality.yaml" <<'YAML'
name: punctuality
devices:
  - name: phone
    count: 1000
    topic: "punctuality/{id}"
    publish: 10/s
    payload:
      fields:
        Accel_X: { accelerometer: x, decimals: 4 }
        Accel_Y: { accelerometer: y, decimals: 4 }
YAML
  cyclictest -t1 -i1000 -D"${seconds}s" -q -h 20000 > "$dir/cyclictest.txt" &
  local cyclic=$!
  "$bin" run "$dir/punctuality.yaml" --host 127.0.0.1 --port "$port" --duration "${seconds}s" \
    --stats-interval 0 --quiet --report "$dir/punctuality.json"
  wait $cyclic
  python3 - "$dir/punctuality.json" "$dir/cyclictest.txt" "$seconds" <<'PY'
import sys, json
r = json.load(open(sys.argv[1]))
counts = []
for line in open(sys.argv[2]):
    if not line.startswith("#") and line.split():
        us, n = line.split()[:2]
        counts.append((int(us), int(n)))
total = sum(n for _, n in counts)
def percentile(q):
    seen = 0
    for us, n in counts:
        seen += n
        if seen >= q * total:
            return us / 1000
    return float("nan")
c99 = percentile(0.99)
l = r["lateness"]
print(f"== punctuality: 1000 devices x 10 Hz with the defaults, beside cyclictest (1 thread, 1 ms), {sys.argv[3]} s")
print(f"{'':12}{'p50 ms':>10}{'p99 ms':>10}{'max ms':>10}")
print(f"{'cyclictest':12}{percentile(0.5):10.3f}{c99:10.3f}{max(us for us, n in counts if n) / 1000:10.3f}")
print(f"{'devsim':12}{l['p50']:10.3f}{l['p99']:10.3f}{l['max']:10.3f}")
print(f"devsim lateness p99 / (cyclictest p99 + 0.5 ms slack): {l['p99'] / (c99 + 0.5):.2f}x   (/ cyclictest p99: {l['p99'] / c99:.2f}x)")
PY
}

# Instructions per message as valgrind's callgrind counts them: steadier than CPU time on a
# shared VM, so the figure to compare an old and a new binary by (their runs alternated).
instructions() {
  install_missing valgrind >/dev/null
  for qos in 0 1; do
    publishing_at_max "$qos" > "$dir/instructions.yaml"
    local counts=()
    for n in 20000 60000; do
      valgrind --tool=callgrind --callgrind-out-file="$dir/callgrind.$n" "$bin" run "$dir/instructions.yaml" \
        --host 127.0.0.1 --port "$port" --messages "$n" --seed 1 --loops 1 --quiet > /dev/null 2>&1
      counts+=("$(awk '/^totals:/ {print $2}' "$dir/callgrind.$n")")
    done
    echo "QoS $qos: $(( (counts[1] - counts[0]) / 40000 )) instructions per message ($(basename "$bin"))"
  done
}

# 1,000 devices at 1 Hz with six generated fields: as Sparkplug B under 10 edge nodes, reporting
# $1 (all or exception), or with $1 = json the same fields as flat JSON over 10 shared connections.
line_fleet() {
  local connection='connection: { shared: 10 }' topic='topic: "bench/{id}"'
  if [ "$1" != json ]; then connection="sparkplug: { groupId: bench, edgeNodeId: \"node-{index}\", nodes: 10, reporting: $1 }"; topic=; fi
  cat <<YAML
name: sparkplug-bench
devices:
  - name: machine
    count: 1000
    publish: 1/s
    $topic
    $connection
    payload:
      style: flat
      fields:
$(six_fields)
YAML
}

sparkplug() {
  install_missing valgrind >/dev/null
  echo "== sparkplug: 1,000 devices at 1 Hz, six fields, 10 connections ($(basename "$bin"))"
  printf '%-22s%12s%12s%12s%14s%12s\n' format instr/msg payload-B topic-B 'CPU s/30s' 'RSS MB'
  for format in json all exception; do
    line_fleet "$format" > "$dir/spb.yaml"
    local counts=()
    for n in 10000 30000; do
      valgrind --tool=callgrind --callgrind-out-file="$dir/spb.$n" "$bin" run "$dir/spb.yaml" \
        --host 127.0.0.1 --port "$port" --messages "$n" --seed 1 --quiet > /dev/null 2>&1
      counts+=("$(awk '/^totals:/ {print $2}' "$dir/spb.$n")")
    done
    timeout 12 mosquitto_sub -h 127.0.0.1 -p "$port" -t 'bench/#' -t 'spBv1.0/+/DDATA/#' -F '%l %t' > "$dir/spb.sizes" &
    local sub=$!
    sleep 0.5
    /usr/bin/time -v "$bin" run "$dir/spb.yaml" --host 127.0.0.1 --port "$port" --duration 30s --seed 1 \
      --stats-interval 0 --quiet 2> "$dir/spb.time"
    wait "$sub" || true
    local sizes
    sizes=$(awk '{ payload += $1; topic += length($2); n++ } END { if (n) printf "%.1f %.1f", payload / n, topic / n }' "$dir/spb.sizes")
    printf '%-22s%12d%12s%12s%14s%12.1f\n' "$format" $(( (counts[1] - counts[0]) / 20000 )) $sizes \
      "$(cpu "$dir/spb.time")" "$(python3 -c "print($(rss "$dir/spb.time") / 1024)")"
  done
}

case "$which" in
  side-by-side) throughput; sizes ;;
  throughput) throughput ;;
  punctuality) punctuality ;;
  rate) rate ;;
  payload) payload ;;
  sizes) sizes ;;
  instructions) instructions ;;
  capacity) capacity ;;
  qos1) qos1 ;;
  scale) scale ;;
  reload) reload ;;
  commands) commands ;;
  tls-contexts) tls_contexts ;;
  identities) identities ;;
  sparkplug) sparkplug ;;
  websockets)
    install_missing iproute2 util-linux >/dev/null
    DEVSIM_BIN=$bin bash scripts/bench-websockets.sh
    ;;
  all) payload; throughput; qos1; rate; scale ;;
  *) echo "unknown benchmark '$which': side-by-side, throughput, punctuality, qos1, rate, scale, reload, commands, tls-contexts, identities, sparkplug, websockets, payload, sizes, instructions or all" >&2; exit 2 ;;
esac
