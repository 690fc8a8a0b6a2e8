import Glibc
import MQTT
import Reactor

/// A tiny MQTT 3.1.1 server on a free 127.0.0.1 port whose behaviour is scripted per connection
/// attempt, for protocol edge cases a real broker cannot stage (CONNACK held back or refused,
/// connection dropped, broker gone silent). It records what arrives and when. An MQTT 3.1
/// CONNECT whose client id is not 1 to 23 characters long gets CONNACK 2, as MQTT 3.1 has it.
///
/// ```swift
/// let server = try ScriptedMQTTServer(scripts: [.init(connackCode: 5), .init()])  // refuse once
/// // … point the client at server.port …
/// #expect(server.waitFor(publishes: 1, timeout: 5))
/// #expect(server.connections.map(\.connackCode) == [5, 0])
/// ```
/// One thread accepts, one thread serves each connection; every blocking call is a `poll` with a
/// short timeout, so `stop()` (also run by `deinit`) finishes promptly and joins them all.
public final class ScriptedMQTTServer: Sendable {
    /// Chooses the script for a connection attempt (1-based).
    public typealias ScriptProvider = @Sendable (_ attempt: Int) -> Script

    /// The span over which `Script.ackDelay` is told the received rate: long enough that a
    /// client's short burst (a catch-up after a stall on a busy machine) barely moves it, short
    /// enough that a rate lowered shows within a second.
    public static let rateWindow = 1.0

    /// The loopback port the server listens on.
    public let port: UInt16
    private let core: Core

    /// Serves every connection attempt with `script`.
    public convenience init(script: Script = Script()) throws(TestSupportError) {
        try self.init(scriptFor: { _ in script })
    }

    /// Serves attempt n with `scripts[n - 1]`; the last script repeats for later attempts.
    public convenience init(scripts: [Script]) throws(TestSupportError) {
        let scripts = scripts.isEmpty ? [Script()] : scripts
        try self.init(scriptFor: { attempt in scripts[min(attempt, scripts.count) - 1] })
    }

    /// Serves each attempt with the script `scriptFor(attempt)` returns.
    public init(scriptFor: @escaping ScriptProvider) throws(TestSupportError) {
        let (fd, port) = try Loopback.listen()
        self.port = port
        core = Core(listenFD: fd, scriptFor: scriptFor)
        do {
            let acceptor = try WorkerThread { [core] in core.acceptLoop() }
            core.state.withLock { $0.acceptThread = acceptor }
        } catch {
            close(fd)
            throw error
        }
    }

    deinit { stop() }

    /// Every connection attempt so far, in accept order.
    public var connections: [Connection] { core.state.withLock { $0.connections } }
    /// Every PUBLISH received so far, in arrival order.
    public var publishes: [Publish] { core.state.withLock { $0.publishes } }

    /// Waits at most `timeout` seconds until `publishes` PUBLISH packets have arrived.
    public func waitFor(publishes count: Int, timeout: Double) -> Bool {
        waitUntil(timeout: timeout) { _, publishes in publishes.count >= count }
    }

    /// Waits at most `timeout` seconds until `connections` attempts have been accepted.
    public func waitFor(connections count: Int, timeout: Double) -> Bool {
        waitUntil(timeout: timeout) { connections, _ in connections.count >= count }
    }

    /// Waits at most `timeout` seconds until `condition` holds for the records.
    public func waitUntil(timeout: Double, _ condition: ([Connection], [Publish]) -> Bool) -> Bool {
        TestClock.wait(timeout: timeout) {
            core.state.withLock { condition($0.connections, $0.publishes) }
        }
    }

    /// Closes every open client connection now (the listener stays open), as a broker crash or
    /// network cut would.
    public func dropAllConnections() {
        core.state.withLock { state in
            for (attempt, fd) in state.openSockets {
                state.dropped.insert(attempt)
                // shutdown, not close: the serving thread still owns the descriptor and closes
                // it itself, so the number cannot be reused under its feet.
                shutdown(fd, Int32(SHUT_RDWR))
            }
        }
    }

    /// Closes the listener and all connections and joins every thread. Idempotent.
    public func stop() {
        let acceptor = core.state.withLock { state in
            state.stopping = true
            for (_, fd) in state.openSockets { shutdown(fd, Int32(SHUT_RDWR)) }
            defer { state.acceptThread = nil }
            return state.acceptThread
        }
        acceptor?.join()
        // The accept thread has ended, so no connection thread can be added any more.
        let servers = core.state.withLock { state in
            defer { state.connectionThreads = [] }
            return state.connectionThreads
        }
        servers.forEach { $0.join() }
    }
}

extension ScriptedMQTTServer {
    /// The state the threads share. A separate object so that threads do not keep the server
    /// alive: dropping the last reference to the server still runs `deinit` and stops it.
    final class Core: Sendable {
        struct State {
            var connections: [Connection] = []
            var publishes: [Publish] = []
            /// Sockets not yet closed by their serving thread, by attempt number.
            var openSockets: [Int: Int32] = [:]
            /// Attempts closed by `dropAllConnections`, to record the right reason.
            var dropped: Set<Int> = []
            var stopping = false
            var acceptThread: WorkerThread?
            var connectionThreads: [WorkerThread] = []
            /// When the PUBLISH packets of the last `rateWindow` arrived, oldest first.
            var recentReceipts: [Double] = []
            var firstRecent = 0
            /// Messages relayed to each connection (`Script.relay`), not yet sent by its thread, and
            /// the write end of the pipe that wakes it for them.
            var outboxes: [Int: [(topic: String, payload: [UInt8])]] = [:]
            var wakers: [Int: Int32] = [:]
        }

        /// Guards the records, the open-socket table and the thread handles.
        let state = Locked(State())
        let listenFD: Int32
        let scriptFor: ScriptProvider

        init(listenFD: Int32, scriptFor: @escaping ScriptProvider) {
            self.listenFD = listenFD
            self.scriptFor = scriptFor
        }

        var isStopping: Bool { state.withLock { $0.stopping } }

        func acceptLoop() {
            defer { close(listenFD) }
            while let fd = Loopback.accept(listenFD, unless: { isStopping }) {
                var one: Int32 = 1
                setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                let now = TestClock.now()
                let attempt = state.withLock { state in
                    state.connections.append(Connection(attempt: state.connections.count + 1, acceptedAt: now))
                    state.openSockets[state.connections.count] = fd
                    return state.connections.count
                }
                let script = scriptFor(attempt)
                do {
                    let thread = try WorkerThread { [self] in
                        var session = ConnectionSession(core: self, attempt: attempt, fd: fd, script: script)
                        session.run()
                    }
                    state.withLock { $0.connectionThreads.append(thread) }
                } catch {
                    finish(attempt: attempt, fd: fd, reason: .protocolError("server could not start a thread"))
                }
            }
        }

        /// Records the end of a connection and closes its socket (under the lock, see
        /// `dropAllConnections`). The first reason recorded wins.
        func finish(attempt: Int, fd: Int32, reason: Connection.CloseReason) {
            let now = TestClock.now()
            state.withLock { state in
                guard state.openSockets.removeValue(forKey: attempt) != nil else { return }
                close(fd)
                var finalReason = reason
                if state.dropped.contains(attempt) {
                    finalReason = .dropped
                } else if state.stopping, reason == .clientClosed {
                    finalReason = .serverStopped
                }
                state.connections[attempt - 1].closedAt = now
                state.connections[attempt - 1].closeReason = finalReason
            }
        }

        func update(attempt: Int, _ change: (inout Connection) -> Void) {
            state.withLock { change(&$0.connections[attempt - 1]) }
        }

        /// Hands a message published on `topic` to every open connection whose subscriptions match
        /// it, on `delivered`, and wakes their threads.
        func relay(topic: String, delivered: String, payload: [UInt8]) {
            state.withLock { state in
                for attempt in state.openSockets.keys
                where state.connections[attempt - 1].subscriptions.contains(where: { TopicFilter.filter($0, matches: topic) }) {
                    state.outboxes[attempt, default: []].append((delivered, payload))
                    // Under the lock: its thread closes the pipe under it too.
                    var one: UInt8 = 1
                    if let waker = state.wakers[attempt] { _ = write(waker, &one, 1) }
                }
            }
        }

        /// Connection `attempt`'s thread is woken through the pipe `fd` writes to for what is
        /// relayed to it; `nil`: it ends, and the write end is closed.
        func setWaker(_ fd: Int32?, for attempt: Int) {
            state.withLock { state in
                if fd == nil, let old = state.wakers[attempt] { close(old) }
                state.wakers[attempt] = fd
            }
        }

        /// What has been relayed to connection `attempt` since the last call.
        func takeDeliveries(for attempt: Int) -> [(topic: String, payload: [UInt8])] {
            state.withLock { $0.outboxes.removeValue(forKey: attempt) ?? [] }
        }

        /// Records `publish`; returns the PUBLISH packets received a second, the server over,
        /// in the `rateWindow` up to it.
        @discardableResult
        func record(_ publish: Publish) -> Double {
            state.withLock { state in
                state.publishes.append(publish)
                state.recentReceipts.append(publish.receivedAt)
                let since = publish.receivedAt - ScriptedMQTTServer.rateWindow
                while state.recentReceipts[state.firstRecent] < since { state.firstRecent += 1 }
                if state.firstRecent > 4096 {
                    state.recentReceipts.removeFirst(state.firstRecent)
                    state.firstRecent = 0
                }
                return Double(state.recentReceipts.count - state.firstRecent) / ScriptedMQTTServer.rateWindow
            }
        }
    }
}
