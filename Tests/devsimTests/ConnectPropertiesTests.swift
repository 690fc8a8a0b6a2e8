import Foundation
import Glibc
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

/// A connection with CONNECT properties whose broker does not answer (its SYNs dropped) must not
/// stall its loop: `mosquitto_connect_bind_v5` straight to the broker would block the loop's
/// thread for the kernel's SYN timeout; through the bridge, the loop's other connection goes on
/// publishing while the attempt waits.
@Suite(.serialized, .tags(.integration, .root), .notUnitOnly) struct ConnectPropertiesSilentBrokerTests {
    @Test func aSilentBrokerDoesNotStallTheLoop() throws {
        let namespace = try NetworkNamespace()
        let broker = try MosquittoBroker(namespace: namespace)
        let silentPort = broker.port == 65000 ? 65001 : 65000
        try namespace.run("iptables", "-I", "INPUT", "-p", "tcp", "--dport", String(silentPort), "-j", "DROP")
        let file = try RunFiles.scenario(
            "silent.yaml",
            """
            broker:
              protocol: mqtt5
              hosts: ["127.0.0.1:\(broker.port)", "127.0.0.1:\(silentPort)"]
              spread: roundRobin
              properties: { sessionExpiry: 1h, userProperties: { rack: "{id}" } }
            devices:
              - name: d
                count: 2
                topic: "silent/{id}"
                publish: 20/s
                payload: { fields: { n: { counter: 0 } } }
            """)
        defer { RunFiles.removeFolder(of: file) }
        let command = namespace.command(
            try DevsimProcess.locateDevsim(), ["run", file, "--loops", "1", "--connack-timeout", "60s", "--stats-interval", "0"])
        let devsim = try DevsimProcess(executable: command.executable, arguments: command.arguments)
        let subscriber = namespace.command(
            "mosquitto_sub", ["-h", "127.0.0.1", "-p", String(broker.port), "-t", "silent/d-1", "-C", "20", "-W", "30"])
        let received = try DevsimProcess.runToCompletion(executable: subscriber.executable, args: subscriber.arguments, timeout: 40)
        #expect(received.status == 0, "d-1 publishes while d-2's attempt waits\n\(received.stderr)\n\(devsim.stderr)")
        #expect(!devsim.stderr.contains("client=d-2 broker=127.0.0.1:\(silentPort) connected"), "\(devsim.stderr)")
        devsim.sendSignal(SIGTERM)
        #expect(devsim.waitUntilExit(timeout: 15) == 0, "\(devsim.stderr)")
    }
}
