/// `peakAt: "19:00", quiet: 0.05` on an event generator (`bool`, `dwell`, `counter`): how busy
/// each hour of the day is, so that a door opens in the evening rather than at 3 am. The activity
/// is 1 at `peakAt` and `quiet` (default 0.05) twelve hours away, on a cosine between, as a `sine`
/// with `peakAt` moves; times are UTC unless `timezone` says otherwise (see `WallClockPeak`).
/// Each generator says what it scales by the activity: a `bool`'s probability, a `counter`'s
/// chance of a step, the stays in a `dwell`'s first state.
package struct DailyShape: Sendable, Equatable {
    package var peak: WallClockPeak
    /// The activity at the quietest time of day, as a fraction of the peak's, in (0, 1].
    package var quiet: Double

    package static let defaultQuiet = 0.05

    package init(peak: WallClockPeak, quiet: Double = defaultQuiet) {
        self.peak = peak
        self.quiet = quiet
    }

    /// `peakAt`, `timezone` and `quiet` from `parameters`, or `nil` when no `peakAt` is given.
    static func read(from parameters: any ParameterSource) throws(ParameterError) -> DailyShape? {
        let quiet = try parameters.probability("quiet")
        // A stay stretched by 1 / quiet must end: a day never quite stops.
        if let quiet, quiet == 0 { throw ParameterError(key: "quiet", "quiet must be above 0: the activity of the quietest hour") }
        if let text = try parameters.string("peakAt"), text.contains(" ") {
            throw ParameterError(key: "peakAt", "peakAt of an event is a time of day such as \"19:00\", found '\(text)'")
        }
        guard let peak = try WallClockPeak.read(from: parameters, period: WallClockPeak.day) else {
            if quiet != nil { throw ParameterError(key: "quiet", "quiet shapes the day around peakAt, which is not given") }
            return nil
        }
        return DailyShape(peak: peak, quiet: quiet ?? defaultQuiet)
    }

    /// The activity at `wallClock` seconds since the epoch: 1 at the peak, `quiet` twelve hours
    /// from it.
    package func activity(wallClock: Double) -> Double {
        let wave = Math.sine(2 * Double.pi * peak.fraction(wallClock: wallClock, period: WallClockPeak.day))
        return quiet + (1 - quiet) * (1 + wave) / 2
    }
}
