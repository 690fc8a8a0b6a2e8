/// The JSON a log line needs, a string and a number with fixed decimals, as `String`s.
///
/// Logging sits below every module, so Signals' payload encoder (`JSONWriter`, which writes into
/// a `PayloadBuffer` for the publish path) is out of its reach; this writes what that encoder
/// writes for these two cases, and `LogJSONTests` (SimulatorTests) holds the two to the same text.
package enum JSONLiteral {
    /// `text` as a JSON string: quotes and backslashes escaped, control characters as `\u00XX`,
    /// U+FEFF as `\ufeff` (some parsers drop a byte order mark that follows an escape); other
    /// bytes as they are, since Swift strings are valid UTF-8.
    package static func quoted(_ text: String) -> String {
        var bytes: [UInt8] = [UInt8(ascii: "\"")]
        bytes.reserveCapacity(text.utf8.count + 2)
        let utf8 = text.utf8
        var index = utf8.startIndex
        while index != utf8.endIndex {
            let byte = utf8[index]
            utf8.formIndex(after: &index)
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                bytes += [UInt8(ascii: "\\"), byte]
            case 0..<0x20:
                bytes += Array(#"\u00"#.utf8) + [hexDigit(byte >> 4), hexDigit(byte & 0xF)]
            case 0xEF where utf8[index...].starts(with: [0xBB, 0xBF]):
                bytes += Array(#"\ufeff"#.utf8)
                utf8.formIndex(&index, offsetBy: 2)
            default:
                bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `value` with exactly `decimals` digits after the point (at most 17; none and no point for
    /// 0), rounding half away from zero, never `-0`; `null` when it is not finite, and Swift's
    /// own form when it is too large for fixed point.
    package static func number(_ value: Double, decimals: Int) -> String {
        guard value.isFinite else { return "null" }
        let digits = min(max(decimals, 0), powersOfTen.count - 1)
        let scaled = (value * powersOfTen[digits]).rounded(.toNearestOrAwayFromZero)
        // Beyond 2⁵³ a Double no longer holds every integer: fixed point through Int64 stops
        // being exact there.
        guard abs(scaled) < 9_007_199_254_740_992 else { return value.description }
        let integer = Int64(scaled)
        var text = String(integer.magnitude)
        if text.count <= digits { text = String(repeating: "0", count: digits + 1 - text.count) + text }
        if digits > 0 { text.insert(".", at: text.index(text.endIndex, offsetBy: -digits)) }
        return integer < 0 ? "-" + text : text
    }

    /// 10⁰…10¹⁷, each exact as a `Double`.
    private static let powersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17,
    ]

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}
