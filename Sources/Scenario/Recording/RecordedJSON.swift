/// A recorded payload read as JSON, keeping what inference needs and Foundation's reader loses:
/// the order of an object's keys (the inferred payload writes its fields in the recorded order)
/// and each number's digits after the point (its `decimals`). The one JSON reader of recordings:
/// the replay finds its timestamps through `scalars(_:)`.
package indirect enum RecordedJSON: Sendable, Equatable {
    case object([Member])
    case array([RecordedJSON])
    case string(String)
    /// `decimals`: digits written after the point; `integer`: written without point or exponent.
    case number(Double, decimals: Int, integer: Bool)
    case bool(Bool)
    case null

    package struct Member: Sendable, Equatable {
        package var key: String
        package var value: RecordedJSON
    }

    /// The JSON value `bytes` hold, alone but for white space; `nil` when they hold none.
    package static func parse(_ bytes: [UInt8]) -> RecordedJSON? {
        read(bytes)?.value
    }

    /// The value with the bytes of each scalar (string, number, true, false, null) in document
    /// order, a string's with its quotes.
    static func read(_ bytes: [UInt8]) -> (value: RecordedJSON, scalarRanges: [Range<Int>])? {
        var reader = Reader(bytes: bytes)
        guard let value = reader.value(depth: 0) else { return nil }
        reader.skipSpace()
        return reader.index == bytes.count ? (value, reader.scalarRanges) : nil
    }

    /// Where `bytes` stop being one JSON value: the offset of the first byte the reader could not
    /// take (`bytes.count` when they end too soon); `nil` when they are one.
    static func errorOffset(_ bytes: [UInt8]) -> Int? {
        var reader = Reader(bytes: bytes)
        guard reader.value(depth: 0) != nil else { return min(reader.index, bytes.count) }
        reader.skipSpace()
        return reader.index == bytes.count ? nil : reader.index
    }

    private struct Reader {
        let bytes: [UInt8]
        var index = 0
        var scalarRanges: [Range<Int>] = []

        /// Deeper than this is refused rather than recursed into: a recording is untrusted input.
        static let maximumDepth = 64

        mutating func skipSpace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        mutating func value(depth: Int) -> RecordedJSON? {
            skipSpace()
            guard index < bytes.count, depth < Self.maximumDepth else { return nil }
            let start = index
            let value: RecordedJSON?
            switch bytes[index] {
            case UInt8(ascii: "{"): return object(depth: depth)
            case UInt8(ascii: "["): return array(depth: depth)
            default: value = scalar()
            }
            if value != nil { scalarRanges.append(start..<index) }
            return value
        }

        private mutating func scalar() -> RecordedJSON? {
            switch bytes[index] {
            case UInt8(ascii: "\""): return string().map { .string($0) }
            case UInt8(ascii: "t"): return word("true", .bool(true))
            case UInt8(ascii: "f"): return word("false", .bool(false))
            case UInt8(ascii: "n"): return word("null", .null)
            default: return number()
            }
        }

        private mutating func word(_ text: String, _ value: RecordedJSON) -> RecordedJSON? {
            let utf8 = Array(text.utf8)
            guard bytes.count - index >= utf8.count, Array(bytes[index..<index + utf8.count]) == utf8 else { return nil }
            index += utf8.count
            return value
        }

        private mutating func object(depth: Int) -> RecordedJSON? {
            index += 1
            var members: [Member] = []
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(members)
            }
            while true {
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\""), let key = string() else { return nil }
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
                index += 1
                guard let value = value(depth: depth + 1) else { return nil }
                members.append(Member(key: key, value: value))
                skipSpace()
                guard index < bytes.count else { return nil }
                index += 1
                if bytes[index - 1] == UInt8(ascii: "}") { return .object(members) }
                guard bytes[index - 1] == UInt8(ascii: ",") else { return nil }
            }
        }

        private mutating func array(depth: Int) -> RecordedJSON? {
            index += 1
            var elements: [RecordedJSON] = []
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(elements)
            }
            while true {
                guard let value = value(depth: depth + 1) else { return nil }
                elements.append(value)
                skipSpace()
                guard index < bytes.count else { return nil }
                index += 1
                if bytes[index - 1] == UInt8(ascii: "]") { return .array(elements) }
                guard bytes[index - 1] == UInt8(ascii: ",") else { return nil }
            }
        }

        private mutating func string() -> String? {
            index += 1
            var scalars = String.UnicodeScalarView()
            var run: [UInt8] = []
            func flush() -> Bool {
                guard !run.isEmpty else { return true }
                guard let text = String(validating: run, as: UTF8.self) else { return false }
                scalars.append(contentsOf: text.unicodeScalars)
                run.removeAll(keepingCapacity: true)
                return true
            }
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return flush() ? String(scalars) : nil
                case UInt8(ascii: "\\"):
                    guard flush(), index < bytes.count else { return nil }
                    let escape = bytes[index]
                    index += 1
                    switch escape {
                    case UInt8(ascii: "n"): scalars.append("\n")
                    case UInt8(ascii: "t"): scalars.append("\t")
                    case UInt8(ascii: "r"): scalars.append("\r")
                    case UInt8(ascii: "b"): scalars.append("\u{8}")
                    case UInt8(ascii: "f"): scalars.append("\u{C}")
                    case UInt8(ascii: "u"):
                        guard var code = hex4() else { return nil }
                        // A surrogate pair is two escapes; a lone surrogate is no scalar.
                        if (0xD800..<0xDC00).contains(code) {
                            guard word("\\u", .null) != nil, let low = hex4(), (0xDC00..<0xE000).contains(low) else { return nil }
                            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                        }
                        guard let scalar = Unicode.Scalar(code) else { return nil }
                        scalars.append(scalar)
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalars.append(Unicode.Scalar(escape))
                    default: return nil
                    }
                case 0..<0x20: return nil
                default: run.append(byte)
                }
            }
            return nil
        }

        private mutating func hex4() -> UInt32? {
            guard bytes.count - index >= 4,
                let code = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16)
            else { return nil }
            index += 4
            return code
        }

        private mutating func number() -> RecordedJSON? {
            let start = index
            var decimals = 0
            var integer = true
            var inFraction = false
            while index < bytes.count {
                let byte = bytes[index]
                if byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                    if inFraction { decimals += 1 }
                } else if byte == UInt8(ascii: ".") {
                    integer = false
                    inFraction = true
                } else if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
                    integer = false
                    inFraction = false
                } else if byte != UInt8(ascii: "-"), byte != UInt8(ascii: "+") {
                    break
                }
                index += 1
            }
            let text = String(decoding: bytes[start..<index], as: UTF8.self)
            guard let first = text.first, first == "-" || first.isNumber, let value = Double(text), value.isFinite else { return nil }
            return .number(value, decimals: decimals, integer: integer)
        }
    }
}
