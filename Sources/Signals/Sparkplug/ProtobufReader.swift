/// Reads protocol buffers' encoding from bytes that came over the wire, checking every length
/// against what is left: malformed input throws, never traps.
package struct ProtobufReader {
    private let bytes: ArraySlice<UInt8>
    private var index: Int

    package init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        index = bytes.startIndex
    }

    package var isAtEnd: Bool { index >= bytes.endIndex }

    package mutating func readVarint() throws(SparkplugDecodingError) -> UInt64 {
        var value: UInt64 = 0
        for shift in stride(from: 0, to: 70, by: 7) {
            guard index < bytes.endIndex else { throw .truncated }
            let byte = bytes[index]
            index += 1
            // The tenth byte holds bit 63 alone; what it has beyond that is dropped, as
            // protocol buffers' own readers drop it.
            value |= shift < 64 ? UInt64(byte & 0x7F) << UInt64(shift) : 0
            if byte & 0x80 == 0 { return value }
        }
        throw .malformedVarint
    }

    /// The next field's number and wire type.
    package mutating func readKey() throws(SparkplugDecodingError) -> (field: UInt32, wireType: ProtobufWireType) {
        let key = try readVarint()
        guard let wireType = ProtobufWireType(rawValue: UInt8(key & 7)) else { throw .unsupportedWireType(UInt8(key & 7)) }
        let field = key >> 3
        guard field > 0, field <= UInt64(UInt32.max) else { throw .invalidField }
        return (UInt32(field), wireType)
    }

    package mutating func readFixed32() throws(SparkplugDecodingError) -> UInt32 {
        let bytes = try take(4)
        return bytes.reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }

    package mutating func readFixed64() throws(SparkplugDecodingError) -> UInt64 {
        let bytes = try take(8)
        return bytes.reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }

    package mutating func readLengthDelimited() throws(SparkplugDecodingError) -> ArraySlice<UInt8> {
        let length = try readVarint()
        guard length <= UInt64(bytes.endIndex - index) else { throw .truncated }
        return try take(Int(length))
    }

    /// Steps over a field this reader does not want.
    package mutating func skip(_ wireType: ProtobufWireType) throws(SparkplugDecodingError) {
        switch wireType {
        case .varint: _ = try readVarint()
        case .fixed64: _ = try take(8)
        case .lengthDelimited: _ = try readLengthDelimited()
        case .fixed32: _ = try take(4)
        case .startGroup, .endGroup: throw .unsupportedWireType(wireType.rawValue)
        }
    }

    private mutating func take(_ count: Int) throws(SparkplugDecodingError) -> ArraySlice<UInt8> {
        guard count <= bytes.endIndex - index else { throw .truncated }
        defer { index += count }
        return bytes[index..<index + count]
    }
}
