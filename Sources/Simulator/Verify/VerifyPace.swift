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
/// was subscribed at both ends, what the broker accepted (published at QoS 0, acknowledged at
/// QoS 1 and 2: what it has not acknowledged may not be in its hands) and did not arrive went
/// missing or is still on its way. Summed over those seconds, the in-flight parts cancel out but for the first and the
/// last, and the last sample is taken once everything in flight has arrived: without a
/// disturbance the sum is exact; around one it is within what was in flight there.
package struct VerifyPace: Sendable, Equatable {
    package private(set) var missingWhileConnected = 0
    /// What the broker accepted and what was received in the seconds that count, for the rates.
    package private(set) var accepted = 0
    package private(set) var received = 0
    package private(set) var seconds = 0.0
    /// Messages went missing while everything was up, away from any restart, and the
    /// subscribers received slower than the broker accepted: they fell behind, as opposed to a
    /// message lost at a restart's edge (see `record`). At equal rates they kept up, whatever
    /// went missing (one message whose gap fell in a second that counts, at 97 and 97 msg/s).
    package var fellBehind: Bool { (behind || gapsPending) && receivedPerSecond < acceptedPerSecond }
    /// What the broker accepted, and what arrived, a second over the seconds that count; whole,
    /// as the report gives them.
    package var acceptedPerSecond: Double { seconds > 0 ? (Double(accepted) / seconds).rounded() : 0 }
    package var receivedPerSecond: Double { seconds > 0 ? (Double(received) / seconds).rounded() : 0 }
    private var behind = false
    private var last: Sample?
    /// The seconds that count in a row in which less arrived than was sent, and their sums.
    private var shortfall = Shortfall()
    /// The last second that counts had messages arrive past gaps, and was no restart's edge:
    /// judged once the next second says it is none either, or the run ends.
    private var gapsPending = false
    /// The last second did not count: a connection went or came back.
    private var followsDisturbance = false

    private struct Shortfall: Equatable {
        var seconds = 0
        var sent = 0
        var missing = 0
    }

    package struct Sample: Sendable, Equatable {
        /// What the broker accepted so far: published at QoS 0, acknowledged at QoS 1 and 2.
        package var accepted: Int
        package var received: Int
        /// Connections lost or back so far, publishers' and subscribers'.
        package var losses: Int
        package var allSubscribed: Bool
        /// Monotonic nanoseconds.
        package var time: UInt64
        /// Messages received past a gap in their device's numbers so far (`Verifier.gapsSeen`).
        package var gaps: Int

        package init(accepted: Int, received: Int, losses: Int, allSubscribed: Bool = true, time: UInt64 = 0, gaps: Int = 0) {
            self.accepted = accepted
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
    /// Falling behind is judged away from restarts: in a second that counts, neither just after
    /// nor just before one that does not, messages arrived past gaps in their devices' numbers
    /// (the broker dropped those between, for a subscriber that did not take them: it drops
    /// nothing else while everything is up); or, for topics whose numbers cannot be read, two
    /// seconds or more in a row were each short, by more than 1 % of what was sent over them (a
    /// second's shortfall alone may be what is still in flight). A message lost at a restart's
    /// edge shows, past its gap, next to the restart, and is not taken for falling behind.
    package mutating func record(_ sample: Sample) {
        defer { last = sample }
        guard let last else { return }
        guard sample.losses == last.losses, sample.allSubscribed, last.allSubscribed else {
            shortfall = Shortfall()
            gapsPending = false  // the second before was a restart's edge
            followsDisturbance = true
            return
        }
        if gapsPending { behind = true }  // and this second is no restart
        gapsPending = sample.gaps > last.gaps && !followsDisturbance
        followsDisturbance = false
        let sent = sample.accepted - last.accepted
        let arrived = sample.received - last.received
        missingWhileConnected += sent - arrived
        accepted += sent
        received += arrived
        seconds += Double(sample.time &- last.time) / 1e9
        guard arrived < sent else {
            shortfall = Shortfall()
            return
        }
        shortfall.seconds += 1
        shortfall.sent += sent
        shortfall.missing += sent - arrived
        if shortfall.seconds >= 2, shortfall.missing * 100 > shortfall.sent { behind = true }
    }
}
