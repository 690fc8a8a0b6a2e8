import MQTT
import Report

/// What one subscriber group has received on one event loop: the topics' streams and the
/// end-to-end latencies. Confined to the loop; read once it has stopped.
///
/// A group whose members each receive the whole stream keeps a table of streams per member:
/// a copy one member receives is a duplicate, the same message on two members is not. A
/// shared group (`$share/…`), whose broker deals each message to one member, keeps one table
/// for all its members, and all of them are on this one loop: so a message that reaches two
/// members is seen twice by the same tracker, and counted a duplicate, without a lock or a
/// message between threads. The price is that a shared group's receiving is one thread's work.
///
/// Memory: a table holds, per topic of the fleet that the group's filters match, its figures
/// (about a hundred bytes) and, once a numbered message has come on it, the sequence tracker's
/// 256-byte window; so a group of M members that each receive T topics keeps about M × T × 350
/// bytes (1,000 dashboards on one device's topic: 350 KB).
final class SubscriberTally {
    /// Per member slot on this loop (see `slot(for:)`); a shared group's single table.
    private(set) var streams: [VerifiedStreams]
    /// Publish-to-receipt times read from the payloads' send timestamps.
    var latency = Histogram()
    let isShared: Bool
    /// The table every member starts from: the fleet's topics the group's filters catch. Its
    /// arrays are shared by the members' copies until each writes to its own.
    private let blank: VerifiedStreams

    init(plan: SubscriberGroupPlan) {
        isShared = plan.isShared
        var blank = VerifiedStreams(capacity: plan.topics.count)
        for topic in plan.topics {
            let index = blank.stream(for: topic.topic, plan: topic.plan)
            blank.streams[index].devices = topic.devices
        }
        self.blank = blank
        streams = isShared ? [blank] : []
    }

    /// The table a new member of this loop counts into.
    func slot() -> Int {
        guard !isShared else { return 0 }
        streams.append(blank)
        return streams.count - 1
    }

    /// Counts a message that member `slot` received; returns whether it was a copy of one the
    /// member (or, in a shared group, the group) had already received.
    @inline(__always)
    func receive(_ message: ReceivedMessage, slot: Int) -> Bool {
        streams[slot].receive(message, latency: &latency) == .copy
    }
}
