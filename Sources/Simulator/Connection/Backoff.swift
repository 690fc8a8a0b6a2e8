/// Delays between reconnection attempts: `initial` doubling up to `maximum`, each spread by
/// ±`jitter` so that thousands of connections dropped together do not return in lock-step.
package struct Backoff: Sendable, Equatable {
    package var initial: Double
    package var maximum: Double
    /// Fraction of the delay by which an attempt may come early or late.
    package var jitter: Double
    /// Attempts since the last success.
    package private(set) var attempts = 0

    package init(initial: Double = 1, maximum: Double = 64, jitter: Double = 0.2) {
        self.initial = initial
        self.maximum = max(initial, maximum)
        self.jitter = jitter
    }

    /// The delay before the next attempt, in seconds. `unit` is a random number in [0, 1).
    package mutating func nextDelay(unit: Double) -> Double {
        let exponent = min(attempts, 62)
        attempts += 1
        let base = min(maximum, initial * Double(1 << UInt64(min(exponent, 30))))
        return max(0, base * (1 + jitter * (2 * unit - 1)))
    }

    package mutating func reset() {
        attempts = 0
    }
}
