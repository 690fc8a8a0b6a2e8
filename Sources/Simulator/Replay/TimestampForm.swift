import Signals

/// How a recorded payload writes a time, so that a replay with `timestamps: now` writes the time
/// it sends in the same form: ISO 8601 UTC text (`"2026-12-04T05:30:00.123Z"`), or a number of
/// seconds or milliseconds since 1970, each with its recorded count of fraction digits. Only
/// times within the years 2001 to 2100 count: a counter or a reading is not taken for one.
/// Inference (`FieldFit`) has its own, looser rules on purpose: it judges a whole series and only
/// names a generator (µs and ns too, ISO times with a space or an offset), where this judges one
/// value and must rewrite it byte for byte, so it knows only the forms it can write back exactly.
package enum TimestampForm: Sendable, Equatable {
    case iso8601(fractionDigits: Int)
    case seconds(fractionDigits: Int)
    case milliseconds(fractionDigits: Int)

    /// 2001-01-01 and 2101-01-01 in seconds since 1970.
    static let earliest = 978_307_200.0
    static let latest = 4_133_980_800.0
    /// Digits written after the point at most; more are written as zeros.
    static let maximumFraction = 9

    /// The form of the JSON scalar `text` (a string with its quotes), `nil` when it is no time.
    package static func of(_ text: ArraySlice<UInt8>) -> TimestampForm? {
        guard let first = text.first else { return nil }
        if first == UInt8(ascii: "\"") { return iso8601(text.dropFirst().dropLast(), closed: text.last == UInt8(ascii: "\"")) }
        var whole = 0.0
        var fraction = -1
        for byte in text {
            if byte == UInt8(ascii: ".") {
                guard fraction < 0 else { return nil }
                fraction = 0
            } else if let digit = digit(byte) {
                if fraction < 0 {
                    whole = whole * 10 + Double(digit)
                } else {
                    fraction += 1
                }
            } else {
                return nil
            }
        }
        guard digit(text[text.startIndex]) != nil, fraction != 0 else { return nil }
        let digits = max(fraction, 0)
        if (earliest..<latest).contains(whole) { return .seconds(fractionDigits: digits) }
        if (earliest * 1000..<latest * 1000).contains(whole) { return .milliseconds(fractionDigits: digits) }
        return nil
    }

    /// `2026-12-04T05:30:00Z`, with any fraction of a second before the `Z`.
    private static func iso8601(_ text: ArraySlice<UInt8>, closed: Bool) -> TimestampForm? {
        let bytes = Array(text)
        guard closed, bytes.count >= 20, bytes.last == UInt8(ascii: "Z") else { return nil }
        let pattern = Array("dddd-dd-ddTdd:dd:dd".utf8)
        for (byte, expected) in zip(bytes, pattern) {
            if expected == UInt8(ascii: "d") {
                guard digit(byte) != nil else { return nil }
            } else if byte != expected {
                return nil
            }
        }
        let year = bytes[0..<4].reduce(0) { $0 * 10 + (digit($1) ?? 0) }
        guard (2001...2100).contains(year) else { return nil }
        let rest = bytes[19..<(bytes.count - 1)]
        guard !rest.isEmpty else { return .iso8601(fractionDigits: 0) }
        guard rest.first == UInt8(ascii: "."), rest.count > 1, rest.dropFirst().allSatisfy({ digit($0) != nil }) else { return nil }
        return .iso8601(fractionDigits: rest.count - 1)
    }

    private static func digit(_ byte: UInt8) -> Int? {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) ? Int(byte - UInt8(ascii: "0")) : nil
    }

    /// Writes `wallClock` (seconds since 1970) in this form, the fraction cut, not rounded, so a
    /// time never runs ahead of the clock.
    package func write(_ wallClock: Double, into buffer: inout PayloadBuffer) {
        switch self {
        case .seconds(let digits):
            Self.writeNumber(wallClock, fractionDigits: digits, into: &buffer)
        case .milliseconds(let digits):
            Self.writeNumber(wallClock * 1000, fractionDigits: digits, into: &buffer)
        case .iso8601(let digits):
            let whole = wallClock.rounded(.down)
            let seconds = Int64(whole)
            let days = seconds >= 0 ? seconds / 86_400 : (seconds + 1) / 86_400 - 1
            let secondOfDay = seconds - days * 86_400
            let date = UTCTimestamp.civilDate(daysSinceEpoch: days)
            buffer.append(UInt8(ascii: "\""))
            Self.writePadded(date.year, width: 4, into: &buffer)
            buffer.append(UInt8(ascii: "-"))
            Self.writePadded(Int64(date.month), width: 2, into: &buffer)
            buffer.append(UInt8(ascii: "-"))
            Self.writePadded(Int64(date.day), width: 2, into: &buffer)
            buffer.append(UInt8(ascii: "T"))
            Self.writePadded(secondOfDay / 3600, width: 2, into: &buffer)
            buffer.append(UInt8(ascii: ":"))
            Self.writePadded(secondOfDay / 60 % 60, width: 2, into: &buffer)
            buffer.append(UInt8(ascii: ":"))
            Self.writePadded(secondOfDay % 60, width: 2, into: &buffer)
            Self.writeFraction(wallClock - whole, digits: digits, into: &buffer)
            buffer.append(UInt8(ascii: "Z"))
            buffer.append(UInt8(ascii: "\""))
        }
    }

    private static func writeNumber(_ value: Double, fractionDigits digits: Int, into buffer: inout PayloadBuffer) {
        let whole = value.rounded(.down)
        writePadded(Int64(whole), width: 1, into: &buffer)
        writeFraction(value - whole, digits: digits, into: &buffer)
    }

    /// `.123` for 0.1234 and 3 digits; nothing for 0 digits.
    private static func writeFraction(_ fraction: Double, digits: Int, into buffer: inout PayloadBuffer) {
        guard digits > 0 else { return }
        let shown = min(digits, maximumFraction)
        buffer.append(UInt8(ascii: "."))
        writePadded(Int64((fraction * Double(power(shown))).rounded(.down)), width: shown, into: &buffer)
        buffer.append(repeating: UInt8(ascii: "0"), count: digits - shown)
    }

    private static func power(_ exponent: Int) -> Int64 {
        var value: Int64 = 1
        for _ in 0..<exponent { value *= 10 }
        return value
    }

    /// `value` (0 or more) in decimal, zeros before it to `width` digits.
    private static func writePadded(_ value: Int64, width: Int, into buffer: inout PayloadBuffer) {
        var divisor: Int64 = 1
        var length = 1
        while value / divisor >= 10 {
            divisor *= 10
            length += 1
        }
        if length < width { buffer.append(repeating: UInt8(ascii: "0"), count: width - length) }
        while divisor > 0 {
            buffer.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
            divisor /= 10
        }
    }
}
