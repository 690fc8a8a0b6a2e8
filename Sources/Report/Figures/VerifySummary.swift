/// The closed-loop check's figures (`run --verify`): what a subscriber of devsim's own received,
/// and what it found missing, repeated or reordered by the sequence counter in the payloads.
/// Shared with the `--verify` work so both sides compile against the same shape.
public struct VerifySummary: Codable, Sendable, Equatable {
    public var received: Int
    /// What the broker lost: published (and not refused), never received, and not published
    /// while the verifier was away.
    public var lost: Int
    public var duplicated: Int
    public var outOfOrder: Int
    /// Publish-to-receipt latency from the send timestamp in the payloads; absent when nothing was received.
    package var e2eLatency: Percentiles?
    /// Over the seconds in which every connection was up: what the broker accepted (published
    /// at QoS 0, acknowledged at QoS 1 and 2) and what the subscribers received, per second.
    public var acceptedPerSecond: Double = 0
    public var receivedPerSecond: Double = 0
    /// Of `lost`, those that went missing while every connection was up (see `VerifyPace`).
    public var missingWhileConnected = 0
    /// Messages went missing while every connection was up, and the subscribers received
    /// slower than the broker accepted: they fell behind what the broker would queue for them
    /// (see `VerifyPace`).
    public var fellBehind = false
    /// Messages published while a subscriber of the verifier was not subscribed (lost, or
    /// back but not yet subscribed again), which it could not receive: apart from `lost`.
    public var missedWhileAway = 0
    /// Messages never received that the broker had not acknowledged when the run ended (still in
    /// flight: a broker slower than the fleet), which are not proven lost: apart from `lost`.
    public var unconfirmed = 0
    /// Messages never received that were published to a host of `broker.hosts` other than the
    /// one the verifier was subscribed on: brokers that share nothing do not deliver them to it,
    /// so they are not proven lost either; apart from `lost`.
    public var unwatched = 0
    /// Messages the broker delivered on topics none of the verifier's subscriptions match (a
    /// broker that rewrites topics, RabbitMQ 3.10: `spBv1.0/…` as `spBv1/0/…`), which it cannot
    /// count as the devices'; absent when there are none.
    public var unmatched: Int?
    /// Topics on which the devices published five messages or more, none of which arrived: what
    /// a broker's ACL hides from a verifier that connects as a device (give it `verify:` of its
    /// own), as a subscriber behind loses some of every topic; absent when there are none.
    public var silentTopics: Int?
    /// Why the check measured nothing it can stand by: a subscriber connection never
    /// subscribed (the broker refused its connection or a subscription, or never answered).
    /// Its figures are then no judge of the broker, and no `--expect` is judged on them.
    /// Absent when the check did its job.
    public var invalid: String?

    public init(received: Int, lost: Int, duplicated: Int, outOfOrder: Int, e2eLatency: Percentiles? = nil) {
        self.received = received
        self.lost = lost
        self.duplicated = duplicated
        self.outOfOrder = outOfOrder
        self.e2eLatency = e2eLatency
    }

    /// The finished line's part: what the broker lost first, or why nothing was judged.
    /// `lost 3, received 7447, duplicated 0, out of order 0, missed while the verifier was away 420,
    /// unconfirmed 12 (…), unwatched 5 (…)`.
    package var line: String {
        let counts = "lost \(lost), received \(received), duplicated \(duplicated), out of order \(outOfOrder)"
        let away = missedWhileAway > 0 ? ", missed while the verifier was away \(missedWhileAway)" : ""
        let unacknowledged = unconfirmed > 0 ? ", unconfirmed \(unconfirmed) (never acknowledged, not proven lost)" : ""
        let elsewhere = unwatched > 0 ? ", unwatched \(unwatched) (published to hosts the verifier was not on)" : ""
        return invalid.map { "not judged: \($0)" } ?? counts + away + unacknowledged + elsewhere
    }
}
