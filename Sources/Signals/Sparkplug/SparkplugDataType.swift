/// A metric's datatype, as the Sparkplug 3.0 specification numbers them (6.4.16, `DataType`).
/// The raw value is what goes on the wire, in the metric's `datatype` field.
package enum SparkplugDataType: UInt32, Sendable, CaseIterable {
    case unknown = 0
    case int8 = 1
    case int16 = 2
    case int32 = 3
    case int64 = 4
    case uint8 = 5
    case uint16 = 6
    case uint32 = 7
    case uint64 = 8
    case float = 9
    case double = 10
    case boolean = 11
    case string = 12
    /// Milliseconds since the epoch, in `long_value`.
    case dateTime = 13
    case text = 14
    case uuid = 15
    case dataSet = 16
    case bytes = 17
    case file = 18
    case template = 19
    case propertySet = 20
    case propertySetList = 21
    case int8Array = 22
    case int16Array = 23
    case int32Array = 24
    case int64Array = 25
    case uint8Array = 26
    case uint16Array = 27
    case uint32Array = 28
    case uint64Array = 29
    case floatArray = 30
    case doubleArray = 31
    case booleanArray = 32
    case stringArray = 33
    case dateTimeArray = 34

    /// The field of `Metric`'s `value` oneof that carries a value of this type; nil for the
    /// types devsim neither makes nor reads (data sets, templates, property sets, arrays, files).
    package var valueField: SparkplugValueField? {
        switch self {
        case .int8, .int16, .int32, .uint8, .uint16, .uint32: .intValue
        case .int64, .uint64, .dateTime: .longValue
        case .float: .floatValue
        case .double: .doubleValue
        case .boolean: .booleanValue
        case .string, .text, .uuid: .stringValue
        case .bytes: .bytesValue
        default: nil
        }
    }

    /// Whether its integers are signed: they travel as two's complement in their field's width
    /// (32 bits in `int_value`, 64 in `long_value`), so the reader sign-extends them from the
    /// type's own width.
    package var isSigned: Bool {
        switch self {
        case .int8, .int16, .int32, .int64: true
        default: false
        }
    }
}

extension SparkplugDataType {
    /// Its name in the specification (6.4.16, `DataType`): `Int16`, `UInt32`, `DateTime`.
    package var name: String {
        let word = String(describing: self)
        if word.hasPrefix("uint") { return "UInt" + word.dropFirst(4) }
        if self == .uuid { return "UUID" }
        return word.prefix(1).uppercased() + word.dropFirst()
    }
}
