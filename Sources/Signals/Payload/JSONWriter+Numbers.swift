extension JSONWriter {
    /// 10⁰…10²²: every one is exact as a `Double`, which the round-trip test below relies on.
    static let powersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    /// Beyond 2⁵³ a `Double` no longer holds every integer, so fixed-point through `Int64` stops
    /// being exact there.
    static let exactIntegerLimit: Double = 9_007_199_254_740_992

    /// The most digits after the point `decimals` may ask for; more cannot be meaningful for a
    /// `Double` and would overflow the fixed-point path.
    package static let maximumDecimals = 17

    /// Writes `value` as a JSON number; `null` when it is NaN or infinite, which JSON cannot hold.
    ///
    /// With `decimals`, exactly that many digits follow the point (none and no point for 0),
    /// rounding half away from zero, and a value that rounds to zero has no minus sign. Without,
    /// integral values print as integers (`5`, not `5.0`) and others with the fewest decimals that
    /// read back as the same `Double`. Magnitudes too large (or, without `decimals`, too small)
    /// for fixed point fall back to Swift's shortest round-trip form with an exponent (`1e+20`).
    package static func writeNumber(_ value: Double, decimals: Int?, into buffer: inout PayloadBuffer) {
        guard value.isFinite else {
            writeNull(into: &buffer)
            return
        }
        if let decimals {
            let digits = Swift.min(Swift.max(decimals, 0), maximumDecimals)
            let scaled = (value * powersOfTen[digits]).rounded(.toNearestOrAwayFromZero)
            if Swift.abs(scaled) < exactIntegerLimit {
                writeFixedPoint(Int64(scaled), decimals: digits, into: &buffer)
                return
            }
        } else if Swift.abs(value) < exactIntegerLimit {
            if value.rounded(.towardZero) == value {
                writeFixedPoint(Int64(value), decimals: 0, into: &buffer)
                return
            }
            // Clinger's fast path: m and 10^d exact, so m / 10^d is the correctly rounded reading
            // of the decimal text; equal to `value` means the text round-trips.
            for digits in 1..<powersOfTen.count {
                let scaled = (value * powersOfTen[digits]).rounded(.toNearestOrAwayFromZero)
                if Swift.abs(scaled) >= exactIntegerLimit { break }
                if scaled / powersOfTen[digits] == value {
                    writeFixedPoint(Int64(scaled), decimals: digits, into: &buffer)
                    return
                }
            }
        }
        // Rare (huge or tiny magnitudes), so the String this allocates is acceptable.
        buffer.append(contentsOf: value.description.utf8)
    }

    /// Writes an integer, optionally followed by `decimals` zeros after a point, so that an
    /// integer field asked for decimals looks like its neighbours.
    package static func writeInteger(_ value: Int64, decimals: Int? = nil, into buffer: inout PayloadBuffer) {
        let digits = Swift.min(Swift.max(decimals ?? 0, 0), maximumDecimals)
        if value < 0 { buffer.append(UInt8(ascii: "-")) }
        writeDigits(value.magnitude, decimals: 0, into: &buffer)
        if digits > 0 {
            buffer.append(UInt8(ascii: "."))
            for _ in 0..<digits { buffer.append(UInt8(ascii: "0")) }
        }
    }

    /// `scaled / 10^decimals` in fixed point: `writeFixedPoint(-5, decimals: 3)` writes `-0.005`.
    static func writeFixedPoint(_ scaled: Int64, decimals: Int, into buffer: inout PayloadBuffer) {
        // Zero never carries a sign: scaled is already 0 for -0.0 and for values rounding to it.
        if scaled < 0 { buffer.append(UInt8(ascii: "-")) }
        writeDigits(scaled.magnitude, decimals: decimals, into: &buffer)
    }

    /// The decimal digits of `magnitude` with a point before the last `decimals` of them, padded
    /// with leading zeros so that at least one digit precedes the point.
    ///
    /// Written into the buffer's room from the end (digits come out least significant first):
    /// writing them into an `Array` checked its bounds and its uniqueness at every digit, a third
    /// of the cost of a payload (callgrind).
    static func writeDigits(_ magnitude: UInt64, decimals: Int, into buffer: inout PayloadBuffer) {
        var count = 1
        var rest = magnitude / 10
        while rest > 0 {
            count += 1
            rest /= 10
        }
        let digitCount = Swift.max(count, decimals + 1)
        buffer.append(length: digitCount + (decimals > 0 ? 1 : 0)) { room in
            var position = room.count
            var remaining = magnitude
            var written = 0
            while written < digitCount {
                if decimals > 0 && written == decimals {
                    position -= 1
                    room[position] = UInt8(ascii: ".")
                }
                position -= 1
                room[position] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: remaining % 10)
                remaining /= 10
                written += 1
            }
        }
    }
}
