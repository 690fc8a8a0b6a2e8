import Foundation
import Glibc
import Testing
import TestSupport

/// Found in a review of issue 29, item 1 (MQTT 5 properties and topic aliases), against a real
/// mosquitto: an alias is the connection's only once the broker has seen the PUBLISH that gives
/// it, and only within what the CONNACK of this connection allows.
@Suite(.tags(.integration), .notUnitOnly) struct MQTT5ReviewTests {
    private static let topic = "plant/meter-1/meters/power/telemetry"

    private static func scenario(publish: String = "20/s") -> String {
        """
        broker: { protocol: mqtt5, reconnect: { initial: 200ms, max: 400ms } }
        devices:
          - name: meter
            topic: "plant/{id}/meters/power/telemetry"
            publish: \(publish)
            payload: { fields: { power: { constant: 5 } } }
            properties: { userProperties: { site: "plant-{index}", device: "{id}" }, contentType: application/json, topicAlias: auto }
        """
    }

    /// The first PUBLISH on a topic carries the topic and its alias, 3 bytes more than the same
    /// PUBLISH in full: a broker whose Maximum Packet Size lies between the two takes the topic in
    /// full, and must never get the alias alone of a PUBLISH it did not receive (before the fix:
    /// the first failed as oversize, the second named an alias the broker never saw, and mosquitto
    /// dropped the connection for a protocol error, again at every connection).
    @Test func aFirstPublishOverTheMaximumPacketSizeGivesNoAlias() throws {
        // topic 36 bytes, payload {"params":{"power":5}} 22, properties 53 (16 + 18 + 19): in
        // full 1 + 1 + (2 + 36 + 1 + 53 + 22) = 116 bytes; with the alias 119; the alias alone 83.
        let broker = try MosquittoBroker(extraConfig: ["max_packet_size 117"])
        let subscriber = try MQTT5PropertiesTests.V5Subscriber(port: broker.port, topic: "plant/#")
        let file = try RunFiles.scenario("oversize-alias.yaml", Self.scenario())
        defer { RunFiles.removeFolder(of: file) }
        let devsim = try DevsimRun.start(file, port: broker.port, ["--messages", "6"], report: true)
        #expect(devsim.waitUntilExit(timeout: 60) == 0, "\(devsim.stderr)")
        let report = try RunFiles.report(file + ".json")
        #expect(report["published"] as? Int == 6 && report["failed"] as? Int == 0, "\(report)")
        #expect(report["reconnects"] as? Int == 0, "\(devsim.stderr)")
        let log = (try? String(contentsOfFile: broker.logPath, encoding: .utf8)) ?? ""
        #expect(!log.contains("protocol error"), "\(log)")
        #expect(TestClock.wait(timeout: 10, interval: 0.05) { subscriber.messages.count >= 6 }, "\(subscriber.messages)")
        #expect(subscriber.messages.allSatisfy { $0.hasPrefix(Self.topic + "|") }, "\(subscriber.messages)")
    }

    /// A CONNACK without a Topic Alias Maximum allows none (MQTT 5, 3.2.2.3.8), whatever the
    /// connection before was allowed: a broker back with `max_topic_alias 0` (or, with failover,
    /// another broker) gets every topic in full (before the fix: the last CONNACK's 10 was kept,
    /// and mosquitto dropped every new connection at its first alias, "Topic Alias invalid").
    @Test func aBrokerBackWithoutAliasesGetsTheTopicsInFull() throws {
        let broker = try MosquittoBroker()
        let before = try MQTT5PropertiesTests.V5Subscriber(port: broker.port, topic: "plant/#")
        let file = try RunFiles.scenario("alias-maximum.yaml", Self.scenario())
        defer { RunFiles.removeFolder(of: file) }
        let devsim = try DevsimRun.start(file, port: broker.port, ["--connect-timeout", "30s"])
        defer { devsim.terminate(grace: 1) }
        // Aliases in use: the messages after the first go by alias alone.
        #expect(TestClock.wait(timeout: 20, interval: 0.05) { before.messages.count >= 3 }, "\(devsim.stderr)")
        broker.stop()
        let config = broker.directory + "/mosquitto.conf"
        let handle = try #require(FileHandle(forWritingAtPath: config))
        handle.seekToEndOfFile()
        handle.write(Data("max_topic_alias 0\n".utf8))
        handle.closeFile()
        try broker.restart()
        let after = try MQTT5PropertiesTests.V5Subscriber(port: broker.port, topic: "plant/#")
        #expect(TestClock.wait(timeout: 20, interval: 0.05) { after.messages.count >= 5 }, "\(devsim.stderr)")
        #expect(devsim.terminate(grace: 10) == 0, "\(devsim.stderr)")
        #expect(!devsim.stderr.contains("Topic Alias invalid"), "\(devsim.stderr)")
        #expect(devsim.stderr.contains("the broker takes no topic aliases"), "\(devsim.stderr)")
    }
    /// A device a dashboard shows says its state at each CONNACK, on its telemetry topic, beside
    /// its schedule: that message carries the group's properties as its ticks do (before the
    /// fix: no content type, no expiry, which a retained state then kept for ever).
    @Test func theStateAtTheConnackCarriesTheProperties() throws {
        let broker = try MosquittoBroker()
        let subscriber = try MQTT5PropertiesTests.V5Subscriber(port: broker.port, topic: "plant/+/power")
        let file = try RunFiles.scenario(
            "state.yaml",
            """
            broker: { protocol: mqtt5 }
            devices:
              - name: meter
                topic: "plant/{id}/power"
                publish: 1/1h
                jitter: 30m
                availability: { topic: "plant/{id}/status" }
                properties: { contentType: application/json, messageExpiry: 5m }
                payload: { fields: { p: { constant: 1 } } }
            """)
        defer { RunFiles.removeFolder(of: file) }
        let devsim = try DevsimRun.start(file, port: broker.port, ["--seed", "3", "--duration", "1s"], report: true)
        #expect(devsim.waitUntilExit(timeout: 60) == 0, "\(devsim.stderr)")
        let report = try RunFiles.report(file + ".json")
        #expect(report["stateMessages"] as? Int == 1, "the first tick is up to 30 minutes away: \(report)")
        #expect(TestClock.wait(timeout: 10, interval: 0.05) { !subscriber.messages.isEmpty })
        #expect(subscriber.messages.allSatisfy { $0.contains("|C=application/json|") }, "\(subscriber.messages)")
    }
}
