#!/usr/bin/env bash
# MQTT over WebSockets beside TCP, in the same run, against one private mosquitto (scripts/bench.sh
# websockets runs this; as root). mosquitto 2.0's WebSocket listener binds every interface, so
# the broker and devsim run in a network namespace of their own (unshare -n).
#
#   one connection, QoS 0, MESSAGES messages at publish: max   msgs/s and CPU per message
#   one connection, QoS 1, 10 s at publish: max                 msgs/s
#   CONNECTIONS (default 1000) connections, 1 msg/10 s each     descriptors and RSS per connection
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${DEVSIM_IN_NAMESPACE:-}" != 1 ]; then
  [ "$(id -u)" = 0 ] || { echo "bench-websockets: needs root, for a network namespace of its own" >&2; exit 1; }
  exec env DEVSIM_IN_NAMESPACE=1 unshare -n bash "$0" "$@"
fi
ip link set lo up
. scripts/lib.sh
bin=${DEVSIM_BIN:-$(release_devsim)}
messages=${MESSAGES:-200000}
connections=${CONNECTIONS:-1000}
dir=$(mktemp -d)
broker=
trap 'kill $broker 2>/dev/null; rm -rf "$dir"' EXIT
port=1883
ws=8080
start_mosquitto "$dir" "$port" "max_queued_messages 0" "listener $ws" "protocol websockets"

cat > "$dir/qos0.yaml" <<'YAML'
name: ws-bench
devices:
  - name: bench
    topic: bench/push
    publish: max
    payload:
      fields:
        Accel_X: { accelerometer: x, decimals: 4 }
        Accel_Y: { accelerometer: y, decimals: 4 }
        Seq: { counter: 0 }
YAML
sed 's/publish: max/publish: max\n    qos: 1/' "$dir/qos0.yaml" > "$dir/qos1.yaml"
url() { [ "$1" = tcp ] && echo "mqtt://127.0.0.1:$port" || echo "ws://127.0.0.1:$ws/mqtt"; }

echo "== websockets: one connection, QoS 0, $messages messages at publish: max"
printf '%-6s%12s%14s\n' "" "msgs/s" "CPU us/msg"
for transport in tcp ws; do
  /usr/bin/time -v "$bin" run "$dir/qos0.yaml" --url "$(url $transport)" --messages "$messages" --loops 1 \
    --stats-interval 0 --quiet 2> "$dir/$transport.time"
  python3 -c "import sys; n,c,w=int(sys.argv[1]),float(sys.argv[2]),float(sys.argv[3]); print(f'{sys.argv[4]:<6}{n/w:12.0f}{c/n*1e6:14.2f}')" \
    "$messages" "$(cpu "$dir/$transport.time")" "$(wall "$dir/$transport.time")" "$transport"
done

echo "== websockets: one connection, QoS 1 (16 in flight), 10 s at publish: max"
for transport in tcp ws; do
  /usr/bin/time -v "$bin" run "$dir/qos1.yaml" --url "$(url $transport)" --duration 10s --loops 1 --stats-interval 0 --quiet \
    --report "$dir/qos1.json" 2> "$dir/qos1.time"
  python3 -c "import json,sys; r=json.load(open(sys.argv[1])); c=float(sys.argv[2]); print(f\"{sys.argv[3]:<6}{r['ratePerSecond']:12.0f} msg/s, acknowledged {r['acknowledged']} of {r['published']}, {c/max(1,r['published'])*1e6:.2f} CPU us/msg, ack p99 {r['latency']['p99']} ms\")" \
    "$dir/qos1.json" "$(cpu "$dir/qos1.time")" "$transport"
done

cat > "$dir/many.yaml" <<YAML
name: ws-many
devices:
  - name: node
    count: $connections
    topic: "many/{id}"
    publish: 1/10s
    rampUp: 1000/s
    jitter: auto
    payload:
      fields:
        v: { counter: 0 }
YAML
echo "== websockets: $connections connections, 1 msg/10 s each"
for transport in tcp ws; do
  "$bin" run "$dir/many.yaml" --url "$(url $transport)" --duration 12s --stats-interval 0 --quiet --report "$dir/many.json" &
  runner=$!
  sleep 8
  fds=$(ls /proc/$runner/fd | wc -l)
  rss=$(awk '/VmRSS/ {print $2}' /proc/$runner/status)
  wait "$runner"
  python3 -c "import json,sys; r=json.load(open(sys.argv[1])); n=int(sys.argv[2]); print(f\"{sys.argv[5]:<6}up {r['connectionsUp']}/{r['connections']}: {int(sys.argv[3])/n:.2f} descriptors and {int(sys.argv[4])/n:.1f} KB RSS per connection (process totals {sys.argv[3]} and {int(sys.argv[4])/1024:.1f} MB)\")" \
    "$dir/many.json" "$connections" "$fds" "$rss" "$transport"
done
