/// Why bytes that came as a Sparkplug payload (an NCMD or DCMD) could not be read: reported and
/// counted as a rejected command, never a crash.
package enum SparkplugDecodingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The bytes end inside a field.
    case truncated
    /// A varint of more than ten bytes.
    case malformedVarint
    /// A wire type protocol buffers does not have, or a group, which Sparkplug never uses.
    case unsupportedWireType(UInt8)
    /// A known field arrived with another wire type than the schema gives it.
    case wrongWireType(field: UInt32)
    /// A field number of 0.
    case invalidField
    /// A string field whose bytes are not UTF-8.
    case invalidUTF8(field: UInt32)

    package var description: String {
        switch self {
        case .truncated: "the payload ends inside a field"
        case .malformedVarint: "a varint longer than ten bytes"
        case .unsupportedWireType(let type): "wire type \(type), which a Sparkplug payload does not use"
        case .wrongWireType(let field): "field \(field) has the wrong wire type"
        case .invalidField: "a field numbered 0"
        case .invalidUTF8(let field): "field \(field) is not UTF-8"
        }
    }
}
