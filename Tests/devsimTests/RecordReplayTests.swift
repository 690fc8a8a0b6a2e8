import Foundation
import Glibc
import Scenario
import Testing
import TestSupport

/// Issue 30's first "must hold": three sources publishing at 4, 2 and 1 messages a second,
/// recorded by `devsim record` and replayed by `devsim run DIR/replay.yaml`: the same topics,
/// the same payloads in the same order per topic; and `--infer`'s scenario beside it is a valid
/// one. (Needs the replay and the inference of issue 30, items 2 and 3.)
@Suite(.tags(.integration), .notUnitOnly) struct RecordReplayTests {
    static let sources = """
        devices:
          - { name: fast, topic: "src/fast", publish: 4/s, qos: 1, payload: { style: flat, fields: { seq: { counter: 0 }, t: { uniform: { min: 0, max: 100 }, decimals: 2 } } } }
          - { name: mid, topic: "src/mid", publish: 2/s, qos: 1, payload: { style: flat, fields: { seq: { counter: 0 }, on: { bool: 0.5 } } } }
          - { name: slow, topic: "src/slow", publish: 1/s, qos: 0, payload: { style: flat, fields: { seq: { counter: 0 }, mode: { choice: { values: [a, b, c] } } } } }
        """

    @Test func threeSourcesRecordedAndReplayedPublishTheSamePayloadsInTheSameOrderPerTopic() throws {
        let broker = try MosquittoBroker()
        let port = String(broker.port)
        let scenario = try RunFiles.scenario("sources.yaml", Self.sources)
        defer { RunFiles.removeFolder(of: scenario) }
        let directory = URL(fileURLWithPath: scenario).deletingLastPathComponent().appendingPathComponent("rec")
        let recorder = try DevsimProcess(
            arguments: [
                "record", "--host", "127.0.0.1", "--port", port, "--topic", "src/#", "--output", directory.path, "--duration", "6s",
                "--stats-interval", "0", "--infer",
            ])
        #expect(recorder.waitForOutput(containing: "recording src/# from", inStderr: true, timeout: 20), "\(recorder.stderr)")
        let sources = try DevsimRun.start(scenario, port: broker.port, ["--seed", "7"])
        #expect(recorder.waitUntilExit(timeout: 60) == 0, "\(recorder.stderr)")
        sources.sendSignal(SIGINT)
        #expect(sources.waitUntilExit(timeout: 20) == 0, "\(sources.stderr)")
        let recorded = try Recording.load(path: directory.appendingPathComponent("recording.jsonl").path)
        #expect(Set(recorded.topics) == ["src/fast", "src/mid", "src/slow"], "\(recorded.topics)")
        let counts = Dictionary(grouping: recorded.messages, by: \.topic).mapValues(\.count)
        // 6 s at 4, 2 and 1 a second: about 24, 12 and 6, however the sources' start fell.
        #expect((counts["src/fast"] ?? 0) > (counts["src/mid"] ?? 0) && (counts["src/mid"] ?? 0) > (counts["src/slow"] ?? 0), "\(counts)")

        let inferred = directory.appendingPathComponent("inferred.yaml").path
        #expect(recorder.stderr.contains("a model of it: devsim sample \(inferred)"), "\(recorder.stderr)")
        let validated = try DevsimProcess.runToCompletion(args: ["validate", inferred], timeout: 30)
        #expect(validated.status == 0 && validated.stdout.contains("ok (3 device groups"), "\(validated.stdout)\(validated.stderr)")

        let watcher = try Subscriber(port: broker.port, topic: "src/#", qos: 1)
        let replay = try DevsimRun(
            directory.appendingPathComponent("replay.yaml").path, port: broker.port, ["--duration", "9s"], timeout: 60)
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(watcher.waitFor(count: recorded.messages.count, timeout: 20), "\(watcher.messages.count) of \(recorded.messages.count)")
        watcher.stop()
        for topic in recorded.topics {
            let expected = recorded.messages.filter { $0.topic == topic }.map(\.payload)
            let replayed = watcher.messages.filter { $0.topic == topic }.map(\.payload)
            #expect(replayed == expected, "\(topic): \(replayed.count) replayed, \(expected.count) recorded")
        }
    }
}
