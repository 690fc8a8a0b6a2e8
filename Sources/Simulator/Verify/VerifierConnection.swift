import Mosquitto
import Scenario
import Synchronization

/// One subscriber connection of the verifier: subscribes to its topic filters after every
/// CONNACK (the session is clean, so the broker forgets them with each connection) and
/// reconnects with backoff. Confined to its loop, with the figures of its topics.
final class VerifierConnection: @unchecked Sendable {
    let client: Client
    let loop: EventLoop
    unowned(unsafe) var verifier: Verifier!
    let filters: [(key: String, value: Int32)]
    /// Written on the loop; read, and published counts added, once it has stopped.
    var streams: VerifiedStreams
    private var machine: ConnectionStateMachine
    private var pendingSubscriptions: Set<Int32> = []
    private var everSubscribed = false
    private var timerGeneration = 0
    private var wasFinished = false

    /// The protocol to speak should the broker not take MQTT 5 (the fleet's); `nil` once an
    /// MQTT 5 CONNACK came, or without one to fall back to.
    private var fallback: ClientOptions.ProtocolVersion?
    /// The current attempt waits the MQTT 5 trial's time for its CONNACK before the full time.
    private var onTrial = false
    /// Whether all its subscriptions are acknowledged on the current connection.
    private var isSubscribed = false

    static let connackTimeout = 10.0
    /// How long an MQTT 5 attempt waits for its CONNACK while a fallback remains: a broker that
    /// knows only MQTT 3 may not answer at all (amqtt 0.12), and the run waits for the verifier.
    static let mqtt5TrialTimeout = 2.0

    init(options: ClientOptions, fallback: ClientOptions.ProtocolVersion?, reconnect: ReconnectSettings,
         filters: [(key: String, value: Int32)], streams: VerifiedStreams, loop: EventLoop) throws {
        client = try Client(options: options)
        self.fallback = fallback
        self.loop = loop
        self.filters = filters
        self.streams = streams
        machine = ConnectionStateMachine(backoff: Backoff(initial: reconnect.initial, maximum: reconnect.max))
        client.delegate = self
    }

    func open() {
        loop.add(client)
        perform(machine.start())
    }

    func stop() {
        perform(machine.stop())
    }

    private func perform(_ action: ConnectionStateMachine.Action) {
        switch action {
        case .none:
            break
        case .connect:
            do {
                try client.connect()
                loop.markDirty(client)
                timerGeneration += 1
                onTrial = fallback != nil
                loop.schedule(at: MonotonicClock.now() &+ MonotonicClock.nanoseconds(onTrial ? Self.mqtt5TrialTimeout : Self.connackTimeout),
                              target: self, tag: timerGeneration << 1 | 1)
            } catch {
                verifier.logger.warning("verify: cannot connect: \(error)")
                perform(machine.connectFailed(random: Double.random(in: 0..<1)))
            }
        case .resume:
            timerGeneration += 1
            pendingSubscriptions.removeAll()
            for qos in Set(filters.map(\.value)).sorted() {
                let topics = filters.filter { $0.value == qos }.map(\.key)
                do {
                    pendingSubscriptions.formUnion(try client.subscribe(topics, qos: qos))
                } catch {
                    verifier.logger.warning("verify: cannot subscribe to '\(topics[0])' and \(topics.count - 1) more: \(error)")
                }
            }
            loop.markDirty(client)
        case .pauseAndRetry(let delay), .retry(let delay):
            timerGeneration += 1
            loop.schedule(at: MonotonicClock.now() &+ MonotonicClock.nanoseconds(delay), target: self, tag: timerGeneration << 1)
        case .disconnect:
            do {
                try client.disconnect()
                loop.markDirty(client)
            } catch {
                perform(machine.disconnected(random: 0, now: MonotonicClock.seconds()))
            }
        case .finished:
            timerGeneration += 1
            if !wasFinished {
                wasFinished = true
                verifier.finishedConnections.add(1, ordering: .relaxed)
            }
        }
    }
}

extension VerifierConnection: TimerTarget {
    func timerFired(tag: Int, now: UInt64) {
        guard tag >> 1 == timerGeneration else { return }
        if tag & 1 == 1 {
            if onTrial {
                onTrial = false
                // A broker of MQTT 3 only may take the connection and answer an MQTT 5 CONNECT
                // with silence; one not up yet (a SYN unanswered) proves nothing, and gets the
                // rest of the usual time.
                guard client.isTCPConnected else {
                    loop.schedule(at: now &+ MonotonicClock.nanoseconds(Self.connackTimeout - Self.mqtt5TrialTimeout), target: self, tag: tag)
                    return
                }
                _ = fallBack(because: "no answer to an MQTT 5 CONNECT within \(formatSeconds(Self.mqtt5TrialTimeout))")
            } else {
                verifier.logger.warning("verify: no CONNACK within \(formatSeconds(Self.connackTimeout))")
            }
            perform(machine.connackTimedOut(random: Double.random(in: 0..<1)))
        } else {
            perform(machine.retryDue())
        }
    }
}

extension VerifierConnection: ClientDelegate {
    /// Gives up on MQTT 5 for the fleet's protocol, if there is one to fall back to; returns
    /// whether it did.
    private func fallBack(because reason: String) -> Bool {
        guard let version = fallback else { return false }
        fallback = nil
        do {
            try client.use(version)
        } catch {
            verifier.logger.warning("verify: \(error)")
            return false
        }
        verifier.logger.info("verify: \(reason); the subscriber speaks the fleet's MQTT \(version == .v31 ? "3.1" : "3.1.1"), "
                             + "with which the broker alone sets how many messages it sends unacknowledged (mosquitto: 20), "
                             + "which may keep it from keeping up at high rates")
        return true
    }

    func client(_ client: Client, didReceiveConnack code: ConnackCode) {
        if code.isAccepted {
            fallback = nil
        } else if code.rawValue == 1 || code.rawValue == 0x84, fallBack(because: "the broker refused MQTT 5 (\(code))") {
            // Retried with the fleet's protocol after the backoff.
        } else {
            verifier.logger.warning("verify: connection refused: \(code)")
        }
        perform(machine.connack(accepted: code.isAccepted, now: MonotonicClock.seconds()))
    }

    func client(_ client: Client, didDisconnect error: MosquittoError?) {
        if isSubscribed {
            isSubscribed = false
            verifier.subscribedNow.subtract(1, ordering: .relaxed)
            verifier.disturbances.add(1, ordering: .relaxed)
        }
        if let error, machine.state == .connected {
            verifier.logger.warning("verify: subscriber connection lost: \(error); messages published meanwhile count as lost")
        }
        perform(machine.disconnected(random: Double.random(in: 0..<1), now: MonotonicClock.seconds()))
    }

    func client(_ client: Client, didPublish messageID: Int32) {}

    func client(_ client: Client, didSubscribe messageID: Int32, grantedQoS: [Int32]) {
        if grantedQoS.contains(where: { $0 >= 0x80 }) {
            verifier.logger.warning("verify: the broker refused a subscription of \(filters.map(\.key).joined(separator: ", "))")
        }
        guard pendingSubscriptions.remove(messageID) != nil, pendingSubscriptions.isEmpty else { return }
        isSubscribed = true
        verifier.subscribedNow.add(1, ordering: .relaxed)
        verifier.disturbances.add(1, ordering: .relaxed)
        guard !everSubscribed else { return }
        everSubscribed = true
        verifier.subscribedConnections.add(1, ordering: .relaxed)
    }

    func client(_ client: Client, didReceive message: ReceivedMessage) {
        if streams.receive(message) { verifier.receivedCount.add(1, ordering: .relaxed) }
    }
}
