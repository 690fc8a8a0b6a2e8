import Glibc
import MQTT
import Report
import Signals

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

    /// The table maps a topic to its stream's index, shifted left by one, with the low bit set
    /// for a Sparkplug node's NBIRTH topic, whose message starts the node's seq again.
    private static let birthBit = 1

    /// The stream of `topic`, added if new; returns its index.
    mutating func stream(for topic: String, plan: VerifyPlan) -> Int {
        let index = table.insert(topic, streams.count << 1) >> 1
        if index == streams.count { streams.append(Verifier.Stream(topic: topic, plan: plan)) }
        return index
    }

    /// The stream of a Sparkplug edge node, added: named `name` (its filter), watching its
    /// NBIRTH's topic `birth` and the `topics` of its other messages that carry its seq
    /// (`SparkplugTopic.sequencedTopics`); returns its index. A topic already watched stays
    /// with its stream.
    mutating func node(_ name: String, birth: String, topics: [String], plan: VerifyPlan) -> Int {
        let index = streams.count
        var stream = Verifier.Stream(topic: name, plan: plan)
        stream.node = SparkplugSeqTracker()
        streams.append(stream)
        table.insert(birth, index << 1 | Self.birthBit)
        for topic in topics { table.insert(topic, index << 1) }
        return index
    }

    /// Counts `message`, its publish-to-receipt time (read from the payload's send timestamp)
    /// into `latency`.
    @inline(__always)
    mutating func receive(_ message: ReceivedMessage, latency: inout Histogram) -> Receipt {
        guard !message.retain, let entry = table[message.topicBytes] else { return .notOurs }
        let index = entry >> 1
        streams[index].deliveries += 1
        if streams[index].node != nil {
            return receiveSparkplug(message, stream: index, isBirth: entry & Self.birthBit != 0, latency: &latency)
        }
        let plan = streams[index].plan
        if let sentAt = plan.timestamp(in: message.payload) { Self.recordLatency(sentAt: sentAt, into: &latency) }
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

    /// A message of a Sparkplug edge node: its latency from the payload's timestamp
    /// (milliseconds), and what it is to the node's seq. One with no seq (none of devsim's) is
    /// counted as new and unnumbered, as a JSON message without its counter is.
    private mutating func receiveSparkplug(
        _ message: ReceivedMessage, stream index: Int, isBirth: Bool, latency: inout Histogram
    ) -> Receipt {
        let header = SparkplugHeader(scanning: message.payload)
        if let milliseconds = header?.timestamp, milliseconds < UInt64(Int64.max / 1_000_000) {
            Self.recordLatency(sentAt: Int64(milliseconds) * 1_000_000, into: &latency)
        }
        guard streams[index].devices <= 1 else { return .new }
        guard let seq = header?.seq, seq <= 255 else {
            streams[index].unnumbered += 1
            return .new
        }
        let fingerprint = SparkplugSeqTracker.fingerprint(message.payload, topic: message.topicBytes)
        switch streams[index].node!.record(seq: UInt8(seq), isBirth: isBirth, fingerprint: fingerprint) {
        case .new: return .new
        case .newPastAGap: return .newPastAGap
        case .duplicate: return .copy
        }
    }

    /// Reception wall-clock time less `sentAt` (nanoseconds since the epoch) into `latency`.
    @inline(__always)
    private static func recordLatency(sentAt: Int64, into latency: inout Histogram) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let nanoseconds = Int64(now.tv_sec) &* 1_000_000_000 &+ Int64(now.tv_nsec)
        latency.record(UInt64(max(0, nanoseconds &- sentAt)))
    }
}
