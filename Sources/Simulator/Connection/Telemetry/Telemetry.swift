import MQTT
import Mosquitto
import Reactor
import Report
import Scenario

/// A device connection's first job: its devices' ticks as PUBLISHes. Sends a tick at once where
/// the connection is up and has room, keeps it in a bounded queue where it has not (or skips it,
/// as the offline policy says), holds the QoS 1/2 messages awaiting acknowledgement in its window,
/// wakes `publish: max` devices when there is room, and records lateness and latency. Every tick
/// it is handed ends in exactly one counter. Its session (`DeviceConnection`) tells it whether
/// ticks are parked and hands it the client's events. Confined to the connection's loop.
final class Telemetry: TimerTarget {
    let plan: ConnectionPlan
    let qos: QoS
    // Strong `let`s, as `Device` holds its own: the publish path uses them without a reference
    // count changing (callgrind).
    let client: Client
    let driver: ConnectionDriver
    /// Its group's on this loop, or for a cluster's (`broker.hosts`) those of the host it is on,
    /// changed at a failover (`count(on:host:)`): unchecked, as a `let`'s load, on the publish path.
    @exclusivity(unchecked) private(set) var counters: Counters
    let context: LoopContext
    private var queue: BoundedQueue<Queued>
    private let keepsOfflineTicks: Bool
    /// QoS 1/2 messages libmosquitto holds until acknowledged, and how many it may hold.
    var inFlight: InFlightWindow<Device>
    /// Whether the broker answers QoS 2 as it should.
    var qos2Guard: QoS2Guard
    /// libmosquitto still holds QoS 2 messages that it would resend at the next connect: the
    /// client is reset first.
    var mustDiscardLibraryQueue = false
    /// `broker.ackTimeout`'s watch, and its timer at the earliest moment a message in
    /// `inFlight` can time out.
    let ackWatch: AckWatch?
    let ackTimer: Timer
    /// Ticks due now count as `paused`, and what the queue holds waits: the session's standing
    /// parks them (`ConnectionStanding.parksTicks`), or a role holds them (`RoleContext.holdTelemetry`:
    /// data that waits for the births of an edge node).
    private(set) var parksTicks = false
    private var parkedByStanding = false
    private var heldByRole = false
    /// Messages beside the ticks at QoS 1 not yet acknowledged, by id: what they were for, in
    /// the words of a refusal. A DISCONNECT waits for them too.
    var besideAwaitingAcknowledgement: [Int32: (topic: String, what: String)] = [:]
    /// `publish: max` devices waiting for room, woken when there is some.
    private var sleepers: [Device] = []

    struct Queued {
        let device: Device
        let payload: [UInt8]
        /// The tick's deadline; nil for `publish: max`, which has none.
        let due: UInt64?
        /// Its topic, by the device's slot (`Device.topic(slot:)`); -1 for the device's own.
        var slot = -1
    }

    /// Lateness beyond which a message counts as late, in nanoseconds.
    static let lateThreshold: UInt64 = 2_000_000

    /// What every message carries, written as libmosquitto takes it (`MessageStamp`): each tick,
    /// and each message beside them that asks for it.
    let stamp: (any MessageStamp)?

    /// The host of `broker.hosts` it is on (its place there; 0 for one broker): which one a
    /// verifier hears (`VerifierPresence`). Changed at a failover (`count(on:host:)`).
    private(set) var host: Int

    init(
        plan: ConnectionPlan, client: Client, driver: ConnectionDriver, counters: Counters, context: LoopContext,
        stamp: (any MessageStamp)? = nil
    ) {
        self.stamp = stamp
        self.plan = plan
        host = VerifierPresence.host(of: plan.options)
        self.client = client
        self.driver = driver
        self.counters = counters
        self.context = context
        qos = plan.devices.first?.qos ?? .atMostOnce
        inFlight = InFlightWindow(limit: Int(plan.options.maxInFlight))
        qos2Guard = QoS2Guard(watching: qos == .exactlyOnce)
        ackWatch = plan.ackTimeout.map { AckWatch(limit: MonotonicClock.nanoseconds($0.limit), reconnects: $0.action == .reconnect) }
        ackTimer = Timer(on: context.loop)
        switch plan.offline {
        case .drop:
            keepsOfflineTicks = false
            queue = BoundedQueue(maxMessages: OfflinePolicy.defaultMaxMessages, maxBytes: OfflinePolicy.defaultMaxBytes)
        case .buffer(let maxMessages, let maxBytes):
            keepsOfflineTicks = true
            queue = BoundedQueue(maxMessages: maxMessages, maxBytes: maxBytes)
        }
        ackTimer.target = self
    }

    func timerFired(_ timer: Timer, now: UInt64) {
        checkAcknowledgements(now: now)
    }

    /// Lets go of the devices it holds (queued, asleep, in flight), once the loops have stopped.
    func dismantle() {
        sleepers.removeAll()
        queue = BoundedQueue(maxMessages: queue.maxMessages, maxBytes: queue.maxBytes)
        _ = inFlight.removeAll()
    }

    /// The connection leaves the fleet: its `publish: max` devices wait for room no more.
    func retire() {
        sleepers.removeAll()
    }

    /// Nothing more will happen on the connection.
    func finish() {
        ackTimer.cancel()
    }

    /// The session's standing parks the ticks, or no longer.
    func park(_ parked: Bool) {
        parkedByStanding = parked
        parksTicks = parkedByStanding || heldByRole
    }

    /// A role holds the ticks, or no longer.
    func hold(_ held: Bool) {
        heldByRole = held
        parksTicks = parkedByStanding || heldByRole
    }

    /// Connected, with messages unacknowledged or queued: what the drain at a run's end waits for.
    var hasDrainableMessages: Bool { driver.isConnected && (!inFlight.isEmpty || !queue.isEmpty) }

    /// Ticks in the queue while connected, waiting for room; 0 while down, whatever an outage
    /// kept (`offline: buffer`). What a capacity search's cool-down waits for.
    var queuedWhileUp: Int { driver.isConnected ? queue.count : 0 }

    /// Whether a DISCONNECT still waits for acknowledgements: of ticks, or of messages beside them.
    var awaitsAcknowledgements: Bool { !inFlight.isEmpty || !besideAwaitingAcknowledgement.isEmpty }

    /// The connection was lost: libmosquitto resends the messages beside the ticks on the next
    /// connection, whose close waits for what it has.
    func lostConnection() {
        besideAwaitingAcknowledgement.removeAll()
    }

    /// A device's tick, due at `due`: send now if connected and the window allows, otherwise
    /// keep or skip it as the offline policy says. Every call ends in exactly one counter.
    /// Returns whether the message was taken: published, or queued to be.
    @discardableResult
    func submit(from device: Device, payload: UnsafeRawBufferPointer, due: UInt64?, now: UInt64, slot: Int = -1) -> Bool {
        if let untaken = untakenTick {
            counters.add(untaken)
            return false
        } else if driver.isConnected, queue.isEmpty, hasRoom {
            return send(device: device, payload: payload, due: due, now: now, slot: slot)
        } else {
            enqueue(Queued(device: device, payload: Array(payload), due: due, slot: slot))
            return true
        }
    }

    /// Where a tick due now ends without being taken: `paused` while ticks are parked,
    /// `skippedOffline` while down under `offline: drop`; `nil` when it is published or queued.
    var untakenTick: Figure? {
        if parksTicks { return .paused }
        return driver.isConnected || keepsOfflineTicks ? nil : .skippedOffline
    }

    /// Whether a message handed over now would go out at once: connected, nothing queued ahead
    /// of it, room in the QoS 1/2 window, and the socket not backed up. Never with a broker that
    /// breaks QoS 2: a `publish: max` device then waits rather than fail as fast as it can.
    var canSendNow: Bool {
        driver.isConnected && !parksTicks && queue.isEmpty && hasRoom && !client.wantsWrite && !qos2Guard.brokerBreaksQoS2
    }

    /// Wakes `device` as soon as the connection can send.
    func wake(_ device: Device) {
        sleepers.append(device)
    }

    func wakeSleepers() {
        guard !sleepers.isEmpty, canSendNow else { return }
        let now = MonotonicClock.now()
        for device in sleepers { device.wake(at: now) }
        sleepers.removeAll(keepingCapacity: true)
    }

    /// Whether libmosquitto may take another message without its memory growing: room in the
    /// QoS 1/2 window, or for QoS 0, which has none, a socket that took everything so far. A
    /// message that finds no room waits in the bounded queue, so a broker slower than the
    /// schedule costs evicted, counted messages, never unbounded memory.
    private var hasRoom: Bool { !qos.isAcknowledged ? !client.wantsWrite : inFlight.hasRoom }

    /// Counts on `next` from now on, on the cluster's host `host` (a failover): the messages
    /// in flight and queued go with it, so each host's gauges hold its own.
    func count(on next: Counters, host: Int) {
        self.host = host
        guard next !== counters else { return }
        counters.add(.inFlight, -inFlight.count)
        next.add(.inFlight, inFlight.count)
        counters.add(.buffered, -queue.count)
        next.add(.buffered, queue.count)
        counters = next
    }

    private func enqueue(_ message: Queued) {
        counters.add(.buffered)
        let evicted = queue.push(message, bytes: message.payload.count + message.device.topic(slot: message.slot).cString.count)
        if evicted > 0 {
            counters.add(.buffered, -evicted)
            counters.add(.droppedBuffer, evicted)
        }
    }

    /// Sends what the queue holds while there is room: after a CONNACK, an acknowledgement, a
    /// drained socket; not while ticks are parked or held.
    func flush() {
        guard !queue.isEmpty, !parksTicks else { return }
        let now = MonotonicClock.now()
        while driver.isConnected, hasRoom, let message = queue.popFirst() {
            counters.add(.buffered, -1)
            message.payload.withUnsafeBytes {
                _ = send(device: message.device, payload: $0, due: message.due, now: now, slot: message.slot)
            }
        }
    }

    @discardableResult
    private func send(device: Device, payload: UnsafeRawBufferPointer, due: UInt64?, now: UInt64, slot: Int = -1) -> Bool {
        if qos2Guard.brokerBreaksQoS2 {
            counters.add(.failed)
            context.control.count(Telemetry.qos2Failure)
            return false
        }
        // Claimed before the hand-over: the message may be received before `publish` returns.
        let inWindow = slot < 0 && device.claimsWindow(payload)
        let (messageID, error) =
            if let stamp {
                stamp.publish(payload, beside: false) {
                    client.publish(topic: device.topic, payload: $0, qos: qos, retain: device.plan.retain)
                }
            } else if let properties = device.properties {
                publish(topic: device.topic(slot: slot), payload: payload, retain: device.retains(slot: slot), properties: properties)
            } else if slot < 0 {
                client.publish(topic: device.topic, payload: payload, qos: qos, retain: device.plan.retain)
            } else {
                client.publish(topic: device.topic(slot: slot), payload: payload, qos: qos, retain: device.retains(slot: slot))
            }
        // With an error libmosquitto may still have queued a QoS 1/2 message before it tried to
        // write it (the socket failed under the write): it resends it after the reconnect, and
        // its acknowledgement will come.
        if let error, !qos.isAcknowledged || !Telemetry.keepsMessage(error) {
            counters.add(.failed)
            context.control.connectionFailed(
                "publish failed: \(publishFailure(error, payload: payload.count)) (first on topic \(device.plan.topic))",
                key: "publish failed: \(error)", host: client.options.host, port: client.options.port)
            return false
        }
        counters.add(.published)
        device.notePublished(inWindow: inWindow)
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
        if lateness > Telemetry.lateThreshold { counters.add(.late) }
    }

    /// Why libmosquitto would not take a message of `payload` bytes, in words that name the
    /// broker's limit where one was broken.
    func publishFailure(_ error: MosquittoError, payload: Int) -> String {
        let limits = client.brokerLimits
        if error == .oversizePacket, let maximum = limits.maximumPacketSize {
            return "a message of \(payload) bytes makes a packet over the broker's Maximum Packet Size of \(maximum) bytes (its CONNACK)"
        }
        if error == .qosNotSupported {
            return "the broker takes QoS \(limits.maximumQoS) at most (Maximum QoS in its CONNACK), and this is QoS \(qos)"
        }
        return "\(error)"
    }

    /// Logs `message` once for the whole run, whichever connection says it.
    func warnOnce(_ message: String, key: String? = nil) {
        context.control.warnOnce(message, key: key, host: client.options.host, port: client.options.port)
    }
}
