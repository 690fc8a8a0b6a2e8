import MQTT
import Glibc
import Logging
import Reactor

/// One MQTT connection carried between libmosquitto 2.0 and the broker: libmosquitto connects to
/// a Unix socket of the bridge's (`LocalListener`), and the bridge connects to the broker (TCP,
/// then TLS for wss:// and mqtts://). Over a WebSocket, for libmosquitto has no WebSocket
/// client, it makes the upgrade (`WebSocketHandshake`), then carries the bytes both ways in
/// binary frames (`WebSocketFramer`). Raw (`BridgeEndpoint.path` nil), for a CONNECT with
/// properties, which libmosquitto sends only from a connect that blocks, it carries them as they
/// are (`PassThroughFraming`). Everything runs on the connection's loop, non-blocking.
///
/// Back-pressure holds both ways: the local side is not read while the frames toward the broker
/// exceed `bufferLimit` (so libmosquitto's own socket backs up, as a slow broker's would), and
/// the broker's side is not read while the bytes toward libmosquitto do. Until the upgrade is
/// accepted the local side is not read at all: libmosquitto's CONNECT waits in its socket.
///
/// Nothing either side sent is dropped at the end: when libmosquitto closes its connection (a
/// DISCONNECT written, or the connection given up) the bridge drains toward the broker, then
/// sends a close frame and a FIN (`draining`); when the broker goes, what it sent still reaches
/// libmosquitto before its side closes (`finishing`).
///
/// What the delegate does not hear (each step of the attempt, a side that failed after the
/// failure it was told of, a drain given up) goes to the loop's logger at debug level.
///
/// One bridge serves one connection attempt; the connection makes a new one for the next.
package final class BrokerBridge {
    package enum Phase: Equatable, Sendable {
        /// The TCP connect is under way.
        case connecting
        /// The TLS handshake is under way (wss://).
        case securing
        /// The upgrade request is sent or being sent, the answer awaited (WebSocket only).
        case upgrading
        /// MQTT's bytes flow.
        case open
        /// libmosquitto has closed its side: what it sent, then a close frame and a FIN, go to
        /// the broker, until the broker closes too or `drainTime` has passed.
        case draining
        /// The broker's side is closed: what it sent goes to libmosquitto, then its side closes.
        case finishing
        /// Both sides are closed.
        case closed
    }

    package internal(set) var phase: Phase = .connecting
    /// The bridge opened (the broker accepted the upgrade, or raw, the TCP and TLS were made):
    /// MQTT's bytes reached it, whatever came of them.
    package private(set) var wasOpened = false
    /// When the bridge saw its TCP connection to the broker made, its TLS handshake finished
    /// and the upgrade accepted, in monotonic nanoseconds (the connection timings); `nil` until
    /// then, and for good where there is none (no TLS; raw: no upgrade).
    package private(set) var connectedAt: UInt64?
    package private(set) var securedAt: UInt64?
    package private(set) var upgradedAt: UInt64?
    package weak var delegate: BrokerBridgeDelegate?
    /// The most held toward either side before that side's sender is held back.
    package static let bufferLimit = 64 * 1024
    /// How long a draining bridge waits for the broker to take what is left and close: the
    /// time a run's end gives its connections to finish (`Fleet.disconnectAll`).
    package static let drainTime: Duration = .seconds(2)

    private let endpoint: BridgeEndpoint
    let loop: EventLoop
    /// The upgrade over a WebSocket; nil for raw.
    let handshake: WebSocketHandshake?
    let framer: any BridgeFraming
    private let listener: LocalListener
    var link: BrokerLink?
    var local: LocalSide?
    /// Held here: a loop holds its sources unretained.
    private var brokerSide: BrokerSide?
    private var brokerRegistration: EventLoop.Registration?
    /// Ends a drain that the broker does not end.
    let drainTimer: Timer
    /// The delegate has heard why the bridge failed: it hears it once.
    private var failureTold = false
    /// The FIN toward the broker has been sent (`draining`).
    var shutDown = false
    /// The upgrade request not yet written.
    private var request: [UInt8] = []
    /// The broker's answer to it so far.
    private var answer: [UInt8] = []
    /// Bytes for libmosquitto not yet written to it.
    var towardLocal: [UInt8] = []
    /// Bytes one read takes, into a buffer of the moment: a buffer of the bridge's own cost
    /// 16 KB a connection (measured: 47.5 KB RSS per WebSocket connection against 18.2 KB over
    /// TCP, for 1,000 idle connections).
    static let readSize = 16 * 1024

    /// Starts the TCP connection to the broker (resolving its name, blocking) and makes the
    /// local listener, `localPath`, for libmosquitto to connect to next. Throws a sentence.
    package init(endpoint: BridgeEndpoint, loop: EventLoop) throws(TransportError) {
        self.endpoint = endpoint
        self.loop = loop
        if let path = endpoint.path {
            handshake = WebSocketHandshake(host: endpoint.host, port: endpoint.port, path: path)
            framer = WebSocketFramer(outboundLimit: BrokerBridge.bufferLimit)
        } else {
            handshake = nil
            framer = PassThroughFraming()
        }
        drainTimer = Timer(on: loop)
        let link = try BrokerLink(host: endpoint.host, port: endpoint.port, tls: endpoint.tls, bindAddress: endpoint.bindAddress)
        do {
            listener = try LocalListener()
        } catch {
            link.close()
            throw TransportError("cannot make the bridge's socket: \(error)")
        }
        self.link = link
        drainTimer.target = self
    }

    /// The owner closes a bridge on its loop before letting it go (`close()`), since the loop
    /// holds its sides unretained; what is left open here is a bridge never started, or one
    /// whose loop has stopped.
    deinit {
        if phase != .closed {
            link?.close()
            local.map { _ = Glibc.close($0.descriptor) }
        }
    }

    package var localPath: String { listener.path }

    /// After libmosquitto connected to `localPath`: takes that connection, and the bridge's loop
    /// watches both sides from now on.
    package func start() throws(TransportError) {
        loop.assertInEventLoop()
        let accepted: Int32
        do {
            accepted = try listener.accept()
        } catch {
            close()
            throw TransportError("cannot take libmosquitto's connection to the bridge: \(error)")
        }
        local = LocalSide(bridge: self, descriptor: accepted)
        request = handshake?.request(defaultPort: endpoint.tls == nil ? 80 : 443) ?? []
        let brokerSide = BrokerSide(bridge: self)
        self.brokerSide = brokerSide
        brokerRegistration = loop.register(brokerSide)
        local?.registration = loop.register(local!)
    }

    /// Closes both sides at once, telling no one why: the connection is done with this attempt.
    package func close() {
        guard phase != .closed else { return }
        phase = .closed
        drainTimer.cancel()
        closeBrokerSide()
        local?.close(loop: loop)
        local = nil
        delegate?.bridgeClosed()
    }

    private func closeBrokerSide() {
        if let brokerRegistration { loop.deregister(brokerRegistration) }
        brokerRegistration = nil
        brokerSide = nil
        link?.close()
        link = nil
    }

    /// The bridge cannot go on: the delegate hears why, the broker's side closes, and
    /// libmosquitto's once it has what the broker sent.
    private func fail(_ reason: String) {
        guard phase != .closed else { return }
        if !failureTold {
            failureTold = true
            delegate?.bridgeFailed(reason)
        } else {
            debug("after the failure it reported: \(reason)")
        }
        guard local != nil, !towardLocal.isEmpty, phase != .draining else { return close() }
        phase = .finishing
        closeBrokerSide()
        changed()
    }

    /// A debug line of the bridge's, naming its loop and broker. Not for the bytes' path: the
    /// message is made before the level is looked at.
    func debug(_ message: String) {
        loop.logger.debug(
            (handshake == nil ? "bridge: " : "WebSocket bridge: ") + message,
            ["loop": .string(loop.name), "broker": .string("\(endpoint.host):\(endpoint.port)")])
    }

    func changed() {
        if let brokerRegistration { loop.update(brokerRegistration) }
        if let registration = local?.registration { loop.update(registration) }
    }

    // MARK: The broker's side

    fileprivate var brokerDescriptor: Int32 { link?.descriptor ?? -1 }

    fileprivate var brokerWantsWrite: Bool {
        guard let link else { return false }
        switch phase {
        case .connecting: return true
        case .securing: return link.handshakeWantsWrite
        case .upgrading: return !request.isEmpty && !link.writeWaitsForRead || link.readWaitsForWrite
        case .open, .draining:
            return !link.writeWaitsForRead && (!framer.outbound.isEmpty || framer.wantsToProduce) || link.readWaitsForWrite
        case .finishing, .closed: return false
        }
    }

    fileprivate var brokerWantsRead: Bool {
        switch phase {
        case .connecting, .finishing, .closed: return false
        case .securing: return !(link?.handshakeWantsWrite ?? false)
        case .upgrading: return request.isEmpty || (link?.writeWaitsForRead ?? false)
        case .open: return towardLocal.count < Self.bufferLimit || (link?.writeWaitsForRead ?? false)
        case .draining: return true  // to see the broker's close, and leave nothing unread for an RST
        }
    }

    fileprivate func brokerWritable() {
        switch phase {
        case .connecting:
            if let failure = link?.finishConnect() { return fail(failure.message) }
            connectedAt = MonotonicClock.now()
            guard endpoint.tls == nil else {
                phase = .securing
                debug("connected to the broker; TLS handshake")
                return secure()
            }
            guard handshake != nil else { return open("connected to the broker: bytes flow") }
            phase = .upgrading
            debug("connected to the broker; upgrade request")
            writeRequest()
        case .securing:
            secure()
        case .upgrading:
            if link?.readWaitsForWrite == true { readAnswer() }
            writeRequest()
        case .open, .draining:
            if link?.readWaitsForWrite == true { brokerReadable() }
            flushTowardBroker()
        case .finishing, .closed:
            break
        }
        changed()
    }

    fileprivate func brokerReadable() {
        switch phase {
        case .connecting:
            // A connect refused may be told as a hang-up alone, without EPOLLOUT.
            return brokerWritable()
        case .securing:
            secure()
        case .upgrading:
            readAnswer()
            if link?.writeWaitsForRead == true { writeRequest() }
        case .open:
            readFrames()
            if link?.writeWaitsForRead == true { flushTowardBroker() }
        case .draining:
            drainBroker()
        case .finishing, .closed:
            break
        }
        changed()
    }

    private func secure() {
        guard let link else { return }
        switch link.handshake(serverName: endpoint.host) {
        case .done:
            securedAt = MonotonicClock.now()
            guard handshake != nil else {
                open("TLS handshake done: bytes flow")
                break
            }
            phase = .upgrading
            debug("TLS handshake done; upgrade request")
            writeRequest()
        case .wouldBlock:
            break
        case .failed(let reason):
            fail(reason)
        }
        changed()
    }

    /// Raw: the broker is reached, and libmosquitto's CONNECT, waiting in its socket, goes on.
    private func open(_ why: String) {
        phase = .open
        wasOpened = true
        debug(why)
        flushTowardBroker()
        changed()
    }

    private func writeRequest() {
        guard let link, !request.isEmpty else { return }
        switch request.withUnsafeBytes({ link.write($0) }) {
        case .bytes(let count): request.removeFirst(count)
        case .wouldBlock: break
        case .closed: fail("the broker closed the connection during the WebSocket upgrade")
        case .failed(let reason): fail("the WebSocket upgrade failed: \(reason)")
        }
        if request.isEmpty { request = [] }
    }

    private func readAnswer() {
        guard let link else { return }
        switch readBroker(link, { answer.append(contentsOf: $0) }) {
        case .bytes:
            switch handshake?.verdict(on: answer) ?? .incomplete {
            case .incomplete:
                break
            case .refused(let reason):
                fail(reason)
            case .accepted(let consumed):
                upgradedAt = MonotonicClock.now()
                phase = .open
                wasOpened = true
                debug("the broker accepted the WebSocket upgrade: frames flow")
                let rest = Array(answer[consumed...])
                answer = []
                if !rest.isEmpty { rest.withUnsafeBytes { receiveFrames($0) } }
            }
        case .wouldBlock:
            break
        case .closed:
            fail("the broker closed the connection without answering the WebSocket upgrade")
        case .failed(let reason):
            fail("the WebSocket upgrade failed: \(reason)")
        }
    }

    private func readFrames() {
        guard let link else { return }
        // Level-triggered: one read a turn is enough, and keeps loops fair.
        switch readBroker(link, receiveFrames) {
        case .bytes, .wouldBlock:
            break
        case .closed:
            fail(
                framer.closeReceived.map(Self.closedByBroker)
                    ?? (handshake == nil
                        ? "the broker closed the connection" : "the broker closed the connection without a WebSocket close frame"))
        case .failed(let reason):
            fail(reason)
        }
    }

    /// One read from the broker, whose bytes `take` gets while they are in the read's buffer.
    func readBroker(_ link: BrokerLink, _ take: (UnsafeRawBufferPointer) -> Void) -> BrokerLink.Result {
        withUnsafeTemporaryAllocation(byteCount: Self.readSize, alignment: 1) { buffer in
            let result = link.read(into: buffer)
            if case .bytes(let count) = result { take(UnsafeRawBufferPointer(rebasing: buffer[..<count])) }
            return result
        }
    }

    private func receiveFrames(_ bytes: UnsafeRawBufferPointer) {
        let ok = framer.receive(bytes)
        if !framer.delivered.isEmpty {
            towardLocal.append(contentsOf: framer.delivered)
            framer.delivered.removeAll(keepingCapacity: true)
            flushTowardLocal()
        }
        // libwslay queues the reply to a close frame, and a close of its own for a frame that
        // breaks the protocol: either goes out before the broker's side closes.
        flushTowardBroker()
        if let close = framer.closeReceived { return fail(Self.closedByBroker(close)) }
        if !ok { return fail(framer.failure ?? "the WebSocket failed") }
    }

    private static func closedByBroker(_ close: (code: UInt16, reason: String)) -> String {
        let code = close.code == 0 ? "no status" : "\(close.code)"
        return "the broker closed the WebSocket (\(code)\(close.reason.isEmpty ? "" : ": " + close.reason))"
    }

    func flushTowardBroker() {
        guard let link, phase == .open || phase == .draining else { return }
        while true {
            framer.produce()
            if let failure = framer.failure, phase == .open { return fail(failure) }
            guard !framer.outbound.isEmpty else { break }
            switch framer.outbound.withUnsafeBytes({ link.write($0) }) {
            case .bytes(let count):
                framer.consumeOutbound(count)
                if !framer.outbound.isEmpty { return }  // the socket took part: it is full
            case .wouldBlock:
                return
            case .closed:
                return fail("the broker closed the connection")
            case .failed(let reason):
                return fail(reason)
            }
        }
        if phase == .draining { finishDraining(link) }
    }
}

/// The broker's socket of a bridge, as its loop sees it.
private final class BrokerSide: EventSource {
    unowned let bridge: BrokerBridge

    init(bridge: BrokerBridge) {
        self.bridge = bridge
    }

    var descriptor: Int32 { bridge.brokerDescriptor }
    var wantsWrite: Bool { bridge.brokerWantsWrite }
    var wantsRead: Bool { bridge.brokerWantsRead }
    func readable(hungUp: Bool) { bridge.brokerReadable() }
    func writable() { bridge.brokerWritable() }
    func registrationFailed(_ error: SystemError) { bridge.close() }
}
