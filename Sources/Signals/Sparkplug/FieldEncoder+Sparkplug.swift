/// A field read as a Sparkplug metric: the same value, modifiers, commands and faults as its
/// JSON, as a typed value instead of text.
extension FieldEncoder {
    /// The field's datatype before any value has been read (a birth whose first reading is a
    /// null): what its generator makes.
    var sparkplugDataType: SparkplugDataType {
        switch kind {
        case .number: .double
        case .bool: .boolean
        case .text: .string
        case .timestamp: .dateTime
        }
    }

    /// The field's value now; nil when it drops out and is omitted (the metric is left out of
    /// the message, which says "unchanged" to a host), `SparkplugReading.null` for a null.
    func sparkplugReading(at instant: PublishInstant) -> SparkplugReading? {
        let reading = reading(at: instant)
        if let dropout = reading.dropout { return dropout == .omit ? nil : .null }
        switch reading.value {
        case .number(let number):
            return SparkplugReading(dataType: .double, value: .double(asWritten(number)))
        case .integer(let integer):
            return SparkplugReading(dataType: .int64, value: .int(integer))
        case .bool(let on):
            return SparkplugReading(dataType: .boolean, value: .bool(on))
        case .string(let text):
            return SparkplugReading(dataType: .string, value: .string(text))
        case .utcTimestamp(let milliseconds):
            return SparkplugReading(dataType: .dateTime, value: .uint(UInt64(clamping: milliseconds)))
        case .null:
            return .null
        }
    }
}
