/// A metric's value as devsim holds it. Which field of the wire carries it, and in what width,
/// is the metric's datatype's to say (`SparkplugDataType.valueField`): `.int(-1)` is
/// `int_value` 0xFFFFFFFF as an Int32 and `long_value` 0xFFFF_FFFF_FFFF_FFFF as an Int64.
package enum SparkplugValue: Equatable, Sendable {
    case int(Int64)
    /// Unsigned integers and DateTime's milliseconds.
    case uint(UInt64)
    case float(Float)
    case double(Double)
    case bool(Bool)
    /// String, Text and UUID.
    case string(String)
    case bytes([UInt8])

    /// The value as an integer's bits, for `int_value` and `long_value`: a fraction rounds to
    /// the nearest, out-of-range numbers clamp, NaN is 0.
    var integerBits: UInt64 {
        switch self {
        case .int(let value): UInt64(bitPattern: value)
        case .uint(let value): value
        case .float(let value): Self.clampedBits(Double(value))
        case .double(let value): Self.clampedBits(value)
        case .bool(let value): value ? 1 : 0
        case .string, .bytes: 0
        }
    }

    /// The value as a number, for `float_value` and `double_value`.
    var doubleValue: Double {
        switch self {
        case .int(let value): Double(value)
        case .uint(let value): Double(value)
        case .float(let value): Double(value)
        case .double(let value): value
        case .bool(let value): value ? 1 : 0
        case .string, .bytes: 0
        }
    }

    private static func clampedBits(_ value: Double) -> UInt64 {
        guard !value.isNaN else { return 0 }
        let rounded = value.rounded()
        if rounded >= 0x1p63 { return UInt64(Int64.max) }
        if rounded <= -0x1p63 { return UInt64(bitPattern: Int64.min) }
        return UInt64(bitPattern: Int64(rounded))
    }
}
