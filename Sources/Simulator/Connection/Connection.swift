import Mosquitto
import Scenario

/// One MQTT connection of the fleet and the devices that publish through it: carries out what
/// its `ConnectionStateMachine` decides, keeps the messages it cannot send yet in a bounded
/// queue, and bounds the QoS 1/2 messages awaiting acknowledgement. Confined to one event loop.
final class Connection: @unchecked Sendable {
    let plan: ConnectionPlan
    let client: Client
    private(set) var devices: [Device] = []
    private unowned(unsafe) let context: LoopContext
    /// The figures of this connection's device group on this loop.
    private unowned(unsafe) let counters: Counters
    private var machine: ConnectionStateMachine
    private var queue: BoundedQueue<Queued>
    private let keepsOfflineTicks: Bool
    private let qos: Int32
    private let maxInFlight: Int
    /// QoS 1/2 messages libmosquitto holds until acknowledged, by message id.
    private var outstanding: [Int32: InFlight] = [:]
    /// Connections lost with a protocol error while QoS 2 messages awaited their PUBCOMP, since
    /// the last PUBCOMP: the mark of a broker that answers QoS 2 wrongly (see `suspectQoS2`).
    private var qos2ProtocolLosses = 0
    /// The broker was found not to handle QoS 2: this connection's QoS 2 messages fail at once
    /// instead of being resent into a connection the broker drops each time.
    private var brokerBreaksQoS2 = false
    /// libmosquitto still holds QoS 2 messages that it would resend at the next connect: the
    /// client is reset first.
    private var mustDiscardLibraryQueue = false
    /// Seconds an attempt may wait for its CONNACK before it is given up and retried.
    private let connackTimeout: Double
    /// Nanoseconds without a byte from the broker after which a connection counts as dead:
    /// 1.5 × keepalive, as a broker judges its clients; 0 without a keepalive. libmosquitto alone
    /// would wait twice the keepalive (a PINGREQ after one, the close after another).
    private let silenceLimit: UInt64
    /// Tells a current timer from one made stale by a newer decision.
    private var timerGeneration = 0
    /// The CONNACK of the current attempt refused us; its reason is already reported.
    private var refusedThisAttempt = false
    /// Whether each connection's comings and goings are logged; big fleets rely on the status
    /// line and on failures logged once per reason.
    private let logsEvents: Bool

    struct InFlight {
        unowned(unsafe) let device: Device
        let publishedAt: UInt64
    }

    /// Losses in a row that make a broker one that breaks QoS 2.
    static let qos2LossesToGiveUp = 3

    struct Queued {
        let device: Device
        let payload: [UInt8]
        /// The tick's deadline; nil for `publish: max`, which has none.
        let due: UInt64?
    }

    /// Lateness beyond which a message counts as late, in nanoseconds.
    static let lateThreshold: UInt64 = 2_000_000

    private enum Timer: Int {
        case open, retry, connack, silence

        /// A timer's tag: its kind and the generation it belongs to.
        func tag(_ generation: Int) -> Int { rawValue | generation << 2 }
    }

    init(plan: ConnectionPlan, seed: UInt64, connackTimeout: Double, logsEvents: Bool,
         context: LoopContext) throws(ClientSetupError) {
        self.plan = plan
        client = try Client(options: plan.options)
        self.context = context
        counters = context.counters[plan.group]
        maxInFlight = max(1, Int(plan.options.maxInFlight))
        self.connackTimeout = connackTimeout
        silenceLimit = MonotonicClock.nanoseconds(1.5 * Double(plan.options.keepalive))
        self.logsEvents = logsEvents
        qos = plan.devices.first?.qos ?? 0
        machine = ConnectionStateMachine(backoff: Backoff(initial: plan.reconnect.initial, maximum: plan.reconnect.max))
        switch plan.offline {
        case .drop:
            keepsOfflineTicks = false
            queue = BoundedQueue(maxMessages: OfflinePolicy.defaultMaxMessages, maxBytes: OfflinePolicy.defaultMaxBytes)
        case .buffer(let maxMessages, let maxBytes):
            keepsOfflineTicks = true
            queue = BoundedQueue(maxMessages: maxMessages, maxBytes: maxBytes)
        }
        client.delegate = self
        devices = plan.devices.map { Device(plan: $0, seed: seed, connection: self, counters: counters, context: context) }
    }

    /// Whether the drain at the end of a run can still achieve something here: connected, with
    /// messages unacknowledged or queued.
    var hasDrainableMessages: Bool { machine.isConnected && (!outstanding.isEmpty || !queue.isEmpty) }

    /// Joins the loop and opens the connection at `deadline` (the group's ramp-up).
    func open(at deadline: UInt64) {
        context.loop.add(client)
        context.loop.schedule(at: deadline, target: self, tag: Timer.open.tag(0))
    }

    /// A device's tick, due at `due`: send now if connected and the window allows, otherwise
    /// keep or skip it as the offline policy says. Every call ends in exactly one counter.
    func submit(from device: Device, payload: [UInt8], due: UInt64?, now: UInt64) {
        if machine.isConnected, queue.isEmpty, hasRoom {
            send(device: device, payload: payload, due: due, now: now)
        } else if machine.isConnected || keepsOfflineTicks {
            enqueue(Queued(device: device, payload: payload, due: due))
        } else {
            counters.add(.skippedOffline)
        }
    }

    /// The run is ending: DISCONNECT if connected, otherwise stop trying.
    func stop() {
        perform(machine.stop())
    }

    /// Whether a message handed over now would go out at once: connected, nothing queued ahead
    /// of it, room in the QoS 1/2 window, and the socket not backed up. Never with a broker that
    /// breaks QoS 2: a `publish: max` device then waits rather than fail as fast as it can.
    var canSendNow: Bool { machine.isConnected && queue.isEmpty && hasRoom && !client.wantsWrite && !brokerBreaksQoS2 }

    /// `publish: max` devices waiting for room, woken when there is some.
    private var sleepers: [Device] = []

    /// Wakes `device` as soon as the connection can send.
    func wake(_ device: Device) {
        sleepers.append(device)
    }

    private func wakeSleepers() {
        guard !sleepers.isEmpty, canSendNow else { return }
        let now = MonotonicClock.now()
        for device in sleepers { context.loop.schedule(at: now, target: device) }
        sleepers.removeAll(keepingCapacity: true)
    }

    /// Whether libmosquitto may take another message without its memory growing: room in the
    /// QoS 1/2 window, or for QoS 0, which has none, a socket that took everything so far. A
    /// message that finds no room waits in the bounded queue, so a broker slower than the
    /// schedule costs evicted, counted messages, never unbounded memory.
    private var hasRoom: Bool { qos == 0 ? !client.wantsWrite : outstanding.count < maxInFlight }

    private func enqueue(_ message: Queued) {
        counters.add(.buffered)
        let evicted = queue.push(message, bytes: message.payload.count + message.device.topic.count)
        if evicted > 0 {
            counters.add(.buffered, -evicted)
            counters.add(.droppedBuffer, evicted)
        }
    }

    private func flush() {
        guard !queue.isEmpty else { return }
        let now = MonotonicClock.now()
        while machine.isConnected, hasRoom, let message = queue.popFirst() {
            counters.add(.buffered, -1)
            send(device: message.device, payload: message.payload, due: message.due, now: now)
        }
    }

    private func send(device: Device, payload: [UInt8], due: UInt64?, now: UInt64) {
        if brokerBreaksQoS2 {
            counters.add(.failed)
            context.control.count(Connection.qos2Failure)
            return
        }
        let (messageID, error) = device.topic.withUnsafeBufferPointer { topic in
            payload.withUnsafeBytes { bytes in
                client.publish(topic: topic.baseAddress!, payload: bytes, qos: qos, retain: device.plan.retain)
            }
        }
        // With an error libmosquitto may still have queued a QoS 1/2 message before it tried to
        // write it (the socket failed under the write): it resends it after the reconnect, and
        // its acknowledgement will come.
        if let error, qos == 0 || !Connection.keepsMessage(error) {
            counters.add(.failed)
            context.control.connectionFailed("publish failed: \(error) (first on topic \(device.plan.topic))",
                                             key: "publish failed: \(error)", host: plan.options.host, port: plan.options.port)
        } else {
            counters.add(.published)
            device.published += 1
            if let due { recordLateness(due: due, now: now) }
            if qos > 0 { markInFlight(messageID, device: device) }
        }
        context.loop.markDirty(client)
    }

    /// Lateness is measured when a message is handed to libmosquitto, not when its tick fires:
    /// a message that waited in the queue, behind a full window or through an outage, was
    /// published that much later than its schedule said, and the figure must show it.
    private func recordLateness(due: UInt64, now: UInt64) {
        let lateness = now > due ? now - due : 0
        context.lateness.record(lateness)
        if lateness > Connection.lateThreshold { counters.add(.late) }
    }

    private func markInFlight(_ messageID: Int32, device: Device) {
        outstanding[messageID] = InFlight(device: device, publishedAt: MonotonicClock.now())
        counters.add(.inFlight)
    }

    /// Errors with which `mosquitto_publish` still keeps a QoS 1/2 message for resending.
    private static func keepsMessage(_ error: MosquittoError) -> Bool {
        error == .connectionLost || error == .errno || error == .noConnection
    }

    private func perform(_ action: ConnectionStateMachine.Action) {
        switch action {
        case .none:
            break
        case .connect:
            refusedThisAttempt = false
            do {
                if mustDiscardLibraryQueue {
                    try client.discardQueuedMessages()
                    mustDiscardLibraryQueue = false
                }
                try client.connect()
                context.loop.markDirty(client)
                timerGeneration += 1
                context.loop.schedule(at: MonotonicClock.now() &+ MonotonicClock.nanoseconds(connackTimeout),
                                      target: self, tag: Timer.connack.tag(timerGeneration))
            } catch {
                failed("cannot connect: \(error)")
                perform(machine.connectFailed(random: Double.random(in: 0..<1)))
            }
        case .resume(let firstTime):
            timerGeneration += 1
            counters.add(.connectionsUp)
            context.control.noteConnected(firstTime: firstTime, of: context.connectionCount)
            if !firstTime { counters.add(.reconnects) }
            if logsEvents { context.control.logger.info(firstTime ? "connected" : "reconnected", metadata) }
            let now = MonotonicClock.now()
            for device in devices where !device.hasStarted { device.start(now: now) }
            if silenceLimit > 0 { watchForSilence() }
            flush()
            wakeSleepers()
        case .pauseAndRetry(let delay):
            counters.add(.connectionsUp, -1)
            scheduleRetry(after: delay)
        case .retry(let delay):
            scheduleRetry(after: delay)
        case .disconnect:
            counters.add(.connectionsUp, -1)
            do {
                try client.disconnect()
                context.loop.markDirty(client)
            } catch {
                perform(machine.disconnected(random: 0, now: MonotonicClock.seconds()))
            }
        case .finished:
            timerGeneration += 1
            context.control.connectionFinished()
        }
    }

    private func watchForSilence() {
        context.loop.schedule(at: client.lastHeard &+ silenceLimit, target: self, tag: Timer.silence.tag(timerGeneration))
    }

    private func scheduleRetry(after delay: Double) {
        timerGeneration += 1
        if logsEvents {
            context.control.logger.info("reconnecting in \(formatSeconds(delay))", metadata)
        }
        context.loop.schedule(at: MonotonicClock.now() &+ MonotonicClock.nanoseconds(delay),
                              target: self, tag: Timer.retry.tag(timerGeneration))
    }

    private func failed(_ reason: String) {
        context.control.connectionFailed(reason, host: plan.options.host, port: plan.options.port)
    }

    private var metadata: KeyValuePairs<String, String> {
        ["client": plan.options.clientID ?? "-", "broker": "\(plan.options.host):\(plan.options.port)"]
    }
}

extension Connection: TimerTarget {
    func timerFired(tag: Int, now: UInt64) {
        if tag == Timer.open.tag(0) {
            perform(machine.start())
        } else if tag == Timer.retry.tag(timerGeneration) {
            perform(machine.retryDue())
        } else if tag == Timer.connack.tag(timerGeneration) {
            failed("no CONNACK within \(formatSeconds(connackTimeout))")
            // The next attempt's `mosquitto_connect_async` closes the silent socket.
            perform(machine.connackTimedOut(random: Double.random(in: 0..<1)))
        } else if tag == Timer.silence.tag(timerGeneration), machine.isConnected {
            if now >= client.lastHeard &+ silenceLimit {
                client.abandon(reporting: .keepalive)
            } else {
                watchForSilence()
            }
        }
    }
}

extension Connection: ClientDelegate {
    func client(_ client: Client, didReceiveConnack code: ConnackCode) {
        if !code.isAccepted {
            refusedThisAttempt = true
            failed("connection refused: \(code) (CONNACK code \(code.rawValue))")
        }
        perform(machine.connack(accepted: code.isAccepted, now: MonotonicClock.seconds()))
    }

    func client(_ client: Client, didDisconnect error: MosquittoError?) {
        let suspect = machine.state == .connected && suspectQoS2(error)
        if let error, machine.state == .connected {
            let reason = error == .keepalive
                ? "connection lost: nothing from the broker for \(formatSeconds(Double(silenceLimit) / 1e9)) (1.5 × keepalive)"
                : "connection lost: \(error)"
            context.control.connectionLost(reason, logged: logsEvents)
            if logsEvents { context.control.logger.warning(reason, metadata) }
        } else if let error, machine.state == .connecting, !refusedThisAttempt {
            // A refusal was already reported, with the broker's reason, by the CONNACK handler;
            // the close that follows it (MOSQ_ERR_CONN_REFUSED, or MOSQ_ERR_PROTOCOL for
            // MQTT 5) says less.
            failed("cannot connect: \(error)")
        }
        perform(machine.disconnected(random: Double.random(in: 0..<1), now: MonotonicClock.seconds(), stable: !suspect))
    }

    /// A connection lost with a protocol error while QoS 2 messages awaited their PUBCOMP: a
    /// broker that answers QoS 2 PUBLISH with PUBACK (RabbitMQ 3.10) makes libmosquitto drop the
    /// connection, and the resend after each reconnect does it again, for ever. The first few
    /// times it may be chance; then the broker is named, the messages libmosquitto holds for
    /// resending count as failed, and so do this connection's QoS 2 messages from then on.
    /// Returns whether the loss is one of the pattern, which keeps the backoff growing.
    private func suspectQoS2(_ error: MosquittoError?) -> Bool {
        guard qos == 2, !brokerBreaksQoS2 else { return false }
        guard error == .protocol, !outstanding.isEmpty else {
            qos2ProtocolLosses = 0   // "in a row": a loss for another reason breaks it
            return false
        }
        qos2ProtocolLosses += 1
        guard qos2ProtocolLosses >= Connection.qos2LossesToGiveUp else { return true }
        brokerBreaksQoS2 = true
        mustDiscardLibraryQueue = true
        context.control.warnOnce(Connection.qos2Failure + ": connections were lost with a protocol error right after "
                                         + "QoS 2 publishes, \(qos2ProtocolLosses) times in a row (RabbitMQ 3.10 answers them with PUBACK); "
                                         + "the QoS 2 messages of device group '\(plan.devices.first?.group ?? "")' count as failed: use qos: 1 with this broker",
                                         key: Connection.qos2Failure, host: plan.options.host, port: plan.options.port)
        for message in outstanding.values {
            message.device.published -= 1
            counters.add(.published, -1)
            counters.add(.inFlight, -1)
            counters.add(.failed)
            context.control.count(Connection.qos2Failure)
        }
        outstanding.removeAll()
        return true
    }

    static let qos2Failure = "publish failed: the broker does not handle QoS 2"

    func client(_ client: Client, didPublish messageID: Int32) {
        // QoS 0 reports writes, not acknowledgements; an id not outstanding is not ours to count.
        guard qos > 0, let message = outstanding.removeValue(forKey: messageID) else { return }
        qos2ProtocolLosses = 0
        context.latency.record(MonotonicClock.now() &- message.publishedAt)
        counters.add(.inFlight, -1)
        counters.add(.acknowledged)
        flush()
        wakeSleepers()
    }

    func clientCanWrite(_ client: Client) {
        flush()
        wakeSleepers()
    }
}

func formatSeconds(_ seconds: Double) -> String {
    let tenths = (seconds * 10).rounded()
    return "\(Int(tenths) / 10).\(Int(tenths) % 10)s"
}
