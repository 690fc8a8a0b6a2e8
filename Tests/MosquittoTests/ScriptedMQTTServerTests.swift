import Glibc
import Testing
import TestSupport

/// The scripted server, proven with `mosquitto_pub` (libmosquitto underneath) as the client.
@Suite(.serialized, .tags(.integration), .notUnitOnly) struct ScriptedMQTTServerTests {
    typealias Script = ScriptedMQTTServer.Script

    @Test func recordsConnectAndQoS1PublishAndAcksIt() throws {
        let server = try ScriptedMQTTServer()
        let result = try MosquittoPub.run(
            port: server.port, ["-t", "t", "-m", "hello", "-q", "1", "-i", "myid", "-u", "user", "-P", "pw", "-k", "17"])
        #expect(result.status == 0, "mosquitto_pub must get its PUBACK: \(result.stderr)")

        #expect(server.waitUntil(timeout: 5) { connections, _ in connections.first?.closedAt != nil })
        let connection = try #require(server.connections.first)
        #expect(server.connections.count == 1)
        let connect = try #require(connection.connect)
        #expect(connect.clientID == "myid")
        #expect(connect.username == "user")
        #expect(connect.passwordText == "pw")
        #expect(connect.keepAlive == 17)
        #expect(connect.protocolLevel == 4)
        #expect(connect.protocolName == "MQTT")
        #expect(connection.connackCode == 0)
        #expect(connection.closeReason == .clientDisconnected)

        let publish = try #require(server.publishes.first)
        #expect(server.publishes.count == 1)
        #expect(publish.topic == "t")
        #expect(publish.payloadText == "hello")
        #expect(publish.qos == 1)
        #expect(publish.packetID != nil)
        #expect(publish.attempt == 1)
        #expect(publish.receivedAt >= connection.acceptedAt)
    }

    @Test func qos2FlowCompletes() throws {
        let server = try ScriptedMQTTServer()
        let result = try MosquittoPub.run(port: server.port, ["-t", "a/b", "-m", "two", "-q", "2", "-r"])
        #expect(result.status == 0, "mosquitto_pub needs PUBREC and PUBCOMP: \(result.stderr)")
        let publish = try #require(server.publishes.first)
        #expect(publish.qos == 2)
        #expect(publish.retain)
        #expect(publish.payloadText == "two")
    }

    @Test func refusedConnackFailsTheClientAndNothingIsPublished() throws {
        let server = try ScriptedMQTTServer(script: Script(connackCode: 5))
        let result = try MosquittoPub.run(port: server.port, ["-t", "t", "-m", "hello", "-q", "1"])
        #expect(result.status != nil && result.status != 0)
        #expect(server.publishes.isEmpty)
        #expect(server.waitUntil(timeout: 5) { connections, _ in connections.first?.closeReason == .refused })
        #expect(server.connections.first?.connackCode == 5)
    }

    @Test func heldBackConnackDelaysThePublish() throws {
        let server = try ScriptedMQTTServer(script: Script(connackDelay: 1.5))
        let result = try MosquittoPub.run(port: server.port, ["-t", "t", "-m", "late", "-q", "1"])
        #expect(result.status == 0, "\(result.stderr)")
        let connection = try #require(server.connections.first)
        let publish = try #require(server.publishes.first)
        #expect(publish.receivedAt - connection.acceptedAt >= 1.5)
        let connackSentAt = try #require(connection.connackSentAt)
        #expect(publish.receivedAt >= connackSentAt)
    }

    @Test func scriptsApplyPerAttemptAndTheLastRepeats() throws {
        let server = try ScriptedMQTTServer(scripts: [Script(connackCode: 4), Script()])
        #expect(try MosquittoPub.run(port: server.port, ["-t", "t", "-m", "1"]).status != 0)
        #expect(try MosquittoPub.run(port: server.port, ["-t", "t", "-m", "2"]).status == 0)
        #expect(try MosquittoPub.run(port: server.port, ["-t", "t", "-m", "3"]).status == 0)
        #expect(server.waitFor(publishes: 2, timeout: 5))
        #expect(server.waitFor(connections: 3, timeout: 5))
        #expect(server.connections.map(\.connackCode) == [4, 0, 0])
        #expect(server.publishes.map(\.payloadText) == ["2", "3"])
        #expect(server.publishes.map(\.attempt) == [2, 3])
    }

    @Test func silentServerRecordsPingsWithoutAnswering() throws {
        // A subscriber with the shortest keep-alive mosquitto_sub allows (5 s) pings; the silent
        // server records the PINGREQ and never answers.
        let server = try ScriptedMQTTServer(script: Script(answerPings: false))
        let client = try DevsimProcess(
            executable: "mosquitto_sub", arguments: ["-h", "127.0.0.1", "-p", String(server.port), "-t", "s/#", "-k", "5"])
        #expect(
            server.waitUntil(timeout: 10) { connections, _ in !(connections.first?.pingsReceivedAt.isEmpty ?? true) },
            "client stderr: \(client.stderr)")
        #expect(server.connections.first?.subscriptions == ["s/#"])
        client.terminate(grace: 1)
    }

    @Test func dropAllConnectionsClosesClientSockets() throws {
        let server = try ScriptedMQTTServer()
        let client = try DevsimProcess(
            executable: "mosquitto_sub", arguments: ["-h", "127.0.0.1", "-p", String(server.port), "-t", "x"])
        #expect(server.waitUntil(timeout: 5) { connections, _ in connections.first?.subscriptions == ["x"] })
        server.dropAllConnections()
        #expect(server.waitUntil(timeout: 5) { connections, _ in connections.first?.closeReason == .dropped })
        // libmosquitto reconnects; the listener is still open, so a second attempt arrives.
        #expect(server.waitFor(connections: 2, timeout: 5))
        client.terminate(grace: 1)
    }

    @Test func closeAfterConnackDropsTheConnectionOnTime() throws {
        let server = try ScriptedMQTTServer(scripts: [Script(closeAfterConnack: 0.3), Script(closeOnAccept: true)])
        let client = try DevsimProcess(
            executable: "mosquitto_sub", arguments: ["-h", "127.0.0.1", "-p", String(server.port), "-t", "x"])
        #expect(server.waitUntil(timeout: 5) { connections, _ in connections.count >= 2 && connections[1].closedAt != nil })
        let first = try #require(server.connections.first)
        #expect(first.closeReason == .scripted)
        #expect(try #require(first.closedAt) - #require(first.connackSentAt) >= 0.3)
        #expect(server.connections[1].connect == nil)
        client.terminate(grace: 1)
    }

    @Test func garbageAndTruncatedPacketsDoNotHurtTheServer() throws {
        let server = try ScriptedMQTTServer()
        // Invalid remaining length, a packet before CONNECT, and a CONNECT cut off mid-packet.
        let inputs: [[UInt8]] = [
            [0x10, 0xff, 0xff, 0xff, 0xff, 0x7f],
            [0x30, 0x03, 0x00, 0x01, 0x41],
            [0x10, 0x20, 0x00, 0x04, 0x4d, 0x51],
            Array("GET / HTTP/1.1\r\n\r\n".utf8),
        ]
        for bytes in inputs { try sendRaw(bytes, port: server.port) }
        #expect(
            server.waitUntil(timeout: 5) { connections, _ in
                connections.count == inputs.count && connections.allSatisfy { $0.closedAt != nil }
            })
        let reasons = server.connections.map(\.closeReason)
        #expect(reasons[0] == .protocolError("remaining length longer than 4 bytes"))
        #expect(reasons[1] == .protocolError("packet type 3 before CONNECT"))
        #expect(reasons[2] == .clientClosed)
        // The server still works afterwards.
        #expect(try MosquittoPub.run(port: server.port, ["-t", "t", "-m", "ok", "-q", "1"]).status == 0)
        #expect(server.publishes.map(\.payloadText) == ["ok"])
    }

    @Test func stopClosesOpenConnectionsAndIsIdempotent() throws {
        let server = try ScriptedMQTTServer(script: Script(sendConnack: false))
        let client = try DevsimProcess(
            executable: "mosquitto_sub", arguments: ["-h", "127.0.0.1", "-p", String(server.port), "-t", "x"])
        #expect(server.waitUntil(timeout: 5) { connections, _ in connections.first?.connect != nil })
        let start = TestClock.now()
        server.stop()
        server.stop()
        #expect(TestClock.now() - start < 3)
        #expect(server.connections.first?.closeReason == .serverStopped)
        #expect(!Loopback.acceptsConnections(port: server.port))
        client.terminate(grace: 1)
    }

    /// Connects, writes `bytes`, and closes.
    private func sendRaw(_ bytes: [UInt8], port: UInt16) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr = in_addr(s_addr: UInt32(0x7f00_0001).bigEndian)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(connected == 0)
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        // Give the server a moment to read before the close, so each input is seen as sent.
        TestClock.sleep(0.05)
    }
}
