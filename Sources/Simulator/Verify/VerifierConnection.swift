import Mosquitto
import Scenario
import Synchronization

/// One subscriber connection of the verifier: subscribes to its topic filters after every
/// CONNACK (the session is clean, so the broker forgets them with each connection) and
/// reconnects with backoff. Confined to the verifier's loop.
final class VerifierConnection: @unchecked Sendable {
    let client: Client
    unowned(unsafe) var verifier: Verifier!
    let filters: [(key: String, value: Int32)]
    private let topics: TopicTable
    private var machine: ConnectionStateMachine
    private var pendingSubscriptions: Set<Int32> = []
    private var everSubscribed = false
    private var timerGeneration = 0
    private var wasFinished = false

    static let connackTimeout = 10.0

    init(options: ClientOptions, reconnect: ReconnectSettings, filters: [(key: String, value: Int32)], topics: TopicTable) throws {
        client = try Client(options: options)
        self.filters = filters
        self.topics = topics
        machine = ConnectionStateMachine(backoff: Backoff(initial: reconnect.initial, maximum: reconnect.max))
        client.delegate = self
    }

    func open() {
        verifier.loop.add(client)
        perform(machine.start())
    }

    func stop() {
        perform(machine.stop())
    }

    private func perform(_ action: ConnectionStateMachine.Action) {
        let loop = verifier.loop
        switch action {
        case .none:
            break
        case .connect:
            do {
                try client.connect()
                loop.markDirty(client)
                timerGeneration += 1
                loop.schedule(at: MonotonicClock.now() &+ MonotonicClock.nanoseconds(Self.connackTimeout),
                              target: self, tag: timerGeneration << 1 | 1)
            } catch {
                verifier.logger.warning("verify: cannot connect: \(error)")
                perform(machine.connectFailed(random: Double.random(in: 0..<1)))
            }
        case .resume:
            timerGeneration += 1
            pendingSubscriptions.removeAll()
            for (filter, qos) in filters {
                do {
                    pendingSubscriptions.insert(try client.subscribe(filter, qos: qos))
                } catch {
                    verifier.logger.warning("verify: cannot subscribe to '\(filter)': \(error)")
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
            verifier.logger.warning("verify: no CONNACK within \(formatSeconds(Self.connackTimeout))")
            perform(machine.connackTimedOut(random: Double.random(in: 0..<1)))
        } else {
            perform(machine.retryDue())
        }
    }
}

extension VerifierConnection: ClientDelegate {
    func client(_ client: Client, didReceiveConnack code: ConnackCode) {
        if !code.isAccepted { verifier.logger.warning("verify: connection refused: \(code)") }
        perform(machine.connack(accepted: code.isAccepted, now: MonotonicClock.seconds()))
    }

    func client(_ client: Client, didDisconnect error: MosquittoError?) {
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
        guard pendingSubscriptions.remove(messageID) != nil, pendingSubscriptions.isEmpty, !everSubscribed else { return }
        everSubscribed = true
        verifier.subscribedConnections.add(1, ordering: .relaxed)
    }

    func client(_ client: Client, didReceive message: ReceivedMessage) {
        // A retained message is sent for the subscription, not published by this run.
        guard !message.retain, let stream = topics[message.topicBytes] else {
            verifier.foreign += 1
            return
        }
        verifier.received(message, stream: stream)
    }
}
