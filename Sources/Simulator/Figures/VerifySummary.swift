/// The closed-loop check's figures (`run --verify`): what a subscriber of devsim's own received,
/// and what it found missing, repeated or reordered by the sequence counter in the payloads.
/// Shared with the `--verify` work so both sides compile against the same shape.
public struct VerifySummary: Codable, Sendable, Equatable {
    public var received: Int
    public var lost: Int
    public var duplicated: Int
    public var outOfOrder: Int
    /// Publish-to-receipt latency from the send timestamp in the payloads; absent when nothing was received.
    public var e2eLatency: Percentiles?
    /// Present when messages were lost while the subscribers were falling behind: the broker
    /// may have dropped them for being slow to take them, which `lost` cannot tell apart.
    public var fellBehind: VerifyBehind? = nil

    public init(received: Int, lost: Int, duplicated: Int, outOfOrder: Int, e2eLatency: Percentiles? = nil) {
        self.received = received
        self.lost = lost
        self.duplicated = duplicated
        self.outOfOrder = outOfOrder
        self.e2eLatency = e2eLatency
    }
}
