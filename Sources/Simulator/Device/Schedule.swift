/// Absolute deadlines on the monotonic clock: tick `n` is due at `start + n / rate`, computed
/// from `n` rather than added up, so no rounding accumulates (3 Hz for an hour is exactly 10,800
/// ticks) and a late tick does not move the ones after it.
package struct Schedule: Sendable, Equatable {
    package let start: UInt64
    package let perSecond: Double
    /// The next tick's number.
    package private(set) var next: UInt64 = 0
    /// Seconds of the device's life before this schedule began: a rate changed while running
    /// (`rescheduled`) starts a schedule whose payloads go on where the last one's left off.
    package let elapsedBefore: Double

    package init(start: UInt64, perSecond: Double, elapsedBefore: Double = 0) {
        self.start = start
        self.perSecond = perSecond
        self.elapsedBefore = elapsedBefore
    }

    /// The schedule at `perSecond` from `now` on, its first tick due now, its time going on
    /// from this one's.
    package func rescheduled(perSecond: Double, at now: UInt64) -> Schedule {
        let sinceStart = now > start ? Double(now - start) / 1e9 : 0
        return Schedule(start: now, perSecond: perSecond, elapsedBefore: elapsedBefore + sinceStart)
    }

    /// When tick `next` is due, in monotonic nanoseconds.
    package var deadline: UInt64 { start &+ offset(of: next) }

    /// Seconds from the start to tick `next`'s deadline.
    package var elapsed: Double { elapsedBefore + Double(next) / perSecond }

    /// Moves on to the following tick.
    package mutating func advance() {
        next &+= 1
    }

    private func offset(of tick: UInt64) -> UInt64 {
        // Saturates: a rate of once in a million days must not trap after its first tick.
        let nanoseconds = (Double(tick) * 1e9 / perSecond).rounded()
        return nanoseconds < 1.8e19 ? UInt64(nanoseconds) : UInt64.max / 2
    }
}
