import MQTT
import Mosquitto
import Reactor
import Testing
import TestSupport

/// Records what a client reports, from its loop's thread.
private final class Recorder: ClientDelegate, @unchecked Sendable {
    let events = Locked<[String]>([])
    var onConnack: ((Client, ConnackCode) -> Void)?

    func client(_ client: Client, didReceiveConnack code: ConnackCode) {
        events.withLock { $0.append("connack \(code.rawValue)") }
        onConnack?(client, code)
    }

    func client(_ client: Client, didDisconnect error: MosquittoError?) {
        events.withLock { $0.append("disconnect \(error?.rawValue ?? 0)") }
    }

    func client(_ client: Client, didPublish messageID: Int32, reasonCode: ReasonCode) {
        events.withLock { $0.append("published \(messageID)" + (reasonCode == .success ? "" : " \(reasonCode.hex)")) }
    }

    func client(_ client: Client, didSubscribe messageID: Int32, grantedQoS: [Int32]) {
        events.withLock { $0.append("subscribed \(messageID) \(grantedQoS)") }
    }

    var snapshot: [String] { events.withLock { $0 } }
}

@Suite(.serialized, .tags(.integration), .notUnitOnly) struct EventLoopClientTests {
    @Test func connectsPublishesFromTheConnackAndIsAcknowledged() throws {
        let broker = try MosquittoBroker()
        let subscriber = try Subscriber(broker: broker, topic: "loop/#", qos: 1)
        let loop = try EventLoop(name: "test")
        try loop.start()
        defer { loop.stop() }

        let client = try Client(options: loopbackOptions(port: broker.port, clientID: "loop-test"))
        let recorder = Recorder()
        recorder.onConnack = { client, _ in
            let payload = Array("hello".utf8)
            _ = payload.withUnsafeBytes { bytes in
                client.publish(topic: Topic("loop/a"), payload: bytes, qos: .atLeastOnce, retain: false)
            }
        }
        client.delegate = recorder
        let bound = LoopBound(handing: client, to: loop)
        bound.execute { client in
            client.attach(to: loop)
            try? client.connect()
        }
        #expect(subscriber.waitFor(count: 1, timeout: 10))
        #expect(subscriber.messages.first?.topic == "loop/a")
        #expect(subscriber.messages.first?.payloadText == "hello")
        #expect(TestClock.wait(timeout: 5, interval: 0.01) { recorder.snapshot.contains { $0.hasPrefix("published") } })
        #expect(recorder.snapshot.first == "connack 0")
        bound.execute { try? $0.disconnect() }
        #expect(TestClock.wait(timeout: 5, interval: 0.01) { recorder.snapshot.last == "disconnect 0" })
    }

    @Test func aRefusedConnackCarriesTheBrokersReason() throws {
        let server = try ScriptedMQTTServer(script: .init(connackCode: 5))
        let loop = try EventLoop(name: "test")
        try loop.start()
        defer { loop.stop() }
        let client = try Client(options: loopbackOptions(port: server.port, clientID: "refused"))
        let recorder = Recorder()
        client.delegate = recorder
        LoopBound(handing: client, to: loop).execute { client in
            client.attach(to: loop)
            try? client.connect()
        }
        #expect(TestClock.wait(timeout: 5, interval: 0.01) { recorder.snapshot.count >= 2 })
        #expect(recorder.snapshot.prefix(2) == ["connack 5", "disconnect \(MosquittoError.connectionRefused.rawValue)"])
        // The library's words; 2.1 drops the final period.
        #expect(ConnackCode(rawValue: 5).description.hasPrefix("Connection Refused: not authorised"))
    }

    @Test func errorsKeepUnknownCodesAndTheLibrarysText() {
        #expect(MosquittoError(rawValue: 9999).rawValue == 9999)
        #expect(MosquittoError.noConnection.description.hasPrefix("The client is not currently connected"))
        #expect(ConnackCode(rawValue: 135).description == "Not authorized")
    }
}

/// A plain MQTT 3.1.1 client of a loopback port.
private func loopbackOptions(port: UInt16, clientID: String) -> ClientOptions {
    ClientOptions(
        host: "127.0.0.1", port: Int32(port), clientID: clientID, cleanSession: true, keepalive: .seconds(60),
        protocolVersion: .v311, maxInFlight: 16)
}
