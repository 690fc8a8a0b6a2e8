import Glibc
import MQTT
import Mosquitto
import Reactor
import Report
import Scenario
import Transport

/// What a `ConnectionDriver` tells the connection it drives, on the loop's thread.
protocol ConnectionDriverDelegate: AnyObject {
    /// The next attempt is about to start: a last chance to reset the client.
    func driverWillConnect() throws(ClientSetupError)
    /// The broker accepted the connection; `firstTime` if it had never been up before.
    func driverDidConnect(firstTime: Bool)
    /// The connection is about to leave cleanly (the run's end, a pause): the last word before
    /// the DISCONNECT, and the reason code the DISCONNECT carries (MQTT 5).
    func driverWillDisconnect() -> ReasonCode
    /// Whether messages the broker has yet to acknowledge are out: the DISCONNECT then waits for
    /// them (`quiet()`), up to `ConnectionDriver.quietLimit`.
    func driverAwaitsAcknowledgements() -> Bool
    /// The connection that was up is gone, for `reason` (already in words).
    func driverDidLoseConnection(reason: String)
    /// An attempt failed before any CONNACK accepted it: refused, unreachable, closed or no
    /// CONNACK.
    func driverAttemptFailed(_ failure: AttemptFailure)
    /// The next attempt is `delay` seconds away.
    func driverWillRetry(after delay: Double)
    /// No CONNACK within the time allowed: give up on the attempt (`nil`), or wait this much
    /// longer.
    func driverConnackIsLate() -> Duration?
    /// Nothing more will happen on this connection.
    func driverDidFinish()
    /// An attempt to `from` failed, and the next goes to `to`: the next node of the cluster
    /// (`broker.hosts`).
    func driverWillFailOver(from: BrokerAddress, to: BrokerAddress)
    /// The connection sleeps, as asked (`pause()`); `wasConnected` if it was up until now.
    func driverDidPause(wasConnected: Bool)
    /// The broker accepted the connection after `attempt`, whose phases it may record; just
    /// before `driverDidConnect`.
    func driverConnected(after attempt: ConnectAttempt)
}

extension ConnectionDriverDelegate {
    func driverWillDisconnect() -> ReasonCode { .success }
    func driverAwaitsAcknowledgements() -> Bool { false }
    func driverDidPause(wasConnected: Bool) {}
    func driverWillConnect() throws(ClientSetupError) {}
    func driverConnackIsLate() -> Duration? { nil }
    func driverConnected(after attempt: ConnectAttempt) {}
    func driverWillFailOver(from: BrokerAddress, to: BrokerAddress) {}
}

/// One MQTT client driven through the connection state machine: its connect, CONNACK-timeout,
/// silence-watch and backoff timers, and the reasons of its failures in words. Device
/// connections and the verifier's subscribers are both driven by one. Confined to a loop.
///
/// The connection owns it and is the client's delegate: it hands the driver the CONNACK and the
/// close (`connackArrived`, `closed`), which are rare, and keeps the publish path to itself.
final class ConnectionDriver: TimerTarget {
    let client: Client
    /// The connection it drives, which owns it: set right after both are made.
    unowned(unsafe) var delegate: ConnectionDriverDelegate!
    private(set) var machine: ConnectionStateMachine
    /// How long an attempt may wait for its CONNACK before it is given up and retried; the
    /// delegate may change it for the next attempt in `driverWillConnect`.
    var connackTimeout: Duration
    /// Nanoseconds without a byte from the broker after which a connection counts as dead:
    /// 1.5 × keepalive, as a broker judges its clients; 0 for no watch. libmosquitto alone would
    /// wait twice the keepalive (a PINGREQ after one, the close after another). The keepalive is
    /// the broker's where its CONNACK sets one (Server Keep Alive), which libmosquitto's
    /// PINGREQs follow: set at each CONNACK.
    private(set) var silenceLimit: UInt64 = 0
    private let watchesSilence: Bool
    /// The CONNACK of the current attempt refused us; its reason is already reported.
    private var refusedThisAttempt = false
    /// Why the connection is being dropped (`abandon(because:)`), for the close that follows.
    private var abandonReason: String?
    /// The loop, for the WebSocket bridges of the attempts.
    private let loop: EventLoop
    /// The attempt's bridge, for a client over WebSockets (`options.webSocketPath`) or with
    /// CONNECT properties (raw).
    private var bridge: BrokerBridge?
    /// Why the bridge gave up, for the close of libmosquitto's connection that follows.
    private var bridgeFailure: String?
    /// The run's DISCONNECT was handed to libmosquitto, which then closed its connection.
    private var disconnectedCleanly = false
    /// The reason code of the DISCONNECT under way (`driverWillDisconnect`), which may wait for
    /// acknowledgements before it goes.
    private var disconnectReason = ReasonCode.success
    /// The last attempt failed with the host down: the next goes to the cluster's next node.
    private var failsOver = false
    /// The DISCONNECT under way is a pause's, of a connection that was up.
    private var pausesConnected = false
    /// The connection is done but for its bridge, which is carrying the DISCONNECT to the
    /// broker: `driverDidFinish` once it has closed.
    private var finishesWithBridge = false
    private let startTimer: Timer
    private let retryTimer: Timer
    private let connackTimer: Timer
    private let silenceTimer: Timer
    /// The wait for the broker's last acknowledgements before the DISCONNECT (`quiet()`).
    private let quietTimer: Timer
    /// When the current attempt began: its connect call, or its bridge's (monotonic ns).
    private var attemptStartedAt: UInt64 = 0

    /// How long a DISCONNECT waits for the acknowledgements of what went before it. Not waiting
    /// cost the messages themselves: libmosquitto closes the socket as soon as the DISCONNECT is
    /// written, a PUBACK that has arrived unread makes that close a reset, and the broker, which
    /// drops what it had not read yet on a reset, lost the DISCONNECT with it (mosquitto 2.0.11:
    /// "disconnected due to out of memory") and published the will.
    static let quietLimit: UInt64 = 1_000_000_000

    init(client: Client, reconnect: ReconnectSettings, connackTimeout: Duration, watchesSilence: Bool, loop: EventLoop) {
        self.client = client
        self.connackTimeout = connackTimeout
        self.loop = loop
        self.watchesSilence = watchesSilence
        machine = ConnectionStateMachine(backoff: Backoff(initial: reconnect.initial / .seconds(1), maximum: reconnect.max / .seconds(1)))
        startTimer = Timer(on: loop)
        retryTimer = Timer(on: loop)
        connackTimer = Timer(on: loop)
        silenceTimer = Timer(on: loop)
        quietTimer = Timer(on: loop)
        for timer in [startTimer, retryTimer, connackTimer, silenceTimer, quietTimer] { timer.target = self }
    }

    var isConnected: Bool { machine.isConnected }
    /// Whether a CONNACK has ever accepted it.
    var hasConnected: Bool { machine.hasConnected }
    var state: ConnectionStateMachine.State { machine.state }

    /// Opens the connection at `deadline` (a ramp-up's place). Loop thread only.
    func open(at deadline: UInt64) {
        startTimer.schedule(at: deadline)
    }

    /// Sleep until `resume()`: DISCONNECT if connected, or give up the attempt or the wait.
    func pause() {
        perform(machine.pause())
    }

    /// Wake from a pause: connect now.
    func resume() {
        perform(machine.resume())
    }

    /// The run is ending: DISCONNECT if connected, otherwise stop trying.
    func stop() {
        startTimer.cancel()
        perform(machine.stop())
    }

    /// The broker answered CONNECT.
    func connackArrived(_ code: ConnackCode) {
        if !code.isAccepted {
            refusedThisAttempt = true
            attemptFailed(
                AttemptFailure(
                    reason: "connection refused: \(code) (CONNACK code \(code.rawValue))",
                    hint: code.refusesCredentials ? AttemptFailure.credentialsHint : "", refusal: code))
        } else if watchesSilence {
            let keepalive = client.brokerLimits.keepalive(asked: client.options.keepalive)
            silenceLimit = keepalive > .zero ? MonotonicClock.nanoseconds(keepalive * 1.5) : 0
        }
        if code.isAccepted, machine.state == .connecting { delegate.driverConnected(after: attempt(connackAt: MonotonicClock.now())) }
        perform(machine.connack(accepted: code.isAccepted, now: MonotonicClock.seconds()))
    }

    /// The current attempt's moments: the bridge's through one (libmosquitto's connection
    /// is to the bridge), the client's otherwise.
    private func attempt(connackAt: UInt64) -> ConnectAttempt {
        if let bridge {
            return ConnectAttempt(
                started: attemptStartedAt, tcpConnected: bridge.connectedAt, usesTLS: client.options.tls != nil,
                tlsFinished: bridge.securedAt, usesWebSocket: client.options.webSocketPath != nil, upgraded: bridge.upgradedAt,
                connack: connackAt)
        }
        return ConnectAttempt(
            started: attemptStartedAt, tcpConnected: client.tcpConnectedAt, usesTLS: client.options.libraryTLS != nil,
            tlsFinished: client.tlsFinishedAt, connack: connackAt)
    }

    /// Drops the connection that is up at once, for `reason` (words for a lost connection:
    /// "connection lost: …"): the close that follows reports it, with libmosquitto's `error`
    /// for the delegate, and the connection is made again as after any loss.
    func abandon(because reason: String, error: MosquittoError = .connectionLost) {
        guard machine.isConnected else { return }
        abandonReason = reason
        client.abandon(reporting: error)
    }

    /// The socket closed; `stable: false` keeps the backoff growing however long it was up.
    func closed(_ error: MosquittoError?, stable: Bool = true) {
        quietTimer.cancel()
        let abandoned = abandonReason
        let transport = bridgeFailure
        abandonReason = nil
        bridgeFailure = nil
        if let error, machine.state == .connected {
            delegate.driverDidLoseConnection(reason: abandoned ?? transport.map { "connection lost: " + $0 } ?? "connection lost: \(error)")
        } else if let error, machine.state == .connecting, !refusedThisAttempt {
            // A refusal was already reported, with the broker's reason, by the CONNACK handler;
            // the close that follows it (MOSQ_ERR_CONN_REFUSED, or MOSQ_ERR_PROTOCOL for
            // MQTT 5) says less. A TLS failure, such as the broker's alert that it refuses the
            // client certificate, is no answer to the CONNECT, whatever its protocol.
            let failedInTLS = client.certificateRefusal != nil || transport?.hasPrefix("TLS") == true
            let closedByBroker = !failedInTLS && ((reachedBroker && (bridge != nil || Self.isClose(error))) || closedAfterHandshake(error))
            let reason =
                transport.map(Self.attemptFailure)
                ?? (closedByBroker ? "cannot connect: the broker closed the connection " + withoutConnack : cannotConnect(error))
            attemptFailed(AttemptFailure(reason: reason, unansweredByBroker: closedByBroker))
        }
        perform(machine.disconnected(random: Double.random(in: 0..<1), now: MonotonicClock.seconds(), stable: stable))
    }

    /// Whether the current attempt reached the broker: a TCP connection, or over WebSockets an
    /// upgrade the broker accepted.
    private var reachedBroker: Bool { bridge.map(\.wasOpened) ?? client.reachedBroker }

    /// An attempt under way has reached the broker, which has not answered it yet.
    var awaitsAnswerOfBroker: Bool { machine.state == .connecting && reachedBroker }

    /// A close by the peer, as opposed to a failure to connect or a TLS error.
    private static func isClose(_ error: MosquittoError) -> Bool {
        error.brokerReason == nil && (error == .connectionLost || (error == .errno && error.systemErrno == ECONNRESET))
    }

    /// A TLS connection the broker reset after the handshake: libmosquitto's read or write
    /// failed, which it says as `EPROTO` ("Protocol error") whatever the cause; within the
    /// connect call too, on loopback, where the handshake and the CONNECT may go in one.
    private func closedAfterHandshake(_ error: MosquittoError) -> Bool {
        error == .errno && error.systemErrno == EPROTO && client.options.libraryTLS != nil && client.tlsFinishedAt != nil
    }

    /// The rest of "the broker closed the connection …": after a TLS handshake in which devsim
    /// showed a client certificate, that the broker may refuse it, when no alert said so (a
    /// reset can overtake it); a broker that speaks no MQTT 5 closes there too.
    private var withoutConnack: String {
        guard client.tlsFinishedAt != nil, let certificate = client.options.libraryTLS?.certificate else { return "without a CONNACK" }
        return "right after the TLS handshake, without a CONNACK: it may refuse the client certificate "
            + CertificateVerification.named(certificate)
    }

    /// Why an attempt failed, in words: libmosquitto's, but a name that does not resolve says so
    /// and which (its own text is "Lookup error."), and a certificate refused, the broker's or
    /// devsim's, says why (its own is "A TLS error occurred.", or "Protocol error").
    private func cannotConnect(_ error: MosquittoError) -> String {
        if error == .lookup { return "cannot connect: cannot resolve host '\(client.options.host)'" }
        if let refusal = client.certificateRefusal { return "cannot connect: " + refusal }
        // Within the connect call (on loopback the handshake may end there), a failure after
        // the handshake is the CONNECT's write: the broker hung up before it had read a byte
        // of MQTT, so no protocol of ours is why.
        if client.awaitsConnack, closedAfterHandshake(error) {
            let why =
                client.options.libraryTLS?.certificate.map { "it did not take the client certificate " + CertificateVerification.named($0) }
                ?? "it may require a client certificate (tls.certificate and tls.key)"
            return "cannot connect: the broker closed the connection as the TLS handshake ended, before devsim's CONNECT reached it: " + why
        }
        return "cannot connect: \(error)"
    }

    /// A transport's failure as an attempt's: "cannot connect: …", said once.
    private static func attemptFailure(_ reason: String) -> String {
        reason.hasPrefix("cannot connect: ") ? reason : "cannot connect: " + reason
    }

    /// Starts the attempt: libmosquitto's connect, to the broker, or over WebSockets to a bridge
    /// that has begun its own connection to the broker.
    private func connectClient() throws {
        bridge?.close()
        bridge = nil
        bridgeFailure = nil
        attemptStartedAt = MonotonicClock.now()
        let options = client.options
        guard options.usesBridge else { return try client.connect() }
        let bridge = try BrokerBridge(
            endpoint: BridgeEndpoint(
                host: options.host, port: options.port, path: options.webSocketPath, tls: options.tls, bindAddress: options.bindAddress),
            loop: loop)
        bridge.delegate = self
        try client.connect(through: bridge.localPath)
        try bridge.start()
        self.bridge = bridge
    }

    /// What an attempt without a CONNACK in time was waiting for.
    private var lateAnswer: String {
        switch bridge?.phase {
        case .connecting: "no TCP connection to the broker within \(formatSeconds(connackTimeout))"
        case .securing: "no TLS handshake with the broker within \(formatSeconds(connackTimeout))"
        case .upgrading: "no answer to the WebSocket upgrade within \(formatSeconds(connackTimeout))"
        default: "no CONNACK within \(formatSeconds(connackTimeout))"
        }
    }

    private func perform(_ action: ConnectionStateMachine.Action) {
        switch action {
        case .none:
            break
        case .connect:
            if pausesConnected {
                // A resume came while the pause's DISCONNECT was under way: the pause did
                // happen, and the connection it took down is down before it comes up again.
                pausesConnected = false
                delegate.driverDidPause(wasConnected: true)
            }
            refusedThisAttempt = false
            disconnectedCleanly = false
            do {
                try failOverIfDue()
                try delegate.driverWillConnect()
                try connectClient()
                connackTimer.schedule(at: MonotonicClock.now() &+ MonotonicClock.nanoseconds(connackTimeout))
            } catch {
                let reason =
                    (error as? MosquittoError).map(cannotConnect) ?? (error as? TransportError).map { Self.attemptFailure($0.message) }
                    ?? "cannot connect: \(error)"
                bridge?.close()
                bridge = nil
                attemptFailed(AttemptFailure(reason: reason))
                perform(machine.connectFailed(random: Double.random(in: 0..<1)))
            }
        case .resume(let firstTime):
            connackTimer.cancel()
            if silenceLimit > 0 { silenceTimer.schedule(at: client.lastHeard &+ silenceLimit) }
            delegate.driverDidConnect(firstTime: firstTime)
        case .pauseAndRetry(let delay), .retry(let delay):
            connackTimer.cancel()
            silenceTimer.cancel()
            bridge?.close()
            delegate.driverWillRetry(after: delay)
            retryTimer.schedule(at: MonotonicClock.now() &+ MonotonicClock.nanoseconds(delay))
        case .disconnect:
            silenceTimer.cancel()
            disconnectedCleanly = true
            pausesConnected = machine.state == .pausing
            disconnectReason = delegate.driverWillDisconnect()
            if delegate.driverAwaitsAcknowledgements() {
                quietTimer.schedule(at: MonotonicClock.now() &+ Self.quietLimit)
            } else {
                sendDisconnect()
            }
        case .abandonAttempt:
            connackTimer.cancel()
            bridge?.close()
            client.abandon(reporting: .connectionLost)
            delegate.driverDidPause(wasConnected: false)
        case .reconnectSoon:
            // Not from here: the close is reported from libmosquitto's `on_disconnect`, and
            // when the DISCONNECT went out from `mosquitto_loop_write` (one handed over within a
            // callback, as a pause's that waited for the PUBACKs of a token's renewal), 2.0.11
            // reports it holding its out-packet lock, which `mosquitto_connect_async` takes
            // again: the loop's thread would hang for good.
            retryTimer.schedule(at: MonotonicClock.now())
        case .sleep:
            for timer in [startTimer, retryTimer, connackTimer, silenceTimer, quietTimer] { timer.cancel() }
            delegate.driverDidPause(wasConnected: pausesConnected)
            pausesConnected = false
        case .finished:
            for timer in [startTimer, retryTimer, connackTimer, silenceTimer, quietTimer] { timer.cancel() }
            if disconnectedCleanly, let bridge, bridge.phase != .closed {
                // The DISCONNECT waits in the bridge's socket; it must reach the broker, or the
                // broker publishes the will as for a connection lost.
                finishesWithBridge = true
                return
            }
            bridge?.close()
            // An attempt under way ends with the connection: its socket closes now, before
            // the delegate hears it is done (a successor with its client id may connect then).
            client.abandon(reporting: .connectionLost)
            delegate.driverDidFinish()
        }
    }

    /// An attempt came to nothing: the delegate hears why, and where the connection has a
    /// cluster's nodes, one the host did not answer (down, unreachable, silent; or its CONNACK
    /// says it is unavailable, busy or elsewhere) sends the next attempt to the next node. The
    /// backoff goes on growing as for any failure: a cluster that is down as a whole is not
    /// hammered. A connection stays where it was taken, its first node back or not.
    private func attemptFailed(_ failure: AttemptFailure) {
        if client.options.hosts.count > 1, failure.refusal.map({ [3, 0x88, 0x89, 0x9C, 0x9D].contains($0.rawValue) }) ?? true {
            failsOver = true
        }
        delegate.driverAttemptFailed(failure)
    }

    /// Moves the client to the next node before an attempt, if the last one failed over.
    private func failOverIfDue() throws(ClientSetupError) {
        guard failsOver else { return }
        failsOver = false
        let hosts = client.options.hosts
        let here = BrokerAddress(host: client.options.host, port: client.options.port)
        let next = hosts[((hosts.firstIndex(of: here) ?? -1) + 1) % hosts.count]
        delegate.driverWillFailOver(from: here, to: next)
        try client.move(to: next)
    }

    /// Everything before the DISCONNECT is acknowledged: it goes now.
    func quiet() {
        guard quietTimer.isScheduled else { return }
        quietTimer.cancel()
        sendDisconnect()
    }

    private func sendDisconnect() {
        do {
            try client.disconnect(reason: disconnectReason)
        } catch {
            perform(machine.disconnected(random: 0, now: MonotonicClock.seconds()))
        }
    }

    func timerFired(_ timer: Timer, now: UInt64) {
        if timer === quietTimer {
            sendDisconnect()
        } else if timer === startTimer {
            perform(machine.start())
        } else if timer === retryTimer {
            perform(machine.retryDue())
        } else if timer === connackTimer {
            if let more = delegate.driverConnackIsLate() {
                connackTimer.schedule(at: now &+ MonotonicClock.nanoseconds(more))
                return
            }
            attemptFailed(AttemptFailure(reason: lateAnswer, unansweredByBroker: reachedBroker))
            // The next attempt's `mosquitto_connect_async` closes the silent socket.
            perform(machine.connackTimedOut(random: Double.random(in: 0..<1)))
        } else if timer === silenceTimer, machine.isConnected {
            if now >= client.lastHeard &+ silenceLimit {
                abandon(
                    because: "connection lost: nothing from the broker for \(formatSeconds(Double(silenceLimit) / 1e9)) (1.5 × keepalive)",
                    error: .keepalive)
            } else {
                silenceTimer.schedule(at: client.lastHeard &+ silenceLimit)
            }
        }
    }
}

extension ConnectionDriver: BrokerBridgeDelegate {
    func bridgeFailed(_ reason: String) {
        bridgeFailure = reason
    }

    func bridgeClosed() {
        guard finishesWithBridge else { return }
        finishesWithBridge = false
        delegate.driverDidFinish()
    }
}
