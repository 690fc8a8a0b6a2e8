import Dispatch
import Glibc
import Mosquitto
import Scenario
import Synchronization

/// The closed-loop check of `run --verify`: subscriber connections of devsim's own, on an event
/// loop of their own, that receive what the fleet publishes and keep, per topic, the sequence
/// numbers and send times read from the payloads.
///
/// It subscribes before the publishers connect and settles after they have disconnected; its
/// figures are read once its loop has stopped. Lost is then counted against what each device
/// actually published: `lost = published − distinct received`, so ticks skipped while offline
/// (which also use up sequence numbers) are not counted lost.
///
/// End-to-end latency is reception wall-clock time minus the payload's timestamp, which is the
/// tick's scheduled time rounded down to the timestamp's unit: a tick published late adds its
/// lateness, and `ms` timestamps add up to 1 ms (prefer `us`). Both clocks are this machine's.
///
/// The subscriber is one connection per broker; at QoS 1/2 the broker keeps a bounded queue for
/// it (mosquitto's `max_queued_messages`, 1000 by default), and what it drops when the
/// subscriber falls behind is counted lost: raise the limit for high-rate verified runs.
public final class Verifier: @unchecked Sendable {
    /// Figures of one topic: normally one device's.
    public struct Stream: Sendable {
        public var topic: String
        /// Devices publishing on the topic; with more than one, their sequence numbers mix, so
        /// every message counts as distinct and no duplicate or order is judged.
        public var devices = 0
        public var published = 0
        /// Every message received, copies included.
        public var deliveries = 0
        public var tracker = SequenceTracker()
        /// Messages with no readable sequence number.
        public var unnumbered = 0
        let plan: VerifyPlan

        /// Distinct messages received.
        public var received: Int { plan.readsSequence && devices <= 1 ? tracker.received + unnumbered : deliveries }
        public var duplicated: Int { plan.readsSequence && devices <= 1 ? tracker.duplicated : 0 }
        public var outOfOrder: Int { plan.readsSequence && devices <= 1 ? tracker.outOfOrder : 0 }
        public var lost: Int { max(0, published - received) }
    }

    let loop: EventLoop
    let logger: Logger
    private let connections: [VerifierConnection]
    // Confined to the loop thread until it stops; read after.
    var streams: [Stream] = []
    var latency = Histogram()
    /// Messages on our filters but on no topic of ours, and retained messages (not ours either).
    var foreign = 0
    /// Distinct messages received so far, for the settling wait.
    let receivedCount = Atomic<Int>(0)
    let subscribedConnections = Atomic<Int>(0)
    let finishedConnections = Atomic<Int>(0)
    private var streamIndex: [String: Int] = [:]

    /// One subscriber connection per broker the fleet publishes to.
    public init(plan: FleetPlan, logger: Logger) throws {
        self.logger = logger
        loop = try EventLoop(name: "devsim-verify")
        var endpoints: [String: (options: ClientOptions, reconnect: ReconnectSettings, filters: [String: Int32], table: TopicTable)] = [:]
        var order: [String] = []
        var streams: [Stream] = []
        var streamIndex: [String: Int] = [:]
        for connection in plan.connections {
            let endpoint = Verifier.endpoint(connection.options)
            if endpoints[endpoint] == nil {
                endpoints[endpoint] = (connection.options, connection.reconnect, [:], TopicTable(capacity: plan.deviceCount))
                order.append(endpoint)
            }
            for device in connection.devices {
                let filter = device.verify.topicFilter
                endpoints[endpoint]!.filters[filter] = max(endpoints[endpoint]!.filters[filter] ?? 0, device.verify.qos)
                let key = endpoint + "\u{0}" + device.topic
                let index = streamIndex[key] ?? streams.count
                if index == streams.count {
                    streams.append(Stream(topic: device.topic, plan: device.verify))
                    streamIndex[key] = index
                    endpoints[endpoint]!.table.insert(device.topic, index)
                }
                streams[index].devices += 1
            }
        }
        self.streams = streams
        self.streamIndex = streamIndex
        var connections: [VerifierConnection] = []
        for (number, endpoint) in order.enumerated() {
            let setup = endpoints[endpoint]!
            var options = setup.options
            options.clientID = "devsim-verify-\(getpid())-\(number + 1)-\(UInt32.random(in: 0...UInt32.max))"
            options.cleanSession = true
            options.will = nil
            connections.append(try VerifierConnection(options: options, reconnect: setup.reconnect,
                                                      filters: setup.filters.sorted { $0.key < $1.key },
                                                      topics: setup.table))
        }
        self.connections = connections
        for connection in connections { connection.verifier = self }
        let shared = streams.filter { $0.devices > 1 }
        if let first = shared.first {
            logger.warning("verify: \(shared.count) topics carry more than one device (first '\(first.topic)'); "
                           + "their messages are counted but not checked for duplicates or order")
        }
        if let blind = streams.first(where: { !$0.plan.readsSequence }) {
            logger.warning("verify: no sequence field (a counter, 'seq' unless the group's 'verify' names another) "
                           + "in the payload of topic '\(blind.topic)': its messages are counted, not checked")
        }
    }

    /// Which broker, as whom: one subscriber connection each.
    static func endpoint(_ options: ClientOptions) -> String {
        "\(options.host)\u{0}\(options.port)\u{0}\(options.username ?? "")"
    }

    /// Starts the loop and the subscriptions, and waits (at most `timeout` seconds) until every
    /// connection's subscriptions are acknowledged. Returns whether they were.
    @discardableResult
    public func start(timeout: Double) throws -> Bool {
        try loop.start()
        loop.execute { [self] in
            for connection in connections { connection.open() }
        }
        let deadline = MonotonicClock.now() &+ MonotonicClock.nanoseconds(timeout)
        while subscribedConnections.load(ordering: .relaxed) < connections.count {
            guard MonotonicClock.now() < deadline else {
                logger.warning("verify: subscriptions not acknowledged within \(formatSeconds(timeout)); starting anyway")
                return false
            }
            usleep(5_000)
        }
        return true
    }

    /// Waits for the last messages: until nothing has arrived for `quiet` seconds, or every
    /// message published has been received, at most `limit` seconds.
    public func settle(published: Int, quiet: Double = 0.2, limit: Double = 2) {
        let start = MonotonicClock.now()
        var last = receivedCount.load(ordering: .relaxed)
        var lastChange = start
        while true {
            let now = MonotonicClock.now()
            let count = receivedCount.load(ordering: .relaxed)
            if count != last { (last, lastChange) = (count, now) }
            if count >= published || now - lastChange >= MonotonicClock.nanoseconds(quiet)
                || now - start >= MonotonicClock.nanoseconds(limit) { return }
            usleep(10_000)
        }
    }

    /// Disconnects (at most a second) and stops the loop; the figures can be read from here.
    public func stop() {
        loop.execute { [self] in
            for connection in connections { connection.stop() }
        }
        let deadline = MonotonicClock.now() &+ 1_000_000_000
        while finishedConnections.load(ordering: .relaxed) < connections.count, MonotonicClock.now() < deadline {
            usleep(5_000)
        }
        loop.stop()
    }

    /// The summary, with each device's published count (by its connection's options and its
    /// topic) added to its topic's figures. Call after `stop()`.
    public func summary(published: [(options: ClientOptions, topic: String, count: Int)]) -> VerifySummary {
        for device in published {
            if let index = streamIndex[Verifier.endpoint(device.options) + "\u{0}" + device.topic] {
                streams[index].published += device.count
            }
        }
        return VerifySummary(received: streams.reduce(0) { $0 + $1.received },
                             lost: streams.reduce(0) { $0 + $1.lost },
                             duplicated: streams.reduce(0) { $0 + $1.duplicated },
                             outOfOrder: streams.reduce(0) { $0 + $1.outOfOrder },
                             e2eLatency: latency.isEmpty ? nil : Percentiles(latency))
    }

    /// Each subscriber connection's topic filters and their QoS.
    var subscriptionFilters: [[String: Int32]] {
        connections.map { Dictionary(uniqueKeysWithValues: $0.filters.map { ($0.key, $0.value) }) }
    }

    /// The figures per topic; complete after `summary(published:)`.
    public var topics: [Stream] { streams }

    /// A message on `stream`; on the loop thread.
    @inline(__always)
    func received(_ message: ReceivedMessage, stream index: Int) {
        streams[index].deliveries += 1
        let plan = streams[index].plan
        if let sentAt = plan.timestamp(in: message.payload) {
            var now = timespec()
            clock_gettime(CLOCK_REALTIME, &now)
            let nanoseconds = Int64(now.tv_sec) &* 1_000_000_000 &+ Int64(now.tv_nsec)
            latency.record(UInt64(max(0, nanoseconds &- sentAt)))
        }
        if streams[index].devices > 1 || !plan.readsSequence {
            receivedCount.add(1, ordering: .relaxed)
        } else if let sequence = plan.sequence(in: message.payload) {
            if streams[index].tracker.record(sequence) != .duplicate { receivedCount.add(1, ordering: .relaxed) }
        } else {
            streams[index].unnumbered += 1
            receivedCount.add(1, ordering: .relaxed)
        }
    }
}
