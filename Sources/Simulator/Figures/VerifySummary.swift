/// The closed-loop check's figures (`run --verify`): what a subscriber of devsim's own received,
/// and what it found missing, repeated or reordered by the sequence counter in the payloads.
/// Shared with the `--verify` work so both sides compile against the same shape.
public struct VerifySummary: Codable, Sendable, Equatable {
    public var received: Int
    public var lost: Int
    public var duplicated: Int
    public var outOfOrder: Int
    /// Publish-to-receipt latency from the send timestamp in the payloads; absent when nothing was received.
    package var e2eLatency: Percentiles?
    /// Over the seconds in which every connection was up: what the devices published and what
    /// the subscribers received, per second.
    public var publishedPerSecond: Double = 0
    public var receivedPerSecond: Double = 0
    /// Of `lost`, those that went missing while every connection was up (see `VerifyPace`).
    public var missingWhileConnected = 0
    /// Messages went missing while every connection was up: the subscribers fell behind what
    /// the broker would queue for them (see `VerifyPace`).
    public var fellBehind = false

    public init(received: Int, lost: Int, duplicated: Int, outOfOrder: Int, e2eLatency: Percentiles? = nil) {
        self.received = received
        self.lost = lost
        self.duplicated = duplicated
        self.outOfOrder = outOfOrder
        self.e2eLatency = e2eLatency
    }
}
