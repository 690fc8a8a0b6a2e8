/// The scalar values of a JSON text (strings, numbers, true, false, null), each with its path
/// and the bytes it takes: where a replay finds the timestamps of a recorded payload. A path
/// names members by key (`.ts`, `.meta.time`) and an array's items alike (`.readings[]`), so
/// the messages of a topic share their paths.
package enum JSONScalars {
    package struct Scalar: Sendable, Equatable {
        package var path: String
        /// A string's with its quotes.
        package var range: Range<Int>
    }

    /// Past this depth a payload is taken for no JSON a device sends, and left alone.
    static let maximumDepth = 64

    /// Every scalar of `bytes`, in order; `nil` when `bytes` is not one JSON value.
    package static func scan(_ bytes: [UInt8]) -> [Scalar]? {
        var scanner = Scanner(bytes: bytes)
        guard scanner.value(path: "", depth: 0) else { return nil }
        scanner.skipSpace()
        return scanner.index == bytes.count ? scanner.scalars : nil
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0
        var scalars: [Scalar] = []

        init(bytes: [UInt8]) { self.bytes = bytes }

        var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipSpace() {
            while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
        }

        mutating func value(path: String, depth: Int) -> Bool {
            skipSpace()
            guard let byte = current, depth < JSONScalars.maximumDepth else { return false }
            switch byte {
            case UInt8(ascii: "{"):
                index += 1
                skipSpace()
                if current == UInt8(ascii: "}") {
                    index += 1
                    return true
                }
                while true {
                    skipSpace()
                    let keyStart = index + 1
                    guard current == UInt8(ascii: "\""), string() else { return false }
                    let key = String(decoding: bytes[keyStart..<(index - 1)], as: UTF8.self)
                    skipSpace()
                    guard current == UInt8(ascii: ":") else { return false }
                    index += 1
                    guard value(path: path + "." + key, depth: depth + 1) else { return false }
                    skipSpace()
                    if current == UInt8(ascii: ",") {
                        index += 1
                    } else if current == UInt8(ascii: "}") {
                        index += 1
                        return true
                    } else {
                        return false
                    }
                }
            case UInt8(ascii: "["):
                index += 1
                skipSpace()
                if current == UInt8(ascii: "]") {
                    index += 1
                    return true
                }
                while true {
                    guard value(path: path + "[]", depth: depth + 1) else { return false }
                    skipSpace()
                    if current == UInt8(ascii: ",") {
                        index += 1
                    } else if current == UInt8(ascii: "]") {
                        index += 1
                        return true
                    } else {
                        return false
                    }
                }
            case UInt8(ascii: "\""):
                let start = index
                guard string() else { return false }
                scalars.append(Scalar(path: path, range: start..<index))
                return true
            default:
                let start = index
                while let byte = current, Self.isTokenByte(byte) { index += 1 }
                guard index > start else { return false }
                scalars.append(Scalar(path: path, range: start..<index))
                return true
            }
        }

        /// Past a string, from its opening quote to after its closing one.
        mutating func string() -> Bool {
            index += 1
            while let byte = current {
                if byte == UInt8(ascii: "\\") {
                    index += 2
                } else {
                    index += 1
                    if byte == UInt8(ascii: "\"") { return true }
                }
            }
            return false
        }

        /// A number's or a literal's bytes.
        static func isTokenByte(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "E")
        }
    }
}
