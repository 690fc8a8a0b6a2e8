/// The members of the `value` oneof of a Sparkplug `Metric`, numbered as the specification's
/// schema numbers them (6.4.16).
package enum SparkplugValueField: UInt32, Sendable {
    /// `uint32`: Int8, Int16, Int32 (two's complement) and UInt8, UInt16, UInt32.
    case intValue = 10
    /// `uint64`: Int64 (two's complement), UInt64 and DateTime.
    case longValue = 11
    case floatValue = 12
    case doubleValue = 13
    case booleanValue = 14
    /// String, Text and UUID.
    case stringValue = 15
    case bytesValue = 16

    /// How the field is laid out on the wire.
    package var wireType: ProtobufWireType {
        switch self {
        case .intValue, .longValue, .booleanValue: .varint
        case .floatValue: .fixed32
        case .doubleValue: .fixed64
        case .stringValue, .bytesValue: .lengthDelimited
        }
    }
}
