import Foundation
import Glibc
import MQTT
import Scenario
import Testing
import TestSupport

/// Issue 30, item 1: `devsim record` against a real mosquitto, as a user runs it: what arrives is
/// in the recording exactly (topic, payload byte for byte, QoS, retain), a signal keeps what was
/// captured, and a broker that will not have it ends it with a clear message.
@Suite(.tags(.integration), .notUnitOnly) struct RecordCommandTests {
    private static func publish(_ port: UInt16, _ topic: String, _ arguments: [String]) throws {
        let result = try MosquittoPub.run(port: port, ["-t", topic] + arguments, timeout: 10)
        #expect(result.status == 0, "\(result.stderr)")
    }

    /// `devsim record` on `port`, into a new directory; returns it once subscribed.
    private static func record(port: UInt16, _ extra: [String]) throws -> (devsim: DevsimProcess, directory: URL) {
        let directory = try RunFiles.folder().appendingPathComponent("rec")
        let devsim = try DevsimProcess(
            arguments: ["record", "--host", "127.0.0.1", "--port", String(port), "--topic", "rec/#", "--output", directory.path] + extra)
        #expect(devsim.waitForOutput(containing: "recording rec/# from", inStderr: true, timeout: 20), "\(devsim.stderr)")
        return (devsim, directory)
    }

    /// A retained message, then two texts, a retained one and a binary payload on three topics.
    private static func publishAll(_ port: UInt16) throws -> [UInt8] {
        try publish(port, "rec/a", ["-q", "1", "-m", "{\"v\":1}"])
        try publish(port, "rec/b", ["-q", "2", "-r", "-m", "live \"retained\""])
        try publish(port, "rec/a", ["-q", "1", "-m", "{\"v\":2}"])
        let binary = (0...255).map(UInt8.init) + [0xFF, 0xFE, 0x00]
        let file = try RunFiles.folder().appendingPathComponent("binary")
        try Data(binary).write(to: file)
        defer { RunFiles.removeFolder(of: file.path) }
        try publish(port, "rec/c", ["-q", "0", "-f", file.path])
        return binary
    }

    private static func messages(_ directory: URL) throws -> [RecordedMessage] {
        try Recording.load(path: directory.appendingPathComponent("recording.jsonl").path).messages
    }

    @Test func recordsEveryMessageExactlyAndTheScenarioThatReplaysIt() throws {
        let broker = try MosquittoBroker()
        try Self.publish(broker.port, "rec/status", ["-q", "1", "-r", "-m", "online"])
        let (devsim, directory) = try Self.record(port: broker.port, ["--messages", "5", "--stats-interval", "0"])
        defer { RunFiles.removeFolder(of: directory.path) }
        let binary = try Self.publishAll(broker.port)
        #expect(devsim.waitUntilExit(timeout: 30) == 0, "\(devsim.stderr)")
        let messages = try Self.messages(directory)
        // In order per topic; a QoS 2 message may come after later ones on other topics.
        let byTopic = Dictionary(grouping: messages, by: \.topic)
        #expect(messages.first?.topic == "rec/status" && messages.count == 5, "\(messages)")
        let status = try #require(byTopic["rec/status"]?.first)
        let a = byTopic["rec/a"] ?? []
        let b = try #require(byTopic["rec/b"]?.first)
        let c = try #require(byTopic["rec/c"]?.first)
        // MQTT 5: the retained message sent at the subscription, and the live one published
        // retained, both keep the flag.
        #expect(status.payload == Array("online".utf8) && status.qos == .atLeastOnce && status.retain)
        #expect(a.map(\.text) == ["{\"v\":1}", "{\"v\":2}"] && a.allSatisfy { $0.qos == .atLeastOnce && !$0.retain }, "\(a)")
        #expect(b.text == "live \"retained\"" && b.qos == .exactlyOnce && b.retain, "\(b)")
        #expect(c.payload == binary && c.text == nil && c.qos == .atMostOnce && !c.retain)
        #expect(devsim.stderr.contains("finished: recorded 5 messages on 4 topics, "), "\(devsim.stderr)")
        // The scenario that replays the recording as it was written, named after its directory.
        let replay = try String(contentsOf: directory.appendingPathComponent("replay.yaml"), encoding: .utf8)
        #expect(replay == RecordingScenario.replay(Recording(messages: messages), file: "recording.jsonl", name: "rec"), "\(replay)")
    }

    @Test func underMQTT3LiveMessagesReadNotRetained() throws {
        let broker = try MosquittoBroker()
        try Self.publish(broker.port, "rec/status", ["-q", "1", "-r", "-m", "online"])
        let (devsim, directory) = try Self.record(port: broker.port, ["--messages", "5", "--protocol", "mqtt311", "--qos", "1"])
        defer { RunFiles.removeFolder(of: directory.path) }
        _ = try Self.publishAll(broker.port)
        #expect(devsim.waitUntilExit(timeout: 30) == 0, "\(devsim.stderr)")
        let messages = try Self.messages(directory)
        #expect(messages.first?.topic == "rec/status" && messages.first?.retain == true, "\(messages)")
        #expect(messages.dropFirst().allSatisfy { !$0.retain }, "\(messages)")
        // Subscribed at QoS 1: the QoS 2 message arrives at 1.
        #expect(messages.first { $0.topic == "rec/b" }?.qos == .atLeastOnce, "\(messages)")
    }

    @Test func aSignalKeepsWhatWasCapturedAndWritesTheReplay() throws {
        let broker = try MosquittoBroker()
        let (devsim, directory) = try Self.record(port: broker.port, ["--stats-interval", "100ms"])
        defer { RunFiles.removeFolder(of: directory.path) }
        for index in 1...3 { try Self.publish(broker.port, "rec/\(index)", ["-q", "1", "-m", "m\(index)"]) }
        #expect(devsim.waitForOutput(containing: "recording: 3 messages on 3 topics", inStderr: true, timeout: 20), "\(devsim.stderr)")
        devsim.sendSignal(SIGINT)
        #expect(devsim.waitUntilExit(timeout: 20) == 0, "\(devsim.stderr)")
        #expect(try Self.messages(directory).map(\.text) == ["m1", "m2", "m3"])
        #expect(devsim.stderr.contains("finished: recorded 3 messages on 3 topics, 6 B over "), "\(devsim.stderr)")
        #expect(devsim.stderr.contains("stopped by a signal"), "\(devsim.stderr)")
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("replay.yaml").path))
    }

    /// The broker restarted mid-recording: the recorder connects and subscribes again, the gap
    /// is counted, and the retained message the broker sends again at the new subscription is
    /// not recorded twice (MQTT 5 asks the broker not to send it; MQTT 3 marks it retained).
    @Test(arguments: ["mqtt5", "mqtt311"]) func aBrokerThatGoesAwayLeavesACountedGap(_ version: String) throws {
        let broker = try MosquittoBroker(persistent: true)
        try Self.publish(broker.port, "rec/status", ["-q", "1", "-r", "-m", "online"])
        let (devsim, directory) = try Self.record(port: broker.port, ["--protocol", version, "--stats-interval", "0"])
        defer { RunFiles.removeFolder(of: directory.path) }
        try Self.publish(broker.port, "rec/a", ["-q", "1", "-m", "before"])
        // Stopped by SIGTERM, mosquitto saves its retained messages, and has them again.
        try broker.restart()
        #expect(devsim.waitForOutput(containing: "record: subscribed again after", inStderr: true, timeout: 30), "\(devsim.stderr)")
        try Self.publish(broker.port, "rec/a", ["-q", "1", "-m", "after"])
        // The last message is in the file within a second of its arrival.
        let file = directory.appendingPathComponent("recording.jsonl").path
        #expect(
            TestClock.wait(timeout: 20, interval: 0.05) { (try? String(contentsOfFile: file, encoding: .utf8))?.contains("after") == true })
        devsim.sendSignal(SIGTERM)
        #expect(devsim.waitUntilExit(timeout: 20) == 0, "\(devsim.stderr)")
        let messages = try Self.messages(directory)
        #expect(messages.map(\.text) == ["online", "before", "after"], "\(messages)")
        #expect(devsim.stderr.contains("finished: recorded 3 messages on 2 topics, 17 B over "), "\(devsim.stderr)")
        #expect(devsim.stderr.contains(", 1 gap ("), "\(devsim.stderr)")
    }

    @Test func aDirectoryThatHoldsARecordingIsRefusedUnlessForced() throws {
        let broker = try MosquittoBroker()
        let directory = try RunFiles.folder(with: [
            "recording.jsonl": "{\"t\":0,\"topic\":\"x\",\"payload\":\"kept\"}\n", "replay.yaml": "name: old\n",
        ])
        defer { try? FileManager.default.removeItem(at: directory) }
        func record(port: UInt16, _ extra: [String]) throws -> (status: Int32?, stdout: String, stderr: String) {
            try DevsimProcess.runToCompletion(
                args: ["record", "--host", "127.0.0.1", "--port", String(port), "--topic", "rec/#", "--output", directory.path] + extra,
                timeout: 30)
        }
        let refused = try record(port: broker.port, [])
        #expect(refused.status == 2, "\(refused.stderr)")
        #expect(refused.stderr.contains("--output: '\(directory.path)' already holds a recording"), "\(refused.stderr)")
        #expect(try Self.messages(directory).map(\.text) == ["kept"])
        // Forced, the old recording stays until the new one begins: not for a broker never reached.
        let unreached = try record(port: try Loopback.freePort(), ["--force", "--connect-timeout", "1s"])
        #expect(unreached.status == 3, "\(unreached.stderr)")
        #expect(try Self.messages(directory).map(\.text) == ["kept"])
        let replay = directory.appendingPathComponent("replay.yaml").path
        #expect(FileManager.default.fileExists(atPath: replay))
        let forced = try record(port: broker.port, ["--force", "--duration", "100ms"])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(forced.stderr.contains("no message arrived on rec/#"), "\(forced.stderr)")
        #expect(!FileManager.default.fileExists(atPath: replay), "the old recording's scenario goes with it")
    }

    @Test func recordsOverTLSWithTheCAGivenAndNamesABadFile() throws {
        let certificates = try TestCertificates(host: "127.0.0.1")
        defer { certificates.remove() }
        let broker = try MosquittoBroker(extraConfig: certificates.listenerConfig)
        let parent = try RunFiles.folder()
        defer { try? FileManager.default.removeItem(at: parent) }
        let output = parent.appendingPathComponent("rec")
        let url = "mqtts://127.0.0.1:\(broker.port)"
        let devsim = try DevsimProcess(
            arguments: ["record", "--url", url, "--ca", certificates.ca, "--topic", "rec/#", "--output", output.path, "--messages", "1"])
        #expect(devsim.waitForOutput(containing: "recording rec/# from \(url)", inStderr: true, timeout: 20), "\(devsim.stderr)")
        try Self.publish(broker.port, "rec/tls", ["--cafile", certificates.ca, "-q", "1", "-m", "sealed"])
        #expect(devsim.waitUntilExit(timeout: 30) == 0, "\(devsim.stderr)")
        #expect(try Self.messages(output).map(\.text) == ["sealed"])
        let missing = parent.appendingPathComponent("none.pem").path
        let refused = try DevsimProcess.runToCompletion(
            args: ["record", "--url", url, "--ca", missing, "--topic", "#", "--output", output.path, "--force"], timeout: 30)
        #expect(refused.status == 2, "\(refused.stderr)")
        #expect(refused.stderr.contains("--ca: '\(missing)' does not exist"), "\(refused.stderr)")
    }

    @Test func anUnreachableBrokerEndsItWithExit3AndNoFiles() throws {
        let port = try Loopback.freePort()
        let parent = try RunFiles.folder()
        defer { try? FileManager.default.removeItem(at: parent) }
        let output = parent.appendingPathComponent("rec").path
        let result = try DevsimProcess.runToCompletion(
            args: ["record", "--host", "127.0.0.1", "--port", String(port), "--topic", "#", "--output", output, "--connect-timeout", "1s"],
            timeout: 30)
        #expect(result.status == 3, "\(result.stderr)")
        #expect(result.stderr.contains("no subscription granted within the connect timeout of 1.0s"), "\(result.stderr)")
        #expect(result.stderr.contains("Connection refused"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    @Test func refusedCredentialsEndItAtOnce() throws {
        let broker = try MosquittoBroker(users: ["recorder": "right"], allowAnonymous: false)
        let parent = try RunFiles.folder()
        defer { try? FileManager.default.removeItem(at: parent) }
        let result = try DevsimProcess.runToCompletion(
            args: [
                "record", "--host", "127.0.0.1", "--port", String(broker.port), "--topic", "#", "--output",
                parent.appendingPathComponent("rec").path, "--username", "recorder",
            ],
            env: ["DEVSIM_PASSWORD": "wrong"], timeout: 30)
        #expect(result.status == 3, "\(result.stderr)")
        #expect(result.stderr.contains("connection refused: Not authorized"), "\(result.stderr)")
    }

    /// Issue 38, item 15: the status line said `145.0s in` but not of how long.
    @Test func theStatusLineSaysHowFarIntoTheDurationItIs() throws {
        let broker = try MosquittoBroker()
        let (devsim, directory) = try Self.record(port: broker.port, ["--duration", "3s", "--stats-interval", "1s"])
        defer { RunFiles.removeFolder(of: directory.path) }
        #expect(devsim.waitUntilExit(timeout: 30) == 0, "\(devsim.stderr)")
        let lines = devsim.stderr.split(separator: "\n").filter { $0.contains("recording: ") }
        #expect(!lines.isEmpty && lines.allSatisfy { $0.hasSuffix("s of 3.0s") }, "\(devsim.stderr)")
    }
}
