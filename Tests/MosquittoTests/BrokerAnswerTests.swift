import Glibc
import MQTT
import Mosquitto
import Reactor
import Testing
import TestSupport

/// What an MQTT 5 broker says back and the client must hear (issue 24): the limits of its CONNACK,
/// the reason codes of its PUBACK, PUBREC and SUBACK, the reason of its DISCONNECT, and a close
/// without any CONNACK. Staged by the scripted server, which a real broker cannot be made to do.
@Suite(.serialized, .tags(.integration), .notUnitOnly) struct BrokerAnswerTests {
    /// One client on a loop of its own, and what it reported.
    private final class Session: ClientDelegate, @unchecked Sendable {
        let loop: EventLoop
        /// Its loop's: made before the loop starts, then opened there only.
        let client: LoopBound<Client>
        let events = Locked<[String]>([])
        let disconnects = Locked<[MosquittoError?]>([])

        init(port: UInt16, clientID: String? = "answers", version: ProtocolVersion = .v5) throws {
            let loop = try EventLoop(name: "answers")
            self.loop = loop
            client = LoopBound(
                try Client(
                    options: ClientOptions(
                        host: "127.0.0.1", port: Int32(port), clientID: clientID, cleanSession: true, keepalive: .seconds(60),
                        protocolVersion: version, maxInFlight: 16)), on: loop)
            client.value.delegate = self
            try loop.start()
        }

        deinit { loop.stop() }

        func connect() {
            client.execute { [loop] client in
                client.attach(to: loop)
                try? client.connect()
            }
        }

        /// Runs `job` on the loop and waits for its result.
        func onLoop<T: Sendable>(_ job: @escaping @Sendable (Client) -> T) -> T? {
            let result = Locked<T?>(nil)
            client.execute { client in result.withLock { $0 = job(client) } }
            _ = TestClock.wait(timeout: 5) { result.withLock { $0 != nil } }
            return result.withLock { $0 }
        }

        func waitFor(_ prefix: String) -> Bool {
            TestClock.wait(timeout: 5) { events.withLock { $0.contains { $0.hasPrefix(prefix) } } }
        }

        var snapshot: [String] { events.withLock { $0 } }

        func client(_ client: Client, didReceiveConnack code: ConnackCode) { events.withLock { $0.append("connack \(code.rawValue)") } }

        func client(_ client: Client, didDisconnect error: MosquittoError?) {
            disconnects.withLock { $0.append(error) }
            events.withLock { $0.append("disconnect") }
        }

        func client(_ client: Client, didPublish messageID: Int32, reasonCode: ReasonCode) {
            events.withLock { $0.append("published \(reasonCode.hex)") }
        }

        func client(_ client: Client, didSubscribe messageID: Int32, grantedQoS: [Int32]) {
            events.withLock { $0.append("subscribed \(grantedQoS)") }
        }
    }

    @Test func theLimitsOfAnMQTT5ConnackAreRead() throws {
        let properties = ScriptedMQTTServer.ConnackProperties(
            maximumPacketSize: 256, receiveMaximum: 10, topicAliasMaximum: 5, serverKeepAlive: 20,
            assignedClientIdentifier: "given-by-broker", maximumQoS: 1, retainAvailable: false)
        let server = try ScriptedMQTTServer(script: .init(connackProperties: properties))
        let session = try Session(port: server.port, clientID: nil)
        session.connect()
        #expect(session.waitFor("connack 0"))
        let limits = try #require(session.onLoop { $0.brokerLimits })
        #expect(limits.maximumPacketSize == 256 && limits.receiveMaximum == 10 && limits.topicAliasMaximum == 5)
        #expect(limits.serverKeepAlive == .seconds(20) && limits.assignedClientIdentifier == "given-by-broker")
        #expect(limits.maximumQoS == .atLeastOnce && !limits.retainAvailable)
    }

    @Test func anMQTT3ConnackLeavesTheProtocolsDefaults() throws {
        let server = try ScriptedMQTTServer()
        let session = try Session(port: server.port, version: .v311)
        session.connect()
        #expect(session.waitFor("connack 0"))
        #expect(session.onLoop { $0.brokerLimits } == BrokerLimits())
    }

    /// A PUBACK (QoS 1) or PUBREC (QoS 2) of 0x80 or more refuses the message; libmosquitto tells
    /// of a refusing PUBREC through its v5 callback alone.
    @Test(arguments: [QoS.atLeastOnce, .exactlyOnce])
    func aRefusingAcknowledgementIsReportedWithItsReason(qos: QoS) throws {
        let server = try ScriptedMQTTServer(script: .init(publishReasonCode: { $0.hasPrefix("denied/") ? 0x87 : 0 }))
        let session = try Session(port: server.port)
        session.connect()
        #expect(session.waitFor("connack 0"))
        for topic in ["denied/a", "allowed/b"] {
            _ = session.onLoop { client in
                [UInt8]("x".utf8).withUnsafeBytes { client.publish(topic: Topic(topic), payload: $0, qos: qos, retain: false).messageID }
            }
            #expect(
                TestClock.wait(timeout: 5) { session.snapshot.filter { $0.hasPrefix("published") }.count == (topic == "denied/a" ? 1 : 2) })
        }
        #expect(session.snapshot.filter { $0.hasPrefix("published") } == ["published 0x87", "published 0x00"])
        #expect(ReasonCode(rawValue: 0x87).description == "Not authorized (0x87)")
    }

    @Test func theReasonOfABrokersDisconnectIsKept() throws {
        let server = try ScriptedMQTTServer(script: .init(disconnectAfterConnack: (after: 0.2, reason: 0x8B)))
        let session = try Session(port: server.port)
        session.connect()
        #expect(session.waitFor("disconnect"))
        let error = try #require(session.disconnects.withLock { $0.first } ?? nil)
        #expect(error.brokerReason == ReasonCode(rawValue: 0x8B))
        #expect(error.description == "the broker sent DISCONNECT: Server shutting down (0x8B)")
    }

    /// The Paho test broker's CONNACK says 256 bytes; 50 filters take more than that.
    @Test func subscriptionsAreSplitToFitTheMaximumPacketSize() throws {
        let server = try ScriptedMQTTServer(script: .init(connackProperties: .init(maximumPacketSize: 256)))
        let session = try Session(port: server.port)
        session.connect()
        #expect(session.waitFor("connack 0"))
        let topics = (1...50).map { "verify/device-\($0)" }
        let sent = try #require(session.onLoop { $0.subscribe(topics, qos: .atLeastOnce) })
        #expect(sent.count > 1 && sent.flatMap(\.filters) == topics && sent.allSatisfy { (try? $0.sent.get()) != nil })
        #expect(TestClock.wait(timeout: 5) { server.connections.first?.subscriptions.count == 50 })
        let packets = server.connections.first?.subscribePackets ?? []
        #expect(packets.count == sent.count && packets.allSatisfy { $0.bytes <= 256 } && packets.map(\.filters) == sent.map(\.filters))
        // Full, not one a packet: each but the last had no room for the next filter.
        #expect(packets.dropLast().allSatisfy { $0.bytes + PacketSize.subscription("verify/device-50") > 256 })
    }

    /// A filter that fits no packet is not sent, and the filters beside it are, each SUBSCRIBE
    /// with the id its SUBACK will have.
    @Test func aFilterTooLargeForAnyPacketLeavesTheOthersSent() throws {
        let server = try ScriptedMQTTServer(script: .init(connackProperties: .init(maximumPacketSize: 256)))
        let session = try Session(port: server.port)
        session.connect()
        #expect(session.waitFor("connack 0"))
        let huge = String(repeating: "x", count: 300)
        let sent = try #require(session.onLoop { $0.subscribe(["a/1", huge, "a/2"], qos: .atMostOnce) })
        #expect(sent.map(\.filters) == [["a/1"], [huge], ["a/2"]])
        #expect(sent.map { (try? $0.sent.get()) != nil } == [true, false, true])
        #expect(sent[1].sent == .failure(.oversizePacket))
        #expect(TestClock.wait(timeout: 5) { session.snapshot.filter { $0.hasPrefix("subscribed") }.count == 2 })
        #expect(server.connections.first?.subscriptions == ["a/1", "a/2"])
    }

    /// libmosquitto keeps a CONNACK's limits until another CONNACK gives them anew, but for the
    /// keepalive and Retain Available, which each connection resets: so does the client. The
    /// Topic Alias Maximum, which libmosquitto leaves to the client, is the connection's too.
    @Test func theLimitsAreKeptAsLibmosquittoKeepsThemAcrossAReconnect() throws {
        let server = try ScriptedMQTTServer(scripts: [
            .init(
                closeAfterConnack: 0.2,
                connackProperties: .init(maximumPacketSize: 256, topicAliasMaximum: 5, serverKeepAlive: 20, retainAvailable: false)),
            .init(),
        ])
        let session = try Session(port: server.port)
        session.connect()
        #expect(session.waitFor("disconnect"))
        session.client.execute { client in try? client.connect() }
        #expect(TestClock.wait(timeout: 5) { session.snapshot.filter { $0 == "connack 0" }.count == 2 })
        let limits = try #require(session.onLoop { $0.brokerLimits })
        #expect(limits.maximumPacketSize == 256 && limits.serverKeepAlive == nil && limits.retainAvailable, "\(limits)")
        #expect(limits.topicAliasMaximum == 0, "none given, none allowed: \(limits)")
        let error = session.onLoop { client in
            [UInt8](repeating: 0, count: 400).withUnsafeBytes {
                client.publish(topic: Topic("t"), payload: $0, qos: .atMostOnce, retain: false).error
            }
        }
        #expect(error == .some(.oversizePacket), "refused, as libmosquitto would")
    }

    /// libmosquitto 2.0.11 counts a QoS 1 packet id as one byte: a packet of 257 bytes would
    /// pass its check, and the broker would drop the connection.
    @Test func aPublishOverTheMaximumPacketSizeIsRefusedBeforeItIsSent() throws {
        let server = try ScriptedMQTTServer(script: .init(connackProperties: .init(maximumPacketSize: 256)))
        let session = try Session(port: server.port)
        session.connect()
        #expect(session.waitFor("connack 0"))
        // 1 + 2 (remaining length) + 2 + 1 (topic "t") + 2 (packet id) + 1 (properties) + payload.
        let fits = 256 - 9
        let errors = try #require(
            session.onLoop { client in
                [fits, fits + 1].map { size in
                    [UInt8](repeating: 0x61, count: size).withUnsafeBytes {
                        client.publish(topic: Topic("t"), payload: $0, qos: .atLeastOnce, retain: false).error
                    }
                }
            })
        #expect(errors == [nil, .oversizePacket])
        #expect(server.waitFor(publishes: 1, timeout: 5))
        #expect(server.publishes.map(\.payload.count) == [fits])
        #expect(PacketSize.publish(topic: 1, payload: fits, qos: .atLeastOnce, version: .v5) == 256)
    }

    /// RabbitMQ 3.10 closes the connection of an MQTT 5 CONNECT without a word: the broker was
    /// reached, which a closed port never is.
    @Test func aCloseWithoutConnackIsTheBrokersAnswerAndAClosedPortIsNot() throws {
        let server = try ScriptedMQTTServer(script: .init(closesMQTT5Connect: true))
        let session = try Session(port: server.port)
        session.connect()
        #expect(session.waitFor("disconnect"))
        #expect(session.onLoop { $0.reachedBroker } == true)
        let closed = try Session(port: try Loopback.freePort())
        // On loopback the refusal may come at once, from the connect call itself.
        let refusedAtOnce = closed.onLoop { client in
            client.attach(to: closed.loop)
            return (try? client.connect()) == nil
        }
        if refusedAtOnce == false { #expect(closed.waitFor("disconnect")) }
        #expect(closed.onLoop { $0.reachedBroker } == false)
    }
}
