import Glibc
import MQTT
import Reactor
import Report
import Scenario
import Synchronization

/// The closed-loop check of `run --verify`: subscriber connections of devsim's own, on event
/// loops of their own, that receive what the fleet publishes and keep, per topic, the sequence
/// numbers and send times read from the payloads.
///
/// It subscribes before the publishers connect and settles after they have disconnected; its
/// figures are read once its loops have stopped. Lost is then counted against what each device
/// actually published: `lost = published − distinct received`, so what a device dropped from
/// a full offline buffer (which keeps its sequence number) is not counted lost.
///
/// A Sparkplug B edge node numbers every message of its own and of its devices with one seq
/// (0–255, wrapping, 0 again at each NBIRTH) and has no counter field to read: its messages are
/// one stream, subscribed to by the node's filter (`spBv1.0/GROUP/+/NODE/#`), judged by the seq
/// (`SparkplugSeqTracker`), and weighed against every message the node published with a seq
/// (its births and a DCMD's answers too, which the run's `published` leaves out). Lost is then
/// counted by the same rule, so a gap the seq cannot measure (256 or more in a row, or what
/// went just before a rebirth) is counted all the same.
///
/// End-to-end latency is reception wall-clock time minus the payload's timestamp, which is the
/// tick's scheduled time rounded down to the timestamp's unit: a tick published late adds its
/// lateness, and `ms` timestamps add up to 1 ms (prefer `us`; Sparkplug's are `ms`). Both
/// clocks are this machine's.
///
/// One subscriber connection keeps up with one publishing connection, not with several: at QoS
/// 1/2 a broker has a window of unacknowledged messages per subscriber (mosquitto's
/// `max_inflight_messages`, 20) and queues the rest up to a bound (`max_queued_messages`, 1000),
/// dropping beyond it. So the topics of each broker are dealt over as many subscriber connections
/// as the run has event loops (fewer for fewer topics or publishing connections), each connection
/// subscribing to its own topics by name; one connection subscribes to the groups' filters.
///
/// Its connections are their loops' (`LoopBound`): made before the loops start, read after
/// they stopped.
package final class Verifier: Sendable {
    let logger: Logger
    private let loops: [EventLoop]
    let connections: [LoopBound<VerifierConnection>]
    /// Endpoint and topic → the connection that watches the topic, and its stream there.
    private let owners: [String: (connection: Int, stream: Int)]
    /// Each device group's scenario's `verify:`, by the group's place in the plan.
    private let identities: [VerifierSettings?]
    /// Distinct messages received so far, for the settling wait.
    let receivedCount = Atomic<Int>(0)
    /// Messages it watches that the run's `published` leaves out: a Sparkplug edge node's
    /// births (NBIRTH, DBIRTH) and DDATA answering a DCMD, which carry the node's seq. Added to
    /// `published` where what arrived is weighed against it (`settle`, `notePace`).
    let publishedBeside = Atomic<Int>(0)
    /// Messages received past a gap in their device's sequence so far: what a broker dropping
    /// for a subscriber behind leaves, second after second (`VerifyPace`).
    let gapsSeen = Atomic<Int>(0)
    /// Subscriber connections the devices need not wait for: subscribed, refused, or failed.
    let settledConnections = Atomic<Int>(0)
    let finishedConnections = Atomic<Int>(0)
    /// Why the broker kept a subscriber connection from its job (its CONNACK or a SUBACK
    /// refused it, a SUBSCRIBE could not be sent), the first such reason; and the last
    /// failure to connect, for a connection that never got as far.
    let problem = Locked<String?>(nil)
    let lastFailure = Locked<String?>(nil)
    /// What has been said once (`warnOnce`): a subscriber connection retries four times a
    /// second while its broker is away.
    private let said = Locked<Set<String>>([])
    /// Whether a CONNACK accepted one of its connections: the broker answers.
    private let hasConnected = Atomic<Bool>(false)
    /// Subscriber connections whose subscriptions are acknowledged now.
    let subscribedNow = Atomic<Int>(0)
    /// Messages on topics none of its subscriptions match (`UnmatchedTopic`): a broker's rewrite.
    let unmatched = Atomic<Int>(0)
    /// Subscriber connections lost, and subscribed again, so far: a second with either is no
    /// judge of what the broker dropped.
    let disturbances = Atomic<Int>(0)
    /// Kept by the thread that watches the run (`notePace`), read by the summary.
    let pace = Locked(VerifyPace())

    /// The subscribers of every broker the fleet publishes to, on at most `loops` event loops.
    package init(plan: FleetPlan, loops: Int = 1, logger: Logger) throws {
        self.logger = logger
        struct Endpoint {
            var options: ClientOptions
            /// Its scenario's `verify:` and name, for the subscribers' identity.
            var identity: (settings: VerifierSettings?, scenario: String)
            var reconnect: ReconnectSettings
            var publishers = 0
            /// Topic filters and their QoS, for a single subscriber.
            var filters: [String: QoS] = [:]
            /// Each topic, in the order first published, with the QoS it needs; for a Sparkplug
            /// edge node, its filter, with its NBIRTH's topic and those of its other messages.
            var topics: [(topic: String, plan: VerifyPlan, qos: QoS, devices: Int, node: (birth: String, topics: [String])?)] = []
            var topicIndex: [String: Int] = [:]
        }
        var endpoints: [String: Endpoint] = [:]
        var order: [String] = []
        // The plan's groups are its scenarios', in order.
        let identities = plan.scenarios.flatMap { scenario in scenario.groups.map { _ in (scenario.verify, scenario.name) } }
        for connection in plan.connections {
            let identity = identities.indices.contains(connection.group) ? identities[connection.group] : (nil, "")
            let key = Verifier.endpoint(connection.options, as: identity.0)
            if endpoints[key] == nil {
                endpoints[key] = Endpoint(options: connection.options, identity: identity, reconnect: connection.reconnect)
                order.append(key)
            }
            endpoints[key]!.publishers += 1
            // An edge node numbers its messages, its devices' too: one stream, by its filter.
            if let node = connection.sparkplug, let first = connection.devices.first {
                let filter = node.topic.nodeFilter
                endpoints[key]!.filters[filter] = .atMostOnce
                if let index = endpoints[key]!.topicIndex[filter] {
                    endpoints[key]!.topics[index].devices += 1
                } else {
                    endpoints[key]!.topicIndex[filter] = endpoints[key]!.topics.count
                    let topics = node.topic.sequencedTopics(devices: connection.devices.map(\.id))
                    endpoints[key]!.topics.append((filter, first.verify, .atMostOnce, 1, (node.topic.topic(.nodeBirth), topics)))
                }
                continue
            }
            for device in connection.devices {
                endpoints[key]!.filters[device.verify.topicFilter] = max(
                    endpoints[key]!.filters[device.verify.topicFilter] ?? .atMostOnce, device.verify.qos)
                if let index = endpoints[key]!.topicIndex[device.topic] {
                    endpoints[key]!.topics[index].devices += 1
                    endpoints[key]!.topics[index].qos = max(endpoints[key]!.topics[index].qos, device.verify.qos)
                } else {
                    endpoints[key]!.topicIndex[device.topic] = endpoints[key]!.topics.count
                    endpoints[key]!.topics.append((device.topic, device.verify, device.verify.qos, 1, nil))
                }
            }
        }
        var setups:
            [(
                options: ClientOptions, identity: (settings: VerifierSettings?, scenario: String), reconnect: ReconnectSettings,
                filters: [(key: String, value: QoS)], streams: VerifiedStreams
            )] = []
        var owners: [String: (connection: Int, stream: Int)] = [:]
        for key in order {
            let endpoint = endpoints[key]!
            let count = max(1, min(endpoint.topics.count, endpoint.publishers, loops))
            // The topics each partition's table holds: a node's are many.
            var keys = Array(repeating: 0, count: count)
            for (position, topic) in endpoint.topics.enumerated() { keys[position % count] += 1 + (topic.node?.topics.count ?? 0) }
            var partitions = keys.map { keys in (filters: [String: QoS](), streams: VerifiedStreams(capacity: keys + 1)) }
            for (position, topic) in endpoint.topics.enumerated() {
                let part = position % count
                let stream =
                    topic.node.map { node in
                        partitions[part].streams.node(topic.topic, birth: node.birth, topics: node.topics, plan: topic.plan)
                    } ?? partitions[part].streams.stream(for: topic.topic, plan: topic.plan)
                partitions[part].streams.streams[stream].devices = topic.devices
                partitions[part].filters[topic.topic] = topic.qos
                owners[key + "\u{0}" + topic.topic] = (setups.count + part, stream)
            }
            for partition in partitions {
                let filters = count == 1 ? endpoint.filters : partition.filters
                setups.append(
                    (endpoint.options, endpoint.identity, endpoint.reconnect, filters.sorted { $0.key < $1.key }, partition.streams))
            }
        }
        let loopCount = max(1, min(loops, setups.count))
        self.loops = try (0..<loopCount).map { try EventLoop(name: "devsim-verify-\($0)", logger: logger) }
        var connections: [VerifierConnection] = []
        for (number, setup) in setups.enumerated() {
            var options = Verifier.subscriberOptions(setup.options, as: setup.identity.settings)
            // Within the limit of the fleet's protocol, which it may fall back to.
            let fleetProtocol = options.protocolVersion
            options.clientID =
                setup.identity.settings?.clientID.map { template in
                    let id = template.render(name: setup.identity.scenario, index: number + 1, id: nil)
                    return template.placeholders.contains("index") || number == 0 ? id : "\(id)-\(number + 1)"
                } ?? fleetProtocol.clientID("devsim-verify-\(getpid())-\(number + 1)-\(UInt32.random(in: 0...UInt32.max))")
            options.cleanSession = true
            options.will = nil
            // The fleet's CONNECT properties (`broker.properties`) test the broker: a Maximum
            // Packet Size below the devices' messages would have the witness miss them, and
            // blame the broker for it.
            options.connectProperties = nil
            // MQTT 5 lets a subscriber widen the broker's window of messages unacknowledged
            // towards it (mosquitto's is 20 otherwise), which alone bounds what one subscriber
            // connection receives: tried first, whatever the fleet speaks.
            options.protocolVersion = .v5
            options.receiveMaximum = 65535
            connections.append(
                try VerifierConnection(
                    options: options, fallback: fleetProtocol == .v5 ? nil : fleetProtocol,
                    reconnect: Verifier.reconnect(setup.reconnect), filters: setup.filters,
                    streams: setup.streams, loop: self.loops[number % loopCount]))
        }
        self.connections = connections.map { LoopBound($0, on: $0.loop) }
        self.owners = owners
        self.identities = identities.map(\.0)
        for connection in connections { connection.verifier = self }
        if let cluster = connections.first(where: { $0.client.options.hosts.count > 1 })?.client.options.hosts {
            logger.warning(
                "verify: the subscriber watches one node of broker.hosts at a time (\(cluster.map(\.description).joined(separator: ", "))): "
                    + "it sees every message only if the nodes are one cluster; over brokers that share nothing, "
                    + "what went to the others is not received, and counts as unwatched, not as lost")
        }
        let all = connections.flatMap(\.streams.streams)
        let shared = all.filter { $0.devices > 1 }
        if let first = shared.first {
            logger.warning(
                "verify: \(shared.count) topics carry more than one device (first '\(first.topic)'); "
                    + "their messages are counted but not checked for duplicates or order")
        }
        if let blind = all.first(where: { !$0.plan.readsSequence && $0.node == nil }) {
            logger.warning(
                "verify: no sequence field (a counter, 'seq' unless the group's 'verify' names another) "
                    + "in the payload of topic '\(blind.topic)': its messages are counted, not checked")
        }
    }

    /// Messages of a topic none of which arrived that make it silent (`VerifySummary.silentTopics`).
    static let silentAfter = 5

    /// The scenario's backoff, kept short: after a broker restart the verifier must be subscribed
    /// again before the devices, back too, flush what they kept, or it counts none of it. A
    /// few connections trying four times a second cost a broker nothing; one the broker refuses
    /// tries no more (`VerifierConnection`).
    static func reconnect(_ settings: ReconnectSettings) -> ReconnectSettings {
        ReconnectSettings(initial: min(settings.initial, .milliseconds(100)), max: min(settings.max, .milliseconds(250)))
    }

    /// Whether the subscriber of `topic`, published on `connection`, is subscribed now; `nil`
    /// for a topic no stream watches.
    func presence(of connection: ConnectionPlan, topic: String) -> VerifierPresence? {
        owner(of: connection, topic: topic).map { connections[$0.connection].value.presence }
    }

    /// The windows of a search's `lost` (`StepWindow`), one a device: made before the run, then
    /// opened and closed by the thread that watches it.
    private let stepWindows = Locked<[StepWindow]>([])

    /// The window of the device publishing on `topic` on `connection`, shared with the stream
    /// that receives it; `nil` for a topic no stream watches. Before `start`: the streams
    /// belong to their loops from then on.
    func stepWindow(of connection: ConnectionPlan, topic: String) -> StepWindow? {
        guard let owner = owner(of: connection, topic: topic) else { return nil }
        let window = StepWindow()
        connections[owner.connection].value.streams.streams[owner.stream].window = window
        stepWindows.withLock { $0.append(window) }
        return window
    }

    /// A step's hold begins: each device's window opens past what it has published.
    func openStepWindows() {
        for window in stepWindows.withLock({ $0 }) { window.open() }
    }

    /// The hold is over: each device's window closes past what it has published.
    func closeStepWindows() {
        for window in stepWindows.withLock({ $0 }) { window.close() }
    }

    /// What the devices published in their windows, and what of it has arrived.
    var stepLoss: StepLoss { stepWindows.withLock { $0 }.reduce(.none) { $0 + $1.counts } }

    /// Why the steps of a search of `plan` cannot count what they lost (`StepWindow`); `nil`
    /// when they can. They count by each device's sequence numbers, on a topic of its own.
    package static func stepLossRefusal(plan: FleetPlan) -> String? {
        var topics = Set<String>()
        for connection in plan.connections {
            if let device = connection.devices.first, connection.sparkplug != nil {
                return "device group '\(device.group)' is a Sparkplug group, whose messages are numbered by edge node, not by "
                    + "device and tick, by which a step counts what it lost"
            }
            for device in connection.devices {
                if !device.verify.readsSequence {
                    return "device group '\(device.group)' has no sequence counter in its payload "
                        + "(a counter field, 'seq' unless its 'verify' names another), by which a step counts what it lost"
                }
                if !device.fieldTopics.isEmpty {
                    return "device group '\(device.group)' publishes each field on its own topic, without the sequence counter "
                        + "by which a step counts what it lost"
                }
                // By broker alone: devices of two users on one topic mix there too.
                if !topics.insert("\(connection.options.host)\u{0}\(connection.options.port)\u{0}\(device.topic)").inserted {
                    return "topic '\(device.topic)' carries more than one device, whose sequence numbers mix: "
                        + "a step counts what it lost by each device's"
                }
            }
        }
        return nil
    }

    /// A subscriber's options for the broker of a publisher's `options`: as `settings` says
    /// (`verify:`), or else as the publisher connects.
    static func subscriberOptions(_ options: ClientOptions, as settings: VerifierSettings?) -> ClientOptions {
        var options = options
        if let username = settings?.username {
            options.username = username
            options.password = settings?.password
        }
        if let tls = settings?.tls { options.tls = tls }
        return options
    }

    /// Which broker, as whom: the verifier's own user where `verify:` names one, else the
    /// publisher's. One set of subscriber connections each.
    private static func endpoint(_ options: ClientOptions, as settings: VerifierSettings?) -> String {
        let user = settings?.username.map { "verify\u{0}" + $0 } ?? options.username ?? ""
        // A cluster's nodes (`broker.hosts`) each see every message: one set for the cluster, on
        // the node of the first connection that names it, failing over as the devices do.
        let broker = options.hosts.isEmpty ? "\(options.host)\u{0}\(options.port)" : options.hosts.map(\.description).joined(separator: ",")
        return "\(broker)\u{0}\(user)"
    }

    /// The subscriber connection that watches `topic` of `connection`'s device, and its stream
    /// there; `nil` for a topic none watches (a group a reload added).
    func owner(of connection: ConnectionPlan, topic: String) -> (connection: Int, stream: Int)? {
        let settings = identities.indices.contains(connection.group) ? identities[connection.group] : nil
        return owners[Verifier.endpoint(connection.options, as: settings) + "\u{0}" + topic]
    }

    /// The broker will not let a subscriber connection do its job, for `reason`; the first
    /// reason is the one the summary gives.
    func noteProblem(_ reason: String) {
        problem.withLock { $0 = $0 ?? reason }
    }

    /// An attempt to connect failed, for `reason`.
    func noteFailure(_ reason: String) {
        lastFailure.withLock { $0 = reason }
    }

    /// A message came on a topic none of its subscriptions match: counted, the first said.
    func noteUnmatched(_ warning: String) {
        guard unmatched.add(1, ordering: .relaxed).newValue == 1 else { return }
        logger.warning(
            "verify: \(warning); such messages are counted as verify.unmatched, and what the devices published as lost")
    }

    /// Logs `verify: reason`, unless it has been said.
    func warnOnce(_ reason: String) {
        if said.withLock({ $0.insert(reason).inserted }) { logger.warning("verify: " + reason) }
    }

    /// Logs `verify: line` as information, unless it has been said.
    func tellOnce(_ line: String) {
        if said.withLock({ $0.insert(line).inserted }) { logger.info("verify: " + line) }
    }

    /// A CONNACK accepted one of its connections.
    func noteConnack() {
        hasConnected.store(true, ordering: .relaxed)
    }

    /// Whether the broker has accepted one of its connections: the wait for its subscriptions
    /// was a wait for a broker that answers, not for one that may not be there.
    var brokerAnswered: Bool { hasConnected.load(ordering: .relaxed) }

    /// Why the last attempt of a subscriber connection to connect failed, if one did.
    var lastFailureReason: String? { lastFailure.withLock { $0 } }

    /// Starts the loops and the subscriptions, and waits until `deadline` (monotonic
    /// nanoseconds) for the broker to answer every connection: its subscriptions acknowledged,
    /// or refused, or an attempt failed (`VerifierConnection.driverAttemptFailed`).
    package func start(until deadline: UInt64) throws {
        for loop in loops { try loop.start() }
        for connection in connections {
            connection.execute { $0.open() }
        }
        let started = MonotonicClock.now()
        while settledConnections.load(ordering: .relaxed) < connections.count {
            guard MonotonicClock.now() < deadline else {
                logger.warning(
                    "verify: subscriptions not acknowledged within \(formatSeconds(Double(deadline &- started) / 1e9)); starting anyway")
                return
            }
            usleep(5_000)
        }
    }

    /// Waits for the last messages: until nothing has arrived for `quiet` seconds, or every
    /// message published has been received, at most `limit` seconds.
    package func settle(published: Int, quiet: Double = 0.2, limit: Double = 2) {
        let published = published + publishedBeside.load(ordering: .relaxed)
        let start = MonotonicClock.now()
        var last = receivedCount.load(ordering: .relaxed)
        var lastChange = start
        while true {
            let now = MonotonicClock.now()
            let count = receivedCount.load(ordering: .relaxed)
            if count != last { (last, lastChange) = (count, now) }
            if count >= published || now - lastChange >= MonotonicClock.nanoseconds(quiet)
                || now - start >= MonotonicClock.nanoseconds(limit)
            {
                return
            }
            usleep(10_000)
        }
    }

    /// Disconnects (at most a second) and stops the loops; the figures can be read from here.
    package func stop() {
        stopSubscribing(
            connections: connections.map { connection in (connection.loop, { connection.value.stop() }) },
            finished: { finishedConnections.load(ordering: .relaxed) }, loops: loops)
    }

    /// Judges the last second: the fleet's `totals` so far, and publishing connections lost or
    /// back so far. Called about once a second by the thread that watches the run, and by no
    /// other. What arrived is weighed against what the broker accepted: a message it has not
    /// acknowledged may not have reached it, and one a slow broker holds is no subscriber's loss.
    package func notePace(_ totals: Totals, publisherChanges: Int) {
        let allSubscribed = subscribedNow.load(ordering: .relaxed) == connections.count
        let accepted = totals[.published] - totals[.inFlight] - totals[.refused]
        let sample = VerifyPace.Sample(
            accepted: accepted + publishedBeside.load(ordering: .relaxed), received: receivedCount.load(ordering: .relaxed),
            losses: publisherChanges + disturbances.load(ordering: .relaxed), allSubscribed: allSubscribed,
            time: MonotonicClock.now(), gaps: gapsSeen.load(ordering: .relaxed))
        pace.withLock { $0.record(sample) }
    }

    /// Each subscriber connection's topic filters and their QoS.
    var subscriptionFilters: [[String: QoS]] {
        connections.map { Dictionary(uniqueKeysWithValues: $0.value.filters.map { ($0.key, $0.value) }) }
    }

    /// The figures per topic; complete after `summary(published:)`.
    package var topics: [Stream] { connections.flatMap(\.value.streams.streams) }
}
