import Glibc
import MQTT
import Report

/// The topics one subscribing connection watches and what it has received on each, confined to
/// its loop. The verifier's connections each keep one of their own (no two share a topic, so
/// every figure has one writer); a subscriber group keeps one per member, or one for all its
/// members when they share their subscriptions (see `SubscriberStreams`).
struct VerifiedStreams {
    var streams: [Verifier.Stream] = []
    private var table: TopicTable

    /// What a message was to the streams.
    enum Receipt: Equatable {
        /// One not received before (or one whose repeats cannot be told: see `Verifier.Stream`).
        case new
        /// A new one whose number is past the next expected: those between went missing, or
        /// have yet to come.
        case newPastAGap
        /// A copy of one received before.
        case copy
        /// A retained message, sent for the subscription rather than published by this run, or
        /// one on a topic that is none of the streams'.
        case notOurs
    }

    init(capacity: Int) {
        table = TopicTable(capacity: capacity)
    }

    /// The stream of `topic`, added if new; returns its index.
    mutating func stream(for topic: String, plan: VerifyPlan) -> Int {
        let index = table.insert(topic, streams.count)
        if index == streams.count { streams.append(Verifier.Stream(topic: topic, plan: plan)) }
        return index
    }

    /// Counts `message`, its publish-to-receipt time (read from the payload's send timestamp)
    /// into `latency`.
    @inline(__always)
    mutating func receive(_ message: ReceivedMessage, latency: inout Histogram) -> Receipt {
        guard !message.retain, let index = table[message.topicBytes] else { return .notOurs }
        streams[index].deliveries += 1
        let plan = streams[index].plan
        if let sentAt = plan.timestamp(in: message.payload) {
            var now = timespec()
            clock_gettime(CLOCK_REALTIME, &now)
            let nanoseconds = Int64(now.tv_sec) &* 1_000_000_000 &+ Int64(now.tv_nsec)
            latency.record(UInt64(max(0, nanoseconds &- sentAt)))
        }
        guard streams[index].devices <= 1, plan.readsSequence else { return .new }
        guard let sequence = plan.sequence(in: message.payload) else {
            streams[index].unnumbered += 1
            return .new
        }
        let expected = streams[index].tracker.received > 0 ? streams[index].tracker.highest &+ 1 : sequence
        guard streams[index].tracker.record(sequence) != .duplicate else { return .copy }
        streams[index].window?.received(sequence)
        return sequence > expected ? .newPastAGap : .new
    }
}
