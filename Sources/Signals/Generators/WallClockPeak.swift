/// When a periodic shape peaks on the wall clock: `peakAt: "14:00"` for a day (or any period that
/// divides a day: `12h`, `1h`…), `peakAt: "Wed 14:00"` for a week (`period: 7d`), with an optional
/// `timezone: "+01:00"` (UTC by default) that the time is read in.
///
/// Anchored shapes follow the time of day rather than the time since the device connected, so a
/// dashboard shows the warmest hour at the same time whenever the run started.
package struct WallClockPeak: Sendable, Equatable {
    /// Seconds since the Unix epoch of one peak, reduced to [0, period).
    package var epochOffset: Double

    package init(epochOffset: Double) {
        self.epochOffset = epochOffset
    }

    static let day = 86_400.0
    static let week = 7 * day
    /// Monday first; the Unix epoch (1 January 1970) was a Thursday, index 3.
    static let weekdays = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]

    /// `peakAt` and `timezone` from `parameters` for a shape of `period` seconds, or `nil` when
    /// no `peakAt` is given.
    static func read(from parameters: any ParameterSource, period: Double) throws(ParameterError) -> WallClockPeak? {
        let text = try parameters.string("peakAt")
        let zone = try parameters.string("timezone")
        guard let text else {
            if zone != nil { throw ParameterError(key: "timezone", "timezone applies to peakAt, which is not given") }
            return nil
        }
        let offset =
            try zone.map { (zone: String) throws(ParameterError) -> Double in
                guard let seconds = utcOffset(zone) else {
                    throw ParameterError(
                        key: "timezone", "timezone must be an offset from UTC such as +01:00, -05:30 or Z, found '\(zone)'")
                }
                return seconds
            } ?? 0
        return try WallClockPeak(peakAt: text, period: period, utcOffset: offset)
    }

    /// - Parameters:
    ///   - peakAt: `HH:MM`, `HH:MM:SS`, or with a weekday first (`Wed 14:00`) for a weekly period.
    ///   - utcOffset: seconds the local time is ahead of UTC.
    init(peakAt text: String, period: Double, utcOffset: Double) throws(ParameterError) {
        let parts = text.split(separator: " ", omittingEmptySubsequences: true)
        var day: Int?
        let clock: Substring
        switch parts.count {
        case 1:
            clock = parts[0]
        case 2:
            guard let weekday = Self.weekdays.firstIndex(of: String(parts[0].prefix(3)).lowercased()),
                parts[0].count == 3 || Self.fullWeekday(parts[0])
            else {
                throw ParameterError(key: "peakAt", "peakAt must start with a weekday (Mon…Sun), found '\(parts[0])'")
            }
            day = weekday
            clock = parts[1]
        default:
            throw ParameterError(key: "peakAt", "peakAt must be a time such as \"14:00\" or \"Wed 14:00\", found '\(text)'")
        }
        guard let seconds = Self.timeOfDay(clock) else {
            throw ParameterError(key: "peakAt", "peakAt must be a time such as \"14:00\" or \"Wed 14:00\", found '\(text)'")
        }
        var local = seconds
        if let day {
            guard period == Self.week else {
                throw ParameterError(key: "peakAt", "a weekday in peakAt needs period: 7d")
            }
            // Days since the Thursday of the epoch.
            local += Double((day - 3 + 7) % 7) * Self.day
        } else {
            let perDay = Self.day / period
            guard period == Self.day || (period < Self.day && perDay == perDay.rounded()) else {
                throw ParameterError(
                    key: "peakAt",
                    period == Self.week
                        ? "peakAt needs a weekday for period: 7d, such as \"Wed 14:00\""
                        : "peakAt needs a period of 24h, one that divides a day (12h, 1h…) or 7d")
            }
        }
        self.init(epochOffset: Self.reduced(local - utcOffset, period))
    }

    /// The fraction of a cycle at `wallClock` seconds since the epoch, in [0, 1), with the peak
    /// at a quarter cycle: `sin(2π × fraction)` is 1 there.
    func fraction(wallClock: Double, period: Double) -> Double {
        Self.reduced(wallClock - epochOffset, period) / period + 0.25
    }

    /// `value` modulo `period`, in [0, period).
    static func reduced(_ value: Double, _ period: Double) -> Double {
        let remainder = value.truncatingRemainder(dividingBy: period)
        return remainder < 0 ? remainder + period : remainder
    }

    private static func fullWeekday(_ text: Substring) -> Bool {
        ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"].contains(text.lowercased())
    }

    /// Seconds after midnight for `HH:MM` or `HH:MM:SS`.
    static func timeOfDay(_ text: Substring) -> Double? {
        let fields = text.split(separator: ":", omittingEmptySubsequences: false)
        guard fields.count == 2 || fields.count == 3,
            fields.allSatisfy({ !$0.isEmpty && $0.count <= 2 && $0.allSatisfy(\.isASCII) }),
            let hours = Int(fields[0]), let minutes = Int(fields[1]),
            (0..<24).contains(hours), (0..<60).contains(minutes)
        else { return nil }
        let seconds = fields.count == 3 ? Int(fields[2]) : 0
        guard let seconds, (0..<60).contains(seconds) else { return nil }
        return Double(hours * 3600 + minutes * 60 + seconds)
    }

    /// Seconds ahead of UTC for `Z`, `UTC`, `+01:00`, `-0530` or `+1`.
    static func utcOffset(_ text: String) -> Double? {
        if text == "Z" || text == "UTC" || text == "z" { return 0 }
        guard let sign = text.first, sign == "+" || sign == "-" else { return nil }
        let digits = text.dropFirst().filter { $0 != ":" }
        guard !digits.isEmpty, digits.count <= 4, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        let hours: Int?, minutes: Int?
        if digits.count <= 2 {
            (hours, minutes) = (Int(digits), 0)
        } else {
            (hours, minutes) = (Int(digits.dropLast(2)), Int(digits.suffix(2)))
        }
        guard let hours, let minutes, hours <= 14, minutes < 60 else { return nil }
        let seconds = Double(hours * 3600 + minutes * 60)
        return sign == "-" ? -seconds : seconds
    }
}

extension PublishInstant {
    /// Seconds since the Unix epoch when the publish's latest sample was taken.
    var sampleWallClock: Double {
        wallClock - (elapsed - sample.time)
    }
}
