import Glibc
import Reactor
import Transport

/// A WebSocket endpoint on a free 127.0.0.1 port that answers every upgrade request the same
/// scripted way, for the refusals a real broker does not stage: a 403, a 101 without the `mqtt`
/// subprotocol or with a wrong accept key, or no answer at all. It records each request.
/// One thread `poll`s the listener and every connection, so `stop()` (also run by `deinit`)
/// finishes promptly.
public final class ScriptedUpgradeServer: Sendable {
    public enum Answer: Sendable {
        /// `HTTP/1.1 STATUS` (such as "403 Forbidden") and an empty body.
        case status(String)
        /// `101 Switching Protocols` with this subprotocol (nil for none) and the right accept key.
        case switching(subprotocol: String?)
        /// `101` for MQTT, with an accept key that is not the request's.
        case wrongAccept
        /// Nothing, ever: a server that took the connection and never answers.
        case silence
        /// `101` for MQTT, then at once a close frame with this status code and reason; with
        /// `connack`, a CONNACK frame before it, so that the connection is up when it closes.
        case close(code: UInt16, reason: String, connack: Bool = false)
    }

    public let port: UInt16
    private let state: Locked<State>
    private let thread: Locked<WorkerThread?>

    private struct State {
        var requests: [String] = []
        var stopping = false
    }

    public init(answer: Answer) throws(TestSupportError) {
        let (listener, port) = try Loopback.listen(backlog: 16)
        self.port = port
        let state = Locked(State())
        self.state = state
        thread = Locked(nil)
        let worker = try WorkerThread { Self.serve(listener: listener, answer: answer, state: state) }
        thread.withLock { $0 = worker }
    }

    deinit { stop() }

    /// The upgrade requests received so far, one text per connection.
    public var requests: [String] { state.withLock { $0.requests } }

    /// Waits at most `timeout` seconds until `count` requests have come.
    public func waitFor(requests count: Int, timeout: Double) -> Bool {
        TestClock.wait(timeout: timeout, interval: 0.01) { requests.count >= count }
    }

    public func stop() {
        state.withLock { $0.stopping = true }
        let worker = thread.withLock { current in
            defer { current = nil }
            return current
        }
        worker?.join()
    }

    private static func serve(listener: Int32, answer: Answer, state: Locked<State>) {
        var connections: [(descriptor: Int32, received: [UInt8], answered: Bool)] = []
        defer {
            for connection in connections { close(connection.descriptor) }
            close(listener)
        }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !state.withLock({ $0.stopping }) {
            var polled = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0)]
            polled += connections.map { pollfd(fd: $0.descriptor, events: Int16(POLLIN), revents: 0) }
            guard poll(&polled, nfds_t(polled.count), 20) > 0 else { continue }
            if polled[0].revents != 0 {
                let accepted = accept(listener, nil, nil)
                if accepted >= 0 { connections.append((accepted, [], false)) }
            }
            var closed: [Int] = []
            for (index, entry) in polled.dropFirst().enumerated() where entry.revents != 0 {
                let count = read(connections[index].descriptor, &buffer, buffer.count)
                guard count > 0 else {
                    closed.append(index)
                    continue
                }
                connections[index].received += buffer[..<count]
                let text = String(decoding: connections[index].received, as: UTF8.self)
                guard !connections[index].answered, text.contains("\r\n\r\n") else { continue }
                connections[index].answered = true
                state.withLock { $0.requests.append(text) }
                guard let reply = reply(to: text, answer) else { continue }
                _ = reply.withUnsafeBytes { write(connections[index].descriptor, $0.baseAddress, $0.count) }
            }
            for index in closed.reversed() {
                close(connections[index].descriptor)
                connections.remove(at: index)
            }
        }
    }

    private static func reply(to request: String, _ answer: Answer) -> [UInt8]? {
        let key =
            request.split(separator: "\r\n").first { $0.lowercased().hasPrefix("sec-websocket-key:") }
            .map { $0.split(separator: ":", maxSplits: 1)[1].trimmingPrefix(" ") }.map(String.init) ?? ""
        let upgrade = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        switch answer {
        case .status(let status):
            return Array("HTTP/1.1 \(status)\r\nContent-Length: 0\r\n\r\n".utf8)
        case .switching(let subprotocol):
            return Array(
                (upgrade + "Sec-WebSocket-Accept: \(WebSocketHandshake.accept(for: key))\r\n"
                    + (subprotocol.map { "Sec-WebSocket-Protocol: \($0)\r\n" } ?? "") + "\r\n").utf8)
        case .wrongAccept:
            return Array(
                (upgrade + "Sec-WebSocket-Accept: \(WebSocketHandshake.accept(for: key + "x"))\r\nSec-WebSocket-Protocol: mqtt\r\n\r\n")
                    .utf8)
        case .silence:
            return nil
        case .close(let code, let reason, let connack):
            // A server's frame is unmasked: FIN and opcode 8, the length, the code, the reason.
            let payload = [UInt8(code >> 8), UInt8(code & 0xFF)] + Array(reason.utf8)
            let header = upgrade + "Sec-WebSocket-Accept: \(WebSocketHandshake.accept(for: key))\r\nSec-WebSocket-Protocol: mqtt\r\n\r\n"
            return Array(header.utf8) + (connack ? [0x82, 0x04, 0x20, 0x02, 0x00, 0x00] : []) + [0x88, UInt8(payload.count)] + payload
        }
    }
}
