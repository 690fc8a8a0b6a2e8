#!/usr/bin/env python3
"""A Sparkplug host's view of what edge nodes publish, checked as the specification asks of them.
Payloads are read by Google's protobuf with the schema written from the specification
(sparkplug_b.proto): independent of devsim's own decoder.

What the host checks, in both modes:
  - births before data: no NDATA/DBIRTH before the node's NBIRTH, no DDATA before the device's DBIRTH;
  - seq 0 at NBIRTH, then continuous (0-255, wrapping) across every message of the node but NDEATH;
  - aliases in data that resolve against the births, every birth metric with a datatype;
  - bdSeq: an NDEATH carries its connection's NBIRTH's bdSeq (one while the node is dead already, of
    a connection that had no births, as a node waiting for its primary host, matches no NBIRTH and
    is not checked); the NBIRTH of the next connection
    (after an NDEATH) has one more (mod 256), and a rebirth (an NBIRTH with no NDEATH since the
    last) keeps it. A host cannot tell a rebirth from a new connection whose old will is still to
    come, so a will that comes late is reported as both: on a local broker, none is late;
  - rebirth: after an NCMD "Node Control/Rebirth" true (seen on the wire, so a capture of a live run
    is checked the same), a new NBIRTH with seq 0, then a DBIRTH for each device the node had; one
    not given by the end is an error, as a node that ignores a rebirth leaves its host blind.

  host.py check FILE   FILE holds one message a line, "TOPIC HEX"; prints a JSON report
                       {"errors": [...], "counts": {"NBIRTH": n, ...}, "births": {...},
                        "rebirths": {...}, "bdSeq": {...}, "deaths": {...}}

  host.py live --host H --port P --seconds S [--rebirth-after T] [--group G] [--capture FILE]
               [--primary-host ID]
      Subscribes to spBv1.0/# on a running broker (MQTT 3.1.1, clean session, QoS 0), as a SCADA
      host would, and checks what comes for S seconds from its SUBACK (it says "subscribed" on
      stderr then, so a caller knows when to start the edge nodes); prints the same report.
      --rebirth-after T  T seconds after a node's first NBIRTH, asks it once for a rebirth (NCMD)
      --group G          only that group's nodes are checked, captured and asked
      --capture FILE     writes each message as a "TOPIC HEX" line, which `check` reads
      --primary-host ID  is the Sparkplug 3.0 primary host ID: its will is STATE offline, it
                         publishes STATE online once subscribed and offline before it disconnects
      Exits 0 whatever it found (the caller asserts on the report); 2 if it cannot connect or
      subscribe. A connection lost on the way is an error in the report, and ends the run: what
      came while it was away cannot be checked.
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(sys.executable), "..", "gen"))
import sparkplug_b_pb2  # noqa: E402
from google.protobuf.message import DecodeError  # noqa: E402

NAMESPACE = "spBv1.0"
REBIRTH = "Node Control/Rebirth"
BOOLEAN = 11


class Node:
    def __init__(self):
        self.born = False
        self.bd_seq = None
        # An NDEATH since the last NBIRTH: the next NBIRTH is a new connection's, not a rebirth.
        self.died = False
        self.next_seq = None
        self.aliases = {}
        self.devices = {}
        self.birth_bd_seqs = []
        self.death_bd_seqs = []
        # Devices a rebirth asked for still owe a DBIRTH; None while no rebirth was asked.
        self.rebirth_devices = None
        self.awaiting_rebirth = False


class Host:
    def __init__(self):
        self.nodes = {}
        self.errors = []
        self.counts = {}
        self.births = {}
        self.rebirths = {}

    def error(self, where, text):
        self.errors.append(f"{where}: {text}")

    def receive(self, topic, payload_bytes):
        parts = topic.split("/")
        # STATE (spBv1.0/STATE/host) has three parts and a JSON payload: not an edge node's.
        if len(parts) < 4 or parts[0] != NAMESPACE:
            return
        group, kind, node_id = parts[1], parts[2], parts[3]
        device = parts[4] if len(parts) > 4 else None
        self.counts[kind] = self.counts.get(kind, 0) + 1
        where = f"{topic} #{self.counts[kind]}"
        payload = sparkplug_b_pb2.Payload()
        try:
            payload.ParseFromString(payload_bytes)
        except DecodeError as error:
            self.error(where, f"not a Sparkplug B payload ({error})")
            return
        key = f"{group}/{node_id}"
        node = self.nodes.setdefault(key, Node())
        if kind == "NCMD":
            if metric_value(payload, REBIRTH) is True:
                self.rebirth_asked(key, node)
            return
        if kind == "DCMD":
            return
        if kind == "NDEATH":
            bd_seq = metric_value(payload, "bdSeq")
            if node.born and node.bd_seq is not None and bd_seq != node.bd_seq:
                self.error(where, f"NDEATH bdSeq {bd_seq} is not the NBIRTH's {node.bd_seq}")
            node.death_bd_seqs.append(bd_seq)
            node.born = False
            node.died = True
            node.devices = {}
            return
        if not payload.HasField("seq"):
            self.error(where, "no seq")
            return
        if kind == "NBIRTH":
            self.node_birth(where, key, node, payload)
            return
        if not node.born:
            self.error(where, f"{kind} before the node's NBIRTH")
            return
        if payload.seq != node.next_seq:
            self.error(where, f"seq {payload.seq} where {node.next_seq} was due")
        node.next_seq = (payload.seq + 1) % 256
        if kind == "DBIRTH":
            node.devices[device] = aliases(payload, where, self)
            self.births[f"{key}/{device}"] = self.births.get(f"{key}/{device}", 0) + 1
            if node.rebirth_devices is not None and device in node.rebirth_devices:
                node.rebirth_devices.discard(device)
                self.rebirths[key]["devicesReborn"] += 1
        elif kind == "DDEATH":
            node.devices.pop(device, None)
        elif kind in ("NDATA", "DDATA"):
            known = node.aliases if kind == "NDATA" else node.devices.get(device)
            if known is None:
                self.error(where, "DDATA before the device's DBIRTH")
                return
            for metric in payload.metrics:
                if metric.HasField("alias") and metric.alias not in known:
                    self.error(where, f"alias {metric.alias} is in no birth")
                elif not metric.HasField("alias") and metric.name not in known.values():
                    self.error(where, f"metric {metric.name!r} is in no birth")
                if not metric.HasField("timestamp"):
                    self.error(where, f"metric {metric.alias} without a timestamp")

    def node_birth(self, where, key, node, payload):
        if payload.seq != 0:
            self.error(where, f"NBIRTH seq {payload.seq}, not 0")
        bd_seq = metric_value(payload, "bdSeq")
        if bd_seq is None:
            self.error(where, "NBIRTH without bdSeq")
        elif node.birth_bd_seqs and node.birth_bd_seqs[-1] is not None:
            last = node.birth_bd_seqs[-1]
            # bdSeq counts connections: a host matches a will to its birth by it, so a rebirth on
            # the same connection must not move it, and a new connection must.
            if node.died and bd_seq != (last + 1) % 256:
                self.error(where, f"NBIRTH bdSeq {bd_seq} after an NDEATH, where {(last + 1) % 256} was due")
            elif not node.died and bd_seq != last:
                self.error(where, f"rebirth NBIRTH bdSeq {bd_seq}, not the {last} of the NBIRTH before it")
        node.birth_bd_seqs.append(bd_seq)
        node.bd_seq = bd_seq
        node.died = False
        node.born = True
        if metric_value(payload, REBIRTH) is not False:
            self.error(where, "NBIRTH without Node Control/Rebirth false")
        node.aliases = aliases(payload, where, self)
        node.devices = {}
        node.next_seq = 1
        self.births[key] = self.births.get(key, 0) + 1
        if node.awaiting_rebirth:
            node.awaiting_rebirth = False
            self.rebirths[key]["reborn"] = payload.seq == 0

    def rebirth_asked(self, key, node):
        # The NCMD as the broker passed it on: it reaches us before the NBIRTH it causes, since
        # a broker sends each subscriber its messages in the order it took them.
        node.awaiting_rebirth = True
        node.rebirth_devices = set(node.devices)
        self.rebirths[key] = {"asked": True, "reborn": False, "devicesReborn": 0}

    def finish(self):
        """Errors only the end of the stream shows: a rebirth asked for and not (fully) given."""
        for key, rebirth in sorted(self.rebirths.items()):
            node = self.nodes[key]
            if not rebirth["reborn"]:
                self.error(key, "asked to rebirth, and no NBIRTH with seq 0 came")
            elif node.rebirth_devices:
                self.error(key, f"reborn without a DBIRTH for {', '.join(sorted(node.rebirth_devices))}")

    def report(self):
        return {
            "errors": self.errors,
            "counts": self.counts,
            "births": self.births,
            "rebirths": self.rebirths,
            "bdSeq": {key: node.birth_bd_seqs for key, node in self.nodes.items() if node.birth_bd_seqs},
            "deaths": {key: node.death_bd_seqs for key, node in self.nodes.items() if node.death_bd_seqs},
        }


def metric_value(payload, name):
    for metric in payload.metrics:
        if metric.name == name:
            which = metric.WhichOneof("value")
            return getattr(metric, which) if which else None
    return None


def aliases(payload, where, host):
    known = {}
    for metric in payload.metrics:
        if not metric.HasField("datatype"):
            host.error(where, f"birth metric {metric.name!r} without a datatype")
        if metric.HasField("alias"):
            if metric.alias in known:
                host.error(where, f"alias {metric.alias} given twice")
            known[metric.alias] = metric.name
    return known


def check(path):
    host = Host()
    with open(path) as lines:
        for line in lines:
            line = line.strip()
            if line:
                topic, _, hex_text = line.partition(" ")
                host.receive(topic, bytes.fromhex(hex_text))
    host.finish()
    print(json.dumps(host.report()))


def now_ms():
    return int(time.time() * 1000)


def rebirth_request():
    payload = sparkplug_b_pb2.Payload()
    payload.timestamp = now_ms()
    metric = payload.metrics.add()
    metric.name = REBIRTH
    metric.datatype = BOOLEAN
    metric.boolean_value = True
    return payload.SerializeToString()


def live(args):
    # Only here: `check` needs no MQTT client.
    import paho.mqtt.client as mqtt

    def fail(text):
        print(f"host.py live: {text}", file=sys.stderr)
        sys.exit(2)

    host = Host()
    capture = open(args.capture, "w") if args.capture else None
    state_topic = f"{NAMESPACE}/STATE/{args.primary_host}" if args.primary_host else None
    # Sparkplug 3.0: the STATE birth repeats the timestamp of the will in the CONNECT before it.
    connected_at = now_ms()
    session = {"subscribed": False, "refused": None, "lost": False, "over": False}
    first_births = {}
    asked = set()

    def on_connect(client, userdata, flags, reason_code, properties):
        if reason_code.is_failure:
            session["refused"] = f"the broker refused the connection: {reason_code}"
            return
        # The namespace (STATE included) before our own STATE, as a primary host must.
        client.subscribe(f"{NAMESPACE}/#", qos=0)

    def on_subscribe(client, userdata, mid, reason_codes, properties):
        if any(code.is_failure for code in reason_codes):
            session["refused"] = f"the broker refused the subscription: {reason_codes}"
            return
        if state_topic:
            client.publish(state_topic, state(True, connected_at), qos=1, retain=True)
        session["subscribed"] = True

    def on_message(client, userdata, message):
        parts = message.topic.split("/")
        # The report and the capture cover the S seconds, not our own STATE offline coming back.
        if session["over"]:
            return
        if args.group and len(parts) > 1 and parts[1] not in (args.group, "STATE"):
            return
        if capture:
            capture.write(f"{message.topic} {message.payload.hex()}\n")
            capture.flush()
        host.receive(message.topic, message.payload)
        if len(parts) >= 4 and parts[2] == "NBIRTH":
            first_births.setdefault((parts[1], parts[3]), time.monotonic())

    def on_disconnect(client, userdata, flags, reason_code, properties):
        session["lost"] = True

    client = mqtt.Client(
        mqtt.CallbackAPIVersion.VERSION2,
        client_id=f"host.py-{os.getpid()}",
        protocol=mqtt.MQTTv311,
        clean_session=True,
    )
    client.on_connect, client.on_subscribe = on_connect, on_subscribe
    client.on_message, client.on_disconnect = on_message, on_disconnect
    if state_topic:
        client.will_set(state_topic, state(False, connected_at), qos=1, retain=True)
    try:
        client.connect(args.host, args.port, keepalive=30)
    except OSError as error:
        fail(f"cannot connect to {args.host}:{args.port}: {error}")

    # One thread: paho's loop calls the callbacks here, so the Host needs no lock.
    give_up = time.monotonic() + 10
    while not session["subscribed"]:
        if client.loop(timeout=0.05) != mqtt.MQTT_ERR_SUCCESS or session["lost"]:
            fail(f"lost the connection to {args.host}:{args.port} before SUBACK")
        if session["refused"]:
            fail(session["refused"])
        if time.monotonic() > give_up:
            fail(f"no CONNACK and SUBACK from {args.host}:{args.port} in 10 s")
    print(f"host.py live: subscribed to {NAMESPACE}/# on {args.host}:{args.port}", file=sys.stderr, flush=True)

    deadline = time.monotonic() + args.seconds
    while time.monotonic() < deadline:
        if client.loop(timeout=0.05) != mqtt.MQTT_ERR_SUCCESS or session["lost"]:
            host.error("host", "lost the connection to the broker")
            break
        if args.rebirth_after is None:
            continue
        for (group, node_id), seen in first_births.items():
            if (group, node_id) not in asked and time.monotonic() - seen >= args.rebirth_after:
                asked.add((group, node_id))
                client.publish(f"{NAMESPACE}/{group}/NCMD/{node_id}", rebirth_request(), qos=0, retain=False)

    session["over"] = True
    if not session["lost"]:
        if state_topic:
            # A clean DISCONNECT drops the will, so the offline STATE is published by hand.
            going = client.publish(state_topic, state(False, now_ms()), qos=1, retain=True)
            give_up = time.monotonic() + 5
            while not going.is_published() and time.monotonic() < give_up:
                if client.loop(timeout=0.05) != mqtt.MQTT_ERR_SUCCESS:
                    break
        client.disconnect()
    if capture:
        capture.close()
    host.finish()
    print(json.dumps(host.report()))


def state(online, timestamp):
    return json.dumps({"online": online, "timestamp": timestamp}, separators=(",", ":"))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    modes = parser.add_subparsers(dest="mode", required=True)
    check_mode = modes.add_parser("check")
    check_mode.add_argument("file")
    live_mode = modes.add_parser("live")
    live_mode.add_argument("--host", required=True)
    live_mode.add_argument("--port", type=int, required=True)
    live_mode.add_argument("--seconds", type=float, required=True)
    live_mode.add_argument("--rebirth-after", type=float)
    live_mode.add_argument("--group")
    live_mode.add_argument("--capture")
    live_mode.add_argument("--primary-host")
    args = parser.parse_args()
    if args.mode == "check":
        check(args.file)
    else:
        live(args)


if __name__ == "__main__":
    main()
