import Scenario

/// A group's rate over the run's time under `stages:`, as a multiplier of its own rate: linear
/// within each stage, from the previous stage's target (1, the group's own rate, before the
/// first) to this one's, and the last target held after the last stage.
///
/// A device ticks on the profile's clock, S(t) = ∫₀ᵗ m: at base rate b, tick n of a device whose
/// schedule starts at t₀ is due when b·(S(t) − S(t₀)) = n. Each tick is placed from its number,
/// not from the one before, so a profile of an hour is as exact as its first second: the ticks
/// of a stage are the integral of its rate, to the tick.
///
/// Under `devices` stages a device ticks only while it is in (`Presence`): its multiplier is 0
/// outside its stretches, and its clock stands still there.
package struct RateProfile: Sendable, Equatable {
    private struct Segment: Sendable, Equatable {
        var start: Double
        var duration: Double
        var from: Double
        var to: Double
        /// S at `start`.
        var clock: Double

        var slope: Double { (to - from) / duration }
        var clockAtEnd: Double { clock + (from + to) / 2 * duration }
    }

    private let segments: [Segment]
    /// The multiplier after the last stage.
    private let last: Double
    /// When the device is in, under `devices` stages; `nil` for always.
    package let presence: Presence?

    /// The profile of `stages` for a group ticking `baseRate` times a second, for a device
    /// that is in at `presence`'s stretches (`nil` for always); `nil` without stages.
    package init?(stages: [Stage], baseRate: Double, presence: Presence? = nil) {
        guard !stages.isEmpty, baseRate > 0, baseRate.isFinite else { return nil }
        var segments: [Segment] = []
        var start = 0.0, clock = 0.0, previous = 1.0
        for stage in stages {
            let target =
                switch stage.target {
                case .rate(let rate): rate.perSecond / baseRate
                case .multiplier(let factor): factor
                case .hold, .devices: previous
                }
            let segment = Segment(start: start, duration: stage.duration, from: previous, to: target, clock: clock)
            segments.append(segment)
            start += stage.duration
            clock = segment.clockAtEnd
            previous = target
        }
        self.segments = segments
        last = previous
        self.presence = presence
    }

    /// Seconds from the run's start to the end of the last stage.
    package var end: Double { segments.last.map { $0.start + $0.duration } ?? 0 }

    /// The multiplier at `t` seconds into the run.
    package func multiplier(at t: Double) -> Double {
        if let presence, !presence.isIn(at: t) { return 0 }
        return rate(at: t)
    }

    /// S(t): the integral of the multiplier from the run's start to `t` seconds.
    package func clock(at t: Double) -> Double {
        guard let presence else { return rateClock(at: t) }
        var clock = 0.0
        for stretch in presence.stretches where stretch.on < t {
            clock += rateClock(at: min(t, stretch.off)) - rateClock(at: stretch.on)
        }
        return clock
    }

    /// The first time at which S reaches `value`; `nil` when it never does (a profile that ends
    /// at 0 and stays there, or a device that leaves for good).
    package func time(atClock value: Double) -> Double? {
        guard let presence else { return rateTime(atClock: value) }
        var clock = 0.0
        for stretch in presence.stretches {
            let before = rateClock(at: stretch.on)
            let gain = stretch.off.isFinite ? rateClock(at: stretch.off) - before : .infinity
            if value <= clock + gain {
                // Within the stretch: where the rates' clock reaches as far past its start.
                guard let t = rateTime(atClock: before + max(0, value - clock)) else { return nil }
                return min(max(t, stretch.on), stretch.off)
            }
            clock += gain
        }
        return nil
    }

    /// The rates' multiplier at `t`, whoever is in.
    private func rate(at t: Double) -> Double {
        guard let segment = segments.last(where: { $0.start <= t }), t < segment.start + segment.duration else {
            return t < 0 ? 1 : last
        }
        return segment.from + segment.slope * (t - segment.start)
    }

    /// The integral of the rates' multiplier from the run's start to `t` seconds.
    private func rateClock(at t: Double) -> Double {
        let t = max(0, t)
        guard let segment = segments.last(where: { $0.start <= t }) else { return 0 }
        let τ = min(t - segment.start, segment.duration)
        let inside = segment.clock + segment.from * τ + segment.slope * τ * τ / 2
        return t > segment.start + segment.duration ? segment.clockAtEnd + last * (t - segment.start - segment.duration) : inside
    }

    /// The first time at which the rates' clock reaches `value`; `nil` when it never does.
    private func rateTime(atClock value: Double) -> Double? {
        for segment in segments where value < segment.clockAtEnd {
            let rise = max(0, value - segment.clock)
            // S(start + τ) − S(start) = from·τ + k·τ²/2 = rise, solved in the form that neither
            // divides by a slope near 0 nor loses digits to cancellation.
            let k = segment.slope, a = segment.from
            // A value a few ulps short of a ramp to 0's end can take the discriminant just
            // below 0: that is the ramp's end, never its start.
            let root = max(0, a * a + 2 * k * rise).squareRoot()
            let τ = a + root > 0 ? 2 * rise / (a + root) : rise > 0 ? segment.duration : 0
            return segment.start + min(τ, segment.duration)
        }
        guard last > 0, let final = segments.last else { return nil }
        return final.start + final.duration + (value - final.clockAtEnd) / last
    }
}
