import Testing

@testable import Signals

/// What `run --verify` reads of each Sparkplug B payload it receives, without decoding it: the
/// timestamp and the node's seq, past the metrics; nothing from bytes that are not protobuf.
@Suite struct SparkplugHeaderTests {
    private func scan(_ bytes: [UInt8]) -> SparkplugHeader? {
        bytes.withUnsafeBytes { SparkplugHeader(scanning: $0) }
    }

    @Test func theTimestampAndSeqAreReadPastTheMetrics() {
        let payload = SparkplugPayload(
            timestamp: 1_700_000_000_123,
            metrics: [
                SparkplugMetric(name: "speed", alias: 1, timestamp: 9, dataType: .double, value: .double(1.5)),
                SparkplugMetric(alias: 2, dataType: .float, value: .float(2)),
                SparkplugMetric(alias: 3, dataType: .string, value: .string("seq")),
                SparkplugMetric(alias: 4, dataType: .int64, value: .int(-1)),
            ], seq: 255, uuid: "u", body: [1, 2, 3])
        #expect(scan(payload.encoded) == SparkplugHeader(timestamp: 1_700_000_000_123, seq: 255))
        #expect(scan(SparkplugPayload(seq: 0).encoded) == SparkplugHeader(seq: 0))
        #expect(scan(SparkplugPayload(timestamp: 3).encoded) == SparkplugHeader(timestamp: 3), "an NDEATH's kind: no seq")
        #expect(scan([]) == SparkplugHeader(), "an empty payload is a valid, empty message")
        // A field that comes twice keeps its last value; a field of no interest (fixed32 99) is skipped.
        #expect(scan([0x18, 0x05, 0x9D, 0x06, 1, 2, 3, 4, 0x18, 0x06]) == SparkplugHeader(seq: 6))
    }

    @Test func bytesThatAreNotProtobufGiveNothing() {
        #expect(scan([0x12, 0x05, 0x01]) == nil, "a metric longer than what is left")
        #expect(scan([0x18]) == nil, "a key without its value")
        #expect(scan([0x18, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]) == nil, "a varint of eleven bytes")
        #expect(scan([0x1B, 0x00]) == nil, "a group")
        #expect(scan([0x00, 0x00]) == nil, "field 0")
        #expect(scan(Array(#"{"seq":3}"#.utf8)) == nil, "JSON")
    }
}
