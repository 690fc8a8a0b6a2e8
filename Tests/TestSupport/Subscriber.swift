import Foundation
import Glibc
import Reactor

/// A `mosquitto_sub` child that records every message it receives, for checking what a broker
/// delivered.
///
/// ```swift
/// let subscriber = try Subscriber(port: broker.port, topic: "devices/#", qos: 1)
/// #expect(subscriber.waitFor(count: 10, timeout: 5))
/// #expect(subscriber.messages.first?.payloadText == "{\"t\":21.5}")
/// ```
/// Returns from `init` only once the subscription is live, so nothing published afterwards is
/// missed.
public final class Subscriber: Sendable {
    /// One message as `mosquitto_sub` printed it.
    public struct Message: Sendable, Equatable {
        public let topic: String
        public let payload: [UInt8]
        /// Monotonic time at which the line was read from `mosquitto_sub` (slightly after the
        /// broker delivered it).
        public let receivedAt: Double
        /// The QoS it was delivered at: the lower of its publisher's and the subscription's.
        public var qos = 0

        /// The payload as UTF-8 text.
        public var payloadText: String { String(decoding: payload, as: UTF8.self) }
    }

    /// The topic filter given to ``init(port:topic:qos:username:password:readyTimeout:)``.
    public let topic: String
    /// A unique topic, also subscribed, used to prove the subscription is live; its messages are
    /// never recorded.
    public let probeTopic: String

    private struct State {
        var messages: [Message] = []
        var probeSeen = false
        var malformedLines: [String] = []
    }

    /// Filled by the stdout reader thread, read by the test.
    private let state = Locked(State())
    private let child = Locked<ChildProcess?>(nil)

    /// Subscribes to `topic` on the broker at 127.0.0.1:`port` and waits until the subscription
    /// is live (at most `readyTimeout` seconds).
    /// - Parameter sessionID: with a client id, the session is persistent (`-c`): while the
    ///   subscriber is away (a broker restart), the broker keeps its QoS 1/2 messages for it.
    public init(
        port: UInt16,
        topic: String,
        qos: Int = 0,
        username: String? = nil,
        password: String? = nil,
        sessionID: String? = nil,
        readyTimeout: Double = 5
    ) throws(TestSupportError) {
        self.topic = topic
        probeTopic = "testsupport/probe/\(getpid())/\(UUID().uuidString)"
        var credentials: [String] = []
        if let username { credentials += ["-u", username] }
        if let password { credentials += ["-P", password] }
        let session = sessionID.map { ["-c", "-i", $0] } ?? []

        // Topic, a tab, the QoS, a tab, then the payload in hex: hex has no newlines or tabs, so
        // any payload (binary, multi-line JSON) fits one line and splits unambiguously at the
        // last tabs.
        let arguments =
            [
                "-h", "127.0.0.1", "-p", String(port), "-q", String(qos),
                "-t", topic, "-t", probeTopic, "-F", "%t\t%q\t%x",
            ] + credentials + session
        let probeTopic = probeTopic
        let process = try ChildProcess(
            executable: "mosquitto_sub", arguments: arguments, stdout: .capture, stderr: .capture
        ) { [weak self] line, time in
            // Weak: the reader thread must not keep the subscriber (and so the child) alive.
            self?.record(line: line, time: time, probeTopic: probeTopic)
        }
        child.withLock { $0 = process }

        // The subscription is live once a probe published after it comes back. Probes are
        // repeated because the first ones may be published before mosquitto_sub subscribed.
        let deadline = TestClock.now() + readyTimeout
        while !state.withLock({ $0.probeSeen }) {
            guard process.isRunning else {
                stop()
                throw TestSupportError("mosquitto_sub exited with status \(process.exitStatus ?? -1): \(process.stderrText)")
            }
            guard TestClock.now() < deadline else {
                stop()
                throw TestSupportError(
                    "mosquitto_sub on port \(port) did not receive its probe within \(readyTimeout) s: \(process.stderrText)")
            }
            _ = try? MosquittoPub.run(port: port, ["-t", probeTopic, "-m", "probe"] + credentials, timeout: 2)
            _ = TestClock.wait(timeout: min(0.2, max(0, deadline - TestClock.now()))) {
                state.withLock { $0.probeSeen }
            }
        }
    }

    /// Convenience for a subscriber on `broker`.
    public convenience init(
        broker: MosquittoBroker, topic: String, qos: Int = 0,
        username: String? = nil, password: String? = nil, sessionID: String? = nil, readyTimeout: Double = 5
    ) throws(TestSupportError) {
        try self.init(
            port: broker.port, topic: topic, qos: qos, username: username, password: password,
            sessionID: sessionID, readyTimeout: readyTimeout)
    }

    deinit { stop() }

    /// The messages received so far, in arrival order (probe messages excluded).
    public var messages: [Message] { state.withLock { $0.messages } }

    /// Output lines that did not parse (should stay empty; useful when a test fails).
    public var malformedLines: [String] { state.withLock { $0.malformedLines } }

    /// Whether `mosquitto_sub` is still running (it exits e.g. when refused by the broker).
    public var isRunning: Bool { child.withLock { $0?.isRunning ?? false } }

    /// Waits at most `timeout` seconds until at least `count` messages have arrived.
    public func waitFor(count: Int, timeout: Double) -> Bool {
        TestClock.wait(timeout: timeout) { state.withLock { $0.messages.count >= count } }
    }

    /// Stops `mosquitto_sub` and its reader thread; the recorded messages stay readable.
    public func stop() {
        let process = child.withLock { current in
            defer { current = nil }
            return current
        }
        process?.terminate(grace: 2)
    }

    private func record(line: String, time: Double, probeTopic: String) {
        guard let tab = line.lastIndex(of: "\t"), let payload = Self.bytes(fromHex: line[line.index(after: tab)...]),
            let qosTab = line[..<tab].lastIndex(of: "\t"), let qos = Int(line[line.index(after: qosTab)..<tab])
        else {
            state.withLock { $0.malformedLines.append(line) }
            return
        }
        let topic = String(line[..<qosTab])
        state.withLock { state in
            if topic == probeTopic {
                state.probeSeen = true
            } else {
                state.messages.append(Message(topic: topic, payload: payload, receivedAt: time, qos: qos))
            }
        }
    }

    private static func bytes(fromHex hex: Substring) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var result: [UInt8] = []
        result.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else { return nil }
            result.append(high << 4 | low)
            index += 2
        }
        return result
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
