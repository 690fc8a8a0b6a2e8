import Foundation
import Testing
import TestSupport

/// Issue 40, item 1: a formula field holds its relation in every payload an independent
/// subscriber receives from a real mosquitto, each payload parsed as JSON here; and the dry run
/// and `sample` show the payloads the run publishes, formulas and all, for the same seed.
@Suite(.tags(.integration), .notUnitOnly) struct FormulaRunTests {
    static let scenario = """
        devices:
          - name: meter
            count: 4
            topic: "meters/{id}"
            publish: 20/s
            qos: 1
            payload:
              style: flat
              fields:
                temp_f: { expr: "temp_c * 1.8 + 32", decimals: 1 }
                temp_c: { randomWalk: { start: 21, step: 0.3, min: 15, max: 30 }, decimals: 1 }
                voltage: { gaussian: { mean: 230, stddev: 2 }, decimals: 1 }
                current: { uniform: { min: 0, max: 16 }, decimals: 2 }
                power: { expr: "voltage * current / 1000", decimals: 3 }
                state: { expr: "power > 2 ? 'high' : 'low'" }
                who: { expr: "id" }
                rank: { expr: "index" }
                noisy: { expr: "gaussian(0, 1) + random()", decimals: 4 }
        """

    static let topics = (1...4).map { "meters/meter-\($0)" }

    /// What every payload of `topic` must say: each formula the value of what the message shows
    /// (within half a unit of its last decimal, since both sides are rounded), and the device's.
    static func checkRelations(_ payload: String, on topic: String) throws {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: Any], "\(payload)")
        func number(_ key: String) throws -> Double { try #require((object[key] as? NSNumber)?.doubleValue, "\(key) in \(payload)") }
        let (tempC, tempF) = (try number("temp_c"), try number("temp_f"))
        #expect(abs(tempF - (tempC * 1.8 + 32)) <= 0.05 + 1e-9, "\(payload)")
        let (voltage, current, power) = (try number("voltage"), try number("current"), try number("power"))
        #expect(abs(power - voltage * current / 1000) <= 0.0005 + 1e-9, "\(payload)")
        #expect(object["state"] as? String == (power > 2 ? "high" : "low"), "\(payload)")
        #expect("meters/" + (object["who"] as? String ?? "") == topic, "\(payload)")
        #expect(try number("rank") == Double(topic.split(separator: "-").last.flatMap { Int($0) } ?? 0), "\(payload)")
    }

    @Test func everyPayloadASubscriberReceivesHoldsItsFormulas() throws {
        let broker = try MosquittoBroker()
        let subscriber = try Subscriber(broker: broker, topic: "meters/+", qos: 1)
        let file = try RunFiles.scenario("formulas.yaml", Self.scenario)
        defer { RunFiles.removeFolder(of: file) }
        let run = try DevsimRun(file, port: broker.port, ["--seed", "7", "--messages", "400"], report: true, timeout: 60)
        #expect(run.status == 0, "\(run.stderr)")
        let published = try #require(try RunFiles.report(file + ".json")["published"] as? Int)
        #expect(published == 400)
        #expect(subscriber.waitFor(count: published, timeout: 10), "\(subscriber.messages.count) of \(published)")
        var received: [String: [String]] = [:]
        for message in subscriber.messages {
            try Self.checkRelations(message.payloadText, on: message.topic)
            received[message.topic, default: []].append(message.payloadText)
        }
        #expect(Set(received.keys) == Set(Self.topics))
        // Some messages on each side of the threshold, so that the conditional was put to work.
        let states = subscriber.messages.map { $0.payloadText.contains(#""state":"high""#) }
        #expect(states.contains(true) && states.contains(false))

        let dry = try DevsimProcess.runToCompletion(args: ["run", file, "--dry-run", "--seed", "7", "--messages", "400"], timeout: 30)
        #expect(dry.status == 0, "\(dry.stderr)")
        let shown = try DryRunOutput.payloadsByTopic(dry.stdout)
        let sample = try DevsimProcess.runToCompletion(args: ["sample", file, "--seed", "7", "--count", "20"], timeout: 30)
        #expect(sample.status == 0, "\(sample.stderr)")
        let sampled = SampleOutput.payloadsByTopic(sample.stdout)
        // The --messages budget falls on the devices as the clock has it: compare what both hold.
        for topic in Self.topics {
            let run = received[topic] ?? [], dryRun = shown[topic] ?? [], sample = sampled[topic] ?? []
            let length = min(run.count, dryRun.count)
            #expect(length >= 50, "\(topic): \(run.count) received, \(dryRun.count) in the dry run")
            #expect(Array(run.prefix(length)) == Array(dryRun.prefix(length)), "\(topic): the run's\n\(run)\nthe dry run's\n\(dryRun)")
            // `sample` shows a group's first device.
            if topic == Self.topics[0] {
                #expect(sample.count == 20 && Array(run.prefix(sample.count)) == sample, "\(topic): the run's\n\(run)\nsample's\n\(sample)")
            }
            for payload in dryRun + sample { try Self.checkRelations(payload, on: topic) }
        }
    }
}
