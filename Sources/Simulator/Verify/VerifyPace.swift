/// How many messages went missing while every connection was up, the devices' and the
/// subscribers', judged a second at a time while the fleet publishes.
///
/// A broker drops what it queues beyond its bound for a subscriber that does not take its
/// messages fast enough (mosquitto's `max_queued_messages`, behind its window of
/// `max_inflight_messages`): those count as lost, though they say more of the subscriber, or of
/// the broker's limits for one subscriber, than of a broker losing messages, and the report must
/// say so, apart from what went when a connection did (a broker restart loses what it held).
///
/// In a second in which no connection was lost, came back or resubscribed, and every subscriber
/// was subscribed at both ends, what was published and did not arrive went missing or is still
/// in flight. Summed over those seconds, the in-flight parts cancel out but for the first and the
/// last, and the last sample is taken once everything in flight has arrived: without a
/// disturbance the sum is exact; around one it is within what was in flight there.
package struct VerifyPace: Sendable, Equatable {
    package private(set) var missingWhileConnected = 0
    /// What was published and received in the seconds that count, for the rates.
    package private(set) var published = 0
    package private(set) var received = 0
    package private(set) var seconds = 0.0
    /// Messages went missing in consecutive seconds that count: the subscribers fell behind, as
    /// opposed to a message or two lost near a restart (see `record`).
    package private(set) var fellBehind = false
    private var last: Sample?
    /// The seconds that count in a row in which less arrived than was sent, and their sums;
    /// and those in a row in which messages arrived past gaps.
    private var shortfall = Shortfall()
    private var gapSeconds = 0

    private struct Shortfall: Equatable {
        var seconds = 0
        var sent = 0
        var missing = 0
    }

    package struct Sample: Sendable, Equatable {
        package var published: Int
        package var received: Int
        /// Connections lost or back so far, publishers' and subscribers'.
        package var losses: Int
        package var allSubscribed: Bool
        /// Monotonic nanoseconds.
        package var time: UInt64
        /// Messages received past a gap in their device's numbers so far (`Verifier.gapsSeen`).
        package var gaps: Int

        package init(published: Int, received: Int, losses: Int, allSubscribed: Bool = true, time: UInt64 = 0, gaps: Int = 0) {
            self.published = published
            self.received = received
            self.losses = losses
            self.allSubscribed = allSubscribed
            self.time = time
            self.gaps = gaps
        }
    }

    package init() {}

    /// Adds the figures as of now; call about once a second, and once at the end.
    ///
    /// Falling behind is judged on a sustained gap, two or more seconds in a row that count:
    /// in each, messages arrived past gaps in their devices' numbers (the broker dropped those
    /// between), or less arrived than was sent, by more than 1 % of what was sent over them
    /// (for topics whose numbers cannot be read). A second's shortfall alone may be what is
    /// still in flight, or a message lost at a restart; a subscriber behind the broker's queue
    /// loses some every second.
    package mutating func record(_ sample: Sample) {
        defer { last = sample }
        guard let last, sample.losses == last.losses, sample.allSubscribed, last.allSubscribed else {
            shortfall = Shortfall()
            gapSeconds = 0
            return
        }
        gapSeconds = sample.gaps > last.gaps ? gapSeconds + 1 : 0
        if gapSeconds >= 2 { fellBehind = true }
        let sent = sample.published - last.published
        let arrived = sample.received - last.received
        missingWhileConnected += sent - arrived
        published += sent
        received += arrived
        seconds += Double(sample.time &- last.time) / 1e9
        guard arrived < sent else {
            shortfall = Shortfall()
            return
        }
        shortfall.seconds += 1
        shortfall.sent += sent
        shortfall.missing += sent - arrived
        if shortfall.seconds >= 2, shortfall.missing * 100 > shortfall.sent { fellBehind = true }
    }
}
