import Foundation
import Testing
import TestSupport

/// Issue 29, item 1: `broker.properties`, the MQTT 5 CONNECT properties, which libmosquitto
/// 2.0.11 sends only from a blocking connect: devsim makes it to its bridge, raw, which makes
/// the TCP connection without blocking. A server that records each CONNECT shows what arrived.
@Suite(.tags(.integration), .notUnitOnly) struct ConnectPropertiesTests {
    private func scenario(broker: String = "") throws -> String {
        try RunFiles.scenario(
            "cp.yaml",
            """
            broker:
              protocol: mqtt5
              \(broker)
              properties:
                sessionExpiry: 1h
                receiveMaximum: 100
                maximumPacketSize: 256KB
                userProperties: { rack: "{id}" }
            devices:
              - name: d
                count: 2
                topic: "cp/{id}"
                publish: 20/s
                qos: 1
                payload: { fields: { n: { counter: 0 } } }
            """)
    }

    /// Every attempt's CONNECT carries them, a reconnect's too (libmosquitto keeps none between
    /// attempts), each connection's user property filled with its own id.
    @Test func everyAttemptSendsTheProperties() throws {
        let server = try ScriptedMQTTServer(scripts: [.init(closeAfterConnack: 0.1), .init(closeAfterConnack: 0.1), .init()])
        let file = try scenario(broker: "reconnect: { initial: 0.1s, max: 0.1s }")
        defer { RunFiles.removeFolder(of: file) }
        let result = try DevsimProcess.runToCompletion(
            args: ["run", file, "--host", "127.0.0.1", "--port", String(server.port), "--messages", "60"], timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        let connects = server.connections.compactMap(\.connect)
        #expect(connects.count >= 3, "a connection closed after its CONNACK comes back")
        for connect in connects {
            #expect(connect.properties.sessionExpiry == 3600)
            #expect(connect.properties.receiveMaximum == 100)
            #expect(connect.properties.maximumPacketSize == UInt32(262_144))
            #expect(connect.properties.userProperties == [["rack", connect.clientID]])
        }
        #expect(Set(connects.map(\.clientID)) == ["d-1", "d-2"])
    }

    /// The same through TLS (mqtts://), which is then the bridge's, as for wss://.
    @Test func theyGoThroughTLSToo() throws {
        let certificates = try TestCertificates(host: "127.0.0.1")
        let broker = try MosquittoBroker(extraConfig: certificates.listenerConfig)
        let file = try scenario(broker: "tls: { ca: \(certificates.ca) }")
        defer { RunFiles.removeFolder(of: file) }
        let result = try DevsimProcess.runToCompletion(
            args: ["run", file, "--host", "127.0.0.1", "--port", String(broker.port), "--messages", "10"], timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("published 10,"), "\(result.stderr)")
    }
}
