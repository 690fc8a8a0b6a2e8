import Glibc
import MQTT

/// The topics one verifier connection watches and what it has received on each, confined to its
/// loop: no two connections share a topic, so every figure has one writer.
struct VerifiedStreams {
    var streams: [Verifier.Stream] = []
    /// Publish-to-receipt times read from the payloads' send timestamps.
    var latency = Histogram()
    private var table: TopicTable

    init(capacity: Int) {
        table = TopicTable(capacity: capacity)
    }

    /// The stream of `topic`, added if new; returns its index.
    mutating func stream(for topic: String, plan: VerifyPlan) -> Int {
        let index = table.insert(topic, streams.count)
        if index == streams.count { streams.append(Verifier.Stream(topic: topic, plan: plan)) }
        return index
    }

    /// Counts `message`; returns whether it was one not received before (a copy is not).
    @inline(__always)
    mutating func receive(_ message: ReceivedMessage) -> Bool {
        // A retained message is sent for the subscription, not published by this run.
        // Messages on our filters but on no topic of ours are not ours either.
        guard !message.retain, let index = table[message.topicBytes] else { return false }
        streams[index].deliveries += 1
        let plan = streams[index].plan
        if let sentAt = plan.timestamp(in: message.payload) {
            var now = timespec()
            clock_gettime(CLOCK_REALTIME, &now)
            let nanoseconds = Int64(now.tv_sec) &* 1_000_000_000 &+ Int64(now.tv_nsec)
            latency.record(UInt64(max(0, nanoseconds &- sentAt)))
        }
        guard streams[index].devices <= 1, plan.readsSequence else { return true }
        guard let sequence = plan.sequence(in: message.payload) else {
            streams[index].unnumbered += 1
            return true
        }
        return streams[index].tracker.record(sequence) != .duplicate
    }
}
