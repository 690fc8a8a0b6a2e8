/// The QoS 1/2 messages a connection has handed to libmosquitto and not yet seen acknowledged,
/// by message id, each with the sender it is counted for and its acknowledgement's wait; and how
/// many it may keep at once: `--max-inflight`, or the broker's Receive Maximum where that is
/// lower. libmosquitto would hold back what is beyond the broker's, while devsim counted it in
/// flight and timed it. A plain value, confined with its connection; generic over the sender so
/// that it is tested without devices.
struct InFlightWindow<Sender: AnyObject> {
    struct Message {
        /// The connection's devices outlive their messages in flight (`DeviceConnection.dismantle`
        /// empties the window first): no reference count on the publish path.
        unowned(unsafe) let sender: Sender
        var wait: AckWatch.Wait
    }

    private(set) var messages: [Int32: Message] = [:]
    /// `--max-inflight` (at least 1).
    let configuredLimit: Int
    /// The messages it may keep at once now.
    private(set) var limit: Int

    init(limit: Int) {
        configuredLimit = max(1, limit)
        self.limit = configuredLimit
    }

    var count: Int { messages.count }
    var isEmpty: Bool { messages.isEmpty }
    /// Another message may be handed over without libmosquitto holding it back.
    var hasRoom: Bool { messages.count < limit }

    /// At each CONNACK: no larger than the broker's Receive Maximum (MQTT 5; 65,535 without).
    mutating func keep(toReceiveMaximum receiveMaximum: Int) {
        limit = min(configuredLimit, max(1, receiveMaximum))
    }

    mutating func add(_ messageID: Int32, from sender: Sender, at now: UInt64) {
        messages[messageID] = Message(sender: sender, wait: AckWatch.Wait(publishedAt: now))
    }

    /// The message `messageID` acknowledged or refused; nil for an id not in flight here.
    mutating func remove(_ messageID: Int32) -> Message? {
        messages.removeValue(forKey: messageID)
    }

    /// Every message, the window emptied.
    mutating func removeAll() -> [Message] {
        defer { messages.removeAll() }
        return Array(messages.values)
    }

    /// libmosquitto resends the messages in flight after a CONNACK: their waits start again.
    mutating func restartWaits(at now: UInt64) {
        for index in messages.values.indices { messages.values[index].wait.awaitedSince = now }
    }

    /// What `watch` finds of every message's wait at `now` (see `AckWatch.examine`).
    mutating func examine(with watch: AckWatch, now: UInt64, connected: Bool) -> AckWatch.Finding {
        var finding = AckWatch.Finding()
        for index in messages.values.indices {
            watch.examine(&messages.values[index].wait, now: now, connected: connected, into: &finding)
        }
        return finding
    }
}
