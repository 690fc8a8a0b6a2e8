/// How many messages went missing while every connection was up, the devices' and the
/// subscribers': what a broker drops when its queue for a subscriber too slow to take its
/// messages overflows (mosquitto's `max_queued_messages`). Such messages count as lost though
/// the subscriber was to blame, and the report must say so.
///
/// The figures are sampled about once a second; in a second in which no connection was lost,
/// what was published and did not arrive went missing or is still in flight. Summed over those
/// seconds, the in-flight parts cancel out but for the first and the last, and the last sample
/// is taken once everything in flight has arrived: without a lost connection the sum is exact;
/// around one it is within what was in flight there. A second in which a connection was lost
/// does not count: a broker restart loses what it held, which is the broker's doing.
public struct VerifyPace: Sendable, Equatable {
    public private(set) var missingWhileConnected = 0
    private var last: Sample?

    public struct Sample: Sendable, Equatable {
        public var published: Int
        public var received: Int
        /// Connections lost so far, publishers' and subscribers'.
        public var losses: Int

        public init(published: Int, received: Int, losses: Int) {
            self.published = published
            self.received = received
            self.losses = losses
        }
    }

    public init() {}

    /// Adds the figures as of now; call about once a second, and once at the end.
    public mutating func record(_ sample: Sample) {
        defer { last = sample }
        guard let last, sample.losses == last.losses else { return }
        missingWhileConnected += (sample.published - last.published) - (sample.received - last.received)
    }
}

/// `verify.fellBehind` in the report: present when messages went missing while every connection
/// was up, which then says as much of the subscribers as of the broker.
public struct VerifyBehind: Codable, Sendable, Equatable {
    /// Over the run: what the devices published and what the subscribers received, per second.
    public var publishedPerSecond: Double
    public var receivedPerSecond: Double
    /// Of the lost messages, those that went missing while no connection was down.
    public var missingWhileConnected: Int

    public init(publishedPerSecond: Double, receivedPerSecond: Double, missingWhileConnected: Int) {
        self.publishedPerSecond = publishedPerSecond
        self.receivedPerSecond = receivedPerSecond
        self.missingWhileConnected = missingWhileConnected
    }
}
