/// The closed-loop check of `run --verify`: what a subscriber of devsim's own received of what
/// its devices published.
public struct VerifySummary: Codable, Sendable, Equatable {
    /// Distinct messages received (copies are in `duplicated`).
    public var received: Int
    /// Published but never received: per device, published − received, summed.
    public var lost: Int
    /// Copies of a message already received.
    public var duplicated: Int
    /// Messages received after one published later on the same topic.
    public var outOfOrder: Int
    /// Publish (the payload's timestamp) to reception, on the wall clock.
    public var e2eLatency: Percentiles?

    public init(received: Int, lost: Int, duplicated: Int, outOfOrder: Int, e2eLatency: Percentiles?) {
        self.received = received
        self.lost = lost
        self.duplicated = duplicated
        self.outOfOrder = outOfOrder
        self.e2eLatency = e2eLatency
    }
}
