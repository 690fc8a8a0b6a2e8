/// Durations as scenario files and the command line write them: `250ms`, `1s`, `5m`, `1.5h`,
/// `2d`, or a bare number of seconds.
public enum Durations {
    static let expected = "a duration such as 250ms, 30s, 5m, 1.5h or 2d"

    /// Seconds per unit. `m` is minutes, as in `5m`; there is no month.
    static let units: [Substring: Double] = [
        "": 1, "ms": 0.001, "s": 1, "sec": 1, "m": 60, "min": 60, "h": 3600, "d": 86400,
    ]

    /// The duration in seconds; zero is allowed (a keepalive of 0 means none), negative is not.
    public static func parse(_ text: String) throws(QuantityError) -> Double {
        guard let seconds = seconds(Substring(text)) else {
            throw QuantityError(expected: expected, found: text)
        }
        guard seconds >= 0 else { throw QuantityError(expected: expected + " of zero or more", found: text) }
        return seconds
    }

    /// The duration in seconds, which must be above zero (a run length, an interval).
    public static func parsePositive(_ text: String) throws(QuantityError) -> Double {
        guard let seconds = seconds(Substring(text)), seconds > 0 else {
            throw QuantityError(expected: expected + " above zero", found: text)
        }
        return seconds
    }

    /// `seconds` as a `Duration`, at most a billion seconds (32 years): `Duration.seconds(_:)`
    /// traps above about 1.7e20 s, and a duration of a million days is a user's choice, not a
    /// crash.
    public static func duration(seconds: Double) -> Duration {
        .seconds(min(seconds, 1e9))
    }

    static func seconds(_ text: Substring) -> Double? {
        guard let (number, unit) = DecimalText.split(text), let scale = units[unit] else { return nil }
        let seconds = number * scale
        return seconds.isFinite ? seconds : nil
    }
}
