import Testing
import TestSupport

@testable import Signals

/// devsim's Sparkplug codec against an independent one: Google's protobuf for Python with the
/// schema written from the specification (`scripts/install-sparkplug.sh`). What protobuf reads
/// from devsim's bytes is compared with values worked out from the specification (a negative
/// Int32 travels as its uint32), never with devsim's own decoder.
@Suite(.tags(.integration), .notUnitOnly) struct SparkplugInteropTests {
    @Test func protobufReadsEveryTypeDevsimWrites() throws {
        let payload = SparkplugPayload(
            timestamp: 1_700_000_000_000,
            metrics: [
                .init(name: "Node Control/Rebirth", alias: 0, dataType: .boolean, value: .bool(false)),
                .init(name: "i8", alias: 1, dataType: .int8, value: .int(-128)),
                .init(name: "i16", alias: 2, dataType: .int16, value: .int(-2)),
                .init(name: "i32", alias: 3, dataType: .int32, value: .int(-5)),
                .init(name: "i64", alias: 4, dataType: .int64, value: .int(-1)),
                .init(name: "u32", alias: 5, dataType: .uint32, value: .uint(4_000_000_000)),
                .init(name: "u64", alias: 6, dataType: .uint64, value: .uint(.max)),
                .init(name: "f", alias: 7, timestamp: 1_700_000_000_001, dataType: .float, value: .float(-0.25)),
                .init(name: "d", alias: 8, dataType: .double, value: .double(21.375)),
                .init(name: "s", alias: 9, dataType: .string, value: .string("grüß \"dich\"")),
                .init(name: "t", alias: 10, dataType: .dateTime, value: .uint(1_700_000_000_123)),
                .init(name: "n", alias: 11, dataType: .double, value: nil, isNull: true),
                .init(name: String(repeating: "long/", count: 40), alias: 300, dataType: .text, value: .string("x")),
            ], seq: 255)
        let decoded = try SparkplugPython.decode(payload.encoded)
        #expect(decoded.timestamp == "1700000000000")
        #expect(decoded.seq == "255")
        let expected: [(name: String, alias: String, type: String, field: String?, value: String?)] = [
            ("Node Control/Rebirth", "0", "11", "boolean_value", "false"),
            ("i8", "1", "1", "int_value", "4294967168"),
            ("i16", "2", "2", "int_value", "4294967294"),
            ("i32", "3", "3", "int_value", "4294967291"),
            ("i64", "4", "4", "long_value", "18446744073709551615"),
            ("u32", "5", "7", "int_value", "4000000000"),
            ("u64", "6", "8", "long_value", "18446744073709551615"),
            ("f", "7", "9", "float_value", "-0.25"),
            ("d", "8", "10", "double_value", "21.375"),
            ("s", "9", "12", "string_value", "grüß \"dich\""),
            ("t", "10", "13", "long_value", "1700000000123"),
            ("n", "11", "10", nil, nil),
            (String(repeating: "long/", count: 40), "300", "14", "string_value", "x"),
        ]
        try #require(decoded.metrics.count == expected.count)
        for (metric, want) in zip(decoded.metrics, expected) {
            #expect(metric.name == want.name)
            #expect(metric.alias == want.alias, "\(want.name)")
            #expect(metric.datatype == want.type, "\(want.name)")
            #expect(metric.valueField == want.field, "\(want.name)")
            #expect(metric.value == want.value, "\(want.name)")
        }
        #expect(decoded.metrics[7].timestamp == "1700000000001")
        #expect(decoded.metrics[11].isNull == "true")
    }

    @Test func devsimReadsTheRebirthCommandProtobufWrites() throws {
        // What a host sends to spBv1.0/GROUP/NCMD/NODE to ask for a rebirth (6.4.3).
        let bytes = try SparkplugPython.encode(
            #"{"timestamp": "1700000000000", "metrics": [{"name": "Node Control/Rebirth", "datatype": 11, "boolean_value": true}]}"#)
        let payload = try SparkplugDecoder.decode(bytes)
        #expect(
            payload
                == SparkplugPayload(
                    timestamp: 1_700_000_000_000,
                    metrics: [SparkplugMetric(name: "Node Control/Rebirth", dataType: .boolean, value: .bool(true))]))
    }

    @Test func devsimReadsTheWritesOfADeviceCommandProtobufWrites() throws {
        // A DCMD writing by alias and by name, with negative integers as the wire has them.
        let bytes = try SparkplugPython.encode(
            #"""
            {"timestamp": "5", "metrics": [
              {"alias": "3", "datatype": 10, "double_value": 72.5},
              {"name": "Mode", "datatype": 12, "string_value": "auto"},
              {"alias": "4", "datatype": 3, "int_value": 4294967291},
              {"alias": "5", "datatype": 1, "int_value": 4294967168},
              {"alias": "6", "datatype": 4, "long_value": "18446744073709551615"},
              {"alias": "7", "datatype": 9, "float_value": 0.5},
              {"alias": "8", "datatype": 11, "boolean_value": false},
              {"alias": "9", "datatype": 8, "long_value": "18446744073709551615"},
              {"alias": "10", "datatype": 10, "is_null": true},
              {"alias": "11", "datatype": 10, "properties": {"keys": ["engUnit"], "values": [{"type": 12, "string_value": "C"}]}, "double_value": 1}
            ]}
            """#)
        let payload = try SparkplugDecoder.decode(bytes)
        #expect(payload.timestamp == 5)
        #expect(
            payload.metrics == [
                SparkplugMetric(alias: 3, dataType: .double, value: .double(72.5)),
                SparkplugMetric(name: "Mode", dataType: .string, value: .string("auto")),
                SparkplugMetric(alias: 4, dataType: .int32, value: .int(-5)),
                SparkplugMetric(alias: 5, dataType: .int8, value: .int(-128)),
                SparkplugMetric(alias: 6, dataType: .int64, value: .int(-1)),
                SparkplugMetric(alias: 7, dataType: .float, value: .float(0.5)),
                SparkplugMetric(alias: 8, dataType: .boolean, value: .bool(false)),
                SparkplugMetric(alias: 9, dataType: .uint64, value: .uint(.max)),
                SparkplugMetric(alias: 10, dataType: .double, value: nil, isNull: true),
                // Its properties (a PropertySet devsim does not read) are skipped.
                SparkplugMetric(alias: 11, dataType: .double, value: .double(1)),
            ])
    }
}
