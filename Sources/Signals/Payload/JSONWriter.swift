/// Writes JSON values straight into a byte buffer: no `String` is built per value and, once the
/// buffer has grown to a payload's size, nothing is allocated.
package enum JSONWriter {
    /// `string` as a JSON string: quotes and backslashes escaped, control characters as `\u00XX`,
    /// and U+FEFF as `\ufeff`, since some parsers (Foundation's among them) drop a byte order mark
    /// that follows an escape. Other bytes are copied as they are, since Swift strings are valid
    /// UTF-8.
    package static func writeString(_ string: String, into buffer: inout PayloadBuffer) {
        buffer.append(UInt8(ascii: "\""))
        let utf8 = string.utf8
        var index = utf8.startIndex
        while index != utf8.endIndex {
            let byte = utf8[index]
            utf8.formIndex(after: &index)
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                buffer.append(UInt8(ascii: "\\"))
                buffer.append(byte)
            case 0..<0x20:
                buffer.append(contentsOf: unicodeEscapePrefix)
                buffer.append(hexDigit(byte >> 4))
                buffer.append(hexDigit(byte & 0xF))
            case 0xEF where utf8[index...].starts(with: byteOrderMarkTail):
                buffer.append(contentsOf: byteOrderMarkEscape)
                utf8.formIndex(&index, offsetBy: 2)
            default:
                buffer.append(byte)
            }
        }
        buffer.append(UInt8(ascii: "\""))
    }

    package static func writeBool(_ value: Bool, into buffer: inout PayloadBuffer) {
        buffer.append(contentsOf: value ? trueBytes : falseBytes)
    }

    package static func writeNull(into buffer: inout PayloadBuffer) {
        buffer.append(contentsOf: nullBytes)
    }

    // Made once: an array literal at the call site may allocate on every call.
    static let unicodeEscapePrefix: [UInt8] = Array(#"\u00"#.utf8)
    /// U+FEFF is EF BB BF in UTF-8.
    static let byteOrderMarkTail: [UInt8] = [0xBB, 0xBF]
    static let byteOrderMarkEscape: [UInt8] = Array(#"\ufeff"#.utf8)
    static let trueBytes: [UInt8] = Array("true".utf8)
    static let falseBytes: [UInt8] = Array("false".utf8)
    static let nullBytes: [UInt8] = Array("null".utf8)

    static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}
