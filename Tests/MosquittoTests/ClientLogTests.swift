import Logging
import MQTT
import Mosquitto
import Reactor
import Testing
import TestSupport

/// Hears what a client reports, to know when each step is done.
private final class Steps: ClientDelegate, @unchecked Sendable {
    let events = Locked<[String]>([])

    func client(_ client: Client, didReceiveConnack code: ConnackCode) {
        events.withLock { $0.append("connack") }
        let payload = Array("hello".utf8)
        _ = payload.withUnsafeBytes { client.publish(topic: Topic("log/a"), payload: $0, qos: .atLeastOnce, retain: false) }
    }

    func client(_ client: Client, didDisconnect error: MosquittoError?) { events.withLock { $0.append("disconnect") } }
    func client(_ client: Client, didPublish messageID: Int32, reasonCode: ReasonCode) { events.withLock { $0.append("published") } }
}

/// Issue 26, item 5: libmosquitto's own log reaches the loop's logger, at debug level only.
@Suite(.serialized, .tags(.integration), .notUnitOnly) struct ClientLogTests {
    /// The lines logged at `level` and above while a client connects, publishes a QoS 1 message
    /// that is acknowledged, and disconnects.
    private func lines(at level: Logger.Level) throws -> [String] {
        let broker = try MosquittoBroker()
        let lines = Locked<[String]>([])
        let loop = try EventLoop(name: "logging", logger: Logger(minimumLevel: level) { line in lines.withLock { $0.append(line) } })
        try loop.start()
        defer { loop.stop() }
        let client = try Client(
            options: ClientOptions(
                host: "127.0.0.1", port: Int32(broker.port), clientID: "log-test", cleanSession: true, keepalive: .seconds(60),
                protocolVersion: .v311, maxInFlight: 16))
        let steps = Steps()
        client.delegate = steps
        let bound = LoopBound(handing: client, to: loop)
        bound.execute { client in
            client.attach(to: loop)
            try? client.connect()
        }
        #expect(TestClock.wait(timeout: 5, interval: 0.01) { steps.events.withLock { $0.contains("published") } })
        bound.execute { try? $0.disconnect() }
        #expect(TestClock.wait(timeout: 5, interval: 0.01) { steps.events.withLock { $0.last == "disconnect" } })
        bound.execute { $0.leaveLoop() }
        return lines.withLock { $0 }
    }

    @Test func libmosquittosLinesReachTheLoggerAtDebugLevel() throws {
        let lines = try lines(at: .debug)
        let library = lines.filter { $0.contains("libmosquitto: ") }
        #expect(
            library.contains { $0.contains(" debug devsim: loop=logging client=log-test libmosquitto: Client log-test sending CONNECT") })
        #expect(library.contains { $0.contains("libmosquitto: Client log-test received CONNACK (0)") })
        #expect(library.contains { $0.contains("libmosquitto: Client log-test sending DISCONNECT") })
        // Each message's packets are counted, not logged.
        #expect(!library.contains { $0.contains("PUBLISH") || $0.contains("PUBACK") }, "\(library)")
    }

    @Test func atTheDefaultLevelLibmosquittoSaysNothing() throws {
        #expect(try lines(at: .info).isEmpty)
    }
}
