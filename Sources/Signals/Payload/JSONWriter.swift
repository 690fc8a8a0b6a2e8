/// Writes JSON values straight into a byte buffer: no `String` is built per value and, once the
/// buffer has grown to a payload's size, nothing is allocated.
public enum JSONWriter {
    /// `string` as a JSON string: quotes and backslashes escaped, control characters as `\u00XX`.
    /// Other bytes are copied as they are, since Swift strings are valid UTF-8.
    public static func writeString(_ string: String, into buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                buffer.append(UInt8(ascii: "\\"))
                buffer.append(byte)
            case 0..<0x20:
                buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                buffer.append(hexDigit(byte >> 4))
                buffer.append(hexDigit(byte & 0xF))
            default:
                buffer.append(byte)
            }
        }
        buffer.append(UInt8(ascii: "\""))
    }

    public static func writeBool(_ value: Bool, into buffer: inout [UInt8]) {
        if value {
            buffer.append(contentsOf: [UInt8(ascii: "t"), UInt8(ascii: "r"), UInt8(ascii: "u"), UInt8(ascii: "e")])
        } else {
            buffer.append(contentsOf: [UInt8(ascii: "f"), UInt8(ascii: "a"), UInt8(ascii: "l"), UInt8(ascii: "s"), UInt8(ascii: "e")])
        }
    }

    public static func writeNull(into buffer: inout [UInt8]) {
        buffer.append(contentsOf: [UInt8(ascii: "n"), UInt8(ascii: "u"), UInt8(ascii: "l"), UInt8(ascii: "l")])
    }

    static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}
