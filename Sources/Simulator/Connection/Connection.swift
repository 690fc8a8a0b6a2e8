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
    private var machine: ConnectionStateMachine
    private var queue: BoundedQueue<Queued>
    private let keepsOfflineTicks: Bool
    private let qos: Int32
    private let maxInFlight: Int
    private var inFlight = 0
    /// Tells a current retry timer from one made stale by a newer decision.
    private var retryGeneration = 0
    /// Log each connection's comings and goings only for small fleets; big ones rely on the
    /// status line and on failures logged once per reason.
    private let logsEvents: Bool

    struct Queued {
        let device: Device
        let payload: [UInt8]
    }

    private enum Timer: Int {
        case open, retry
    }

    init(plan: ConnectionPlan, seed: UInt64, maxInFlight: Int, logsEvents: Bool, context: LoopContext) throws(MosquittoError) {
        self.plan = plan
        client = try Client(options: plan.options)
        self.context = context
        self.maxInFlight = max(1, maxInFlight)
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
        devices = plan.devices.map { Device(plan: $0, seed: seed, connection: self, context: context) }
    }

    var isConnected: Bool { machine.isConnected }
    var isFinished: Bool { machine.state == .stopped }
    var unacknowledged: Int { inFlight }

    /// Joins the loop and opens the connection at `deadline` (the group's ramp-up).
    func open(at deadline: UInt64) {
        context.loop.add(client)
        context.loop.schedule(at: deadline, target: self, tag: Timer.open.rawValue)
    }

    /// A device's tick: send now if connected and the window allows, otherwise keep or skip it
    /// as the offline policy says. Every call ends in exactly one counter.
    func submit(from device: Device, payload: [UInt8]) {
        let counters = context.counters
        if machine.isConnected, queue.isEmpty, hasWindow {
            send(device: device, payload: payload)
        } else if machine.isConnected || keepsOfflineTicks {
            enqueue(Queued(device: device, payload: payload))
        } else {
            counters.add(.skippedOffline)
        }
    }

    /// The run is ending: DISCONNECT if connected, otherwise stop trying.
    func stop() {
        perform(machine.stop())
    }

    private var hasWindow: Bool { qos == 0 || inFlight < maxInFlight }

    private func enqueue(_ message: Queued) {
        let counters = context.counters
        counters.add(.buffered)
        let evicted = queue.push(message, bytes: message.payload.count + message.device.topic.count)
        if evicted > 0 {
            counters.add(.buffered, -evicted)
            counters.add(.droppedBuffer, evicted)
        }
    }

    private func flush() {
        while machine.isConnected, hasWindow, let message = queue.popFirst() {
            context.counters.add(.buffered, -1)
            send(device: message.device, payload: message.payload)
        }
    }

    private func send(device: Device, payload: [UInt8]) {
        let counters = context.counters
        let result = device.topic.withUnsafeBufferPointer { topic in
            payload.withUnsafeBytes { bytes in
                Result { () throws(MosquittoError) in
                    try client.publish(topic: topic.baseAddress!, payload: bytes, qos: qos, retain: device.plan.retain)
                }
            }
        }
        switch result {
        case .success:
            counters.add(.published)
            if qos > 0 {
                inFlight += 1
                counters.add(.inFlight)
            }
        case .failure(let error):
            counters.add(.failed)
            failed("publish to \(device.plan.topic) failed: \(error)")
        }
        context.loop.markDirty(client)
    }

    private func perform(_ action: ConnectionStateMachine.Action) {
        switch action {
        case .none:
            break
        case .connect:
            do {
                try client.connect()
                context.loop.markDirty(client)
            } catch {
                failed("cannot connect: \(error)")
                perform(machine.connectFailed(random: Double.random(in: 0..<1)))
            }
        case .resume(let firstTime):
            context.counters.add(.connectionsUp)
            context.control.noteConnected()
            if !firstTime { context.counters.add(.reconnects) }
            if logsEvents { context.control.logger.info(firstTime ? "connected" : "reconnected", metadata) }
            let now = MonotonicClock.now()
            for device in devices where !device.hasStarted { device.start(now: now) }
            flush()
        case .pauseAndRetry(let delay):
            context.counters.add(.connectionsUp, -1)
            scheduleRetry(after: delay)
        case .retry(let delay):
            scheduleRetry(after: delay)
        case .disconnect:
            context.counters.add(.connectionsUp, -1)
            do {
                try client.disconnect()
                context.loop.markDirty(client)
            } catch {
                perform(machine.disconnected(random: 0))
            }
        case .finished:
            context.control.connectionFinished()
        }
    }

    private func scheduleRetry(after delay: Double) {
        retryGeneration += 1
        if logsEvents {
            context.control.logger.info("reconnecting in \(formatSeconds(delay))", metadata)
        }
        let deadline = MonotonicClock.now() &+ UInt64(delay * 1e9)
        context.loop.schedule(at: deadline, target: self, tag: Timer.retry.rawValue | retryGeneration << 1)
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
        if tag == Timer.open.rawValue {
            perform(machine.start())
        } else if tag >> 1 == retryGeneration {
            perform(machine.retryDue())
        }
    }
}

extension Connection: ClientDelegate {
    func client(_ client: Client, didReceiveConnack code: ConnackCode) {
        if !code.isAccepted {
            failed("connection refused: \(code) (CONNACK code \(code.rawValue))")
        }
        perform(machine.connack(accepted: code.isAccepted))
    }

    func client(_ client: Client, didDisconnect error: MosquittoError?) {
        if let error, machine.state == .connected, logsEvents {
            context.control.logger.warning("connection lost: \(error)", metadata)
        } else if let error, machine.state == .connecting, error != .connectionRefused {
            // A refusal was already reported, with the broker's reason, by the CONNACK handler.
            failed("cannot connect: \(error)")
        }
        perform(machine.disconnected(random: Double.random(in: 0..<1)))
    }

    func client(_ client: Client, didPublish messageID: Int32) {
        guard qos > 0, inFlight > 0 else { return }
        inFlight -= 1
        context.counters.add(.inFlight, -1)
        context.counters.add(.acknowledged)
        flush()
    }
}

func formatSeconds(_ seconds: Double) -> String {
    let tenths = (seconds * 10).rounded()
    return "\(Int(tenths) / 10).\(Int(tenths) % 10)s"
}
