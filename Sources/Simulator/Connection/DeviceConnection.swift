import MQTT
import Mosquitto
import Reactor
import Report
import Scenario
import Signals

/// One MQTT connection of the fleet and the devices that publish through it, as its
/// `ConnectionDriver` brings it up and down: keeps the messages it cannot send yet in a bounded
/// queue, bounds the QoS 1/2 messages awaiting acknowledgement, wakes `publish: max` devices
/// when there is room, and records lateness and latency. Confined to one event loop.
final class DeviceConnection: @unchecked Sendable {
    let plan: ConnectionPlan
    let client: Client
    private let driver: ConnectionDriver
    private(set) var devices: [Device] = []
    /// Held strongly, as `counters` is, for the publish path (see `Device`): the cycle it makes
    /// through the context's connections is broken by `dismantle()`.
    private let context: LoopContext
    /// The figures of this connection's device group on this loop.
    private let counters: Counters
    private var queue: BoundedQueue<Queued>
    private let keepsOfflineTicks: Bool
    private let qos: QoS
    /// The QoS 1/2 messages it keeps unacknowledged at most: `--max-inflight`, or the broker's
    /// Receive Maximum where that is lower (set at each CONNACK). libmosquitto would hold back
    /// what is beyond the broker's, while devsim counted it in flight and timed it.
    private var maxInFlight: Int
    private let configuredMaxInFlight: Int
    /// QoS 1/2 messages libmosquitto holds until acknowledged, by message id.
    private var outstanding: [Int32: InFlight] = [:]
    /// Connections lost with a protocol error while QoS 2 messages awaited their PUBCOMP, since
    /// the last PUBCOMP: the mark of a broker that answers QoS 2 wrongly (see `suspectQoS2`).
    private var qos2ProtocolLosses = 0
    /// The broker was found not to handle QoS 2: this connection's QoS 2 messages fail at once
    /// instead of being resent into a connection the broker drops each time.
    private var brokerBreaksQoS2 = false
    /// Whether the broker has refused this connection's credentials once (RunControl counts it).
    private var credentialsRefused = false
    /// libmosquitto still holds QoS 2 messages that it would resend at the next connect: the
    /// client is reset first.
    private var mustDiscardLibraryQueue = false
    /// Whether each connection's comings and goings are logged; big fleets rely on the status
    /// line and on failures logged once per reason.
    private let logsEvents: Bool
    /// Paused by request: ticks count as `paused` from the request until the CONNACK of the
    /// resume.
    private(set) var isPaused = false

    struct InFlight {
        unowned(unsafe) let device: Device
        let publishedAt: UInt64
        /// Since when its acknowledgement has been awaited on the connection that is up: its
        /// publish, or the CONNACK after which libmosquitto resent it.
        var awaitedSince: UInt64
        /// Counted among `ackTimeouts` (once, however long it goes on waiting).
        var timedOut = false
    }

    /// `broker.ackTimeout`, and its watch: a timer at the earliest moment a message in
    /// `outstanding` can time out.
    private let ackTimeout: AckTimeout?
    private let ackTimeoutNanoseconds: UInt64
    private let ackTimer: Timer
    /// With a `lifecycle`: when the connection next leaves (while up) or comes back (while
    /// away), and the draws of its stays.
    private let lifecycleTimer: Timer
    private var lifecycleRandom: Xoshiro256StarStar
    /// Away by its lifecycle, not by request: the timer brings it back.
    private var isAway = false
    /// Dropped by a stage (`disconnect: all`), and when: its next CONNACK says how long it took.
    private var droppedBy: (stage: Int, at: UInt64)?
    /// Under `devices` stages (`plan.presence`): when the connection next joins the fleet or
    /// leaves it.
    private let presenceTimer: Timer
    /// Out of the fleet by its stages: disconnected, its devices' clocks standing still.
    private var isOut = false
    /// Out, or joining until its CONNACK or its first failed attempt: a tick due now counts as
    /// `paused`.
    private var isParked = false
    /// Counted among the connections paused (`Counters.connections(paused:)`): those away on
    /// purpose, paused by request, away by their lifecycle or out by their stages.
    private var isCountedAway = false

    /// Descriptors each connection holds (see `Client.descriptorsPerClient`).
    static let descriptorsPerConnection = Client.descriptorsPerClient

    /// Losses in a row that make a broker one that breaks QoS 2.
    static let qos2LossesToGiveUp = 3

    struct Queued {
        let device: Device
        let payload: [UInt8]
        /// The tick's deadline; nil for `publish: max`, which has none.
        let due: UInt64?
        /// Which of the device's field topics it goes to (`PayloadStyle.perField`); -1 for the
        /// device's own topic.
        var field = -1
    }

    /// Lateness beyond which a message counts as late, in nanoseconds.
    static let lateThreshold: UInt64 = 2_000_000

    /// One of the connections the fleet started with, not one a reload or a scale added: only
    /// those count towards every connection having been up once (`RunControl.noteConnected`).
    private let isInitial: Bool
    /// Counted among the connections up (`Counters.connections(up:)`).
    private var isCountedUp = false
    /// The devices' command topics (`commands:`) and Home Assistant's status topic
    /// (`discovery:`), subscribed to after every CONNACK.
    private var commandSubscriptions: Subscriptions
    private var discoverySubscription: Subscriptions?
    /// When the command topics' SUBSCRIBEs went out (at the CONNACK), until their last SUBACK.
    private var commandsSubscribedAt: UInt64?
    /// QoS 1 messages beside the telemetry (`publishAside`) not yet acknowledged, by id.
    private var asideAwaitingAcknowledgement: [Int32: Aside] = [:]

    /// A message beside the telemetry: where it went, and what for ("availability",
    /// "discovery", "commands"), for the words of a refusal.
    struct Aside {
        let topic: String
        let what: String
    }
    /// Where Home Assistant announces itself, when the devices are discovered by it.
    private let discoveryStatusTopic: String?
    /// The devices' command topics (`commands:`), subscribed to after every CONNACK.
    private let commandFilters: [String]
    /// Whether the devices' entities were announced (after the first CONNACK).
    private var hasAnnouncedEntities = false
    /// The clean DISCONNECT deletes the devices' entities: the connection leaves the fleet, or
    /// the run ends under `--discovery-cleanup` (`discoveryCleanup`); never a pause's.
    private var deletesEntities = false
    private let discoveryCleanup: Bool
    /// Called once nothing more will happen on this connection: a successor with its client id
    /// opens then (see `FleetChange.Opening`).
    var whenFinished: (() -> Void)?

    init(
        plan: ConnectionPlan, seed: UInt64, connackTimeout: Duration, logsEvents: Bool,
        context: LoopContext, counters: Counters, isInitial: Bool = true, discoveryCleanup: Bool = false
    ) throws(ClientSetupError) {
        self.plan = plan
        self.isInitial = isInitial
        discoveryStatusTopic = plan.devices.lazy.compactMap(\.discovery).first?.statusTopic
        commandFilters = plan.devices.compactMap(\.commands?.filter)
        self.discoveryCleanup = discoveryCleanup
        var options = plan.options
        // QoS 1 messages beside the telemetry (availability, discovery) are acknowledged too,
        // and a DISCONNECT waits for them (`driverAwaitsAcknowledgements`).
        options.reportsPublishes =
            plan.devices.first.map { $0.qos.isAcknowledged || $0.availability != nil || $0.discovery != nil } ?? true
        client = try Client(options: options)
        self.context = context
        self.counters = counters
        configuredMaxInFlight = max(1, Int(plan.options.maxInFlight))
        maxInFlight = configuredMaxInFlight
        commandSubscriptions = Subscriptions(commandFilters, qos: .atLeastOnce)
        discoverySubscription = discoveryStatusTopic.map { Subscriptions([$0], qos: .atMostOnce) }
        ackTimeout = plan.ackTimeout
        ackTimeoutNanoseconds = plan.ackTimeout.map { MonotonicClock.nanoseconds($0.limit) } ?? .max
        ackTimer = Timer(on: context.loop)
        lifecycleTimer = Timer(on: context.loop)
        presenceTimer = Timer(on: context.loop)
        lifecycleRandom = Seed(plan.lifecycle?.seed ?? 0).generator()
        self.logsEvents = logsEvents
        qos = plan.devices.first?.qos ?? .atMostOnce
        switch plan.offline {
        case .drop:
            keepsOfflineTicks = false
            queue = BoundedQueue(maxMessages: OfflinePolicy.defaultMaxMessages, maxBytes: OfflinePolicy.defaultMaxBytes)
        case .buffer(let maxMessages, let maxBytes):
            keepsOfflineTicks = true
            queue = BoundedQueue(maxMessages: maxMessages, maxBytes: maxBytes)
        }
        driver = ConnectionDriver(
            client: client, reconnect: plan.reconnect, connackTimeout: connackTimeout, watchesSilence: true,
            loop: context.loop)
        client.delegate = self
        driver.delegate = self
        ackTimer.target = self
        lifecycleTimer.target = self
        presenceTimer.target = self
        devices = plan.devices.map { Device(plan: $0, seed: seed, connection: self, counters: counters, context: context) }
    }

    private var isConnected: Bool { driver.isConnected }

    /// An attempt under way has reached the broker, which has not answered it yet.
    var awaitsAnswerOfBroker: Bool { driver.awaitsAnswerOfBroker }

    /// Lets go of the devices, and with them of the references they hold back to this connection
    /// and its loop's context, once the loops have stopped and the figures are read.
    func dismantle() {
        whenFinished = nil
        devices.removeAll()
        sleepers.removeAll()
        queue = BoundedQueue(maxMessages: queue.maxMessages, maxBytes: queue.maxBytes)
        outstanding.removeAll()
    }

    /// Whether the drain at the end of a run can still achieve something here: connected, with
    /// messages unacknowledged or queued.
    var hasDrainableMessages: Bool { isConnected && (!outstanding.isEmpty || !queue.isEmpty) }

    /// Ticks in the queue while connected, waiting for room; 0 while down, whatever an outage
    /// kept (`offline: buffer`). What a capacity search's cool-down waits for.
    var queuedWhileUp: Int { isConnected ? queue.count : 0 }

    /// Joins the loop and opens the connection at `deadline` (the group's ramp-up). Once only,
    /// and not once the connection has ended (`stop`, `retire`): a successor waiting for its
    /// predecessor may be retired or stopped before that one is gone.
    func open(at deadline: UInt64) {
        join()
        guard !isOpened, !hasEnded else { return }
        isOpened = true
        // Out now, it opens when its stages bring it in (a fleet that grows from none has its
        // place there), not at a deadline: a resume before that must not open it early.
        guard isIn(at: MonotonicClock.now()) else { return }
        driver.open(at: deadline)
    }

    /// Whether the connection's stages have it in at `time`; out, it follows them from there.
    private func isIn(at time: UInt64) -> Bool {
        guard let presence = plan.presence else { return true }
        let t = runSeconds(time)
        followPresence(after: t)
        guard presence.isIn(at: t) else {
            isOut = true
            isParked = true
            countAway()
            return false
        }
        return true
    }

    /// Counts the connection among the paused while it is paused or out, and no longer once
    /// it is neither.
    private func countAway() {
        let away = isPaused || isOut
        guard away != isCountedAway else { return }
        isCountedAway = away
        counters.connections(paused: away ? 1 : -1)
    }

    /// Joins the loop, whose selector watches the client from now on: before any command can
    /// reach the connection (a paused group's new connection is resumed, not opened).
    func join() {
        guard !hasJoined else { return }
        hasJoined = true
        client.attach(to: context.loop)
    }

    private var hasJoined = false
    private var isOpened = false
    /// Stopped or retired: it never opens again.
    private var hasEnded = false

    /// A device's tick, due at `due`: send now if connected and the window allows, otherwise
    /// keep or skip it as the offline policy says. Every call ends in exactly one counter.
    /// Returns whether the message was taken: published, or queued to be.
    @discardableResult
    func submit(from device: Device, payload: UnsafeRawBufferPointer, due: UInt64?, now: UInt64, field: Int = -1) -> Bool {
        if isPaused || isParked {
            counters.add(.paused)
            return false
        } else if isConnected, queue.isEmpty, hasRoom {
            return send(device: device, payload: payload, due: due, now: now, field: field)
        } else if isConnected || keepsOfflineTicks {
            enqueue(Queued(device: device, payload: Array(payload), due: due, field: field))
            return true
        } else {
            counters.add(.skippedOffline)
            return false
        }
    }

    /// The run is ending: DISCONNECT if connected, otherwise stop trying.
    func stop() {
        hasEnded = true
        if discoveryCleanup { deletesEntities = true }
        driver.stop()
    }

    /// Leaves the fleet (a reload, a scale): the devices stop ticking, the connection says
    /// `offline` where its group has availability and DISCONNECTs, or stops trying. What waits
    /// in its queue stays counted as `buffered`, as at the end of a run.
    func retire() {
        hasEnded = true
        deletesEntities = true
        if discoveryStatusTopic != nil, hasAnnouncedEntities {
            switch driver.state {
            case .connected:
                break  // the DISCONNECT's last words delete them
            case .pausing:
                // The pause's `offline` is out, its DISCONNECT waits for the acknowledgements:
                // the socket is open still.
                deleteEntities()
            default:
                context.control.warnOnce(
                    "discovery: devices left the fleet while disconnected: their Home Assistant entities stay, unavailable",
                    key: "discovery: retired offline", host: plan.options.host, port: plan.options.port)
            }
        }
        // It will never be up: the fleet it started with no longer waits for it.
        if isInitial, !driver.hasConnected { context.control.noteConnected(firstTime: true, of: context.connectionCount, counted: false) }
        for device in devices { device.stop() }
        sleepers.removeAll()
        droppedBy = nil
        isPaused = false
        isOut = false
        countAway()
        driver.stop()
    }

    /// Sleep by request (the seed's phone in the background): ticks count as `paused`, the
    /// connection leaves cleanly. What waits in the queue stays there for the resume.
    func pause() {
        // A pause by request holds until the resume: the lifecycle waits for it, and a storm's
        // clock stops.
        lifecycleTimer.cancel()
        isAway = false
        droppedBy = nil
        pauseNow()
    }

    private func pauseNow() {
        isPaused = true
        countAway()
        // `publish: max` devices waiting for room stay in `sleepers`: the resume's CONNACK
        // wakes them, and nothing else would.
        driver.pause()
    }

    /// Drops the connection, if up, as a network failure would (no DISCONNECT): it comes back
    /// through its backoff, as after any loss. Stage `stage`'s reconnect storm.
    func drop(stage: Int, now: UInt64) {
        guard isConnected, !isPaused, !hasEnded else { return }
        droppedBy = (stage, now)
        context.control.recoveries.withLock { $0[stage, default: (0, [])].dropped += 1 }
        driver.abandon(because: "connection lost: dropped by stage \(stage) (disconnect: all)")
    }

    /// Wake: connect again; ticks are published from the CONNACK on. Not a connection away
    /// by its lifecycle, which a group's resume does not cut short.
    func resume() {
        guard !isAway else { return }
        // A paused group's new connection is resumed, not opened: its stages are asked here.
        if !isOpened {
            isOpened = true
            _ = isIn(at: MonotonicClock.now())
        }
        if isOut {
            // Its stages have it out: it connects when they bring it in.
            isPaused = false
            countAway()
            return
        }
        driver.resume()
    }

    /// The devices tick `perSecond` times a second from now on.
    func setRate(_ perSecond: Double) {
        let now = MonotonicClock.now()
        for device in devices { device.setRate(perSecond, now: now) }
    }

    /// A capacity search's step: each device ticks at its plan's rate times `multiplier`.
    func scaleRates(by multiplier: Double, now: UInt64) {
        for device in devices { device.setRate(device.plan.perSecond * multiplier, now: now) }
    }

    /// Whether a message handed over now would go out at once: connected, nothing queued ahead
    /// of it, room in the QoS 1/2 window, and the socket not backed up. Never with a broker that
    /// breaks QoS 2: a `publish: max` device then waits rather than fail as fast as it can.
    var canSendNow: Bool { isConnected && queue.isEmpty && hasRoom && !client.wantsWrite && !brokerBreaksQoS2 }

    /// `publish: max` devices waiting for room, woken when there is some.
    private var sleepers: [Device] = []

    /// Wakes `device` as soon as the connection can send.
    func wake(_ device: Device) {
        sleepers.append(device)
    }

    private func wakeSleepers() {
        guard !sleepers.isEmpty, canSendNow else { return }
        let now = MonotonicClock.now()
        for device in sleepers { device.wake(at: now) }
        sleepers.removeAll(keepingCapacity: true)
    }

    /// Whether libmosquitto may take another message without its memory growing: room in the
    /// QoS 1/2 window, or for QoS 0, which has none, a socket that took everything so far. A
    /// message that finds no room waits in the bounded queue, so a broker slower than the
    /// schedule costs evicted, counted messages, never unbounded memory.
    private var hasRoom: Bool { !qos.isAcknowledged ? !client.wantsWrite : outstanding.count < maxInFlight }

    private func enqueue(_ message: Queued) {
        counters.add(.buffered)
        let evicted = queue.push(message, bytes: message.payload.count + message.device.topic(field: message.field).cString.count)
        if evicted > 0 {
            counters.add(.buffered, -evicted)
            counters.add(.droppedBuffer, evicted)
        }
    }

    private func flush() {
        guard !queue.isEmpty else { return }
        let now = MonotonicClock.now()
        while isConnected, hasRoom, let message = queue.popFirst() {
            counters.add(.buffered, -1)
            message.payload.withUnsafeBytes {
                _ = send(device: message.device, payload: $0, due: message.due, now: now, field: message.field)
            }
        }
    }

    @discardableResult
    private func send(device: Device, payload: UnsafeRawBufferPointer, due: UInt64?, now: UInt64, field: Int = -1) -> Bool {
        if brokerBreaksQoS2 {
            counters.add(.failed)
            context.control.count(DeviceConnection.qos2Failure)
            return false
        }
        // Claimed before the hand-over: the message may be received before `publish` returns.
        let inWindow = field < 0 && device.claimsWindow(payload)
        let (messageID, error) =
            field < 0
            ? client.publish(topic: device.topic, payload: payload, qos: qos, retain: device.plan.retain)
            : client.publish(topic: device.fieldTopics[field], payload: payload, qos: qos, retain: device.plan.retain)
        // With an error libmosquitto may still have queued a QoS 1/2 message before it tried to
        // write it (the socket failed under the write): it resends it after the reconnect, and
        // its acknowledgement will come.
        if let error, !qos.isAcknowledged || !DeviceConnection.keepsMessage(error) {
            counters.add(.failed)
            context.control.connectionFailed(
                "publish failed: \(publishFailure(error, payload: payload.count)) (first on topic \(device.plan.topic))",
                key: "publish failed: \(error)", host: plan.options.host, port: plan.options.port)
            return false
        }
        counters.add(.published)
        device.notePublished(inWindow: inWindow)
        // For Home Assistant's next start (`announceEntities`); discovered devices only.
        if discoveryStatusTopic != nil, field < 0 { device.keepLastPayload(payload) }
        if let due { recordLateness(due: due, now: now) }
        if qos.isAcknowledged { markInFlight(messageID, device: device) }
        return true
    }

    /// Lateness is measured when a message is handed to libmosquitto, not when its tick fires:
    /// a message that waited in the queue, behind a full window or through an outage, was
    /// published that much later than its schedule said, and the figure must show it.
    private func recordLateness(due: UInt64, now: UInt64) {
        let lateness = now > due ? now - due : 0
        context.lateness.record(lateness)
        if lateness > DeviceConnection.lateThreshold { counters.add(.late) }
    }

    private func markInFlight(_ messageID: Int32, device: Device) {
        let now = MonotonicClock.now()
        outstanding[messageID] = InFlight(device: device, publishedAt: now, awaitedSince: now)
        counters.add(.inFlight)
        if ackTimeout != nil, !ackTimer.isScheduled { ackTimer.schedule(at: now &+ ackTimeoutNanoseconds) }
    }

    /// Counts the messages that have waited `ackTimeout` since their publish, each once, and
    /// with `onAckTimeout: reconnect` drops a connection on which one has waited that long
    /// since it was sent on it; then watches for the next that can time out. An acknowledgement
    /// cancels nothing: the watch finds the message gone.
    private func checkAcknowledgements(now: UInt64) {
        guard let ackTimeout else { return }
        let limit = ackTimeoutNanoseconds
        let reconnects = ackTimeout.action == .reconnect && isConnected
        var timedOut = 0
        var overdue = false
        var next = UInt64.max
        for index in outstanding.values.indices {
            let message = outstanding.values[index]
            if !message.timedOut {
                if now &- message.publishedAt >= limit {
                    outstanding.values[index].timedOut = true
                    timedOut += 1
                } else {
                    next = min(next, message.publishedAt &+ limit)
                }
            }
            if reconnects {
                if now &- message.awaitedSince >= limit { overdue = true } else { next = min(next, message.awaitedSince &+ limit) }
            }
        }
        if timedOut > 0 {
            counters.add(.ackTimeouts, timedOut)
            context.control.noteAckTimeouts(timedOut)
        }
        if overdue {
            driver.abandon(
                because: "connection lost: no acknowledgement within \(formatSeconds(ackTimeout.limit)) (onAckTimeout: reconnect)")
        } else if next != .max {
            ackTimer.schedule(at: next)
        }
    }

    /// Errors with which `mosquitto_publish` still keeps a QoS 1/2 message for resending.
    private static func keepsMessage(_ error: MosquittoError) -> Bool {
        error == .connectionLost || error == .errno || error == .noConnection
    }

    private func failed(_ reason: String) {
        context.control.connectionFailed(reason, host: plan.options.host, port: plan.options.port)
    }

    private var metadata: KeyValuePairs<String, Logger.Value> {
        ["client": .string(plan.options.clientID ?? "-"), "broker": "\(plan.options.host):\(plan.options.port)"]
    }
}

extension DeviceConnection {
    /// Follows what the broker's CONNACK says (`BrokerLimits`): the window of messages
    /// unacknowledged no larger than its Receive Maximum; a word, once, where it keeps no
    /// retained messages (libmosquitto then sends the devices' without the flag).
    private func keepToBrokerLimits() {
        let limits = client.brokerLimits
        maxInFlight = min(configuredMaxInFlight, max(1, limits.receiveMaximum))
        if !limits.retainAvailable, let device = devices.first,
            device.plan.retain || device.plan.availability != nil
                || device.plan.discovery != nil
        {
            warnOnce(
                "the broker keeps no retained messages (Retain Available 0 in its CONNACK): device group '\(device.plan.group)' "
                    + "publishes without retain, and a subscriber that comes later sees nothing until the next message")
        }
    }

    /// The broker refused a QoS 1/2 message (its PUBACK or PUBREC has a reason code of 0x80 or
    /// more): counted as refused, by reason, not acknowledged; said once per reason, with the topic.
    private func refused(_ message: InFlight, _ reason: ReasonCode) {
        counters.refuse(reason)
        message.device.refused += 1
        warnOnce(
            "publish refused by the broker: \(reason), first on topic '\(message.device.plan.topic)' "
                + "(counted as refused, not acknowledged)", key: "publish refused: \(reason.hex)")
    }

    /// Why libmosquitto would not take a message of `payload` bytes, in words that name the
    /// broker's limit where one was broken.
    private func publishFailure(_ error: MosquittoError, payload: Int) -> String {
        let limits = client.brokerLimits
        if error == .oversizePacket, let maximum = limits.maximumPacketSize {
            return "a message of \(payload) bytes makes a packet over the broker's Maximum Packet Size of \(maximum) bytes (its CONNACK)"
        }
        if error == .qosNotSupported {
            return "the broker takes QoS \(limits.maximumQoS) at most (Maximum QoS in its CONNACK), and this is QoS \(qos)"
        }
        return "\(error)"
    }
}

extension DeviceConnection: ConnectionDriverDelegate {
    func driverWillConnect() throws(ClientSetupError) {
        if mustDiscardLibraryQueue {
            try client.discardQueuedMessages()
            mustDiscardLibraryQueue = false
        }
    }

    func driverDidConnect(firstTime: Bool) {
        keepToBrokerLimits()
        counters.connections(up: 1)
        isCountedUp = true
        context.control.noteConnected(firstTime: firstTime && isInitial, of: context.connectionCount)
        // A resume is not a connection coming back after a loss.
        if !firstTime, !isPaused { counters.add(.reconnects) }
        isPaused = false
        isParked = false
        countAway()
        let connackAt = MonotonicClock.now()
        lifecycleConnected(now: connackAt)
        if let dropped = droppedBy {
            droppedBy = nil
            context.control.recoveries.withLock { $0[dropped.stage, default: (0, [])].back.append(Double(connackAt &- dropped.at) / 1e9) }
        }
        if logsEvents { context.control.logger.info(firstTime ? "connected" : "reconnected", metadata) }
        // Before any telemetry: the device is there, and what it has.
        announce(online: true)
        // After every CONNACK: a clean session forgets its subscriptions.
        if discoverySubscription != nil {
            for problem in discoverySubscription?.subscribe(with: client) ?? [] { warnOnce("discovery: " + problem) }
            if !hasAnnouncedEntities { announceEntities(withStates: false) }
        }
        if !commandFilters.isEmpty {
            commandsSubscribedAt = MonotonicClock.now()
            for problem in commandSubscriptions.subscribe(with: client) { warnOnce("commands: " + problem) }
        }
        let now = MonotonicClock.now()
        if ackTimeout != nil, !outstanding.isEmpty {
            // libmosquitto resends them now: the wait on this connection starts again.
            for index in outstanding.values.indices { outstanding.values[index].awaitedSince = now }
            checkAcknowledgements(now: now)
        }
        for device in devices {
            device.connectionCameUp()
            if !device.hasStarted { device.start(now: now) }
        }
        flush()
        publishStatesAtConnect(now: now)
        wakeSleepers()
    }

    /// A device a dashboard shows (`discovery`, `availability`, `commands`) says its state at each
    /// CONNACK, as Tasmota and Zigbee2MQTT do, rather than up to a publish interval later: after
    /// what the queue held, so that it is the last word. Its schedule keeps its phase; where a tick
    /// falls at the CONNACK that tick is the state. Not ticks: counted as `stateMessages`.
    private func publishStatesAtConnect(now: UInt64) {
        guard context.control.isDue(now) else { return }
        for device in devices where device.plan.saysStateAtConnect(tickIsDue: device.tickIsDue(by: now)) {
            device.encodeState(now: now)
            counters.add(.stateMessages, publishState(of: device, what: "state"))
        }
    }

    func driverWillDisconnect() {
        if deletesEntities, discoveryStatusTopic != nil {
            deleteEntities()
            return
        }
        // A clean DISCONNECT suppresses the will: say it here instead.
        announce(online: false)
    }

    /// Each discovered device's entity configs (retained, QoS 1), and with `withStates` its last
    /// payload again: Home Assistant has just started and asks for both. Not ticks: the configs
    /// are counted nowhere, the states as `stateMessages`.
    private func announceEntities(withStates: Bool) {
        hasAnnouncedEntities = true
        for device in devices {
            guard let discovery = device.plan.discovery else { continue }
            for config in discovery.configs { publishAside(config.topic, config.payload, retain: true, what: "discovery") }
            // A retained state is on the broker already; sent again, it would be a duplicate.
            if withStates, !device.plan.retain, !device.lastPayload.isEmpty,
                publishAside(device.plan.topic, device.lastPayload, qos: qos, retain: false, what: "discovery")
            {
                counters.add(.stateMessages)
            }
        }
    }

    /// The devices leave Home Assistant for good: the empty retained configs that delete their
    /// entities, and empty retained messages that clear what their topics kept.
    private func deleteEntities() {
        for device in devices {
            guard let discovery = device.plan.discovery else { continue }
            for removal in discovery.removals { publishAside(removal.topic, [], retain: true, what: "discovery") }
            if device.plan.retain {
                // Every topic its telemetry kept: the device's, or each field's in the per-field style.
                let fieldTopics = device.plan.fieldTopics
                for topic in fieldTopics.isEmpty ? [device.plan.topic] : fieldTopics {
                    publishAside(topic, [], retain: true, what: "discovery")
                }
            }
            if let availability = device.plan.availability { publishAside(availability.topic, [], retain: true, what: "discovery") }
        }
        hasAnnouncedEntities = false
    }

    func client(_ client: Client, didSubscribe messageID: Int32, grantedQoS: [Int32]) {
        if let suback = discoverySubscription?.acknowledged(messageID, grantedQoS: grantedQoS) {
            if let refusal = suback.refusal { warnOnce("discovery: \(refusal): Home Assistant's restarts go unnoticed") }
            return
        }
        guard let suback = commandSubscriptions.acknowledged(messageID, grantedQoS: grantedQoS) else { return }
        if let refusal = suback.refusal { warnOnce("commands: \(refusal): no command reaches the devices") }
        if suback.isLast, let sentAt = commandsSubscribedAt {
            context.subscribeLatency.record(MonotonicClock.now() &- sentAt)
            commandsSubscribedAt = nil
        }
    }

    /// Logs `message` once for the whole run, whichever connection says it.
    private func warnOnce(_ message: String, key: String? = nil) {
        context.control.warnOnce(message, key: key, host: plan.options.host, port: plan.options.port)
    }

    /// A message beside the telemetry (availability, discovery), warned about once per reason
    /// when libmosquitto refuses it; whether it took it.
    @discardableResult
    private func publishAside(_ topic: String, _ payload: [UInt8], qos: QoS = .atLeastOnce, retain: Bool, what: String) -> Bool {
        let (messageID, error) = payload.withUnsafeBytes { client.publish(topic: Topic(topic), payload: $0, qos: qos, retain: retain) }
        if qos.isAcknowledged, error == nil { asideAwaitingAcknowledgement[messageID] = Aside(topic: topic, what: what) }
        if let error {
            warnOnce("\(what): cannot publish to '\(topic)': \(publishFailure(error, payload: payload.count))", key: "\(what): \(error)")
        }
        return error == nil
    }

    /// Each device's availability (`online` or `offline`, retained, QoS 1), where its group has
    /// one. Not a tick: counted nowhere, and its acknowledgement is not waited for.
    private func announce(online: Bool) {
        for device in devices {
            guard let availability = device.plan.availability else { continue }
            publishAside(availability.topic, online ? availability.online : availability.offline, retain: true, what: "availability")
        }
    }

    func driverAwaitsAcknowledgements() -> Bool {
        !outstanding.isEmpty || !asideAwaitingAcknowledgement.isEmpty
    }

    func driverDidLoseConnection(reason: String) {
        // libmosquitto resends them on the next connection, whose close waits for what it has.
        asideAwaitingAcknowledgement.removeAll()
        counters.connections(up: -1)
        isCountedUp = false
        // A stage's `disconnect: all` drops it on purpose: counted apart from the errors.
        context.control.connectionLost(reason, logged: logsEvents, onPurpose: droppedBy != nil)
        if logsEvents { context.control.logger.log(droppedBy != nil ? .info : .warning, reason, metadata) }
    }

    func driverAttemptFailed(_ failure: AttemptFailure) {
        // A join the broker does not take is a device offline, whose ticks its offline policy
        // has, not one joining.
        if !isOut { isParked = false }
        let speaksMQTT5 = client.options.protocolVersion == .v5
        failed(failure.reason + (failure.unansweredByBroker && speaksMQTT5 ? AttemptFailure.mqtt5Hint : ""))
        if let refusal = failure.refusal, refusal.refusesCredentials, !credentialsRefused, isInitial {
            credentialsRefused = true
            context.control.noteCredentialsRefused(failure.reason, of: context.connectionCount)
        }
    }

    func driverWillRetry(after delay: Double) {
        if logsEvents { context.control.logger.info("reconnecting in \(formatSeconds(delay))", metadata) }
    }

    func driverDidFinish() {
        ackTimer.cancel()
        lifecycleTimer.cancel()
        presenceTimer.cancel()
        // A clean DISCONNECT loses nothing: counted down here (the run's end has read its
        // figure by then; a retired connection's group has one fewer up now).
        if isCountedUp { counters.connections(up: -1) }
        isCountedUp = false
        context.control.connectionFinished()
        let successor = whenFinished
        whenFinished = nil
        successor?()
    }

    func driverDidPause(wasConnected: Bool) {
        if wasConnected, isCountedUp { counters.connections(up: -1) }
        isCountedUp = false
        if logsEvents { context.control.logger.info("paused", metadata) }
    }
}

extension DeviceConnection: TimerTarget {
    func timerFired(_ timer: Timer, now: UInt64) {
        if timer === lifecycleTimer {
            lifecycleTurned(now: now)
        } else if timer === presenceTimer {
            presenceTurned(now: now)
        } else {
            checkAcknowledgements(now: now)
        }
    }

    /// The next stay of `seconds`, drawn within the lifecycle's jitter.
    private func stay(_ seconds: Double, of lifecycle: Lifecycle) -> UInt64 {
        MonotonicClock.nanoseconds(lifecycle.stay(seconds, unit: lifecycleRandom.nextUnit()))
    }

    /// Up from a CONNACK: the lifecycle's online stay starts.
    private func lifecycleConnected(now: UInt64) {
        guard let lifecycle = plan.lifecycle?.lifecycle else { return }
        // Back, by its timer or by a resume that came first.
        isAway = false
        lifecycleTimer.schedule(at: now &+ stay(lifecycle.online, of: lifecycle))
    }

    /// The online stay is over: leave cleanly, ticks counting as `paused`; or the offline stay
    /// is: come back.
    private func lifecycleTurned(now: UInt64) {
        // Not once the ticking is over: the drain and the goodbyes are the run's end.
        guard let lifecycle = plan.lifecycle?.lifecycle, !hasEnded, context.control.isDue(now) else { return }
        if isAway {
            isAway = false
            driver.resume()
        } else if isConnected, !isPaused {
            isAway = true
            pauseNow()
            lifecycleTimer.schedule(at: now &+ stay(lifecycle.offline, of: lifecycle))
        }
    }
}

extension DeviceConnection {
    /// Seconds from the run's start to `time`, as the load profile counts them.
    private func runSeconds(_ time: UInt64) -> Double {
        let start = context.control.startedAt
        return time >= start ? Double(time - start) / 1e9 : -Double(start - time) / 1e9
    }

    /// Sets the presence timer for the next join or leave after `t` seconds into the run; a
    /// nanosecond past it, so that the presence has changed when the timer fires.
    private func followPresence(after t: Double) {
        guard let change = plan.presence?.nextChange(after: t) else { return }
        presenceTimer.schedule(at: context.control.startedAt &+ MonotonicClock.nanoseconds(change.at) &+ 1)
    }

    /// The stages bring the connection in (it connects, or opens the first time) or take it
    /// out (it leaves cleanly, as a pause does; its devices have no ticks until they are in
    /// again). A pause by request holds through a join.
    private func presenceTurned(now: UInt64) {
        guard let presence = plan.presence, !hasEnded, context.control.isDue(now) else { return }
        let t = runSeconds(now)
        followPresence(after: t)
        let isIn = presence.isIn(at: t)
        guard isIn == isOut else { return }
        isOut = !isIn
        countAway()
        if isIn {
            if logsEvents { context.control.logger.info("joining (stages)", metadata) }
            guard !isPaused else { return }
            // Never opened (out from its start), or left.
            if driver.state == .idle { driver.open(at: now) } else { driver.resume() }
        } else {
            isParked = true
            if logsEvents { context.control.logger.info("leaving (stages)", metadata) }
            if let dropped = droppedBy {
                // Out, it is not one of the storm's to come back.
                droppedBy = nil
                context.control.recoveries.withLock { $0[dropped.stage, default: (0, [])].dropped -= 1 }
            }
            if !isPaused { driver.pause() }
        }
    }
}

extension DeviceConnection: ClientDelegate {
    func client(_ client: Client, didReceiveConnack code: ConnackCode) {
        driver.connackArrived(code)
    }

    func client(_ client: Client, didDisconnect error: MosquittoError?) {
        // Once the pattern has begun, an attempt lost before its CONNACK counts too: libmosquitto
        // 2.1 reads the socket in bulk and keeps what it read past the PUBACK it choked on, so
        // each reconnect chokes on one of those left over before the CONNACK (2.0.11 reads
        // packet by packet, and the leftovers die with the socket). Not counted, the three
        // losses came only after many attempts, seconds later.
        let suspect = (driver.isConnected || qos2ProtocolLosses > 0) && suspectQoS2(error)
        driver.closed(error, stable: !suspect)
    }

    /// A connection lost with a protocol error while QoS 2 messages awaited their PUBCOMP: a
    /// broker that answers QoS 2 PUBLISH with PUBACK (RabbitMQ 3.10) makes libmosquitto drop the
    /// connection, and the resend after each reconnect does it again, for ever. The first few
    /// times it may be chance; then the broker is named, the messages libmosquitto holds for
    /// resending count as failed, and so do this connection's QoS 2 messages from then on.
    /// Returns whether the loss is one of the pattern, which keeps the backoff growing.
    private func suspectQoS2(_ error: MosquittoError?) -> Bool {
        guard qos == .exactlyOnce, !brokerBreaksQoS2 else { return false }
        guard error == .protocol, !outstanding.isEmpty else {
            qos2ProtocolLosses = 0  // "in a row": a loss for another reason breaks it
            return false
        }
        qos2ProtocolLosses += 1
        guard qos2ProtocolLosses >= DeviceConnection.qos2LossesToGiveUp else { return true }
        brokerBreaksQoS2 = true
        mustDiscardLibraryQueue = true
        context.control.warnOnce(
            DeviceConnection.qos2Failure + ": connections were lost with a protocol error right after "
                + "QoS 2 publishes, \(qos2ProtocolLosses) times in a row (RabbitMQ 3.10 answers them with PUBACK); "
                + "the QoS 2 messages of device group '\(plan.devices.first?.group ?? "")' count as failed: use qos: 1 with this broker",
            key: DeviceConnection.qos2Failure, host: plan.options.host, port: plan.options.port)
        for message in outstanding.values {
            message.device.published -= 1
            counters.add(.published, -1)
            counters.add(.inFlight, -1)
            counters.add(.failed)
            context.control.count(DeviceConnection.qos2Failure)
        }
        outstanding.removeAll()
        return true
    }

    static let qos2Failure = "publish failed: the broker does not handle QoS 2"

    func client(_ client: Client, didPublish messageID: Int32, reasonCode: ReasonCode) {
        if !asideAwaitingAcknowledgement.isEmpty, let aside = asideAwaitingAcknowledgement.removeValue(forKey: messageID) {
            if reasonCode.isFailure { warnOnce("\(aside.what): the broker refused the message on '\(aside.topic)': \(reasonCode)") }
            if !driverAwaitsAcknowledgements() { driver.quiet() }
            return
        }
        // QoS 0 reports writes, not acknowledgements; an id not outstanding is not ours to count.
        guard qos.isAcknowledged, let message = outstanding.removeValue(forKey: messageID) else { return }
        qos2ProtocolLosses = 0
        counters.add(.inFlight, -1)
        if reasonCode.isFailure {
            refused(message, reasonCode)
        } else {
            context.latency.record(MonotonicClock.now() &- message.publishedAt)
            counters.add(.acknowledged)
        }
        if outstanding.isEmpty, asideAwaitingAcknowledgement.isEmpty { driver.quiet() }
        flush()
        wakeSleepers()
    }

    func clientCanWrite(_ client: Client) {
        flush()
        wakeSleepers()
    }

    /// A command for one of the devices, or Home Assistant's birth message on `<prefix>/status`
    /// (it has started again, and asks for the configs and the current states).
    func client(_ client: Client, didReceive message: ReceivedMessage) {
        let topic = message.topic
        if let discoveryStatusTopic, topic == discoveryStatusTopic {
            if String(decoding: message.payload, as: UTF8.self) == "online", isConnected { announceEntities(withStates: true) }
            return
        }
        guard !commandFilters.isEmpty, let device = devices.first(where: { $0.plan.commands?.matches(topic) == true }) else { return }
        // A retained command would be carried out again at every connection, undoing what came
        // after it: commands are for when they are sent.
        guard !message.retain else {
            context.control.warnOnce(
                "commands: a retained message on '\(topic)' ignored: send commands without retain", key: "commands: retained",
                host: plan.options.host, port: plan.options.port)
            return
        }
        carryOut(
            topic: topic, payload: Array(message.payload), for: device, arrivedAt: MonotonicClock.now(),
            replyTo: message.responseTopic.map { ($0, message.correlationData) })
    }

    /// A command, checked and carried out all or not at all, then answered: the device's state at
    /// once on its topic, and for a request its reply (the state, or `{"error": reason}`): on an
    /// MQTT 5 request's response topic with its correlation data, or on the `response` topic
    /// under its `{requestId}`.
    /// Counted once as received, once as applied or rejected, and once as answered when any of
    /// its answer's messages went out; a rejection is logged once per reason and never stops the
    /// schedule.
    private func carryOut(
        topic: String, payload: [UInt8], for device: Device, arrivedAt: UInt64, replyTo request: (topic: String, correlation: [UInt8]?)?
    ) {
        counters.commandReceived()
        guard let plan = device.plan.commands else { return }
        var command: DeviceCommand?
        var rejection: CommandRejection?
        do {
            let parsed = try DeviceCommand.parse(topic: topic, payload: payload, plan: plan)
            command = parsed
            try device.take(parsed, now: arrivedAt)
        } catch {
            rejection = error
        }
        counters.commandDone(applied: rejection == nil)
        if let rejection {
            context.control.warnOnce(
                "commands: rejected: \(rejection.reason) (first on '\(topic)')", key: "command rejected: \(rejection.kind)",
                host: self.plan.options.host, port: self.plan.options.port)
        }
        guard isConnected else { return }
        let reply: (topic: String, correlation: [UInt8]?)? =
            request ?? command?.requestID.flatMap { id in plan.response.map { ($0.replacingRequestID(id), nil) } }
        var answered = false
        if rejection == nil {
            device.encodeState(now: MonotonicClock.now())
            let perField = device.statePieces != nil
            let state = perField ? context.payload.bytes : []
            answered = publishState(of: device, what: "commands") > 0
            if perField {
                // A reply is one object.
                context.payload.removeAll()
                context.payload.append(contentsOf: device.statePiecesAsObject(state))
            }
            if let reply, answer(reply.topic, retain: false, correlation: reply.correlation) { answered = true }
            context.commandLatency.record(MonotonicClock.now() &- arrivedAt)
        } else if let reply, let rejection {
            context.payload.removeAll()
            context.payload.append(contentsOf: Array("{\"error\":\(JSONText.quoted(rejection.reason))}".utf8))
            answered = answer(reply.topic, retain: false, correlation: reply.correlation)
        }
        // One command, one answer, however many messages it took: the state (a message a field
        // in the per-field style) and the reply.
        if answered { counters.commandAnswered() }
    }

    /// The device's state, which `encodeState` left in the loop's payload buffer, published beside
    /// the schedule on its topic, or a message a field on theirs as the ticks publish them; how
    /// many messages libmosquitto took. `what` names it in a warning.
    private func publishState(of device: Device, what: String) -> Int {
        var sent = 0
        if let pieces = device.statePieces {
            let state = context.payload.bytes
            for (field, bytes) in pieces {
                context.payload.removeAll()
                context.payload.append(contentsOf: Array(state[bytes]))
                if answer(device.plan.fieldTopics[field], retain: device.plan.retain, what: what) { sent += 1 }
            }
        } else {
            let inWindow = context.payload.withBytes { device.claimsWindow($0) }
            guard answer(device.plan.topic, retain: device.plan.retain, what: what) else { return 0 }
            sent = 1
            device.notePublished(inWindow: inWindow)  // on the device's topic: what --verify expects there
            if discoveryStatusTopic != nil { context.payload.withBytes { device.keepLastPayload($0) } }
        }
        if sent > 0 { device.markSent(at: device.elapsed(at: MonotonicClock.now())) }
        return sent
    }

    /// The loop's payload buffer, published beside the schedule (a command's answer, a state);
    /// whether libmosquitto took it. A DISCONNECT waits for its acknowledgement as for the other
    /// messages beside the telemetry.
    private func answer(_ topic: String, retain: Bool, correlation: [UInt8]? = nil, what: String = "commands") -> Bool {
        let (messageID, error) = context.payload.withBytes { payload in
            correlation.map { client.publish(topic: Topic(topic), payload: payload, qos: qos, correlationData: $0) }
                ?? client.publish(topic: Topic(topic), payload: payload, qos: qos, retain: retain)
        }
        if let error {
            warnOnce(
                "\(what): cannot publish the state on '\(topic)': \(publishFailure(error, payload: context.payload.count))",
                key: "\(what) state: \(error)")
            return false
        }
        if qos.isAcknowledged { asideAwaitingAcknowledgement[messageID] = Aside(topic: topic, what: what) }
        return true
    }
}
