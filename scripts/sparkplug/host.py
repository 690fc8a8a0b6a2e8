#!/usr/bin/env python3
"""A Sparkplug host's view of what edge nodes publish, checked as the specification asks of them.
Payloads are read by Google's protobuf with the schema written from the specification
(sparkplug_b.proto): independent of devsim's own decoder.

What the host checks:
  - births before data: no NDATA/DBIRTH before the node's NBIRTH, no DDATA before the device's DBIRTH;
  - seq 0 at NBIRTH, then continuous (0-255, wrapping) across every message of the node but NDEATH;
  - aliases in data that resolve against the births, every birth metric with a datatype;
  - bdSeq: an NDEATH carries its connection's NBIRTH's bdSeq; the NBIRTH of the next connection
    (after an NDEATH) has one more (mod 256), and a rebirth (an NBIRTH with no NDEATH since the
    last) keeps it. A host cannot tell a rebirth from a new connection whose old will is still to
    come, so a will that comes late is reported as both: on a local broker, none is late;
  - rebirth: after an NCMD "Node Control/Rebirth" true (seen on the wire, as a capture has it), a
    new NBIRTH with seq 0, then a DBIRTH for each device the node had; one not given by the end is
    an error, as a node that ignores a rebirth leaves its host blind.

  host.py check FILE   FILE holds one message a line, "TOPIC HEX"; prints a JSON report
                       {"errors": [...], "counts": {"NBIRTH": n, ...}, "births": {...},
                        "rebirths": {...}, "bdSeq": {...}, "deaths": {...}}
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(sys.executable), "..", "gen"))
import sparkplug_b_pb2  # noqa: E402
from google.protobuf.message import DecodeError  # noqa: E402

NAMESPACE = "spBv1.0"
REBIRTH = "Node Control/Rebirth"


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
            if node.bd_seq is not None and bd_seq != node.bd_seq:
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


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    modes = parser.add_subparsers(dest="mode", required=True)
    check_mode = modes.add_parser("check")
    check_mode.add_argument("file")
    args = parser.parse_args()
    check(args.file)


if __name__ == "__main__":
    main()
