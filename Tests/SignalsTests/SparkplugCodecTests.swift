import Testing

@testable import Signals

/// The Sparkplug B payload's bytes, worked out by hand from the specification's schema (6.4.16)
/// and protocol buffers' encoding: a key is `field << 3 | wire type` as a varint; varints carry
/// 7 bits a byte, least significant first; fixed32/fixed64 are little-endian.
@Suite struct SparkplugCodecTests {
    func bytes(_ payload: SparkplugPayload) -> [UInt8] { payload.encoded }

    @Test func anInt32MetricWithTimestampAndSeq() {
        let payload = SparkplugPayload(
            timestamp: 1, metrics: [SparkplugMetric(name: "a", alias: 1, dataType: .int32, value: .int(-5))], seq: 0)
        #expect(
            bytes(payload) == [
                0x08, 0x01,  // timestamp (1, varint) = 1
                0x12, 0x0D,  // metrics (2, length-delimited), 13 bytes:
                0x0A, 0x01, 0x61,  // name (1) "a"
                0x10, 0x01,  // alias (2) = 1
                0x20, 0x03,  // datatype (4) = Int32
                0x50, 0xFB, 0xFF, 0xFF, 0xFF, 0x0F,  // int_value (10): -5 as uint32 0xFFFFFFFB
                0x18, 0x00,  // seq (3) = 0
            ])
    }

    @Test func eachValueFieldHasItsKeyAndWidth() {
        func metric(_ type: SparkplugDataType, _ value: SparkplugValue?) -> [UInt8] {
            bytes(SparkplugPayload(metrics: [SparkplugMetric(alias: 2, dataType: type, value: value)]))
        }
        // double_value (13, fixed64): key 0x69; 1.5 is 0x3FF8000000000000.
        #expect(metric(.double, .double(1.5)) == [0x12, 0x0D, 0x10, 0x02, 0x20, 0x0A, 0x69, 0, 0, 0, 0, 0, 0, 0xF8, 0x3F])
        // float_value (12, fixed32): key 0x65; 1.0 is 0x3F800000.
        #expect(metric(.float, .float(1)) == [0x12, 0x09, 0x10, 0x02, 0x20, 0x09, 0x65, 0, 0, 0x80, 0x3F])
        // boolean_value (14, varint): key 0x70.
        #expect(metric(.boolean, .bool(true)) == [0x12, 0x06, 0x10, 0x02, 0x20, 0x0B, 0x70, 0x01])
        // string_value (15, length-delimited): key 0x7A.
        #expect(metric(.string, .string("ok")) == [0x12, 0x08, 0x10, 0x02, 0x20, 0x0C, 0x7A, 0x02, 0x6F, 0x6B])
        // long_value (11, varint): key 0x58; Int64 -1 is ten bytes of two's complement.
        #expect(
            metric(.int64, .int(-1)) == [0x12, 0x0F, 0x10, 0x02, 0x20, 0x04, 0x58]
                + [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01])
        // DateTime: milliseconds in long_value; 1_700_000_000_000 = 0x18B_CFE5_6800.
        #expect(
            metric(.dateTime, .uint(1_700_000_000_000)) == [
                0x12, 0x0B, 0x10, 0x02, 0x20, 0x0D, 0x58, 0x80, 0xD0, 0x95, 0xFF, 0xBC, 0x31,
            ])
        // A signed Int8 is sign-extended to 32 bits in int_value.
        #expect(metric(.int8, .int(-1)) == [0x12, 0x0A, 0x10, 0x02, 0x20, 0x01, 0x50, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F])
        // A fraction for an integer type rounds to the nearest.
        #expect(metric(.uint16, .double(41.6)) == [0x12, 0x06, 0x10, 0x02, 0x20, 0x06, 0x50, 0x2A])
        // No value: is_null (7) = true.
        #expect(metric(.double, nil) == [0x12, 0x06, 0x10, 0x02, 0x20, 0x0A, 0x38, 0x01])
    }

    @Test func aMetricOver127BytesGetsATwoByteLength() {
        let name = String(repeating: "x", count: 200)
        let encoded = bytes(SparkplugPayload(metrics: [SparkplugMetric(name: name, dataType: .string, value: .string(""))]))
        // Body: name 3 + 200, datatype 2, string_value 2 = 207 = 0xCF → varint CF 01.
        #expect(Array(encoded.prefix(6)) == [0x12, 0xCF, 0x01, 0x0A, 0xC8, 0x01])
        #expect(Array(encoded.suffix(4)) == [0x20, 0x0C, 0x7A, 0x00])
        #expect(encoded.count == 3 + 207)
    }

    @Test func seq255TakesTwoBytes() {
        #expect(bytes(SparkplugPayload(seq: 255)) == [0x18, 0xFF, 0x01])
    }

    @Test func varintSizes() {
        for (value, size) in [(UInt64(0), 1), (127, 1), (128, 2), (16_383, 2), (16_384, 3), (UInt64.max, 10)] {
            #expect(ProtobufWriter.varintSize(value) == size, "\(value)")
        }
    }

    @Test func decodesWhatTheHandWrittenBytesSay() throws {
        let decoded = try SparkplugDecoder.decode([
            0x08, 0x01, 0x12, 0x0D, 0x0A, 0x01, 0x61, 0x10, 0x01, 0x20, 0x03, 0x50, 0xFB, 0xFF, 0xFF, 0xFF, 0x0F, 0x18, 0x00,
        ])
        #expect(
            decoded
                == SparkplugPayload(
                    timestamp: 1, metrics: [SparkplugMetric(name: "a", alias: 1, dataType: .int32, value: .int(-5))], seq: 0))
    }

    @Test func theDatatypeMayFollowTheValue() throws {
        // int_value 0xFF first, then datatype Int8: -1.
        let decoded = try SparkplugDecoder.decode([0x12, 0x05, 0x50, 0xFF, 0x01, 0x20, 0x01])
        #expect(decoded.metrics == [SparkplugMetric(dataType: .int8, value: .int(-1))])
    }

    @Test func everyTypeDevsimMakesRoundTrips() throws {
        let metrics: [SparkplugMetric] = [
            .init(name: "Node Control/Rebirth", alias: 0, dataType: .boolean, value: .bool(false)),
            .init(name: "i8", alias: 1, dataType: .int8, value: .int(-128)),
            .init(name: "i16", alias: 2, dataType: .int16, value: .int(-32_768)),
            .init(name: "i32", alias: 3, dataType: .int32, value: .int(Int64(Int32.min))),
            .init(name: "i64", alias: 4, dataType: .int64, value: .int(.min)),
            .init(name: "u8", alias: 5, dataType: .uint8, value: .uint(255)),
            .init(name: "u32", alias: 6, dataType: .uint32, value: .uint(UInt64(UInt32.max))),
            .init(name: "u64", alias: 7, dataType: .uint64, value: .uint(.max)),
            .init(name: "f", alias: 8, timestamp: 9, dataType: .float, value: .float(-0.25)),
            .init(name: "d", alias: 9, dataType: .double, value: .double(.pi)),
            .init(name: "s", alias: 10, dataType: .string, value: .string("grüß \u{0}")),
            .init(name: "t", alias: 11, dataType: .dateTime, value: .uint(1_700_000_000_123)),
            .init(name: "n", alias: 12, dataType: .double, value: nil, isNull: true),
        ]
        let payload = SparkplugPayload(timestamp: 1_700_000_000_000, metrics: metrics, seq: 200, uuid: "u")
        #expect(try SparkplugDecoder.decode(payload.encoded) == payload)
    }

    @Test func unknownFieldsAreSkipped() throws {
        // Payload field 6 (an extension, varint) and a metric's properties (9, length-delimited).
        let decoded = try SparkplugDecoder.decode([0x30, 0x05, 0x12, 0x06, 0x4A, 0x02, 0x0A, 0x00, 0x10, 0x07, 0x18, 0x03])
        #expect(decoded == SparkplugPayload(metrics: [SparkplugMetric(alias: 7, dataType: nil, value: nil)], seq: 3))
    }

    @Test(arguments: [
        ([0x12, 0x05, 0x10] as [UInt8], SparkplugDecodingError.truncated),
        ([0x08] as [UInt8], .truncated),
        ([0x08] + [UInt8](repeating: 0xFF, count: 11), .malformedVarint),
        // A group (wire type 3) in a field the reader would skip.
        ([0x33] as [UInt8], .unsupportedWireType(3)),
        ([0x0F] as [UInt8], .unsupportedWireType(7)),
        ([0x0A, 0x00] as [UInt8], .wrongWireType(field: 1)),
        ([0x00, 0x00] as [UInt8], .invalidField),
        ([0x12, 0x03, 0x0A, 0x01, 0xFF] as [UInt8], .invalidUTF8(field: 1)),
        ([0x12, 0x02, 0x7D, 0x00] as [UInt8], .wrongWireType(field: 15)),
    ])
    func malformedBytesThrow(_ bytes: [UInt8], _ error: SparkplugDecodingError) {
        do {
            let payload = try SparkplugDecoder.decode(bytes)
            Issue.record("decoded \(payload)")
        } catch let thrown {
            #expect(thrown == error)
        }
    }

    @Test func everyPrefixOfAPayloadThrowsOrDecodesWithoutTrapping() throws {
        let payload = SparkplugPayload(
            timestamp: 1_700_000_000_000,
            metrics: [
                .init(name: "Temperature", alias: 3, dataType: .double, value: .double(21.5)),
                .init(name: "Running", alias: 4, dataType: .boolean, value: .bool(true)),
            ], seq: 7)
        let encoded = payload.encoded
        for end in 0..<encoded.count {
            _ = try? SparkplugDecoder.decode(Array(encoded[..<end]))
        }
        #expect(try SparkplugDecoder.decode(encoded) == payload)
    }

    @Test func writingTwiceIntoOneBufferReusesIt() {
        var buffer = PayloadBuffer(capacity: 16)
        let long = SparkplugPayload(metrics: [.init(name: String(repeating: "y", count: 300), dataType: .string, value: .string("v"))])
        long.write(into: &buffer)
        let first = buffer.bytes
        buffer.removeAll()
        long.write(into: &buffer)
        #expect(buffer.bytes == first)
        #expect(first.count == long.encoded.count)
    }
}
