/// What `run --verify` reads of a Sparkplug B payload as it arrives: the payload's timestamp
/// (field 1, milliseconds since the epoch) and the edge node's seq (field 3), the metrics
/// stepped over by their length. Read straight from the bytes libmosquitto hands over, with no
/// allocation; a field that comes twice keeps its last value, as protocol buffers' readers keep
/// it.
package struct SparkplugHeader: Equatable, Sendable {
    package var timestamp: UInt64?
    package var seq: UInt64?

    package init(timestamp: UInt64? = nil, seq: UInt64? = nil) {
        self.timestamp = timestamp
        self.seq = seq
    }

    /// The header of `payload`; `nil` for bytes that are not protocol buffers' encoding (a
    /// varint too long, a length past the end, a group), which no figure should be read from.
    package init?(scanning payload: UnsafeRawBufferPointer) {
        var index = 0
        func varint() -> UInt64? {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while index < payload.count, shift < 70 {
                let byte = payload[index]
                index += 1
                if shift < 64 { value |= UInt64(byte & 0x7F) << shift }
                if byte & 0x80 == 0 { return value }
                shift += 7
            }
            return nil
        }
        while index < payload.count {
            guard let key = varint() else { return nil }
            let field = key >> 3
            guard field > 0 else { return nil }
            let skip: UInt64
            switch ProtobufWireType(rawValue: UInt8(key & 7)) {
            case .varint:
                guard let value = varint() else { return nil }
                if field == UInt64(SparkplugWriter.Field.timestamp) { timestamp = value }
                if field == UInt64(SparkplugWriter.Field.seq) { seq = value }
                continue
            case .lengthDelimited:
                guard let length = varint() else { return nil }
                skip = length
            case .fixed64: skip = 8
            case .fixed32: skip = 4
            case .startGroup, .endGroup, nil: return nil
            }
            guard skip <= UInt64(payload.count - index) else { return nil }
            index += Int(skip)
        }
    }
}
