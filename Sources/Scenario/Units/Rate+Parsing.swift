extension Rate {
    static let expected = "a rate such as 10/s, 600/min, 10Hz, 1/60s or max"

    /// Reads `10/s`, `600/min`, `5/h`, `10Hz`, a count per duration such as `1/60s` or `1/250ms`,
    /// and `max`. A rate must be above zero: `0/s` would never fire.
    public static func parse(_ text: String) throws(QuantityError) -> Rate {
        let trimmed = Substring(text).trimmingSpaces
        if trimmed == "max" { return .max }
        guard let interval = interval(trimmed), interval > 0, interval.isFinite else {
            throw QuantityError(expected: expected, found: text)
        }
        return .every(seconds: interval)
    }

    /// Seconds between events, from `N/unit`, `N/duration` or `NHz`.
    private static func interval(_ text: Substring) -> Double? {
        if let slash = text.firstIndex(of: "/") {
            guard let count = DecimalText.number(text[..<slash].trimmingSpaces), count > 0 else { return nil }
            let per = text[text.index(after: slash)...].trimmingSpaces
            // `/s` and `/min` name a unit; `/60s` is a duration with its own number.
            let seconds = per.isEmpty ? nil : Durations.units[per] ?? Durations.seconds(per)
            guard let seconds, seconds > 0 else { return nil }
            return seconds / count
        }
        guard let (hertz, unit) = DecimalText.split(text), unit == "Hz" || unit == "hz", hertz > 0 else {
            return nil
        }
        return 1 / hertz
    }
}
