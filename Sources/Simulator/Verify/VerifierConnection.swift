import MQTT
import Mosquitto
import Reactor
import Report
import Scenario
import Synchronization

/// One subscriber connection of the verifier, brought up and down by its `ConnectionDriver`:
/// subscribes to its topic filters after every CONNACK (the session is clean, so the broker
/// forgets them with each connection), tries MQTT 5 first, and counts what arrives. Confined to
/// its loop, with the figures of its topics.
final class VerifierConnection: Session {
    let client: Client
    let loop: EventLoop
    unowned(unsafe) var verifier: Verifier!
    private var subscriptions: Subscriptions
    var filters: [(key: String, value: QoS)] { subscriptions.filters }
    /// Written on the loop; read, and published counts added, once it has stopped.
    var streams: VerifiedStreams
    /// Publish-to-receipt times read from the payloads' send timestamps.
    var latency = Histogram()
    /// Whether it is subscribed now, for the devices it watches.
    let presence = VerifierPresence()
    let driver: ConnectionDriver
    /// Every filter of its was granted, once or more: it measured what it was there for.
    private(set) var everSubscribed = false
    /// The broker refused it for good (`ConnackCode.isLasting`): it tries no more, and what it
    /// watched is not measured from then on.
    private(set) var gaveUp = false
    /// Subscribed, refused (a CONNACK, a SUBACK) or failed to connect: what the start waits for
    /// (`Verifier.start`).
    private var isSettled = false
    private var wasFinished = false
    /// The protocol to speak should the broker not take MQTT 5 (the fleet's); `nil` once an
    /// MQTT 5 CONNACK came, or without one to fall back to.
    private var fallback: ProtocolVersion?
    /// The current attempt waits the MQTT 5 trial's time for its CONNACK before the full time.
    private var onTrial = false
    /// The trial had no answer and fell back: the attempt's failure only makes way for the next.
    private var trialFellBack = false
    /// Whether all its subscriptions are acknowledged on the current connection.
    private var isSubscribed = false
    /// A SUBACK of the current connection refused a filter.
    private var hasRefusal = false

    static let connackTimeout = Defaults.connackTimeout
    /// How long an MQTT 5 attempt waits for its CONNACK while a fallback remains: a broker that
    /// knows only MQTT 3 may not answer at all (amqtt 0.12), and the run waits for the verifier.
    static let mqtt5TrialTimeout = Duration.seconds(2)

    init(
        options: ClientOptions, fallback: ProtocolVersion?, reconnect: ReconnectSettings,
        filters: [(key: String, value: QoS)], streams: VerifiedStreams, loop: EventLoop
    ) throws {
        client = try Client(options: options)
        self.loop = loop
        self.fallback = fallback
        subscriptions = Subscriptions(filters: filters)
        self.streams = streams
        driver = ConnectionDriver(
            client: client, reconnect: reconnect, connackTimeout: Self.connackTimeout, watchesSilence: false, loop: loop)
        wire()
    }

    func open() {
        open(on: loop, at: MonotonicClock.now())
    }

    func stop() {
        driver.stop()
    }

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
        // Once for all the verifier's connections, each of which falls back on its own.
        verifier.tellOnce(
            "\(reason); the subscriber speaks the fleet's MQTT \(version == .v31 ? "3.1" : "3.1.1"), with which the broker "
                + "alone sets how many messages it sends unacknowledged, which may keep it from keeping up at high rates")
        return true
    }
}

extension VerifierConnection {
    func driverWillConnect() throws(ClientSetupError) {
        onTrial = fallback != nil
        driver.connackTimeout = onTrial ? Self.mqtt5TrialTimeout : Self.connackTimeout
    }

    /// A broker of MQTT 3 only may take the connection and answer an MQTT 5 CONNECT with
    /// silence; one not up yet (a SYN unanswered) proves nothing, and gets the rest of the usual
    /// time.
    func driverConnackIsLate() -> Duration? {
        guard onTrial else { return nil }
        onTrial = false
        guard client.isTCPConnected else { return Self.connackTimeout - Self.mqtt5TrialTimeout }
        trialFellBack = fallBack(because: "no answer to an MQTT 5 CONNECT within \(formatSeconds(Self.mqtt5TrialTimeout))")
        return nil
    }

    func driverDidConnect(firstTime: Bool) {
        fallback = nil
        verifier.noteConnack()
        let problems = subscriptions.subscribe(with: client)
        // A filter it could not ask for leaves its topics unwatched, as a refused one does.
        hasRefusal = !problems.isEmpty
        for problem in problems { refused(problem) }
    }

    /// The broker will not let it do its job, for `reason`: said once, and kept for the summary.
    private func refused(_ reason: String) {
        verifier.warnOnce(reason)
        verifier.noteProblem(reason)
        settle()
    }

    private func settle() {
        guard !isSettled else { return }
        isSettled = true
        verifier.settledConnections.add(1, ordering: .relaxed)
    }

    func driverDidLoseConnection(reason: String) {
        verifier.logger.warning(Self.lossWarning(reason))
    }

    /// `verify: subscriber connection lost: The connection was lost; what is published meanwhile
    /// is missed while away`: libmosquitto's sentence loses its period inside ours.
    static func lossWarning(_ reason: String) -> String {
        let reason = reason.hasSuffix(".") ? String(reason.dropLast()) : reason
        return "verify: subscriber \(reason); what is published meanwhile is missed while away"
    }

    func driverAttemptFailed(_ failure: AttemptFailure) {
        if trialFellBack {
            trialFellBack = false
            return  // retried with the fleet's protocol after the backoff
        }
        // 1: "unacceptable protocol version" from a broker of MQTT 3; 0x84, the same in MQTT 5.
        // A broker of MQTT 3 may also close the connection without a word (RabbitMQ 3.10).
        if let refusal = failure.refusal, refusal.rawValue == 1 || refusal.rawValue == 0x84,
            fallBack(because: "the broker refused MQTT 5 (\(refusal))")
        {
            return  // retried with the fleet's protocol after the backoff
        }
        if failure.unansweredByBroker, fallBack(because: "the broker closed the connection of an MQTT 5 CONNECT without a CONNACK") {
            return
        }
        if let refusal = failure.refusal, refusal.isLasting {
            // Tried again and again, it would be refused as often for the whole run.
            gaveUp = true
            refused("the broker refused the verifier's connection: \(failure.reason); it does not try again")
            LoopBound(self, on: loop).execute { $0.stop() }
        } else {
            let speaksMQTT5 = client.options.protocolVersion == .v5
            let reason = failure.reason + (failure.unansweredByBroker && speaksMQTT5 ? AttemptFailure.mqtt5Hint : "")
            verifier.warnOnce(reason)
            verifier.noteFailure(reason)
            // The devices wait for it no longer: they meet the same broker now, and say what they
            // find, while it tries on; what they publish before it subscribes is missed while away.
            settle()
        }
    }

    func driverWillRetry(after delay: Double) {}

    func driverDidFinish() {
        if !wasFinished {
            wasFinished = true
            verifier.finishedConnections.add(1, ordering: .relaxed)
        }
    }
}

extension VerifierConnection {
    func client(_ client: Client, didDisconnect error: MosquittoError?) {
        presence.set(listeningOn: nil)
        if isSubscribed {
            isSubscribed = false
            verifier.subscribedNow.subtract(1, ordering: .relaxed)
            verifier.disturbances.add(1, ordering: .relaxed)
        }
        driver.closed(error)
    }

    func client(_ client: Client, didSubscribe messageID: Int32, grantedQoS: [Int32]) {
        guard let suback = subscriptions.acknowledged(messageID, grantedQoS: grantedQoS) else { return }
        if let refusal = suback.refusal {
            hasRefusal = true
            refused(refusal + ": the topics it stands for are not verified")
        }
        guard suback.isLast, !hasRefusal else { return }
        isSubscribed = true
        presence.set(listeningOn: VerifierPresence.host(of: client.options))
        verifier.subscribedNow.add(1, ordering: .relaxed)
        verifier.disturbances.add(1, ordering: .relaxed)
        guard !everSubscribed else { return }
        everSubscribed = true
        settle()
    }

    func client(_ client: Client, didReceive message: ReceivedMessage) {
        switch streams.receive(message, latency: &latency) {
        case .new:
            verifier.receivedCount.add(1, ordering: .relaxed)
        case .newPastAGap:
            verifier.receivedCount.add(1, ordering: .relaxed)
            verifier.gapsSeen.add(1, ordering: .relaxed)
        case .notOurs:
            // Retained, or of a topic a filter of its matches that no device of the fleet's
            // publishes on; else a topic the broker rewrote.
            guard !message.retain, let warning = UnmatchedTopic.warning(topic: message.topic, filters: filters.map(\.key)) else {
                break
            }
            verifier.noteUnmatched(warning)
        case .copy:
            break
        }
    }
}
