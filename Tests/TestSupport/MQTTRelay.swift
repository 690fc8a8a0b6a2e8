import Glibc
import Reactor

/// A TCP relay on a free 127.0.0.1 port in front of a real broker, which reads the MQTT packets
/// its clients send and lets a rule drop or repeat their PUBLISHes: messages lost, or copied,
/// between a publisher and the broker, as a lossy path would lose them, exactly where a test
/// says. No broker setting loses QoS 0 messages as reliably: a broker's queue bounds drop only
/// for a subscriber that falls behind, and how many is the broker's timing. What the broker
/// sends its clients passes as it is. Meant for QoS 0, whose packets carry no packet id: a repeated QoS 1 PUBLISH
/// would be one message to the broker.
///
/// ```swift
/// let relay = try MQTTRelay(upstream: broker.port) { topic in topic.contains("/DDATA/") ? .drop : .pass }
/// // … point the client at relay.port …
/// #expect(relay.dropped == 10)
/// ```
/// One thread accepts, one thread serves each connection, both ways; every blocking call is a
/// `poll` with a short timeout, so `stop()` (also run by `deinit`) finishes promptly and joins
/// them all.
public final class MQTTRelay: Sendable {
    /// What becomes of one PUBLISH a client sends.
    public enum Fate: Sendable {
        case pass
        case drop
        /// Sent on twice.
        case repeatOnce
    }

    /// Decides each PUBLISH by its topic, in the order they arrive, one at a time across the
    /// relay's connections.
    public typealias Rule = @Sendable (_ topic: String) -> Fate

    public let port: UInt16
    private let core: Core

    public init(upstream: UInt16, rule: @escaping Rule) throws(TestSupportError) {
        let (fd, port) = try Loopback.listen()
        self.port = port
        core = Core(listenFD: fd, upstream: upstream, rule: rule)
        do {
            let acceptor = try WorkerThread { [core] in core.acceptLoop() }
            core.state.withLock { $0.acceptThread = acceptor }
        } catch {
            close(fd)
            throw error
        }
    }

    deinit { stop() }

    /// PUBLISH packets dropped, and sent on twice, so far.
    public var dropped: Int { core.state.withLock { $0.dropped } }
    public var repeated: Int { core.state.withLock { $0.repeated } }

    /// Closes the listener and every connection, both ways, and joins every thread. Idempotent.
    public func stop() {
        let acceptor = core.state.withLock { state in
            state.stopping = true
            defer { state.acceptThread = nil }
            return state.acceptThread
        }
        acceptor?.join()
        let relays = core.state.withLock { state in
            defer { state.connectionThreads = [] }
            return state.connectionThreads
        }
        relays.forEach { $0.join() }
    }
}

extension MQTTRelay {
    /// What the threads share; a separate object, so that they do not keep the relay alive.
    final class Core: Sendable {
        struct State {
            var stopping = false
            var dropped = 0
            var repeated = 0
            var acceptThread: WorkerThread?
            var connectionThreads: [WorkerThread] = []
        }

        let state = Locked(State())
        let listenFD: Int32
        let upstream: UInt16
        let rule: Rule

        init(listenFD: Int32, upstream: UInt16, rule: @escaping Rule) {
            self.listenFD = listenFD
            self.upstream = upstream
            self.rule = rule
        }

        var isStopping: Bool { state.withLock { $0.stopping } }

        func acceptLoop() {
            defer { close(listenFD) }
            while let client = Loopback.accept(listenFD, unless: { isStopping }) {
                guard let broker = connectUpstream() else {
                    close(client)
                    continue
                }
                for fd in [client, broker] {
                    var one: Int32 = 1
                    setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                }
                do {
                    let thread = try WorkerThread { [self] in relay(client: client, broker: broker) }
                    state.withLock { $0.connectionThreads.append(thread) }
                } catch {
                    close(client)
                    close(broker)
                }
            }
        }

        private func connectUpstream() -> Int32? {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { return nil }
            var address = Loopback.socketAddress(port: upstream)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else {
                close(fd)
                return nil
            }
            return fd
        }

        /// Both ways until either side closes or the relay stops: the client's bytes packet by
        /// packet, its PUBLISHes as the rule says; the broker's as they come.
        private func relay(client: Int32, broker: Int32) {
            defer {
                close(client)
                close(broker)
            }
            var pending: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 16384)
            while !isStopping {
                var pollers = [
                    pollfd(fd: client, events: Int16(POLLIN), revents: 0), pollfd(fd: broker, events: Int16(POLLIN), revents: 0),
                ]
                guard poll(&pollers, 2, 50) > 0 else { continue }
                if pollers[1].revents != 0 {
                    let count = read(broker, &chunk, chunk.count)
                    guard count > 0, send(Array(chunk[0..<count]), to: client) else { return }
                }
                if pollers[0].revents != 0 {
                    let count = read(client, &chunk, chunk.count)
                    guard count > 0 else { return }
                    pending += chunk[0..<count]
                    do {
                        while let packet = try MQTTWire.nextPacket(from: &pending) {
                            let bytes = MQTTWire.encode(header: packet.header, body: Array(packet.body))
                            for _ in 0..<copies(of: packet) {
                                guard send(bytes, to: broker) else { return }
                            }
                        }
                    } catch {
                        return
                    }
                }
            }
        }

        /// How many times `packet` goes on: a PUBLISH as the rule says, anything else once.
        private func copies(of packet: MQTTWire.Packet) -> Int {
            guard packet.type == 3 else { return 1 }
            var reader = MQTTWire.Reader(packet.body)
            guard let topic = try? reader.string() else { return 1 }
            return state.withLock { state in
                switch rule(topic) {
                case .pass: return 1
                case .drop:
                    state.dropped += 1
                    return 0
                case .repeatOnce:
                    state.repeated += 1
                    return 2
                }
            }
        }

        private func send(_ bytes: [UInt8], to fd: Int32) -> Bool {
            var offset = 0
            while offset < bytes.count {
                let written = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                guard written > 0 else { return false }
                offset += written
            }
            return true
        }
    }
}
