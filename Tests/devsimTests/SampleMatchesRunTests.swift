import Foundation
import Testing
import TestSupport

/// `devsim sample` and `run --dry-run` show the payloads a run with the same seed publishes,
/// the state a device a dashboard shows says at its first CONNACK included (issue 25, item 5):
/// without it, the ticks they showed were one step behind the run's.
@Suite(.tags(.integration), .notUnitOnly) struct SampleMatchesRunTests {
    /// The first tick of each device put off by up to 40 ms: `shown` says its state at the
    /// CONNACK, before it. The counter counts messages, the sine follows the device's time, so a
    /// payload out of step with its tick differs.
    static let scenario = """
        defaults:
          publish: 20/s
          qos: 1
          jitter: 40ms
          payload: { style: flat, fields: { n: { counter: 0 }, wave: { sine: { min: 0, max: 1000, period: 10s }, decimals: 3 } } }
        devices:
          - name: shown
            topic: "said/{id}"
            availability: { topic: "said/{id}/status" }
          - name: plain
            topic: "said/{id}"
        """

    static let topics = ["said/shown-1", "said/plain-1"]

    @Test func sampleAndTheDryRunShowWhatARunPublishes() throws {
        let broker = try MosquittoBroker()
        let subscriber = try Subscriber(broker: broker, topic: "said/+", qos: 1)
        let file = try RunFiles.scenario("said.yaml", Self.scenario)
        defer { RunFiles.removeFolder(of: file) }
        let run = try DevsimRun(file, port: broker.port, ["--seed", "5", "--messages", "40"], report: true, timeout: 60)
        #expect(run.status == 0, "\(run.stderr)")
        let report = try RunFiles.report(file + ".json")
        #expect(report["stateMessages"] as? Int == 1, "shown's state at its CONNACK: \(report)")
        let sent = (report["published"] as? Int ?? 0) + (report["stateMessages"] as? Int ?? 0)
        #expect(subscriber.waitFor(count: sent, timeout: 10), "\(subscriber.messages.count) of \(sent)")
        var published: [String: [String]] = [:]
        for message in subscriber.messages { published[message.topic, default: []].append(message.payloadText) }

        let dry = try DevsimProcess.runToCompletion(args: ["run", file, "--dry-run", "--seed", "5", "--messages", "40"], timeout: 30)
        #expect(dry.status == 0, "\(dry.stderr)")
        let dryRun = try DryRunOutput.payloadsByTopic(dry.stdout)

        let sample = try DevsimProcess.runToCompletion(args: ["sample", file, "--seed", "5", "--count", "10"], timeout: 30)
        #expect(sample.status == 0, "\(sample.stderr)")
        let sampled = SampleOutput.payloadsByTopic(sample.stdout)

        // The --messages budget falls on the devices as the clock has it: compare what both hold.
        for topic in Self.topics {
            let run = published[topic] ?? [], shown = dryRun[topic] ?? [], sample = sampled[topic] ?? []
            let length = min(run.count, shown.count)
            #expect(length >= 10, "\(topic): \(run.count) published, \(shown.count) in the dry run")
            #expect(Array(run.prefix(length)) == Array(shown.prefix(length)), "\(topic): the run's\n\(run)\nthe dry run's\n\(shown)")
            #expect(sample.count >= 10 && Array(run.prefix(sample.count)) == sample, "\(topic): the run's\n\(run)\nsample's\n\(sample)")
        }
    }
}
