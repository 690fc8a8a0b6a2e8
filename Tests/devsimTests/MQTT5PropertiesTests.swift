import Foundation
import Glibc
import Reactor
import Testing
import TestSupport

/// Issue 29, item 1, against a real mosquitto: a device group's MQTT 5 `properties:` reach an
/// independent MQTT 5 subscriber (`mosquitto_sub -V 5`) filled per device, and `topicAlias:
/// auto` sends each topic once per connection, within the broker's Topic Alias Maximum.
@Suite(.tags(.integration), .notUnitOnly) struct MQTT5PropertiesTests {
    /// `mosquitto_sub -V 5` printing each message's topic and properties, one line each.
    final class V5Subscriber: Sendable {
        private let lines = Locked<[String]>([])
        private let child: ChildProcess
        private let probe = "probe/\(getpid())/\(UUID().uuidString)"

        /// Returns once the subscription is live: a probe published after it came back.
        init(port: UInt16, topic: String) throws {
            let lines = self.lines
            child = try ChildProcess(
                executable: "mosquitto_sub",
                arguments: [
                    "-V", "5", "-h", "127.0.0.1", "-p", String(port), "-t", topic, "-t", probe,
                    "-F", "%t|P=%P|C=%C|E=%E|F=%F|R=%R|D=%D",
                ]
            ) { line, _ in lines.withLock { $0.append(line) } }
            let live = TestClock.wait(timeout: 10, interval: 0.2) { [probe] in
                _ = try? MosquittoPub.run(port: port, ["-t", probe, "-m", "x"], timeout: 2)
                return lines.withLock { $0.contains { $0.hasPrefix(probe) } }
            }
            guard live else { throw TestSupportError("mosquitto_sub -V 5 did not see its probe: \(child.stderrText)") }
        }

        deinit { _ = child.terminate(grace: 1) }

        /// The messages' lines, probes aside.
        var messages: [String] { lines.withLock { $0.filter { !$0.hasPrefix(probe) } } }
    }

    static func scenario(properties: String, count: Int = 2, shared: Bool = false, extra: String = "") -> String {
        """
        broker: { protocol: mqtt5 }
        devices:
          - name: meter
            count: \(count)
            topic: "plant/meters/{id}/telemetry/a-topic-long-enough-for-an-alias-to-save-bytes"
            publish: 20/s
            \(shared ? "connection: { shared: 1 }" : "")
            \(extra)
            payload: { fields: { power: { constant: 5 } } }
            properties: { \(properties) }
        """
    }

    @Test func aV5SubscriberSeesEachDevicesProperties() throws {
        let broker = try MosquittoBroker()
        let subscriber = try V5Subscriber(port: broker.port, topic: "plant/#")
        let file = try RunFiles.scenario(
            "properties.yaml",
            Self.scenario(
                properties: "userProperties: { site: \"plant-{index}\", device: \"{id}\" }, messageExpiry: 5m, "
                    + "contentType: application/json, payloadFormatIndicator: utf8, responseTopic: \"replies/{id}\", "
                    + "correlationData: \"corr-{id}\""))
        defer { RunFiles.removeFolder(of: file) }
        let run = try DevsimRun(file, port: broker.port, ["--messages", "6"], report: true, timeout: 60)
        let (status, stderr, report) = (run.status, run.stderr, try run.report())
        #expect(status == 0, "\(stderr)")
        #expect(TestClock.wait(timeout: 10, interval: 0.05) { subscriber.messages.count >= 6 }, "\(subscriber.messages)")
        for index in 1...2 {
            let mine = subscriber.messages.filter { $0.hasPrefix("plant/meters/meter-\(index)/") }
            #expect(mine.count == 3, "\(subscriber.messages)")
            for line in mine {
                #expect(line.contains("|P=site:plant-\(index) device:meter-\(index)|"), "\(line)")
                #expect(line.contains("|C=application/json|"), "\(line)")
                #expect(line.contains("|F=1|"), "\(line)")
                #expect(line.contains("|R=replies/meter-\(index)|"), "\(line)")
                #expect(line.hasSuffix("|D=corr-meter-\(index)"), "\(line)")
                // What is left of the expiry when the broker sends it on.
                let expiry = line.components(separatedBy: "|E=").last?.components(separatedBy: "|").first.flatMap { Int($0) }
                #expect(expiry.map { (1...300).contains($0) } == true, "\(line)")
            }
        }
        #expect(report["aliasBytesSaved"] as? Int == 0, "no topicAlias, nothing saved: \(report)")
    }

    /// Four topics on one connection to a broker that takes two aliases: two go by alias after
    /// their first message, two always in full; the subscriber gets every message on its full
    /// topic (the broker resolves the aliases), and the report counts the bytes saved.
    @Test func topicAliasesWithinTheBrokersMaximum() throws {
        let broker = try MosquittoBroker(extraConfig: ["max_topic_alias 2"])
        let subscriber = try V5Subscriber(port: broker.port, topic: "plant/#")
        let file = try RunFiles.scenario(
            "aliases.yaml", Self.scenario(properties: "topicAlias: auto, contentType: text/plain", count: 4, shared: true))
        defer { RunFiles.removeFolder(of: file) }
        let run = try DevsimRun(file, port: broker.port, ["--messages", "40"], report: true, timeout: 60)
        let (status, stderr, report) = (run.status, run.stderr, try run.report())
        #expect(status == 0, "\(stderr)")
        #expect(report["published"] as? Int == 40, "\(report)")
        #expect((report["connectionErrors"] as? [String: Int] ?? [:]).isEmpty, "\(report)")
        #expect(TestClock.wait(timeout: 10, interval: 0.05) { subscriber.messages.count >= 40 }, "\(subscriber.messages)")
        let topics = Set(subscriber.messages.compactMap { $0.components(separatedBy: "|").first })
        #expect(topics == Set((1...4).map { "plant/meters/meter-\($0)/telemetry/a-topic-long-enough-for-an-alias-to-save-bytes" }))
        // Each message by alias saves its topic's 70 bytes and more than its alias costs.
        let saved = report["aliasBytesSaved"] as? Int ?? 0
        #expect(saved > 0 && saved < 40 * 70, "\(report)")
    }

    /// Aliases are the connection's: after each new connection (here a lifecycle's), each topic
    /// goes in full again before its alias does, or the broker would end the connection.
    @Test func aliasesStartAnewWithEveryConnection() throws {
        let broker = try MosquittoBroker()
        let subscriber = try V5Subscriber(port: broker.port, topic: "plant/#")
        let file = try RunFiles.scenario(
            "reconnects.yaml",
            Self.scenario(properties: "topicAlias: auto", count: 1, extra: "lifecycle: { online: 500ms, offline: 200ms }"))
        defer { RunFiles.removeFolder(of: file) }
        let run = try DevsimRun(file, port: broker.port, ["--messages", "60"], report: true, timeout: 60)
        let (status, stderr, report) = (run.status, run.stderr, try run.report())
        #expect(status == 0, "\(stderr)")
        let log = (try? String(contentsOfFile: broker.logPath, encoding: .utf8)) ?? ""
        #expect(log.components(separatedBy: " as meter-1 ").count - 1 >= 2, "two connections at least: \(log)")
        #expect((report["connectionErrors"] as? [String: Int] ?? [:]).isEmpty, "\(report)")
        #expect(!log.contains("protocol error") && !log.contains("disconnected due to"), "\(log)")
        let published = report["published"] as? Int ?? 0
        #expect((report["aliasBytesSaved"] as? Int ?? 0) > 0, "\(report)")
        #expect(TestClock.wait(timeout: 10, interval: 0.05) { subscriber.messages.count >= published }, "\(subscriber.messages.count)")
    }

    @Test func aBrokerWithoutAliasesGetsTheTopicsInFullAndItIsSaidOnce() throws {
        let broker = try MosquittoBroker(extraConfig: ["max_topic_alias 0"])
        let subscriber = try V5Subscriber(port: broker.port, topic: "plant/#")
        let file = try RunFiles.scenario("none.yaml", Self.scenario(properties: "topicAlias: auto"))
        defer { RunFiles.removeFolder(of: file) }
        let run = try DevsimRun(file, port: broker.port, ["--messages", "10"], report: true, timeout: 60)
        let (status, stderr, report) = (run.status, run.stderr, try run.report())
        #expect(status == 0, "\(stderr)")
        #expect(report["aliasBytesSaved"] as? Int == 0, "\(report)")
        #expect(stderr.components(separatedBy: "the broker takes no topic aliases").count == 2, "once: \(stderr)")
        #expect(TestClock.wait(timeout: 10, interval: 0.05) { subscriber.messages.count >= 10 })
    }

    /// The dry run and `devsim sample` show what a device's messages carry.
    @Test func theDryRunAndSampleShowEachDevicesProperties() throws {
        let file = try RunFiles.scenario(
            "shown.yaml", Self.scenario(properties: "userProperties: { device: \"{id}\" }, messageExpiry: 1h, topicAlias: auto"))
        defer { RunFiles.removeFolder(of: file) }
        let dry = try DevsimProcess.runToCompletion(args: ["run", file, "--dry-run", "--messages", "2", "--seed", "1"], timeout: 30)
        #expect(dry.status == 0, "\(dry.stderr)")
        let lines = dry.stdout.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(
            lines.contains {
                $0.hasSuffix(
                    "\"properties\":{\"userProperties\":{\"device\":\"meter-1\"},\"messageExpiry\":3600,\"topicAlias\":\"auto\"}}")
            }, "\(dry.stdout)")
        let sample = try DevsimProcess.runToCompletion(args: ["sample", file, "--seed", "1"], timeout: 30)
        #expect(sample.status == 0, "\(sample.stderr)")
        #expect(
            sample.stdout.contains("\n  with userProperties device=meter-1, messageExpiry 3600s, topicAlias auto\n"), "\(sample.stdout)")
    }

    @Test func mqtt3IsRefusedBeforeConnecting() throws {
        let file = try RunFiles.scenario("v3.yaml", Self.scenario(properties: "contentType: text/plain"))
        defer { RunFiles.removeFolder(of: file) }
        let result = try DevsimProcess.runToCompletion(args: ["run", file, "--protocol", "mqtt311", "--duration", "1s"], timeout: 30)
        #expect(result.status == 2, "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "\(file):10:17: device group 'meter': 'properties' are MQTT 5's, and --protocol mqtt311 makes this run MQTT 3.1.1"),
            "\(result.stderr)")
    }
}
