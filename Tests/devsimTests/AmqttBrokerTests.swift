import Foundation
import Glibc
import Testing
import TestSupport

/// The built binary against amqtt, a broker written apart from mosquitto (in Python): what devsim
/// promises must hold with any MQTT 3.1.1 broker, not only with the one most tests use.
@Suite(.tags(.integration), .notUnitOnly) struct AmqttBrokerTests {
    private let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// A fleet of `count` devices publishing a counter to `topic` at `rate`, reconnecting quickly.
    private func scenario(topic: String, qos: Int, count: Int = 2, rate: String = "10/s", broker: String...) throws -> String {
        try ScenarioText(
            broker: ["reconnect: { initial: 200ms, max: 1s }"] + broker, count: count, topic: "\(topic)/{index}", publish: rate, qos: qos,
            fields: "seq: { counter: 0 }, ts: { timestamp: ms }"
        ).file("amqtt.yaml")
    }

    /// How many of devsim's log lines end with `suffix` (the state a client came to).
    private func lines(endingWith suffix: String, in log: String) -> Int {
        log.split(separator: "\n").filter { $0.hasSuffix(suffix) }.count
    }

    @Test func theSeedScenarioPublishesMilkcocoaPayloads() throws {
        let broker = try AmqttBroker()
        let seed = try String(contentsOf: repository.appendingPathComponent("scenarios/milkcocoa-accelerometer.yaml"), encoding: .utf8)
        // A copy, so the report is written beside it, in a folder the test removes.
        let file = try RunFiles.scenario("milkcocoa-accelerometer.yaml", seed)
        defer { RunFiles.removeFolder(of: file) }
        let subscriber = try Subscriber(port: broker.port, topic: "myapp/Test/push")

        let report = file + ".json"
        let result = try DevsimRun(
            file, port: broker.port, ["--duration", "3s", "--report", report], environment: ["MILKCOCOA_APP_ID": "myapp"])
        #expect(result.status == 0, "\(result.stderr)\nbroker log:\n\(broker.log)")
        let figures = try RunFiles.report(report)
        let published = try #require(figures["published"] as? Int)
        #expect(published >= 2, "1/s for 3 s")
        #expect(RunFiles.accountsForEveryTick(figures), "\(figures)")
        #expect(figures["outcome"] as? String == "duration")

        #expect(subscriber.waitFor(count: 1, timeout: 5), "broker log:\n\(broker.log)")
        #expect(subscriber.messages.count <= published)
        for message in subscriber.messages {
            #expect(message.topic == "myapp/Test/push")
            #expect(
                message.payloadText.wholeMatch(of: #/\{"params":\{"Accel_X":-?\d+\.\d{4},"Accel_Y":-?\d+\.\d{4}\}\}/#) != nil,
                "\(message.payloadText)")
        }
    }

    /// amqtt acknowledges QoS 1 (PUBACK) and QoS 2 (PUBREC, PUBCOMP) and delivers both.
    @Test(arguments: [1, 2])
    func verifyFindsNothingLost(qos: Int) throws {
        let broker = try AmqttBroker()
        let file = try scenario(topic: "verify", qos: qos, count: 5, rate: "50/s")
        defer { RunFiles.removeFolder(of: file) }
        let report = file + ".json"
        let result = try DevsimRun(file, port: broker.port, ["--duration", "3s", "--verify", "--report", report])
        #expect(result.status == 0, "\(result.stderr)\nbroker log:\n\(broker.log)")
        let figures = try RunFiles.report(report)
        let published = try #require(figures["published"] as? Int)
        #expect(published > 0)
        #expect(RunFiles.accountsForEveryTick(figures), "\(figures)")
        #expect(figures["acknowledged"] as? Int == published, "\(figures)")
        let verify = try #require(figures["verify"] as? [String: Any], "\(figures)")
        #expect(verify["lost"] as? Int == 0, "\(verify)")
        #expect(verify["received"] as? Int == published, "\(verify)")
    }

    @Test func aKilledAndRestartedBrokerIsReconnectedToAndPublishedTo() throws {
        let broker = try AmqttBroker()
        let file = try scenario(topic: "restart", qos: 1)
        defer { RunFiles.removeFolder(of: file) }
        let report = file + ".json"
        let devsim = try DevsimRun.start(file, port: broker.port, ["--report", report])
        // Both connections up first: one that never had a connection cannot come back.
        #expect(TestClock.wait(timeout: 10) { lines(endingWith: " connected", in: devsim.stderr) >= 2 }, "\(devsim.stderr)")

        broker.kill()
        #expect(devsim.waitForOutput(containing: "connection lost", inStderr: true, timeout: 10), "\(devsim.stderr)")
        try broker.restart()
        // The broker came back empty, so whatever this subscriber gets was published after the restart.
        let subscriber = try Subscriber(port: broker.port, topic: "restart/#", qos: 1)
        #expect(subscriber.waitFor(count: 1, timeout: 15), "\(devsim.stderr)\nbroker log:\n\(broker.log)")
        // The backoff is at most 1 s: both are back soon.
        #expect(TestClock.wait(timeout: 15) { lines(endingWith: " reconnected", in: devsim.stderr) >= 2 }, "\(devsim.stderr)")

        devsim.sendSignal(SIGTERM)
        #expect(devsim.waitUntilExit(timeout: 15) == 0, "\(devsim.stderr)")
        let figures = try RunFiles.report(report)
        #expect(figures["reconnects"] as? Int == 2, "each of the two connections came back once\n\(figures)")
        #expect((figures["skippedOffline"] as? Int ?? 0) > 0, "the outage's ticks are skipped and counted\n\(figures)")
        #expect(RunFiles.accountsForEveryTick(figures), "\(figures)")
        let published = figures["published"] as? Int ?? 0, acknowledged = figures["acknowledged"] as? Int ?? 0
        #expect(acknowledged + (figures["inFlight"] as? Int ?? 0) == published, "\(figures)")
    }

    @Test func aWrongPasswordExits3AndNamesTheRefusal() throws {
        let broker = try AmqttBroker(users: ["dev": "right"], allowAnonymous: false)
        let file = try scenario(topic: "auth", qos: 0, broker: "username: dev", "password: ${AMQTT_TEST_PASSWORD}")
        defer { RunFiles.removeFolder(of: file) }
        // The user is known, so the refusal below is the password's. Ticks start at the CONNACK,
        // so a run bounded by a message count ends only once the broker has accepted it.
        let report = file + ".json"
        let accepted = try DevsimRun(
            file, port: broker.port, ["--messages", "4", "--connect-timeout", "10s", "--report", report],
            environment: ["AMQTT_TEST_PASSWORD": "right"])
        #expect(accepted.status == 0, "\(accepted.stderr)\nbroker log:\n\(broker.log)")
        #expect(try RunFiles.report(report)["published"] as? Int == 4)

        let start = TestClock.now()
        let refused = try DevsimRun(file, port: broker.port, ["--connect-timeout", "2s"], environment: ["AMQTT_TEST_PASSWORD": "wrong"])
        #expect(refused.status == 3, "\(refused.stderr)")
        #expect(TestClock.now() - start < 10, "exit 3 at the connect timeout")
        // amqtt answers a wrong password with code 5, not authorised; MQTT 3.1.1 also allows 4.
        let reasons = refused.stderr.split(separator: "\n").filter { line in
            line.contains(" warning ") && line.contains("CONNACK code")
                && (line.lowercased().contains("not authorised") || line.lowercased().contains("bad user name or password"))
        }
        #expect(reasons.count == 1, "one line names the refusal, however many devices\n\(refused.stderr)")
    }

    /// amqtt speaks MQTT 3.1.1 only and leaves an MQTT 5 CONNECT unanswered: devsim must still give
    /// up at the connect timeout rather than wait for ever.
    @Test func anMQTT5ScenarioAgainstAnMQTT311OnlyBrokerExits3() throws {
        let broker = try AmqttBroker()
        let file = try scenario(topic: "v5", qos: 0, broker: "protocol: mqtt5")
        defer { RunFiles.removeFolder(of: file) }
        let start = TestClock.now()
        let result = try DevsimRun(file, port: broker.port, ["--connect-timeout", "2s"])
        #expect(result.status == 3, "\(result.stderr)")
        #expect(TestClock.now() - start < 10, "exit 3 at the connect timeout")
        #expect(result.stderr.contains("no connection within"), "\(result.stderr)")
        // Issue 24, item 7.
        #expect(result.stderr.contains("the broker may not speak MQTT 5: try --protocol mqtt311"), "\(result.stderr)")
    }
}

/// Issue 12: a second, independent WebSocket server: amqtt's listener (the `websockets` library
/// of Python), with publishing and acknowledgement over ws://.
@Suite(.tags(.integration), .notUnitOnly) struct AmqttWebSocketTests {
    @Test func qos1OverWebSocketsIsPublishedAcknowledgedAndReceived() throws {
        let webSocketPort = try Loopback.freePort()
        let broker = try AmqttBroker(webSocketPort: webSocketPort)
        let file = try RunFiles.scenario(
            "amqtt-ws.yaml",
            """
            broker: { url: "ws://127.0.0.1:\(webSocketPort)/mqtt" }
            devices:
              - name: meter
                count: 3
                topic: "amqtt/ws/{index}"
                publish: 20/s
                qos: 1
                payload: { fields: { seq: { counter: 0 }, ts: { timestamp: ms } } }
            """)
        defer { RunFiles.removeFolder(of: file) }
        let result = try DevsimRun(file, ["--duration", "3s", "--verify"], report: true)
        #expect(result.status == 0, "\(result.stderr)\nbroker log:\n\(broker.log)")
        let figures = try RunFiles.report(file + ".json")
        let published = figures["published"] as? Int ?? 0
        #expect(published >= 100, "\(figures)")
        #expect(figures["acknowledged"] as? Int == published, "\(figures)")
        let verify = figures["verify"] as? [String: Any] ?? [:]
        #expect(verify["lost"] as? Int == 0 && verify["received"] as? Int == published, "\(verify)")
    }
}
