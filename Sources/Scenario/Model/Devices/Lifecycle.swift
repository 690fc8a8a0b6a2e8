/// A group's `lifecycle`: each connection stays up for `online`, leaves cleanly, stays away for
/// `offline`, comes back and resumes, over and over (the seed's phone going to the background
/// and back). Each stay is drawn within ±`jitter` of its length, from the run's seed and the
/// connection's client id.
public struct Lifecycle: Sendable, Equatable {
    /// Seconds up, from each CONNACK.
    public var online: Double
    /// Seconds away.
    public var offline: Double
    /// The share either way each stay may differ by: 0.2 for `20%`.
    public var jitter: Double

    package init(online: Double, offline: Double, jitter: Double = 0) {
        self.online = online
        self.offline = offline
        self.jitter = jitter
    }

    /// A stay of `seconds`, moved by `unit` in [0, 1): from (1 − jitter) to (1 + jitter) times it.
    package func stay(_ seconds: Double, unit: Double) -> Double {
        seconds * (1 + jitter * (2 * unit - 1))
    }
}
