#!/usr/bin/env python3
"""Sparkplug B payloads through Google's protobuf and the schema written from the specification
(sparkplug_b.proto, compiled by scripts/install-sparkplug.sh): the independent implementation
devsim's tests hold its own encoder and decoder against.

  payload.py decode HEX    prints the payload as JSON; numbers as decimal strings, as the wire
                           has them (a negative Int32 is its uint32), so nothing is lost to a
                           JSON reader's doubles; a metric's value with the name of its field (valueField)
  payload.py encode JSON   prints the hex of the payload that JSON describes, in protobuf's own
                           JSON mapping with the schema's field names (int_value, string_value…)
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(sys.executable), "..", "gen"))
import sparkplug_b_pb2  # noqa: E402
from google.protobuf import json_format  # noqa: E402


def scalar(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    return value


def metric_dict(metric):
    out = {}
    for field, key in (("name", "name"), ("alias", "alias"), ("timestamp", "timestamp"), ("datatype", "datatype"), ("is_null", "isNull")):
        if metric.HasField(field):
            out[key] = scalar(getattr(metric, field))
    which = metric.WhichOneof("value")
    if which is not None:
        out["valueField"] = which
        value = getattr(metric, which)
        out["value"] = value.hex() if which == "bytes_value" else scalar(value)
    return out


def decode(hex_text):
    payload = sparkplug_b_pb2.Payload()
    payload.ParseFromString(bytes.fromhex(hex_text))
    out = {"metrics": [metric_dict(metric) for metric in payload.metrics]}
    for field in ("timestamp", "seq", "uuid"):
        if payload.HasField(field):
            out[field] = scalar(getattr(payload, field))
    return out


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("decode", "encode"):
        sys.exit(__doc__)
    if sys.argv[1] == "decode":
        print(json.dumps(decode(sys.argv[2]), ensure_ascii=False))
    else:
        payload = json_format.ParseDict(json.loads(sys.argv[2]), sparkplug_b_pb2.Payload(), ignore_unknown_fields=False)
        print(payload.SerializeToString().hex())


if __name__ == "__main__":
    main()
