/// The wire types of protocol buffers' encoding: the low three bits of every field's key.
/// Groups (3 and 4) are deprecated and Sparkplug has none: the decoder refuses them.
package enum ProtobufWireType: UInt8, Sendable {
    case varint = 0
    case fixed64 = 1
    case lengthDelimited = 2
    case startGroup = 3
    case endGroup = 4
    case fixed32 = 5
}
