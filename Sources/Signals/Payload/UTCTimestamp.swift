/// ISO 8601 UTC timestamps computed from milliseconds since the Unix epoch, without Foundation:
/// the calendar arithmetic is Howard Hinnant's `civil_from_days`, exact for the proleptic
/// Gregorian calendar.
package enum UTCTimestamp {
    /// The civil date of `days` since 1970-01-01.
    package static func civilDate(daysSinceEpoch days: Int64) -> (year: Int64, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153  // March is 0, so leap days fall last
        let day = Int(dayOfYear - (153 * shiftedMonth + 2) / 5 + 1)
        let month = Int(shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9)
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    /// Writes `"2026-11-29T12:00:00.123Z"` (quotes included unless `quoted` is false) for
    /// `milliseconds` since the epoch; `null` outside years 0…9999, which the four-digit form
    /// cannot hold. `fractionDigits` after the seconds (none for 0, `…:00Z`), the milliseconds
    /// cut rather than rounded, so a time never runs ahead of the clock, and zeros past them.
    package static func writeISO8601(
        milliseconds: Int64, fractionDigits: Int = 3, quoted: Bool = true, into buffer: inout PayloadBuffer
    ) {
        let msPerDay: Int64 = 86_400_000
        let days = milliseconds >= 0 ? milliseconds / msPerDay : (milliseconds + 1) / msPerDay - 1
        let msOfDay = Int(milliseconds - days * msPerDay)
        let date = civilDate(daysSinceEpoch: days)
        guard (0...9999).contains(date.year) else {
            JSONWriter.writeNull(into: &buffer)
            return
        }
        if quoted { buffer.append(UInt8(ascii: "\"")) }
        writePadded(Int(date.year), width: 4, into: &buffer)
        buffer.append(UInt8(ascii: "-"))
        writePadded(date.month, width: 2, into: &buffer)
        buffer.append(UInt8(ascii: "-"))
        writePadded(date.day, width: 2, into: &buffer)
        buffer.append(UInt8(ascii: "T"))
        writePadded(msOfDay / 3_600_000, width: 2, into: &buffer)
        buffer.append(UInt8(ascii: ":"))
        writePadded(msOfDay / 60_000 % 60, width: 2, into: &buffer)
        buffer.append(UInt8(ascii: ":"))
        writePadded(msOfDay / 1000 % 60, width: 2, into: &buffer)
        if fractionDigits > 0 {
            buffer.append(UInt8(ascii: "."))
            let shown = min(fractionDigits, 3)
            writePadded(msOfDay % 1000 / [100, 10, 1][shown - 1], width: shown, into: &buffer)
            for _ in shown..<fractionDigits { buffer.append(UInt8(ascii: "0")) }
        }
        buffer.append(UInt8(ascii: "Z"))
        if quoted { buffer.append(UInt8(ascii: "\"")) }
    }

    static func writePadded(_ value: Int, width: Int, into buffer: inout PayloadBuffer) {
        var divisor = 1
        for _ in 1..<width { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            buffer.append(UInt8(ascii: "0") + UInt8(rest / divisor % 10))
            rest %= divisor
            divisor /= 10
        }
    }
}
