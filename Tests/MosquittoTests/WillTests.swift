import MQTT
import Mosquitto
import Reactor
import Testing
import TestSupport

/// A will replaced between connections is the one the next CONNECT carries: a Sparkplug edge
/// node's NDEATH names the bdSeq of each connection anew. Read from the CONNECTs the scripted
/// server records.
@Suite(.serialized, .tags(.integration), .notUnitOnly) struct WillTests {
    private final class Recorder: ClientDelegate, @unchecked Sendable {
        let events = Locked<[String]>([])
        func client(_ client: Client, didReceiveConnack code: ConnackCode) { events.withLock { $0.append("connack") } }
        func client(_ client: Client, didDisconnect error: MosquittoError?) { events.withLock { $0.append("disconnect") } }
        func client(_ client: Client, didPublish messageID: Int32, reasonCode: ReasonCode) {}
        func client(_ client: Client, didSubscribe messageID: Int32, grantedQoS: [Int32]) {}
        func count(_ event: String) -> Int { events.withLock { $0.filter { $0 == event }.count } }
    }

    @Test func theNextConnectCarriesTheWillSetSinceTheLast() throws {
        let server = try ScriptedMQTTServer()
        let loop = try EventLoop(name: "will")
        try loop.start()
        defer { loop.stop() }
        var options = ClientOptions(
            host: "127.0.0.1", port: Int32(server.port), clientID: "node-1", cleanSession: true, keepalive: .seconds(60),
            protocolVersion: .v311, maxInFlight: 16)
        options.will = Will(topic: "spBv1.0/g/NDEATH/node-1", payload: [0x01], qos: .atLeastOnce, retain: false)
        let client = try Client(options: options)
        let recorder = Recorder()
        client.delegate = recorder
        let bound = LoopBound(handing: client, to: loop)
        bound.execute { client in
            client.attach(to: loop)
            try? client.connect()
        }
        #expect(TestClock.wait(timeout: 5) { recorder.count("connack") == 1 })
        bound.execute { try? $0.disconnect() }
        #expect(TestClock.wait(timeout: 5) { recorder.count("disconnect") == 1 })
        let failure = Locked<String?>(nil)
        bound.execute { client in
            do {
                try client.setWill(Will(topic: "spBv1.0/g/NDEATH/node-1", payload: [0x02], qos: .atLeastOnce, retain: false))
                try client.connect()
            } catch {
                failure.withLock { $0 = "\(error)" }
            }
        }
        #expect(TestClock.wait(timeout: 5) { recorder.count("connack") == 2 })
        #expect(failure.withLock { $0 } == nil)
        let wills = server.connections.map { $0.connect?.will }
        #expect(wills.map { $0?.payload } == [[0x01], [0x02]])
        #expect(wills.allSatisfy { $0?.topic == "spBv1.0/g/NDEATH/node-1" && $0?.qos == 1 && $0?.retain == false })
    }
}
