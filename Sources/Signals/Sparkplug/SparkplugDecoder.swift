/// Reads a Sparkplug B payload: what a host sends an edge node (NCMD) or its devices (DCMD).
/// Fields it does not know are skipped, as protocol buffers' readers skip them; a scalar field
/// that comes twice keeps its last value, as theirs do. Allocates: commands are not the hot path.
package enum SparkplugDecoder {
    /// `birthType` gives the datatype a birth announced for a metric that comes without one (by
    /// its name or alias), which data and commands may leave out: an integer needs it to be
    /// read.
    package static func decode(
        _ bytes: [UInt8], birthType: (SparkplugMetric) -> SparkplugDataType? = { _ in nil }
    ) throws(SparkplugDecodingError) -> SparkplugPayload {
        var reader = ProtobufReader(bytes[...])
        var payload = SparkplugPayload()
        while !reader.isAtEnd {
            let (field, wireType) = try reader.readKey()
            switch field {
            case SparkplugWriter.Field.timestamp:
                payload.timestamp = try varint(field, wireType, &reader)
            case SparkplugWriter.Field.metrics:
                try expect(.lengthDelimited, field, wireType)
                payload.metrics.append(try metric(reader.readLengthDelimited(), birthType: birthType))
            case SparkplugWriter.Field.seq:
                payload.seq = try varint(field, wireType, &reader)
            case SparkplugWriter.Field.uuid:
                try expect(.lengthDelimited, field, wireType)
                payload.uuid = try string(field, reader.readLengthDelimited())
            case SparkplugWriter.Field.body:
                try expect(.lengthDelimited, field, wireType)
                payload.body = Array(try reader.readLengthDelimited())
            default:
                try reader.skip(wireType)
            }
        }
        return payload
    }

    /// A value as it came, before the datatype (which may follow it) says how to read it.
    private enum RawValue {
        case int(UInt32)
        case long(UInt64)
        case value(SparkplugValue)
    }

    private static func metric(
        _ bytes: ArraySlice<UInt8>, birthType: (SparkplugMetric) -> SparkplugDataType?
    ) throws(SparkplugDecodingError) -> SparkplugMetric {
        var reader = ProtobufReader(bytes)
        var metric = SparkplugMetric(dataType: nil, value: nil)
        var rawDataType: UInt64?
        var raw: RawValue?
        while !reader.isAtEnd {
            let (field, wireType) = try reader.readKey()
            switch field {
            case SparkplugWriter.Field.metricName:
                try expect(.lengthDelimited, field, wireType)
                metric.name = try string(field, reader.readLengthDelimited())
            case SparkplugWriter.Field.metricAlias:
                metric.alias = try varint(field, wireType, &reader)
            case SparkplugWriter.Field.metricTimestamp:
                metric.timestamp = try varint(field, wireType, &reader)
            case SparkplugWriter.Field.metricDataType:
                rawDataType = try varint(field, wireType, &reader)
            case SparkplugWriter.Field.metricIsNull:
                metric.isNull = try varint(field, wireType, &reader) != 0
            default:
                guard let valueField = SparkplugValueField(rawValue: field) else {
                    try reader.skip(wireType)
                    continue
                }
                try expect(valueField.wireType, field, wireType)
                raw = try value(valueField, &reader)
            }
        }
        metric.dataType = rawDataType.flatMap { $0 <= UInt64(UInt32.max) ? SparkplugDataType(rawValue: UInt32($0)) : nil }
        if !metric.isNull, let raw { metric.value = resolve(raw, metric.dataType ?? birthType(metric)) }
        return metric
    }

    private static func value(
        _ field: SparkplugValueField, _ reader: inout ProtobufReader
    ) throws(SparkplugDecodingError) -> RawValue {
        switch field {
        // A uint32 that comes wider keeps its low 32 bits, as protocol buffers' readers do.
        case .intValue: .int(UInt32(truncatingIfNeeded: try reader.readVarint()))
        case .longValue: .long(try reader.readVarint())
        case .floatValue: .value(.float(Float(bitPattern: try reader.readFixed32())))
        case .doubleValue: .value(.double(Double(bitPattern: try reader.readFixed64())))
        case .booleanValue: .value(.bool(try reader.readVarint() != 0))
        case .stringValue: .value(.string(try string(field.rawValue, reader.readLengthDelimited())))
        case .bytesValue: .value(.bytes(Array(try reader.readLengthDelimited())))
        }
    }

    /// An integer read as its datatype says: signed types sign-extended from their own width.
    /// Without a datatype an integer's meaning is unknown: nil.
    private static func resolve(_ raw: RawValue, _ dataType: SparkplugDataType?) -> SparkplugValue? {
        switch (raw, dataType) {
        case (.value(let value), _): value
        case (_, nil): nil
        case (.int(let bits), .int8?): .int(Int64(Int8(truncatingIfNeeded: bits)))
        case (.int(let bits), .int16?): .int(Int64(Int16(truncatingIfNeeded: bits)))
        case (.int(let bits), let type?): type.isSigned ? .int(Int64(Int32(bitPattern: bits))) : .uint(UInt64(bits))
        case (.long(let bits), let type?): type.isSigned ? .int(Int64(bitPattern: bits)) : .uint(bits)
        }
    }

    private static func varint(
        _ field: UInt32, _ wireType: ProtobufWireType, _ reader: inout ProtobufReader
    ) throws(SparkplugDecodingError) -> UInt64 {
        try expect(.varint, field, wireType)
        return try reader.readVarint()
    }

    private static func expect(
        _ expected: ProtobufWireType, _ field: UInt32, _ wireType: ProtobufWireType
    ) throws(SparkplugDecodingError) {
        guard wireType == expected else { throw .wrongWireType(field: field) }
    }

    private static func string(_ field: UInt32, _ bytes: ArraySlice<UInt8>) throws(SparkplugDecodingError) -> String {
        guard let string = String(validating: bytes, as: UTF8.self) else { throw .invalidUTF8(field: field) }
        return string
    }
}
