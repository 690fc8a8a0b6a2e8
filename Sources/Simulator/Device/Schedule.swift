/// Absolute deadlines on the monotonic clock: tick `n` is due at `start + n / rate`, computed
/// from `n` rather than added up, so no rounding accumulates (3 Hz for an hour is exactly 10,800
/// ticks) and a late tick does not move the ones after it.
public struct Schedule: Sendable, Equatable {
    public let start: UInt64
    public let perSecond: Double
    /// The next tick's number.
    public private(set) var next: UInt64 = 0

    public init(start: UInt64, perSecond: Double) {
        self.start = start
        self.perSecond = perSecond
    }

    /// When tick `next` is due, in monotonic nanoseconds.
    public var deadline: UInt64 { start &+ offset(of: next) }

    /// Seconds from the start to tick `next`'s deadline.
    public var elapsed: Double { Double(next) / perSecond }

    /// Moves on to the following tick.
    public mutating func advance() {
        next &+= 1
    }

    private func offset(of tick: UInt64) -> UInt64 {
        // Saturates: a rate of once in a million days must not trap after its first tick.
        let nanoseconds = (Double(tick) * 1e9 / perSecond).rounded()
        return nanoseconds < 1.8e19 ? UInt64(nanoseconds) : UInt64.max / 2
    }
}
