import Report
import Simulator
import Testing
import TestSupport

/// Protocol edge cases a real broker cannot stage, against the scripted server.
@Suite(.tags(.integration), .notUnitOnly) struct FleetProtocolTests {
    private let device = """
        broker:
          reconnect: { initial: 500ms, max: 4s }
        devices:
          - name: phone
            topic: "p/{index}"
            publish: 20/s
            payload:
              fields:
                x: { accelerometer: x, decimals: 4 }
        """

    /// Issue 38, item 17: MQTT 3.1 allows client ids of 1 to 23 characters (the scripted server
    /// refuses longer ones with CONNACK 2, as aedes does). Every id devsim makes itself fits,
    /// still distinct: the verifier's (which falls back from MQTT 5 to the fleet's 3.1), a
    /// subscriber group's default, the control connection's, the shared connections'.
    @Test func everyClientIDDevsimMakesFitsMQTT31() throws {
        let server = try ScriptedMQTTServer(script: .init(refusesMQTT5: true))
        let yaml = """
            name: a-scenario-with-a-long-name
            control: { topic: devsim/control }
            devices:
              - name: environmental-sensors
                count: 4
                connection: { shared: 2 }
                topic: "env/{index}"
                publish: 5/s
                payload: { fields: { seq: { counter: 0 } } }
            subscribers:
              - name: dashboards-of-the-plant-floor
                count: 2
                topics: ["env/#"]
            """
        var settings = RunSettings(duration: .seconds(1), statsInterval: nil)
        settings.mqttProtocol = .v31
        settings.verify = true
        _ = try #require(try FleetHarness.run(yaml, port: server.port, settings: settings))
        let ids = server.connections.compactMap(\.connect).filter { $0.protocolLevel == 3 }.map(\.clientID)
        #expect(Set(ids).count == 6, "2 shared, 2 subscribers, the control's and the verifier's: \(ids)")
        #expect(ids.allSatisfy { $0.utf8.count <= 23 }, "\(ids)")
        #expect(server.connections.filter { $0.connect?.protocolLevel == 3 }.allSatisfy { $0.connackCode == 0 })
    }

    /// Issue 38, item 20: an edge node ignored an NCMD on a topic the broker rewrote (RabbitMQ
    /// 3.10: `spBv1.0/…` as `spBv1/0/…`) without a line; it is counted as `unmatched` and said,
    /// naming the filter it was meant for.
    @Test func aCommandOnATopicTheBrokerRewroteIsCountedAndNamed() throws {
        let server = try ScriptedMQTTServer(
            script: .init(publishAfterSubscribe: { filter in
                filter == "spBv1.0/plant/NCMD/line-1" ? [("spBv1/0/plant/NCMD/line-1", [0x08, 0x01])] : []
            }))
        let yaml = """
            devices:
              - name: filler
                publish: 5/s
                sparkplug: { groupId: plant, edgeNodeId: "line-{index}", nodes: 1 }
                payload: { fields: { speed: { constant: 5 } } }
            """
        let harness = try FleetHarness(yaml, port: server.port, settings: RunSettings(duration: .seconds(1), statsInterval: nil))
        harness.start()
        let result = try #require(try harness.result(timeout: 30))
        #expect(result.totals[.unmatched] == 1, "\(result.totals)")
        let said = harness.log.all.filter {
            $0.contains("the broker rewrote the topic: got 'spBv1/0/plant/NCMD/line-1' for filter 'spBv1.0/plant/NCMD/line-1'")
        }
        #expect(said.count == 1 && said[0].contains("counted as unmatched"), "\(harness.log.all)")
    }

    @Test func nothingIsPublishedBeforeAConnackHeldBackForTwoSeconds() throws {
        let server = try ScriptedMQTTServer(script: .init(connackDelay: 2))
        let result = try #require(
            try FleetHarness.run(device, port: server.port, settings: RunSettings(duration: .seconds(3), statsInterval: nil)))
        let connection = try #require(server.connections.first)
        let connack = try #require(connection.connackSentAt)
        #expect(connack - connection.acceptedAt >= 2)
        #expect(!server.publishes.isEmpty)
        #expect(server.publishes.allSatisfy { $0.receivedAt >= connack })
        // The device's clock starts at the CONNACK: about a second of a three-second run is left.
        #expect(result.totals[.scheduled] < 30)
        #expect(result.totals[.skippedOffline] == 0)
    }

    /// Refused credentials cannot get better by trying again: with every connection refused so,
    /// the run ends at the first refusal, naming the settings to check.
    @Test func refusedCredentialsOfEveryConnectionEndTheRunAtOnce() throws {
        let server = try ScriptedMQTTServer(script: .init(connackCode: 5))
        let result = try #require(
            try FleetHarness.run(
                device, port: server.port,
                settings: RunSettings(connectTimeout: .seconds(30), statsInterval: nil)))
        guard case .noConnection(let why) = result.reason else {
            Issue.record("expected no connection, got \(result.reason)")
            return
        }
        #expect(why.hasPrefix("every connection was refused: connection refused: ") && why.contains("not authorised"), "\(why)")
        #expect(why.contains("check the user name and password: --username, --password-file or DEVSIM_PASSWORD"), "\(why)")
        #expect(server.connections.count == 1, "no second attempt, no wait for the connect timeout")
    }

    /// With `--retry-refused` (an auth back end that starts late) refusals are retried, with the
    /// backoff, until the connect timeout.
    @Test func aRefusedConnectionEndsTheRunWithTheReasonAndIsRetriedOnlyWithBackoff() throws {
        let server = try ScriptedMQTTServer(script: .init(connackCode: 4))
        var settings = RunSettings(connectTimeout: .seconds(3), statsInterval: nil)
        settings.retryRefused = true
        let result = try #require(try FleetHarness.run(device, port: server.port, settings: settings))
        guard case .noConnection(let why) = result.reason else {
            Issue.record("expected no connection, got \(result.reason)")
            return
        }
        #expect(why.contains("bad user name or password"))
        let refusals = result.connectionErrors.filter { $0.key.contains("bad user name or password") }
        #expect(refusals.count == 1, "\(result.connectionErrors)")
        #expect(refusals.first?.value == server.connections.count, "one count per refused attempt")
        #expect(server.publishes.isEmpty)
        #expect(result.totals[.scheduled] == 0)
        // Backoff 0.5 s, 1 s, 2 s (±20%) within 3 s: at most four attempts, never hammering.
        let attempts = server.connections.map(\.acceptedAt)
        #expect((2...4).contains(attempts.count))
        for (gap, planned) in zip(zip(attempts, attempts.dropFirst()).map { $1 - $0 }, [0.5, 1, 2]) {
            #expect(gap >= planned * 0.8 - 0.05, "attempts \(attempts)")
        }
    }

    @Test func anAttemptWhoseConnackNeverComesIsGivenUpAndRetried() throws {
        let server = try ScriptedMQTTServer(scripts: [.init(sendConnack: false), .init()])
        let result = try #require(
            try FleetHarness.run(
                device, port: server.port,
                settings: RunSettings(duration: .seconds(3), connectTimeout: .seconds(5), connackTimeout: .seconds(1), statsInterval: nil)))
        let connections = server.connections
        try #require(connections.count >= 2)
        #expect(connections[1].acceptedAt - connections[0].acceptedAt >= 1)
        #expect(result.reason == .duration, "the run goes on once the second attempt is accepted")
        #expect(result.totals[.published] > 0)
        #expect(server.publishes.allSatisfy { $0.attempt == 2 })
    }

    @Test func aDroppedConnectionPausesTheDevicesAndTheNextConnackResumesThem() throws {
        let server = try ScriptedMQTTServer(scripts: [.init(closeAfterConnack: 1), .init()])
        let result = try #require(
            try FleetHarness.run(device, port: server.port, settings: RunSettings(duration: .seconds(3), statsInterval: nil)))
        let connections = server.connections
        try #require(connections.count >= 2)
        let closed = try #require(connections[0].closedAt)
        let resumed = try #require(connections[1].connackSentAt)
        let publishes = server.publishes
        #expect(publishes.contains { $0.attempt == 1 })
        #expect(publishes.contains { $0.attempt == 2 })
        #expect(!publishes.contains { $0.receivedAt > closed && $0.receivedAt < resumed })
        #expect(result.totals[.reconnects] == 1)
        #expect(result.totals[.skippedOffline] > 0)
        #expect(result.totals.accountsForEveryTick)
    }
}
