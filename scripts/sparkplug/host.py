#!/usr/bin/env python3
"""A Sparkplug host's view of what edge nodes publish, checked as the specification asks of them:
births before data, seq 0 at NBIRTH and then continuous (0-255, wrapping) across every message of
the node but its NDEATH, aliases in data that resolve against the births, and an NDEATH whose
bdSeq is the NBIRTH's. Payloads are read by Google's protobuf with the schema written from the
specification (sparkplug_b.proto): independent of devsim's own decoder.

  host.py check FILE   FILE holds one message a line, "TOPIC HEX"; prints a JSON report
                       {"errors": [...], "counts": {"NBIRTH": n, ...}, "births": {...}}
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(sys.executable), "..", "gen"))
import sparkplug_b_pb2  # noqa: E402

NAMESPACE = "spBv1.0"


class Node:
    def __init__(self):
        self.born = False
        self.bd_seq = None
        self.next_seq = None
        self.aliases = {}
        self.devices = {}


class Host:
    def __init__(self):
        self.nodes = {}
        self.errors = []
        self.counts = {}
        self.births = {}

    def error(self, where, text):
        self.errors.append(f"{where}: {text}")

    def receive(self, topic, payload_bytes):
        parts = topic.split("/")
        if len(parts) < 4 or parts[0] != NAMESPACE:
            return
        group, kind, node_id = parts[1], parts[2], parts[3]
        device = parts[4] if len(parts) > 4 else None
        self.counts[kind] = self.counts.get(kind, 0) + 1
        payload = sparkplug_b_pb2.Payload()
        payload.ParseFromString(payload_bytes)
        key = f"{group}/{node_id}"
        node = self.nodes.setdefault(key, Node())
        where = f"{topic} #{self.counts[kind]}"
        if kind in ("NCMD", "DCMD"):
            return
        if kind == "NDEATH":
            bd_seq = metric_value(payload, "bdSeq")
            if node.bd_seq is not None and bd_seq != node.bd_seq:
                self.error(where, f"NDEATH bdSeq {bd_seq} is not the NBIRTH's {node.bd_seq}")
            node.born = False
            node.devices = {}
            return
        if not payload.HasField("seq"):
            self.error(where, "no seq")
            return
        if kind == "NBIRTH":
            if payload.seq != 0:
                self.error(where, f"NBIRTH seq {payload.seq}, not 0")
            node.born = True
            node.bd_seq = metric_value(payload, "bdSeq")
            if node.bd_seq is None:
                self.error(where, "NBIRTH without bdSeq")
            if metric_value(payload, "Node Control/Rebirth") is not False:
                self.error(where, "NBIRTH without Node Control/Rebirth false")
            node.aliases = aliases(payload, where, self)
            node.devices = {}
            node.next_seq = 1
            self.births[key] = self.births.get(key, 0) + 1
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


def main():
    if len(sys.argv) != 3 or sys.argv[1] != "check":
        sys.exit(__doc__)
    host = Host()
    with open(sys.argv[2]) as lines:
        for line in lines:
            line = line.strip()
            if line:
                topic, _, hex_text = line.partition(" ")
                host.receive(topic, bytes.fromhex(hex_text))
    print(json.dumps({"errors": host.errors, "counts": host.counts, "births": host.births}))


if __name__ == "__main__":
    main()
