/// Absolute deadlines on the monotonic clock: tick `n` is due at `start + n / rate`, computed
/// from `n` rather than added up, so no rounding accumulates (3 Hz for an hour is exactly 10,800
/// ticks) and a late tick does not move the ones after it. Under a load profile (`stages:`) the
/// rate is the profile's times `perSecond`, and tick `n` is where the profile's clock has moved
/// on `n / perSecond` since the start (see `RateProfile`).
package struct Schedule: Sendable, Equatable {
    package let start: UInt64
    package let perSecond: Double
    private let profile: Profile?

    /// A profile, the run's start it counts from, and its clock at this schedule's start.
    private struct Profile: Sendable, Equatable {
        var rates: RateProfile
        var runStart: UInt64
        var clockAtStart: Double
    }
    /// The next tick's number.
    package private(set) var next: UInt64 = 0
    /// Seconds of the device's life before this schedule began: a rate changed while running
    /// (`rescheduled`) starts a schedule whose payloads go on where the last one's left off.
    package let elapsedBefore: Double

    /// `profile` counts from `runStart`, the run's start on the monotonic clock.
    package init(start: UInt64, perSecond: Double, elapsedBefore: Double = 0, profile: RateProfile? = nil, runStart: UInt64 = 0) {
        self.start = start
        self.perSecond = perSecond
        self.elapsedBefore = elapsedBefore
        self.profile = profile.map { rates in
            Profile(rates: rates, runStart: runStart, clockAtStart: rates.clock(at: Double(start &- min(start, runStart)) / 1e9))
        }
    }

    /// The schedule at `perSecond` from the next tick on: that tick stays where it was due (so
    /// a group's ticks stay spread as its jitter spread them, and a device not started yet
    /// keeps its delay), the ones after it come at the new rate, and its time goes on from
    /// this one's.
    package func rescheduled(perSecond: Double, at now: UInt64) -> Schedule {
        let first = Swift.max(deadline, now)
        let sinceStart = first > start ? Double(first - start) / 1e9 : 0
        return Schedule(
            start: first, perSecond: perSecond, elapsedBefore: elapsedBefore + sinceStart, profile: profile?.rates,
            runStart: profile?.runStart ?? 0)
    }

    /// A deadline that never comes: the tick after a profile that stops for good, or of a rate
    /// of once in a million days.
    package static let never = UInt64.max / 2

    /// When tick `next` is due, in monotonic nanoseconds.
    package var deadline: UInt64 { start &+ offset(of: next) }

    /// Seconds from the start to tick `next`'s deadline.
    package var elapsed: Double {
        guard profile != nil else { return elapsedBefore + Double(next) / perSecond }
        return elapsedBefore + Double(offset(of: next)) / 1e9
    }

    /// Seconds of the device's life at `now`, between ticks: a start still to come (a rate
    /// changed, its pending tick kept) counts back from the time it will have then.
    package func elapsed(at now: UInt64) -> Double {
        let since = now >= start ? Double(now - start) / 1e9 : -Double(start - now) / 1e9
        return Swift.max(0, elapsedBefore + since)
    }

    /// Moves on to the following tick.
    package mutating func advance() {
        next &+= 1
    }

    private func offset(of tick: UInt64) -> UInt64 {
        let nanoseconds: Double
        if let profile {
            // Never, for a profile that stops and stays stopped.
            guard let seconds = profile.rates.time(atClock: profile.clockAtStart + Double(tick) / perSecond) else { return Self.never }
            let since = (seconds * 1e9).rounded() - Double(start &- min(start, profile.runStart))
            nanoseconds = max(0, since)
        } else {
            nanoseconds = (Double(tick) * 1e9 / perSecond).rounded()
        }
        // Saturates: a rate of once in a million days must not trap after its first tick.
        return nanoseconds < 1.8e19 ? UInt64(nanoseconds) : Self.never
    }
}
