/// Writes the parts of a Sparkplug B payload one by one into a `PayloadBuffer`, so that a
/// publish path can write a DATA message's few metrics without building a `SparkplugPayload`.
/// The fields of a payload may come in any order; a reader takes the last of a repeated scalar.
package enum SparkplugWriter {
    /// Field numbers of `Payload` and `Metric` (6.4.16).
    package enum Field {
        package static let timestamp: UInt32 = 1
        package static let metrics: UInt32 = 2
        package static let seq: UInt32 = 3
        package static let uuid: UInt32 = 4
        package static let body: UInt32 = 5

        package static let metricName: UInt32 = 1
        package static let metricAlias: UInt32 = 2
        package static let metricTimestamp: UInt32 = 3
        package static let metricDataType: UInt32 = 4
        package static let metricIsNull: UInt32 = 7
    }

    @inline(__always)
    package static func writeTimestamp(_ milliseconds: UInt64, into buffer: inout PayloadBuffer) {
        ProtobufWriter.writeVarintField(Field.timestamp, milliseconds, into: &buffer)
    }

    @inline(__always)
    package static func writeSeq(_ seq: UInt64, into buffer: inout PayloadBuffer) {
        ProtobufWriter.writeVarintField(Field.seq, seq, into: &buffer)
    }

    /// One metric; `value` nil writes `is_null`. The value goes in the field `dataType` says,
    /// converted to its width (a signed Int8/16/32 sign-extended to 32 bits); a type devsim
    /// does not make (`valueField` nil) gets no value. The datatype itself is written only with
    /// `writesDataType`: births must carry it, data by alias should not (6.4.16).
    package static func writeMetric(
        name: String?, alias: UInt64?, timestamp: UInt64?, dataType: SparkplugDataType, writesDataType: Bool = true,
        value: SparkplugValue?, into buffer: inout PayloadBuffer
    ) {
        let start = ProtobufWriter.beginMessage(Field.metrics, into: &buffer)
        if let name { ProtobufWriter.writeStringField(Field.metricName, name, into: &buffer) }
        if let alias { ProtobufWriter.writeVarintField(Field.metricAlias, alias, into: &buffer) }
        if let timestamp { ProtobufWriter.writeVarintField(Field.metricTimestamp, timestamp, into: &buffer) }
        if writesDataType { ProtobufWriter.writeVarintField(Field.metricDataType, UInt64(dataType.rawValue), into: &buffer) }
        if let value {
            writeValue(value, as: dataType, into: &buffer)
        } else {
            ProtobufWriter.writeVarintField(Field.metricIsNull, 1, into: &buffer)
        }
        ProtobufWriter.endMessage(startingAt: start, into: &buffer)
    }

    @inline(__always)
    static func writeValue(_ value: SparkplugValue, as dataType: SparkplugDataType, into buffer: inout PayloadBuffer) {
        guard let field = dataType.valueField else { return }
        switch field {
        case .intValue:
            let bits = UInt32(truncatingIfNeeded: value.integerBits)
            ProtobufWriter.writeVarintField(field.rawValue, UInt64(bits), into: &buffer)
        case .longValue:
            ProtobufWriter.writeVarintField(field.rawValue, value.integerBits, into: &buffer)
        case .floatValue:
            let number: Float = if case .float(let float) = value { float } else { Float(value.doubleValue) }
            ProtobufWriter.writeFixed32Field(field.rawValue, number.bitPattern, into: &buffer)
        case .doubleValue:
            ProtobufWriter.writeFixed64Field(field.rawValue, value.doubleValue.bitPattern, into: &buffer)
        case .booleanValue:
            ProtobufWriter.writeVarintField(field.rawValue, value.integerBits == 0 ? 0 : 1, into: &buffer)
        case .stringValue:
            let text: String =
                switch value {
                case .string(let string): string
                case .bytes(let bytes): String(decoding: bytes, as: UTF8.self)
                default: ""
                }
            ProtobufWriter.writeStringField(field.rawValue, text, into: &buffer)
        case .bytesValue:
            let bytes: [UInt8] =
                switch value {
                case .bytes(let bytes): bytes
                case .string(let string): Array(string.utf8)
                default: []
                }
            bytes.withUnsafeBytes { ProtobufWriter.writeBytesField(field.rawValue, $0, into: &buffer) }
        }
    }
}
